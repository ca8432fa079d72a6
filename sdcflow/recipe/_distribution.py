"""What the Dask engine (``execution: {engine: dask}``) cannot run: the steps of a plan
it refuses, each with the reason, found at validation (before any data is read) by asking
each plugin how it distributes (:mod:`sdcflow.plugins.distribution`)."""

from __future__ import annotations

from ..errors import Problem
from ._model import Recipe
from .plan import Plan


def distribution_problems(recipe: Recipe, plan: Plan) -> list[Problem]:
    """Every step of ``plan`` that cannot run on partitioned data, with the reason."""
    out = []
    if len(plan.variants) > 1:
        out.append(recipe.doc.problem(("steps",), "grids of variants are not available on "
                                      "the Dask engine yet: run them with the in-memory engine"))
    for ps in plan.steps:
        why = None
        if ps.table is not None:
            why = None  # the table is built by map-reduce (sdcflow.tabular.build)
        elif ps.kind == "method" and ps.writes is None:
            why = "it changes the records themselves, which the Dask engine does not support"
        elif ps.result_nodes:
            why = "it combines other measures' results (not on the Dask engine yet)"
        else:
            got = ps.step.plugin.distributes(ps.params, ps.meta)
            why = got if isinstance(got, str) else None
        if why:
            out.append(recipe.doc.problem(
                ps.step.path, f"step '{ps.step.id}' ({ps.step.plugin_name}) cannot run on the "
                f"Dask engine: {why}"))
    return out
