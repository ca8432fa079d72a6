"""The plan: a DAG of step instances, in a deterministic execution order.

Data flow. The data move through the steps in the order the recipe lists them: each
step sees the data as left by the step listed before it (or by the step named in its
``input``; ``original`` is the data as loaded). A method replaces the columns it writes
(all of them, and the records, if it changes records, e.g. sampling). So every column a
step reads has one *producer* (the step that last wrote it, or ``original``), and the
DAG has an edge from that producer to the step; ``after`` adds ordering edges. Two
steps that touch different variables are therefore independent, and changing a step's
parameters only invalidates the steps that read what it wrote.

Metadata. The same walk (:func:`follow_data`) carries the variables' metadata as the
methods declare they leave it (:meth:`sdcflow.plugins.registry.Method.outputs`: a recode into
intervals makes a variable ordinal) and the step that last changed the records, so that
each step's variables, reads and writes are those of the data it really sees, and
validation can check each step against them.

Grids. A step with ``grid: {k: [2, 3]}`` becomes one instance per value (``kanon[k=2]``,
``kanon[k=3]``); every step downstream of it is repeated per variant, so measures give
one result per variant. Several grids multiply.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import networkx as nx

from ..data.dataset import Metadata, Variable
from ..data.households import household_id_for
from ..errors import Problem
from ..plugins.registry import DataOrder, with_defaults
from ._model import ORIGINAL, Recipe, StepSpec
from .grid import chosen_variant, grid_variants, variant_label  # noqa: F401 (re-exported)

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
    meta: Metadata | None = None  # the variables' metadata as the step sees them
    records: str = ORIGINAL  # the node that last changed the records the step sees

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


def build_plan(recipe: Recipe, columns: list[str]) -> Plan:
    """Plan ``recipe`` over data with ``columns``; raises :class:`PlanError` on cycles."""
    variants = grid_variants(recipe)
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
        flow = follow_data(recipe, params, columns)
        writes_of = flow.writes
        views = {sid: state.view() for sid, state in flow.after.items()}
        bases = {sid: state.view() for sid, state in flow.before.items()}
        metas = {sid: state.metadata(meta) for sid, state in flow.before.items()}
        step_deps: dict[str, set] = {}
        step_io: dict[str, tuple] = {}  # (reads, writes, reference) of each step
        for step in recipe.steps:
            base = bases[step.id]
            p = params[step.id]
            reads = _reads(recipe, step, p, metas[step.id], writes_of[step.id])
            gone = sorted(set(reads or ()) - set(base))
            if gone:
                raise PlanError([recipe.doc.problem(
                    step.path, f"steps[{step.index}]: {', '.join(map(repr, gone))} no longer "
                    "exist at this step (removed by an earlier step)")])
            writes = writes_of[step.id]
            deps = {base[c] for c in (base if reads is None or writes is None else reads) if c in base}
            if step.input and step.input != ORIGINAL:
                deps.add(step.input)
            # every step depends on its records, also one that reads no column (it counts them)
            deps.add(flow.before[step.id].records)
            ref = _reference(step, p)
            step_io[step.id] = (reads, writes, ref)
            if ref:
                deps.add(ref)
                ref_view = views[ref]
                deps |= {ref_view[c] for c in (ref_view if reads is None else
                                                reads | step.plugin.reference_reads(p))
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
                meta=metas[step.id],
                records=node_of.get(flow.before[step.id].records, ORIGINAL),
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


def _reads(recipe: Recipe, step: StepSpec, params: dict, meta, writes: set | None
           ) -> set | None:
    """What a step reads: a table step reads the variables its table is built from; a
    method that writes household-level variables also reads the household id (it acts
    once per household, see :mod:`sdcflow.data.households`)."""
    if step.table is not None:
        # and the column of record keys of a step that needs cell keys (the cell key method)
        wanted = getattr(step.plugin, "record_keys", None)
        keys = wanted(params) if callable(wanted) else None
        extra = {keys[0]} if keys is not None and keys[0] is not None else set()
        return set(recipe.tables[step.table].columns) | extra
    reads = step.plugin.reads(params, meta)
    if reads is None or step.kind != "method":
        return reads
    return reads | household_id_for(meta, reads | set(writes or ()))


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


def source_of(recipe: Recipe, step: StepSpec) -> str:
    """The id of the step whose output ``step`` reads (its ``input``, else the step listed
    before it), or ``original`` for the data as loaded."""
    if step.input == ORIGINAL or (step.input is None and step.index == 0):
        return ORIGINAL
    if step.input is not None:
        return step.input
    # the step listed before it, passing over disabled steps (enabled: false), which are
    # not run; (validation follows recipes whose broken steps were left out: the data as
    # loaded)
    previous = step.index - 1
    disabled = set(recipe.disabled.values())
    while previous in disabled:
        previous -= 1
    before = [s for s in recipe.steps if s.index == previous]
    return before[0].id if before else ORIGINAL


@dataclass(frozen=True)
class Column:
    """A column as a step sees it: the step that last wrote it (``producer``, or
    ``original``), its metadata there, every type its values can have (a method may
    leave an integer variable integer or continuous as the data decide), and the step
    that last changed its metadata (``changed_by``; None: as declared)."""

    producer: str
    variable: Variable | None
    types: tuple[str, ...] = ()
    changed_by: str | None = None


@dataclass
class DataState:
    """The data as a step sees them (or leaves them): the columns, the step that last
    changed the records themselves (``original``: the records as loaded), and which step
    removed each column that is gone."""

    columns: dict[str, Column]
    records: str = ORIGINAL
    removed: dict[str, str] = field(default_factory=dict)

    def view(self) -> dict[str, str]:
        """Column -> producing step."""
        return {c: col.producer for c, col in self.columns.items()}

    def metadata(self, declared: Metadata) -> Metadata:
        """The metadata of the variables as they are here (constraints as ``declared``)."""
        return Metadata({c: col.variable for c, col in self.columns.items()
                         if col.variable is not None}, declared.constraints, declared.broken)


@dataclass
class Flow:
    """What every step sees (``before``) and leaves (``after``), and what it writes."""

    before: dict[str, DataState]
    after: dict[str, DataState]
    writes: dict[str, set | None]

    def history(self, state: DataState, name: str) -> list[str]:
        """The steps that wrote column ``name`` on its way to ``state``, the last first,
        ending with ``original`` when the column goes back to the data as loaded (not
        when a step made it)."""
        out: list[str] = []
        column = state.columns.get(name)
        while column is not None:
            out.append(column.producer)
            before = self.before.get(column.producer)
            column = before.columns.get(name) if before is not None else None
        return out


def loaded_state(recipe: Recipe, columns: list[str]) -> DataState:
    """The data as loaded: every column as the recipe declares it."""
    return DataState({c: Column(ORIGINAL, recipe.variables.get(c),
                                (recipe.variables[c].type,) if c in recipe.variables else ())
                      for c in columns})


def follow_data(recipe: Recipe, params: Mapping[str, dict], columns: list[str]) -> Flow:
    """Follow the data through the steps (``params``: each step's resolved parameters):
    the columns each step sees, who wrote them, their metadata as the methods declare it
    (:meth:`sdcflow.plugins.registry.Method.outputs`; a method that declares nothing is taken to
    keep it) and whether the records are still those loaded. Steps with problems of
    their own (``ok`` false) change nothing. Raises :class:`PlanError` on an ``input``
    cycle."""
    declared = recipe.meta()
    start = loaded_state(recipe, columns)
    index = {s.id: s for s in recipe.steps}
    flow = Flow({}, {}, {})
    visiting: list[str] = []

    def after(step: StepSpec) -> DataState:
        if step.id in flow.after:
            return flow.after[step.id]
        if step.id in visiting:
            cycle = [*visiting[visiting.index(step.id):], step.id]
            raise PlanError([recipe.doc.problem(
                (*step.path, "input"),
                f"steps form a cycle through 'input': {' -> '.join(cycle)}")])
        visiting.append(step.id)
        source = source_of(recipe, step)
        base = after(index[source]) if source in index else start
        visiting.pop()
        flow.before[step.id] = base
        state = base
        if step.kind == "method":
            state, flow.writes[step.id] = _method_effect(step, params[step.id], base, declared)
        else:
            flow.writes[step.id] = set()
        flow.after[step.id] = state
        return state

    for step in recipe.steps:
        after(step)
    return flow


def _method_effect(step: StepSpec, params: dict, base: DataState,
                   declared: Metadata) -> tuple[DataState, set | None]:
    """The data after a method step, from what its plugin declares, and what it writes."""
    if not step.ok:
        return base, set()
    plugin = step.plugin
    meta = base.metadata(declared)
    writes = plugin.writes(params, meta)
    outputs = plugin.outputs(params, meta)
    columns = dict(base.columns)
    for name in (list(columns) if writes is None else sorted(writes)):
        old = columns.get(name)
        out = (outputs or {}).get(name)
        if out is None:  # not declared: the metadata stay as they were
            columns[name] = Column(step.id, old.variable if old else None,
                                   old.types if old else (), old.changed_by if old else None)
            continue
        var = out.variable
        if out.order_from_data:
            var = var.evolve(order=DataOrder(var.order or ()))
        changed = old is None or old.variable is None or old.types != out.types or \
            (old.variable.type, old.variable.order) != (var.type, var.order)
        columns[name] = Column(step.id, var, out.types,
                               step.id if changed else old.changed_by)
    removed = dict(base.removed)
    for name in plugin.removes(params, meta):
        if columns.pop(name, None) is not None:
            removed[name] = step.id
    records = step.id if plugin.changes_records(params, meta) else base.records
    return DataState(columns, records, removed), writes
