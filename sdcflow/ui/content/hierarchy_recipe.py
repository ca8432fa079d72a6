"""A hierarchy of :mod:`sdcflow.ui.content.hierarchy_builders` written into the recipe, in the
forms the recipe language has (through :class:`~sdcflow.ui.editing.recipe_edit.RecipeDocument`):

* ``declared``: ``variables.NAME.hierarchy`` (levels finest first, each value of the level
  below mapped to its parent): ``anonymize`` uses it by default, ``global_recode`` with
  ``level: NAME``; the language allows it for categorical and ordinal variables only;
* ``anonymize`` (a step's id): ``params.hierarchies.NAME``, as ``breaks`` (intervals: the
  limits of each level) or ``mask`` with ``levels`` (masking);
* ``global_recode`` (a level): a new ``global_recode`` step recoding the variable to that
  level: intervals as ``breaks`` with ``right: false`` (the ``[a,b)`` intervals of the
  hierarchy, the same labels), a declared hierarchy (written too) as ``level: NAME``.

Also the records per value of a column, as the builders name the values."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from ...kernels.non_perturbative.hierarchies import mask_levels
from ...kernels.non_perturbative.recode import number_text
from ..editing.recipe_edit import RecipeDocument
from .hierarchy_builders import TOP_LEVEL, BuilderError, Hierarchy

CATEGORICAL = ("categorical", "ordinal")


def value_counts(column: pd.Series, numeric: bool) -> dict[str, int]:
    """Records per distinct value (missing values left out), each value as the builders
    write it (numbers as :func:`number_text`: 23, not 23.0)."""
    counts = column.dropna().value_counts(sort=False)
    if numeric:
        return {number_text(float(v)): int(n) for v, n in counts.items()}
    return {str(v): int(n) for v, n in counts.items()}


def targets(builder: str, var_type: str, anonymize_steps: list[str]) -> list[tuple[str, str]]:
    """(value, label) of the places a hierarchy of ``builder`` for a variable of
    ``var_type`` can be written (a declared hierarchy needs a categorical or ordinal
    variable; anonymize's own forms are intervals and masking)."""
    categorical = var_type in CATEGORICAL
    out = []
    if categorical:
        out.append(("declared", "the variable's declared hierarchy (anonymize's default)"))
    if builder != "grouping":
        out += [(f"anonymize:{sid}", f"the hierarchies of step {sid} (anonymize)")
                for sid in anonymize_steps]
    if builder == "intervals" or categorical:
        out.append(("global_recode", "a new global_recode step recoding to one level"))
    return out


def read_recipe_data(text: str, path: Path):
    """The data of recipe ``text`` (the draft of ``path``), as a run reads them (a
    :class:`~sdcflow.data.Dataset`), even when the recipe has problems elsewhere (a
    hierarchy a step asks for and this page is to build); raises :class:`RecipeError`
    for a recipe whose data cannot be read."""
    from ...data import read_data
    from ...errors import Problem, RecipeError
    from ...recipe._load import _check_text

    recipe, problems = _check_text(text, path.name, path)
    if recipe is None:
        raise RecipeError(problems)
    if not recipe.data:
        raise RecipeError([Problem(path.name, None, None, "the recipe names no data"),
                           *problems])
    dataset, _source, findings = read_data(recipe.data, recipe.files, recipe.variables)
    if dataset is None:
        raise RecipeError([*problems, *(Problem(path.name, None, None, f.message)
                                        for f in findings)])
    return dataset


def write(doc: RecipeDocument, target: str, variable: str, builder: str,
          hierarchy: Hierarchy, level: int = 1) -> str:
    """Write ``hierarchy`` (made by ``builder``) for ``variable`` to ``target`` (see the
    module); ``level`` (1 = the finest generalised level) for ``global_recode``. Returns
    what was written, in words; raises :class:`BuilderError` for a target the builder
    cannot be written to."""
    if target == "declared":
        doc.set_variable(variable, hierarchy=hierarchy.levels())
        return f"variables.{variable}.hierarchy"
    if target.startswith("anonymize:"):
        sid = target.split(":", 1)[1]
        index = doc.step_index(sid)
        doc.set(["steps", index, "params", "hierarchies", variable],
                anonymize_spec(builder, hierarchy))
        return f"steps.{sid}.params.hierarchies.{variable}"
    if target == "global_recode":
        if not 1 <= level <= len(hierarchy.names):
            raise BuilderError(f"level {level}: the hierarchy has levels 1 to "
                               f"{len(hierarchy.names)}")
        if builder == "intervals":
            params = {"variable": variable, "breaks": hierarchy.breaks[level - 1],
                      "right": False}
            if level > len(hierarchy.breaks):
                raise BuilderError("the top level '*' is no interval: choose a level of "
                                   "intervals")
        else:
            doc.set_variable(variable, hierarchy=hierarchy.levels())
            params = {"variable": variable, "level": hierarchy.names[level - 1]}
        sid = doc.add_step({"id": f"recode_{variable}", "method": "global_recode",
                            "params": params})
        return f"steps.{sid}"
    raise BuilderError(f"no place {target!r} to write the hierarchy to")


def anonymize_spec(builder: str, hierarchy: Hierarchy) -> dict:
    """``anonymize``'s ``hierarchies`` entry for a hierarchy made by ``builder``."""
    top = bool(hierarchy.names) and hierarchy.names[-1] == TOP_LEVEL
    if builder == "intervals":
        spec: dict = {"breaks": hierarchy.breaks}
    elif builder == "masking":
        count = len(hierarchy.names) - (1 if top else 0)
        if hierarchy.labels[:count] != mask_levels(hierarchy.values, count):
            raise BuilderError("anonymize's mask does not pad shorter codes: write the "
                               "padded masking as the variable's declared hierarchy")
        spec = {"mask": True, "levels": count}
    else:
        raise BuilderError("groups go to the variable's declared hierarchy "
                           "(anonymize uses it by default)")
    if not top:
        spec["top"] = False
    return spec


def form_levels(form: Mapping, count: int) -> list[tuple[str, dict[str, list[str]]]]:
    """The grouping builder's levels from form fields ``g1_name``, ``g1_groups``, ...
    (blank levels left out)."""
    from .hierarchy_builders import parse_groups

    out = []
    for i in range(1, count + 1):
        name = str(form.get(f"g{i}_name", "") or "").strip()
        text = str(form.get(f"g{i}_groups", "") or "")
        if not name and not text.strip():
            continue
        if not name:
            raise BuilderError(f"level {i}: give the level a name")
        try:
            out.append((name, parse_groups(text)))
        except BuilderError as exc:
            raise BuilderError(f"level {name}: {exc}") from None
    return out


BUILDERS = ("intervals", "masking", "grouping")
GROUP_LEVELS = 4  # levels of groups the form offers


def _field_number(fields: Mapping, name: str, label: str, integer: bool = False,
                  default=None):
    text = str(fields.get(name, "") or "").strip()
    if not text:
        if default is None:
            raise BuilderError(f"{label}: give a number")
        return default
    try:
        value = float(text)
    except ValueError:
        raise BuilderError(f"{label}: {text!r} is not a number") from None
    if integer:
        if not value.is_integer():
            raise BuilderError(f"{label}: {text!r} is not a whole number")
        return int(value)
    return value


def build_from_fields(fields: Mapping, values, builder: str) -> Hierarchy:
    """The hierarchy the builder's form fields ask for on the column ``values``
    (``lower``, ``width``, ``levels``, ``merge`` (``2`` or ``2, 5``) for intervals;
    ``mask_levels`` and ``pad`` (``yes``: as ARX) for masking; ``g1_name``, ``g1_groups``... for groups; ``top``:
    ``no`` leaves out the level ``*``); raises :class:`BuilderError` for bad input."""
    from .hierarchy_builders import grouping, intervals, masking

    top = str(fields.get("top", "yes")) != "no"
    if builder == "intervals":
        merge_text = str(fields.get("merge", "") or "2")
        try:
            merge = [int(m) for m in merge_text.replace(",", " ").split()]
        except ValueError:
            raise BuilderError(f"merge: {merge_text!r} is not whole numbers") from None
        levels = _field_number(fields, "levels", "levels", True, 3)
        if len(merge) == 1:
            merge = merge * max(levels - 1, 0)
        return intervals(values, _field_number(fields, "lower", "lower bound"),
                         _field_number(fields, "width", "width"), levels, merge, top)
    if builder == "masking":
        text = str(fields.get("mask_levels", "") or "").strip()
        levels = _field_number(fields, "mask_levels", "masked characters", True) \
            if text else None
        return masking(values, levels, top, pad=str(fields.get("pad", "")) == "yes")
    if builder == "grouping":
        return grouping(values, form_levels(fields, GROUP_LEVELS), top)
    raise BuilderError(f"no builder {builder!r} (one of {', '.join(BUILDERS)})")
