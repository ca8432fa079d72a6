"""The plan: a DAG of step instances, in a deterministic execution order.

Data flow. The data move through the steps in the order the recipe lists them: each
step sees the data as left by the step listed before it (or by the step named in its
``input``; ``original`` is the data as loaded). A method replaces the columns it writes
(all of them, and the records, if it changes records, e.g. sampling). So every column a
step reads has one *producer* (the step that last wrote it, or ``original``), and the
DAG has an edge from that producer to the step; ``after`` adds ordering edges. Two
steps that touch different variables are therefore independent, and changing a step's
parameters only invalidates the steps that read what it wrote.

Grids. A step with ``grid: {k: [2, 3]}`` becomes one instance per value (``kanon[k=2]``,
``kanon[k=3]``); every step downstream of it is repeated per variant, so measures give
one result per variant. Several grids multiply.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field

import networkx as nx

from .errors import Problem
from .recipe._model import ORIGINAL, Recipe, StepSpec
from .registry import with_defaults

MAX_VARIANTS = 1000


@dataclass
class PlannedStep:
    """One instance of a step, with its resolved parameters and dependencies."""

    node: str
    step: StepSpec
    params: dict
    variant: dict  # grid assignments this instance depends on: {step id: {param: value}}
    view: dict  # column -> producing node, as this step sees the data
    reads: set | None
    writes: set | None
    deps: list[str] = field(default_factory=list)
    reference: dict | None = None  # a measure's reference data (column -> node), if not original
    result_nodes: dict = field(default_factory=dict)  # measure step id -> node it reads
    table_input: str | None = None  # node of the previous step on that table (None: build it)
    first_variant: int = 0  # the first grid variant the instance belongs to (for ordering)

    @property
    def kind(self) -> str:
        return self.step.kind

    @property
    def table(self) -> str | None:
        """The table of a table step."""
        return self.step.table

    def as_dict(self) -> dict:
        return {
            "node": self.node,
            "step": self.step.id,
            ("method" if self.kind == "method" else "measure"): self.step.plugin_name,
            "params": self.params,
            "variant": self.variant,
            "depends_on": self.deps,
            "reads": sorted(self.reads) if self.reads is not None else "all",
            "writes": (sorted(self.writes) if self.writes is not None else "all")
            if self.kind == "method" else [],
        }


@dataclass
class Plan:
    """Step instances in execution order, the DAG, and per variant the final data view."""

    steps: list[PlannedStep]
    graph: nx.DiGraph
    variants: list[dict]  # each: {step id: {param: value}}; [{}] without grids
    views: list[dict]  # per variant: step id -> {column -> producing node} after the step
    nodes_by_variant: list[dict]  # per variant: step id -> node

    def release_view(self, variant: int, step_id: str | None) -> dict:
        """Column -> producing node of the data after ``step_id`` (default: the last step)."""
        views = self.views[variant]
        return views[step_id] if step_id else views["__final__"]

    def node(self, name: str) -> PlannedStep:
        return next(s for s in self.steps if s.node == name)


class PlanError(Exception):
    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(map(str, problems)))


def variant_label(assignments: Mapping) -> str:
    """``k=2`` for one gridded step, ``a.k=2,b.p=5`` when several steps are gridded."""
    parts = []
    for step_id, values in sorted(assignments.items()):
        for param, value in sorted(values.items()):
            text = json.dumps(value, sort_keys=True, separators=(",", ":"))
            prefix = f"{step_id}." if len(assignments) > 1 else ""
            parts.append(f"{prefix}{param}={text}")
    return ",".join(parts)


def _variants(recipe: Recipe) -> list[dict]:
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


def build_plan(recipe: Recipe, columns: list[str]) -> Plan:
    """Plan ``recipe`` over data with ``columns``; raises :class:`PlanError` on cycles."""
    variants = _variants(recipe)
    if len(variants) > MAX_VARIANTS:
        raise PlanError([recipe.doc.problem(
            ("steps",), f"the grids give {len(variants)} variants; at most {MAX_VARIANTS}")])
    meta = recipe.meta()
    index = {s.id: s for s in recipe.steps}
    planned: dict[str, PlannedStep] = {}
    graph = nx.DiGraph()
    all_views, nodes_by_variant = [], []
    previous_table = _previous_table_steps(recipe)
    for variant_index, variant in enumerate(variants):
        params = {s.id: {**with_defaults(s.plugin.params, s.params), **variant.get(s.id, {})}
                  for s in recipe.steps}
        writes_of = {s.id: s.plugin.writes(params[s.id], meta) if s.kind == "method" else set()
                     for s in recipe.steps}
        views, bases = _views(recipe, params, meta, columns, writes_of, index)
        step_deps: dict[str, set] = {}
        step_io: dict[str, tuple] = {}  # (reads, writes, reference) of each step
        for step in recipe.steps:
            base = bases[step.id]
            p = params[step.id]
            reads = _reads(recipe, step, p, meta)
            gone = sorted(set(reads or ()) - set(base))
            if gone:
                raise PlanError([recipe.doc.problem(
                    step.path, f"steps[{step.index}]: {', '.join(map(repr, gone))} no longer "
                    "exist at this step (removed by an earlier step)")])
            writes = writes_of[step.id]
            deps = {base[c] for c in (base if reads is None or writes is None else reads) if c in base}
            if step.input and step.input != ORIGINAL:
                deps.add(step.input)
            ref = _reference(step, p)
            step_io[step.id] = (reads, writes, ref)
            if ref:
                deps.add(ref)
                ref_view = views[ref]
                deps |= {ref_view[c] for c in (ref_view if reads is None else reads)
                         if c in ref_view}
            deps.update(step.after)
            if step.kind == "measure":
                deps.update(step.plugin.results_from(p))
            if step.table is not None and previous_table.get(step.id):
                deps.add(previous_table[step.id])
            deps.discard(ORIGINAL)
            step_deps[step.id] = deps

        # Which grid steps each step descends from decides how it is labelled.
        g = nx.DiGraph()
        g.add_nodes_from(s.id for s in recipe.steps)
        g.add_edges_from((d, s) for s, ds in step_deps.items() for d in ds)
        try:
            cycle = nx.find_cycle(g)
        except nx.NetworkXNoCycle:
            cycle = None
        if cycle:
            names = [a for a, _ in cycle] + [cycle[0][0]]
            first = min((index[a] for a, _ in cycle), key=lambda st: st.index)
            hint = ""
            if any(index[a].after for a, _ in cycle):
                hint = (" ('after' waits for a step, and each step reads the data left by the"
                        " steps listed before it, so one of them cannot come first)")
            raise PlanError([recipe.doc.problem(
                first.path, f"steps form a cycle: {' -> '.join(names)}{hint}")])
        node_of: dict[str, str] = {}
        for step in recipe.steps:
            grid_ancestors = {a for a in nx.ancestors(g, step.id) | {step.id} if index[a].grid}
            sub = {a: variant[a] for a in sorted(grid_ancestors) if a in variant}
            node_of[step.id] = f"{step.id}[{variant_label(sub)}]" if sub else step.id
            if node_of[step.id] in planned:
                continue
            reads, writes, ref = step_io[step.id]
            base = bases[step.id]
            prev = previous_table.get(step.id)
            planned[node_of[step.id]] = PlannedStep(
                node=node_of[step.id], step=step, params=params[step.id], variant=sub,
                view={c: node_of.get(p, p) for c, p in base.items()},
                reads=reads, writes=writes,
                deps=sorted(node_of[d] for d in step_deps[step.id]),
                reference={c: node_of.get(p, p) for c, p in views[ref].items()} if ref else None,
                result_nodes={sid: node_of[sid] for sid in step.plugin.results_from(
                    params[step.id])} if step.kind == "measure" else {},
                table_input=node_of[prev] if prev else None,
                first_variant=variant_index,
            )
        named = {sid: {c: node_of.get(p, p) for c, p in v.items()} for sid, v in views.items()}
        named[ORIGINAL] = {c: ORIGINAL for c in columns}
        named["__final__"] = named[recipe.steps[-1].id]
        all_views.append(named)
        nodes_by_variant.append(dict(node_of))

    for ps in planned.values():
        graph.add_node(ps.node)
        graph.add_edges_from((d, ps.node) for d in ps.deps)
    # list order first, then the grid's own order of values (not the text of the ids)
    order = list(nx.lexicographical_topological_sort(
        graph, key=lambda n: (planned[n].step.index, planned[n].first_variant, n)))
    return Plan([planned[n] for n in order], graph, variants, all_views, nodes_by_variant)


def _reads(recipe: Recipe, step: StepSpec, params: dict, meta) -> set | None:
    """What a step reads: a table step reads the variables its table is built from."""
    if step.table is not None:
        return set(recipe.tables[step.table].columns)
    return step.plugin.reads(params, meta)


def _previous_table_steps(recipe: Recipe) -> dict[str, str | None]:
    """For each table step, the table step listed before it on the same table (whose
    table it continues), or None for the first (which builds the table)."""
    last: dict[str, str] = {}
    out: dict[str, str | None] = {}
    for step in recipe.steps:
        if step.table is not None:
            out[step.id] = last.get(step.table)
            last[step.table] = step.id
    return out


def _reference(step: StepSpec, params: dict) -> str | None:
    """The step whose data a measure compares with (its ``reference`` parameter), if any
    other than the original data."""
    ref = params.get("reference") if step.kind == "measure" else None
    return ref if isinstance(ref, str) and ref != ORIGINAL else None


def _views(recipe: Recipe, params: dict, meta, columns: list[str], writes_of: dict,
           index: dict) -> tuple[dict, dict]:
    """For each step: the view of the data it sees (``bases``) and leaves (``views``),
    as column -> producing step id (``writes_of``: each step's writes; ``index``: the
    steps by id)."""
    views: dict[str, dict] = {}
    bases: dict[str, dict] = {}
    visiting: list[str] = []

    def view_after(step: StepSpec) -> dict:
        if step.id in views:
            return views[step.id]
        if step.id in visiting:
            cycle = [*visiting[visiting.index(step.id):], step.id]
            raise PlanError([recipe.doc.problem(
                (*step.path, "input"),
                f"steps form a cycle through 'input': {' -> '.join(cycle)}")])
        visiting.append(step.id)
        if step.input == ORIGINAL or (step.input is None and step.index == 0):
            base = dict.fromkeys(columns, ORIGINAL)
        elif step.input is not None:
            base = view_after(index[step.input])
        else:
            base = view_after(recipe.steps[step.index - 1])
        visiting.pop()
        bases[step.id] = base
        view = dict(base)
        if step.kind == "method":
            writes = writes_of[step.id]
            for col in (view if writes is None else writes):
                view[col] = step.id
            for col in step.plugin.removes(params[step.id], meta):
                view.pop(col, None)
        views[step.id] = view
        return view

    for step in recipe.steps:
        view_after(step)
    return views, bases



