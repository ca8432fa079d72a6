"""The command line's parser: every command, its options and its help."""

from __future__ import annotations

import argparse
from pathlib import Path

from ._common import allow_path, positive
from .exploration import exploration, overrides_option
from .recipe_commands import cmd_init, cmd_plan, cmd_public_recipe, cmd_schema, cmd_validate
from .report_command import cmd_report
from .run_command import cmd_run
from .tool_commands import cmd_compile, cmd_methods


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__
    from .help import command_epilog, main_epilog

    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog="sdcflow", formatter_class=raw, epilog=main_epilog(),
        description="Declarative, reproducible statistical disclosure control: validate, "
                    "plan and run anonymisation recipes (YAML).")
    parser.add_argument("--version", action="version", version=f"sdcflow {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    sub = parser.add_subparsers(dest="command", required=True)

    def add(name: str, help: str) -> argparse.ArgumentParser:
        """A command, whose --help ends with its examples and the exit codes."""
        return sub.add_parser(name, help=help, description=help[:1].upper() + help[1:] + ".",
                              epilog=command_epilog(name), formatter_class=raw)

    def fmt(p):
        p.add_argument("--format", choices=("text", "json"), default="text",
                       help="text for people (default) or json for programs and CI")

    p = add("validate", help="check recipes (schema, semantics, data)")
    p.add_argument("recipes", nargs="+", metavar="RECIPE")
    p.add_argument("--no-data", action="store_true", help="do not read the data")
    allow_path(p)
    fmt(p)
    p.set_defaults(func=cmd_validate)

    p = add("plan", help="print the steps in execution order")
    p.add_argument("recipe", metavar="RECIPE")
    exploration(p)
    allow_path(p)
    fmt(p)
    p.set_defaults(func=cmd_plan)

    p = add("run", help="run a recipe and release if every check passes")
    p.add_argument("recipe", metavar="RECIPE")
    p.add_argument("--out", type=Path, default=None,
                   help="output directory (default: output/NAME next to the recipe)")
    p.add_argument("--no-cache", action="store_true",
                   help="recompute every step (the cache entries are refreshed)")
    p.add_argument("--dry-run", action="store_true",
                   help="validate (with the data checks) and plan, then print the steps "
                        "that would run and the files that would be written; runs and "
                        "writes nothing")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="show progress (default: on a terminal, unless --format json); "
                        "on standard error, as bars on a terminal, else one line per step")
    p.add_argument("--engine", choices=["memory", "dask"], default=None,
                   help="memory (default) or dask: partitioned data on a Dask cluster "
                        "(overrides the recipe's execution.engine)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="Dask: an existing cluster's scheduler (implies --engine dask)")
    p.add_argument("--workers", type=positive, default=None, metavar="N",
                   help="Dask: worker processes of the local cluster; in memory: threads "
                        "running independent steps")
    loud = p.add_mutually_exclusive_group()
    loud.add_argument("-q", "--quiet", action="store_true",
                      help="print nothing but errors (the exit code says the rest)")
    loud.add_argument("-v", "--verbose", action="store_true",
                      help="also print each step with its time (or that it came from the "
                           "cache) and the files written")
    exploration(p)
    allow_path(p)
    fmt(p)
    p.set_defaults(func=cmd_run)

    p = add("report", help="run a recipe (cached) and write its HTML (or PDF) report, "
                                      "also when a check fails")
    p.add_argument("recipe", metavar="RECIPE")
    p.add_argument("-o", "--output", type=Path, default=None,
                   help="the HTML file, or a PDF when it ends in .pdf (default: "
                        "output/NAME.report.html next to the recipe)")
    p.add_argument("--no-cache", action="store_true", help="recompute every step")
    p.add_argument("--external", action="store_true",
                   help="the external report (published measures only, as in public/)")
    p.add_argument("--pdf", action="store_true",
                   help="write the report as PDF (A4; needs the extra sdcflow[pdf])")
    allow_path(p)
    p.set_defaults(func=cmd_report)

    p = add("methods", help="list methods and measures with their parameters")
    p.add_argument("name", nargs="?", metavar="NAME",
                   help="show this method or measure in full: each parameter's type, "
                        "default and description, and an example step in YAML")
    fmt(p)
    p.set_defaults(func=cmd_methods)

    p = add("public-recipe", help="print the recipe's public form, whose sha256 the public "
                                  "manifest carries: the recipe without its seed and "
                                  "everything else that is not published")
    p.add_argument("recipe", metavar="RECIPE")
    p.add_argument("--sha256", action="store_true",
                   help="print the public form's sha256 only")
    p.add_argument("--check", metavar="PATH", default=None,
                   help="compare with a public manifest (or a run's directory or its "
                        "public/): exit 0 when it names this recipe, 1 when not")
    overrides_option(p)
    allow_path(p)
    p.set_defaults(func=cmd_public_recipe)

    p = add("init", help="write a starter recipe from a data file (CSV, Parquet, SPSS, "
                         "Stata or SAS): variables with guessed roles and types, local "
                         "suppression to 3-anonymity and microaggregation, k-anonymity "
                         "measured and checked before release; never replaces a file")
    p.add_argument("data", metavar="DATAFILE", type=Path)
    p.add_argument("-o", "--output", type=Path, default=Path("recipe.yaml"),
                   help="the recipe to write (default: recipe.yaml; never replaced)")
    p.set_defaults(func=cmd_init)

    p = add("schema", help="print the recipe JSON Schema")
    p.set_defaults(func=cmd_schema)

    p = add("compile", help="compile the numeric kernels ahead of time into the "
                                       "cache, so that no run pauses to compile")
    p.add_argument("--only", action="append", metavar="FAMILY",
                   help="compile these kernel families only (comma-separated or repeated): "
                        "mdav, linkage, rank_swap, rank_swap_attack, univariate, utility, "
                        "secondary")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="show progress (default: on a terminal)")
    fmt(p)
    p.set_defaults(func=cmd_compile)
    return parser
