"""The command line's parser: every command, its options and its help."""

from __future__ import annotations

import argparse
from pathlib import Path

from ._common import allow_path, positive
from .cache_command import cmd_cache
from .diff_command import cmd_diff
from .exploration import exploration, overrides_option
from .ptable_command import add_ptable_arguments, cmd_ptable
from .recipe_commands import cmd_init, cmd_plan, cmd_public_recipe, cmd_schema, cmd_validate
from .report_command import cmd_report
from .run_command import cmd_run
from .tool_commands import cmd_compile, cmd_methods
from .ui_command import cmd_ui


def build_parser() -> argparse.ArgumentParser:
    from .._version import __version__
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
    overrides_option(p)
    allow_path(p)
    fmt(p)
    p.set_defaults(func=cmd_validate)

    p = add("plan", help="print the steps in execution order")
    p.add_argument("recipe", metavar="RECIPE")
    exploration(p)
    allow_path(p)
    p.add_argument("--format", choices=("text", "json", "dot", "mermaid"), default="text",
                   help="text for people (default), json for programs, or the plan drawn "
                        "as a graph: dot (Graphviz: 'sdcflow plan R --format dot | dot "
                        "-Tsvg > plan.svg') or mermaid (a flowchart for Markdown)")
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
    overrides_option(p)
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
                        "secondary, tables, risk, lattice")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="show progress (default: on a terminal)")
    fmt(p)
    p.set_defaults(func=cmd_compile)

    p = add("diff", help="compare two runs: steps and their parameters, measures, checks "
                         "and released files; exit 0 when the same, 1 when they differ, "
                         "2 when a run cannot be read")
    p.add_argument("run_a", metavar="RUN_A",
                   help="a run's output directory (or its public/, or a manifest)")
    p.add_argument("run_b", metavar="RUN_B", help="the run to compare it with")
    fmt(p)
    p.set_defaults(func=cmd_diff)

    p = add("cache", help="show or clear the step cache of a recipe's folder")
    p.add_argument("action", choices=("info", "clear"),
                   help="info: where the cache is, its entries and size, per recipe; "
                        "clear: remove its entries (nothing else)")
    p.add_argument("where", nargs="?", default=".", metavar="RECIPE_OR_DIR",
                   help="a recipe, or the folder of recipes (default: the current folder)")
    fmt(p)
    p.set_defaults(func=cmd_cache)

    p = add("ptable", help="build a ptable of the cell key method (as the R package ptable's "
                           "create_cnt_ptable) and print or write it")
    add_ptable_arguments(p)
    p.set_defaults(func=cmd_ptable)

    p = add("ui", help="open the workbench in the browser: a local server on 127.0.0.1 whose "
                       "pages edit the recipe (comments kept), show its diff and run it "
                       "as 'sdcflow run' does")
    p.add_argument("target", nargs="?", metavar="RECIPE|DATAFILE|FOLDER",
                   help="the recipe to open, a data file to start from, or the project "
                        "folder (default: the current folder); the server reads and writes "
                        "only in that folder")
    p.add_argument("--port", type=int, default=0,
                   help="the port on 127.0.0.1 (default: a free one)")
    p.add_argument("--no-browser", action="store_true",
                   help="print the link, do not open a browser")
    p.set_defaults(func=cmd_ui)
    return parser
