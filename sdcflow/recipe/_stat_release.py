"""A release in the file format of a statistical package (SPSS, Stata, SAS transport)
must hold the released variables under their own names and with their labels whole:
names and labels that the format cannot hold are refused when the recipe is validated,
with the format's rule (:mod:`sdcflow.data.stat_limits`), rather than renamed or cut
without a word. Values (numbers beyond the format's range, text too long) are checked
on the released data before anything is written (:func:`release_value_problem`)."""

from __future__ import annotations

from pathlib import PurePosixPath

import pandas as pd

from ..data.stat_limits import LIMITS, label_problems, name_problems, value_problems
from ..errors import Problem
from ._model import ORIGINAL, Recipe


def release_format(recipe: Recipe) -> str | None:
    """The released file's format when it is one of :data:`LIMITS`, else None."""
    from ..data.io import table_format

    release = recipe.release
    if not isinstance(release.get("path"), str):
        return None
    fmt = table_format(release, PurePosixPath(release["path"]))
    return fmt if fmt in LIMITS else None


def release_position(recipe: Recipe) -> tuple:
    """Where a problem of the released file is reported: its format, else its path."""
    return ("release", "format") if "format" in recipe.release else ("release", "path")


def released_names(recipe: Recipe, variants: list) -> list[str]:
    """The variables the release holds (in any grid variant): those left after its
    step, identifiers excepted (they are never released)."""
    source = recipe.release.get("from", recipe.steps[-1].id if recipe.steps else ORIGINAL)
    out: dict[str, None] = {}
    for variant in variants:
        state = variant.flow.after.get(source)
        columns = state.columns if state is not None else {}
        for name, column in columns.items():
            var = column.variable or recipe.variables.get(name)
            if var is None or var.role != "identifier":
                out[name] = None
    if not variants or source == ORIGINAL:
        out.update(dict.fromkeys(n for n, v in recipe.variables.items()
                                 if v.role != "identifier"))
    return list(out)


def stat_name_problems(recipe: Recipe, variants: list) -> list[Problem]:
    """The released variable names the release's format cannot hold."""
    fmt = release_format(recipe)
    if fmt is None:
        return []
    recipe.released = released_names(recipe, variants)
    return [recipe.doc.problem(release_position(recipe), (
        f"release: '{name}' cannot be a variable name in {recipe.release['path']}: {why}; "
        "rename the column in the data, or release .csv or .parquet"))
        for name, why in name_problems(recipe.released, fmt)]


def stat_label_problems(recipe: Recipe, source: dict) -> list[Problem]:
    """The labels of released variables (declared in the recipe, or read from the input
    file: ``source``) that the release's format cannot hold whole."""
    from ..data.stat_files import labels_for_release

    fmt = release_format(recipe)
    if fmt is None:
        return []
    labels = labels_for_release(recipe.variables, source)
    released = set(recipe.released)
    labels = {"value_labels": {n: v for n, v in labels["value_labels"].items()
                               if n in released},
              "variable_labels": {n: v for n, v in (labels["variable_labels"] or {}).items()
                                  if n in released},
              "numeric_codes": labels["numeric_codes"]}
    numeric = set(labels["numeric_codes"]) | {n for n, v in recipe.variables.items()
                                              if v.is_numeric}
    out = []
    declared = {n for n, v in recipe.variables.items() if v.labels}
    from_file = set(source.get("value_labels") or {})
    for name, why in label_problems(labels["variable_labels"], labels["value_labels"],
                                    numeric, fmt):
        if "variable label" not in why and name in declared and name not in from_file:
            where, origin = ("variables", name, "labels"), "declared in the recipe"
        else:
            where, origin = release_position(recipe), "read from the data file"
        out.append(recipe.doc.problem(where, (
            f"release: {recipe.release['path']} cannot hold the labels of '{name}' {origin}: "
            f"{why}; shorten them, or release .csv or .parquet")))
    return out


def release_value_problem(frame: pd.DataFrame, fmt: str, path: str) -> str | None:
    """Why the released ``frame`` cannot be written as ``path`` in format ``fmt`` (values
    beyond what the format holds), or None."""
    if fmt not in LIMITS:
        return None
    found = [f"'{name}': {why}" for name, why in value_problems(frame, fmt)]
    if not found:
        return None
    return (f"{path} cannot hold the released values of " + "; ".join(found)
            + "; or release .csv or .parquet")
