"""Validation of household-level variables (``level: household``): the household id they
need, their values in the data (the same for every member of a household), and the
steps that act on them (one level per step)."""

from __future__ import annotations

from pathlib import PurePosixPath

from ..data import Dataset, Metadata
from ..data.households import consistency_problems
from ..data.io import table_format
from ..errors import Problem
from ._model import Recipe, StepSpec


def household_declarations(recipe: Recipe) -> list[Problem]:
    """A household-level variable needs exactly one household id (role household)."""
    doc = recipe.doc
    levelled = [n for n, v in recipe.variables.items() if v.level == "household"]
    ids = [n for n, v in recipe.variables.items() if v.role == "household"]
    out = []
    for name in levelled:
        path = ("variables", name, "level")
        if not ids:
            out.append(doc.problem(path, f"variables.{name}: a household-level variable needs "
                                   "the household id: declare it with role household "
                                   "(e.g. hid: {role: household})"))
        elif len(ids) > 1:
            out.append(doc.problem(path, f"variables.{name}: several variables have role "
                                   f"household ({', '.join(ids)}); household-level variables "
                                   "need one household id"))
        elif recipe.variables[name].role == "household":
            out.append(doc.problem(path, f"variables.{name}: the household id is not a "
                                   "household-level variable; leave out 'level'"))
    return out


def household_consistency(recipe: Recipe, dataset: Dataset, data_file: str) -> list[Problem]:
    """Household-level variables whose values differ between members of a household."""
    ids = [n for n, v in recipe.variables.items() if v.role == "household"]
    names = [n for n, v in recipe.variables.items()
             if v.level == "household" and v.role != "household" and n in dataset.frame]
    if len(ids) != 1 or not names or ids[0] not in dataset.frame:
        return []
    is_csv = "path" in recipe.data and table_format(
        recipe.data, PurePosixPath(str(recipe.data["path"]))) == "csv"
    found = consistency_problems(dataset.frame, ids[0], names, is_csv)
    return [recipe.doc.problem(("variables", name, "level"), f"{message} in {data_file}")
            for name, message in found.items()]


def step_household_problems(step: StepSpec, params: dict, meta: Metadata) -> list[tuple]:
    """A method acting once per household (``Plugin.households == "per_household"``)
    may write household-level variables only, and read nothing that differs between
    members (record-level strata or predictors)."""
    plugin = step.plugin
    if step.kind != "method" or step.table is not None or plugin.households != "per_household":
        return []
    ids = meta.names("household")
    writes = plugin.writes(params, meta)
    if writes is None or len(ids) != 1:
        return []
    level = {n: meta.variables[n].level for n in writes if n in meta.variables}
    household = sorted(n for n, lv in level.items() if lv == "household")
    if not household:
        return []
    path = (*step.path, "params")
    names = ", ".join(f"'{n}'" for n in household)
    records = sorted(n for n, lv in level.items() if lv != "household")
    if records:
        message = (f"steps[{step.index}].params: {plugin.name} would write household-level "
                   f"{names} and record-level {', '.join(map(repr, records))} in one step; a "
                   "step acts once per household or once per record: split it into two steps")
        return [(path, message, "error")]
    reads = plugin.reads(params, meta) or set()
    other = sorted(n for n in reads - {ids[0]}
                   if n in meta.variables and meta.variables[n].level != "household")
    if other:
        message = (f"steps[{step.index}].params: {plugin.name} acts on household-level "
                   f"{names} once per household, but also reads record-level "
                   f"{', '.join(map(repr, other))}, which can differ between members: declare "
                   "them level: household if every member has the same value, or leave them "
                   "out of this step")
        return [(path, message, "error")]
    return []
