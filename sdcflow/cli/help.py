"""The texts of ``sdcflow --help`` and ``sdcflow COMMAND --help``: examples and the exit
codes (the contract of the "Command line" page, docs/cli.md)."""

from __future__ import annotations

EXIT_CODES = """\
exit codes:
  0  success: the recipe is valid, or the release was written
  1  a mistake in the recipe, the data or the output directory (every problem is
     printed as file:line:col: message); nothing is written
  2  wrong command-line usage
  3  a release check failed: nothing is released, an earlier release in the output
     directory is withdrawn; the report of the failed run there says why
  4  an internal error, a bug in sdcflow or a plugin (--debug shows the traceback;
     please report it)"""

EXAMPLES = """\
examples:
  sdcflow init data/survey.csv -o survey.yaml     write a starter recipe from a data file
  sdcflow validate survey.yaml                    check it (schema, semantics, the data)
  sdcflow methods                                 every method and measure
  sdcflow methods global_recode                   one in full, with an example step
  sdcflow run survey.yaml --dry-run               what would run and be written
  sdcflow run survey.yaml                         run; release if every check passes
  sdcflow validate --format json recipes/*.yaml   in CI (see docs/cli.md)"""

# one example (or a few) per command: shown at the end of ``sdcflow COMMAND --help``
COMMAND_EXAMPLES = {
    "validate": ["sdcflow validate recipes/quickstart.yaml",
                 "sdcflow validate --no-data recipes/*.yaml",
                 "sdcflow validate --format json recipe.yaml"],
    "plan": ["sdcflow plan recipes/quickstart.yaml",
             "sdcflow plan --format json recipes/quickstart.yaml",
             "sdcflow plan --format dot recipes/quickstart.yaml > plan.dot",
             "sdcflow plan --format mermaid recipes/quickstart.yaml",
             "sdcflow plan recipes/quickstart.yaml --select age10+"],
    "run": ["sdcflow run recipes/quickstart.yaml",
            "sdcflow run recipes/quickstart.yaml --dry-run",
            "sdcflow run recipe.yaml --out release --no-cache",
            "sdcflow run recipe.yaml --engine dask --workers 2",
            "sdcflow run recipes/quickstart.yaml -q",
            "sdcflow run recipes/quickstart.yaml --set steps.risk.params.alpha=1 -v",
            "sdcflow run recipes/quickstart.yaml --select risk_age",
            "sdcflow run recipes/quickstart.yaml --until relat_groups"],
    "report": ["sdcflow report recipes/quickstart.yaml",
               "sdcflow report recipe.yaml --external -o public-report.html",
               "sdcflow report recipe.yaml -o report.pdf"],
    "methods": ["sdcflow methods", "sdcflow methods microaggregation",
                "sdcflow methods k_anonymity --format json"],
    "public-recipe": ["sdcflow public-recipe recipe.yaml",
                      "sdcflow public-recipe recipe.yaml --sha256",
                      "sdcflow public-recipe recipe.yaml --check output/NAME"],
    "schema": ["sdcflow schema > recipe.schema.json"],
    "compile": ["sdcflow compile", "sdcflow compile --only mdav,linkage"],
    "ui": ["sdcflow ui recipes/quickstart.yaml",
           "sdcflow ui data/survey.csv",
           "sdcflow ui --no-browser --port 8765 ."],
    "init": ["sdcflow init data/survey.csv",
             "sdcflow init data/survey.csv -o survey.yaml"],
    "diff": ["sdcflow diff output/survey output/survey-v2",
             "sdcflow diff output/survey/public release-2025/public",
             "sdcflow diff --format json output/a output/b"],
    "cache": ["sdcflow cache info", "sdcflow cache info recipes/quickstart.yaml",
              "sdcflow cache clear recipes"],
    "ptable": ["sdcflow ptable 5 3 2",
               "sdcflow ptable 5 3 2 --format tau-argus -o ptable.txt",
               "sdcflow ptable 4 1.5 --pstay 0.5 --format csv -o ptable.csv"],
}

# commands whose exit codes are not the contract's (diff says 1 for "the runs differ",
# as diff(1) and cmp(1) do)
COMMAND_EXIT_CODES = {
    "diff": """\
exit codes:
  0  success: the runs are the same (the sdcflow version or the environment may differ)
  1  the runs differ
  2  a run cannot be compared (no manifest, unreadable), or wrong command-line usage
  4  an internal error, a bug in sdcflow (--debug shows the traceback; please report it)""",
}


def main_epilog() -> str:
    """The end of ``sdcflow --help``."""
    return (f"{EXAMPLES}\n\n{EXIT_CODES}\n\n"
            "'sdcflow COMMAND --help' shows a command's options and examples.")


def command_epilog(command: str) -> str:
    """The end of ``sdcflow COMMAND --help``: its examples and the exit codes."""
    lines = ["example" + ("s" if len(COMMAND_EXAMPLES[command]) > 1 else "") + ":"]
    lines += [f"  {line}" for line in COMMAND_EXAMPLES[command]]
    return "\n".join(lines) + "\n\n" + COMMAND_EXIT_CODES.get(command, EXIT_CODES)
