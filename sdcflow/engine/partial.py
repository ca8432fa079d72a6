"""Partial runs (``--select``, ``--until``): run part of the plan's DAG, as dbt's
``--select model+`` and Kedro's ``--to-nodes`` do, to look at a step's results without
running the whole recipe.

* ``--select STEP``: the step and the steps it needs (its ancestors in the DAG);
* ``--select STEP+``: the step, every step downstream of it (its descendants), and the
  steps all of these need;
* ``--until STEP``: every step the plan runs before it, and the step itself (a prefix of
  the execution order, which holds the step's ancestors and the steps listed before it).

``--select`` may be given several times (the union). A step with a grid selects each of
its instances.

A partial run never releases: its checks did not all run. It evaluates the checks whose
measures all ran, says which were not evaluated, and writes the internal outputs only
(``measures.json``, the report, the manifest, all marked partial), never ``public/``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import networkx as nx

from ..errors import Problem, RecipeError
from ..recipe import Recipe
from ..recipe.plan import Plan


@dataclass(frozen=True)
class Selection:
    """The steps a partial run asks for: ``select`` (``STEP`` or ``STEP+``, repeatable)
    or ``until`` (``STEP``)."""

    select: tuple[str, ...] = ()
    until: str | None = None

    def __bool__(self) -> bool:
        return bool(self.select) or self.until is not None

    def as_dict(self) -> dict:
        out: dict = {}
        if self.select:
            out["select"] = list(self.select)
        if self.until is not None:
            out["until"] = self.until
        return out


def selected_nodes(recipe: Recipe, plan: Plan, selection: Selection) -> list[str]:
    """The step instances (nodes) of ``plan`` a partial run runs, in plan order.

    Raises :class:`RecipeError` (at the ``--select``/``--until`` argument) for a step id
    the recipe does not have."""
    nodes_of: dict[str, list[str]] = {}
    for ps in plan.steps:
        nodes_of.setdefault(ps.step.id, []).append(ps.node)
    wanted: set[str] = set()
    problems = []
    for arg in selection.select:
        sid, downstream = (arg[:-1], True) if arg.endswith("+") else (arg, False)
        if sid not in nodes_of:
            problems.append(_unknown(recipe, f"--select {arg}", sid))
            continue
        roots = set(nodes_of[sid])
        if downstream:
            for node in list(roots):
                roots |= nx.descendants(plan.graph, node)
        for node in roots:
            wanted |= {node} | nx.ancestors(plan.graph, node)
    if selection.until is not None:
        if selection.until not in nodes_of:
            problems.append(_unknown(recipe, f"--until {selection.until}", selection.until))
        else:
            order = [ps.node for ps in plan.steps]
            last = max(order.index(n) for n in nodes_of[selection.until])
            wanted |= set(order[:last + 1])
    if problems:
        raise RecipeError(problems)
    return [ps.node for ps in plan.steps if ps.node in wanted]


def _unknown(recipe: Recipe, where: str, sid: str) -> Problem:
    from difflib import get_close_matches

    ids = [s.id for s in recipe.steps]
    close = get_close_matches(sid, ids, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    return Problem(where, None, None, f"the recipe has no step '{sid}'{hint}; its steps: "
                                      f"{', '.join(ids)}")


def partial_plan(plan: Plan, nodes: list[str]) -> Plan:
    """``plan`` with only the step instances ``nodes`` (closed under their
    dependencies); the variants and views stay those of the whole plan."""
    keep = set(nodes)
    return replace(plan, steps=[ps for ps in plan.steps if ps.node in keep],
                   graph=plan.graph.subgraph(keep).copy())


def evaluable_checks(recipe: Recipe, plan: Plan, ran: set[str], variants: list[int]
                     ) -> tuple[list, list]:
    """The recipe's checks split into those whose measures all ran (in each of
    ``variants``) and those that cannot be evaluated in this partial run."""
    ready, waiting = [], []
    for check in recipe.checks:
        heads = {name.split(".")[0] for name in check.expr.names}
        ok = all(plan.nodes_by_variant[v].get(h) in ran for v in variants for h in heads)
        (ready if ok else waiting).append(check)
    return ready, waiting
