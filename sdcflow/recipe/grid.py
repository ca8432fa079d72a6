"""Grids of step parameters: the variants they make (every combination of the gridded
steps' values), their labels, and the one a recipe releases. See :mod:`sdcflow.recipe.plan`."""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ._model import Recipe


def variant_label(assignments: Mapping) -> str:
    """``k=2`` for one gridded step, ``a.k=2,b.p=5`` when several steps are gridded."""
    parts = []
    for step_id, values in sorted(assignments.items()):
        for param, value in sorted(values.items()):
            text = json.dumps(value, sort_keys=True, separators=(",", ":"))
            prefix = f"{step_id}." if len(assignments) > 1 else ""
            parts.append(f"{prefix}{param}={text}")
    return ",".join(parts)


def grid_variants(recipe: Recipe) -> list[dict]:
    """Every combination of the steps' grid values: ``{step id: {param: value}}`` each
    (``[{}]`` without grids)."""
    axes = []
    for step in recipe.steps:
        for param, values in sorted(step.grid.items()):
            axes.append([(step.id, param, v) for v in values])
    out = []
    for combo in itertools.product(*axes):
        variant: dict = {}
        for step_id, param, value in combo:
            variant.setdefault(step_id, {})[param] = value
        out.append(variant)
    return out or [{}]


def chosen_variant(variants: list[dict], wanted: Mapping | None) -> int | None:
    """Index of the variant ``release.variant`` (``wanted``: ``{param: value}`` or
    ``{step.param: value}``) picks; the only one without grids; None: a sweep without a
    choice (or a choice that matches none)."""
    if len(variants) == 1:
        return 0
    if not wanted:
        return None
    for i, variant in enumerate(variants):
        flat: dict = {}
        for step_id, values in variant.items():
            for param, value in values.items():
                flat[f"{step_id}.{param}"] = value
                flat.setdefault(param, value)
        if all(flat.get(k) == v for k, v in wanted.items()):
            return i
    return None
