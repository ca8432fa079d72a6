"""The release policy: what may be released, and what may be released together (recipe guide,
"Release policy"). Decided from the recipe alone, along the data flow of the released
grid variant (:func:`sdcflow.recipe.plan.follow_data`: which step wrote each column a released
artefact holds, from which columns, and which step last changed the records).

1. **Defaults protect.** Every released artefact (the records, ``release.path``, and
   each table, ``release.tables``) needs a protection step acting on it: a method that
   declares it protects (:attr:`sdcflow.plugins.registry.Method.protects`) among the steps whose
   output went into its values (for a table: a protecting step on the table itself, or
   one on the records it is counted from, as targeted record swapping protects the
   census tables counted from the swapped records). Where no protection step acts, the
   recipe states that the data are safe as they are by a check on a risk measure
   (:attr:`sdcflow.plugins.registry.Measure.risk_measure`) of exactly the released data; that
   check must then pass when the recipe runs, or nothing is released (exit 3). Without
   either, the recipe is refused. Removing identifiers (every release does) or other
   variables is not protection, nor is replacing a graph's node labels.

2. **Artefacts released together are attacked together** (Hundepool et al.,
   "Statistical Disclosure Control", 2012, on linked tables and on tables beside the
   microdata they are counted from). Validation refuses, unless ``release.acknowledge``
   states why it is safe here:

   - ``recount``: a table protected by its own steps (suppressed, rounded, adjusted,
     perturbed) released beside the records it is counted from, holding some of its
     variables as it counted them (or versions derived one from the other): recounting
     the records gives the table's cells over them, and the protection is undone.
   - ``original_table``: a table that no step of its own protects, counted from values
     of a variable that the released records carry protected further (the table counted
     before a swap, a suppression, a sample): its exact counts give away what that
     protection hides.
   - ``linked_apart``: two released tables sharing cells (a dimension counted from the
     same records: a table and its own margin, region x sex beside region x age), at
     least one protected, but not as linked tables (``linked:``): a cell suppressed or
     perturbed in one is read or averaged from the other. Steps that give a cell the
     same protected value in every table (the cell key method, with the same
     parameters: :attr:`sdcflow.plugins.registry.TableMethod.consistent_across_tables`) are
     consistent apart; tables protected by differentially private steps only are too
     (the privacy budget composes their spends).
   - ``published_counts``: a measure published in ``public/`` (``release.measures``)
     whose result counts the records by variables of a protected table, as the table
     counted them (:attr:`sdcflow.plugins.registry.Measure.counts_combinations`): its figures
     (the records in combinations of fewer than k) are sums of the table's original
     cells.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import Problem, did_you_mean
from ..plugins import registry
from ._model import ORIGINAL, CheckSpec, Recipe, StepSpec, TableSpec

# the attacks release.acknowledge may name (the schema's enum lists the same names)
ATTACKS: dict[str, str] = {
    "recount": "a protected table recounted from the released records it is counted from",
    "original_table": "a table counting values that the released records protect further",
    "linked_apart": "tables sharing cells protected one by one, not as linked tables",
    "published_counts": "a published measure counting the records by a protected table's "
                        "variables",
}


@dataclass
class Artefact:
    """A released artefact as the policy sees it: the records it holds and, for each
    column, the step that wrote the values it holds (its version)."""

    key: str  # "records" or "table:ID" (in the manifest)
    label: str  # how messages name it
    path: tuple  # its position in the recipe
    records: str  # the step that last changed its records (original: as loaded)
    columns: dict[str, str]  # column -> the step that wrote its values (original: loaded)
    state: object | None  # the data it is taken from (a DataState; None: read from a file)
    table: TableSpec | None = None
    group: str | None = None  # the table its steps work on (its table of linked tables)
    own: list[StepSpec] = field(default_factory=list)  # its protecting table steps
    protected_by: list[str] = field(default_factory=list)
    vouched_by: list[CheckSpec] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.table.id if self.table is not None else ""


@dataclass
class Finding:
    """A joint-release attack found: refused unless acknowledged."""

    attack: str
    tables: tuple[str, ...]
    path: tuple
    message: str
    key: bool = False


@dataclass
class ReleasePolicy:
    """What validation found of the release: for each artefact, the steps that protect
    it or (when none does) the checks that vouch for it, and the acknowledged attacks
    with their reasons. The full manifest records it (``release_policy``)."""

    artefacts: dict[str, dict]
    acknowledged: list[dict]

    def vouching(self) -> dict[str, list[str]]:
        """Artefact label -> the checks it is released on, where nothing protects it."""
        return {a["label"]: a["vouched_by"] for a in self.artefacts.values()
                if a.get("vouched_by")}

    def as_dict(self) -> dict:
        return {"artefacts": {k: {f: v for f, v in a.items() if f != "label"}
                              for k, a in self.artefacts.items()},
                "acknowledged": self.acknowledged}


def release_policy(recipe: Recipe, variants: list) -> list[Problem]:
    """The problems of the release with the policy above (and ``recipe.policy`` set);
    nothing when the recipe releases nothing (a sweep without ``release.variant``)."""
    from .plan import chosen_variant, grid_variants

    recipe.policy = None
    release = recipe.release
    if not ("path" in release or release.get("tables")) or not recipe.steps:
        return _unused(recipe, []) if release.get("acknowledge") else []
    chosen = chosen_variant(grid_variants(recipe), release.get("variant")) \
        if len(variants) > 1 else 0
    if chosen is None or chosen >= len(variants):
        return []
    flow = _Flow(recipe, variants[chosen])
    artefacts = flow.artefacts()
    problems = [p for a in artefacts for p in flow.protection(a)]
    findings = flow.attacks(artefacts)
    more, acknowledged = _acknowledge(recipe, findings, artefacts)
    recipe.policy = ReleasePolicy(
        {a.key: {"label": a.label, **({"protected_by": a.protected_by} if a.protected_by
                                       else {"vouched_by": [c.text for c in a.vouched_by]})}
         for a in artefacts}, acknowledged)
    return problems + more


class _Flow:
    """The data flow of the released variant, and what the policy asks of it."""

    def __init__(self, recipe: Recipe, variant):
        self.recipe = recipe
        self.flow = variant.flow
        self.params = variant.params
        self.label = variant.label
        self.index = {s.id: s for s in recipe.steps}
        self.declared = recipe.meta()
        self.protecting = {s.id for s in recipe.steps if s.ok and s.kind == "method"
                           and s.table is None and s.plugin.protects}
        self._lineage: dict[str, frozenset] = {}

    # --- the data flow ----------------------------------------------------------------

    def reads(self, step: StepSpec) -> set | None:
        """The columns a step reads (None: all of them)."""
        state = self.flow.before[step.id]
        return step.plugin.reads(self.params[step.id], state.metadata(self.declared))

    def lineage(self, producer: str) -> frozenset:
        """The method steps whose output went into the values ``producer`` wrote: it,
        and those of every column it read."""
        if producer not in self.index:
            return frozenset()
        if producer not in self._lineage:
            self._lineage[producer] = frozenset()  # (the flow has no cycles; a guard)
            step = self.index[producer]
            before = self.flow.before[producer]
            reads = self.reads(step)
            columns = before.columns if reads is None else [c for c in reads
                                                             if c in before.columns]
            found = {producer}
            for c in columns:
                found |= self.lineage(before.columns[c].producer)
            self._lineage[producer] = frozenset(found)
        return self._lineage[producer]

    def history(self, artefact: Artefact, name: str) -> list[str]:
        """The steps that wrote column ``name`` on its way into ``artefact``."""
        if artefact.state is None:  # read from a file: the values as they were
            return [ORIGINAL]
        return self.flow.history(artefact.state, name)

    def related(self, a: Artefact, b: Artefact, name: str) -> bool:
        """Whether ``a`` and ``b`` hold column ``name`` in the same values or one in
        values derived from the other's (then counting one approaches the other)."""
        if name not in a.columns or name not in b.columns:
            return False
        return a.columns[name] in self.history(b, name) or \
            b.columns[name] in self.history(a, name)

    def ordered(self, ids) -> list[str]:
        return sorted(ids, key=lambda sid: self.index[sid].index)

    def named(self, ids) -> str:
        ids = list(ids)
        return ("step" if len(ids) == 1 else "steps") + " " + \
            ", ".join(f"'{s}' ({self.index[s].plugin_name})" for s in ids)

    # --- the artefacts ----------------------------------------------------------------

    def released_state(self):
        """The released data (the state after ``release.from``, else after the step
        listed last) and the id of that step."""
        from .plan import loaded_state

        source = self.recipe.release.get("from") or self.recipe.steps[-1].id
        if source == ORIGINAL or source not in self.flow.after:
            return loaded_state(self.recipe, list(self.recipe.variables)), source
        return self.flow.after[source], source

    def artefacts(self) -> list[Artefact]:
        recipe, release = self.recipe, self.recipe.release
        out = []
        state, _ = self.released_state()
        if "path" in release:
            identifiers = {n for n, v in recipe.variables.items() if v.role == "identifier"}
            where = ("release", "from") if "from" in release else ("release", "path")
            out.append(Artefact("records", "the released records", where, state.records,
                                {c: col.producer for c, col in state.columns.items()
                                 if c not in identifiers}, state))
        for tid in release.get("tables") or {}:
            spec = recipe.tables[tid]
            group = recipe.table_source(tid)
            on = [s for s in recipe.steps if s.table == group]
            own = [s for s in on if s.ok and s.kind == "method" and s.plugin.protects]
            where = ("release", "tables", tid)
            if spec.source is not None:
                out.append(Artefact(f"table:{tid}", f"table '{tid}'", where, ORIGINAL,
                                    dict.fromkeys(spec.columns, ORIGINAL), None, spec,
                                    group, own))
                continue
            counted = self.flow.before[on[0].id] if on else state
            out.append(Artefact(f"table:{tid}", f"table '{tid}'", where, counted.records,
                                {c: counted.columns[c].producer for c in spec.columns
                                 if c in counted.columns}, counted, spec, group, own))
        return out

    # --- 1. defaults protect ----------------------------------------------------------

    def protection(self, a: Artefact) -> list[Problem]:
        """Set what protects ``a`` (or the checks that vouch for it); a problem when
        nothing does."""
        found = {s.id for s in a.own}
        if a.state is not None:
            for producer in set(a.columns.values()):
                found |= self.lineage(producer) & self.protecting
        a.protected_by = self.ordered(found)
        if a.protected_by:
            return []
        a.vouched_by = self.vouching(a)
        if a.vouched_by:
            return []
        return [self.recipe.doc.problem(a.path, self.unprotected(a), key=a.table is not None)]

    def vouching(self, a: Artefact) -> list[CheckSpec]:
        """The checks on a risk measure of exactly the data of ``a`` (its records, and
        the values it holds of every column the measure reads)."""
        if a.state is None:  # cells read from a file: no measure of records speaks for them
            return []
        records, columns = self.before_relabelling(a.records, a.columns)
        out = []
        for check in self.recipe.checks:
            for head in sorted({name.split(".")[0] for name in check.expr.names}):
                step = self.index.get(head)
                if step is None or not step.ok or step.kind != "measure" or \
                        step.table is not None or not step.plugin.risk_measure:
                    continue
                state = self.flow.before[step.id]
                reads = self.reads(step)
                common = [c for c in (columns if reads is None else sorted(reads))
                          if c in columns]
                if state.records == records and common and all(
                        c in state.columns and state.columns[c].producer == columns[c]
                        for c in common):
                    out.append(check)
                    break
        return out

    def before_relabelling(self, records: str, columns: dict) -> tuple[str, dict]:
        """The records and column versions as they were before the last steps that only
        replace labels (``keeps_risk``: relabel_nodes), which a risk measure must run
        before and whose output it speaks for."""
        while records in self.index and self.index[records].kind == "method" and \
                self.index[records].plugin.keeps_risk:
            step = records
            before = self.flow.before[step]
            records = before.records
            columns = {c: before.columns[c].producer if p == step and c in before.columns
                       else p for c, p in columns.items()}
        return records, columns

    def unprotected(self, a: Artefact) -> str:
        variant = f" (variant {self.label})" if self.label else ""
        if a.table is None:
            state, source = self.released_state()
            as_loaded = state.records == ORIGINAL and set(a.columns.values()) <= {ORIGINAL}
            trap = as_loaded and source in self.index and self.index[source].input == ORIGINAL
            if source == ORIGINAL:
                whence = "the data as loaded (release.from: original)"
            elif trap:
                whence = (f"the data as loaded (the step listed last, '{source}', reads "
                          "input: original)")
            elif as_loaded:
                whence = "the data as loaded"
            else:
                whence = f"the data after step '{source}'"
            elsewhere = self.ordered(self.protecting)
            hint = ""
            if elsewhere:
                verb = "protects" if len(elsewhere) == 1 else "protect"
                hint = f" ({self.named(elsewhere)} {verb} other data than those released"
                hint += (f": release the data after {'it' if len(elsewhere) == 1 else 'them'}"
                         f" with release.from: {elsewhere[-1]})") if trap else ")"
            return (f"{'.'.join(map(str, a.path))}: nothing protects the released "
                    f"records{variant}: they are {whence}, no protection step changed the "
                    f"values released{hint}, and no check reads a risk measure of them. Add "
                    "a protection step before the release (e.g. global_recode, "
                    "local_suppression, pram, noise, microaggregation; removing variables "
                    "is not protection), or, if the data are safe as they are, a check on "
                    "a risk measure of the released data, e.g. a step {id: risk, measure: "
                    "k_anonymity, params: {k: 3}} with checks: ['risk.violations[3] == 0']")
        methods = ", ".join(p.name for p in registry.plugins("method")
                            if p.on_table and p.protects)
        target = a.group or a.id
        whence = "it is read from a file" if a.state is None else \
            "none changed the records it is counted from, and no check reads a risk " \
            "measure of them"
        return (f"release.tables.{a.id}: nothing protects table '{a.id}'{variant}: no "
                f"protection step works on it ({methods}), {whence}. Add one, e.g. "
                f"{{id: primary, method: sensitivity_rules, table: {target}, params: "
                f"{{rules: [{{freq: 3}}]}}}} then {{id: secondary, method: "
                f"secondary_suppression, table: {target}}}")

    # --- 2. artefacts released together are attacked together ------------------------

    def attacks(self, artefacts: list[Artefact]) -> list[Finding]:
        records = next((a for a in artefacts if a.table is None), None)
        tables = [a for a in artefacts if a.table is not None]
        out: list[Finding] = []
        for t in tables:
            if records is not None:
                out += self.recount(records, t) + self.original_table(records, t)
        for i, t1 in enumerate(tables):
            for t2 in tables[i + 1:]:
                out += self.linked_apart(t1, t2)
        out += self.published_counts(tables)
        return out

    def recount(self, m: Artefact, t: Artefact) -> list[Finding]:
        if not t.own or m.records != t.records:
            return []
        shared = [d for d in t.table.dims if self.related(m, t, d)]
        if not shared:
            return []
        parts = []
        for d in shared:
            if m.columns[d] == t.columns[d]:
                parts.append(d)
            elif t.columns[d] in self.history(m, d):
                parts.append(f"{d} (changed since by step '{m.columns[d]}')")
            else:
                parts.append(f"{d} (as before step '{t.columns[d]}', which the table "
                             "counted)")
        exact = all(m.columns[d] == t.columns[d] for d in shared)
        how = "exactly" if exact else "exactly where nothing changed them"
        return [Finding("recount", (t.id,), t.path, (
            f"release.tables.{t.id}: table '{t.id}' is protected by "
            f"{self.named(s.id for s in t.own)}, but it is released beside the records it "
            f"is counted from, which hold {', '.join(parts)}: recounting the released "
            f"records gives the table's cells over {', '.join(shared)} {how}, and that "
            "undoes its protection. Release the table or the records, or records protected "
            "for their own release (a sample, those variables protected further)"),
            key=True)]

    def original_table(self, m: Artefact, t: Artefact) -> list[Finding]:
        if t.own:
            return []
        further: dict[str, list[str]] = {}
        for c in t.columns:
            if c in m.columns and t.columns[c] in self.history(m, c):
                base = self.lineage(t.columns[c]) if t.state is not None else frozenset()
                steps = (self.lineage(m.columns[c]) - base) & self.protecting
                if steps:
                    further[c] = self.ordered(steps)
        if not further:
            return []
        steps = self.ordered({s for ss in further.values() for s in ss})
        return [Finding("original_table", (t.id,), t.path, (
            f"release.tables.{t.id}: table '{t.id}' publishes exact counts of "
            f"{', '.join(further)} as they were before {self.named(steps)} protected them "
            "in the released records: the table gives away what that protection hides. "
            "Count the table from the released data (a table no step works on is counted "
            "from them), protect it with a step of its own, or release one of them"),
            key=True)]

    def linked_apart(self, t1: Artefact, t2: Artefact) -> list[Finding]:
        if t1.group == t2.group and t1.group not in (t1.id, t2.id):
            return []  # faces of one table of linked tables, protected together
        if not (t1.own or t2.own) or t1.records != t2.records:
            return []
        shared = [d for d in t1.table.dims if d in t2.table.dims and self.related(t1, t2, d)]
        if not shared or self.consistent(t1, t2, shared) or self.private(t1, t2):
            return []

        def by(t: Artefact) -> str:
            return f"'{t.id}' by {self.named(s.id for s in t.own)}" if t.own else \
                f"'{t.id}' by none"

        fix = (f"protect them together: tables: [..., {{id: {t1.id}_{t2.id}, linked: "
               f"[{t1.id}, {t2.id}]}}] with their steps on that table") \
            if t1.table.source is None and t2.table.source is None else \
            "protect them together (a table read from a file cannot be linked: count it " \
            "from the data)"
        if t1.own and t2.own and all(s.plugin.consistent_across_tables
                                     for s in t1.own + t2.own):
            fix += ", or give their steps the same parameters (the same cell then gets " \
                "the same protected value in both)"
        return [Finding("linked_apart", (t1.id, t2.id), t2.path, (
            f"release.tables.{t2.id}: tables '{t1.id}' and '{t2.id}' share the cells of "
            f"{', '.join(shared)} (counted from the same records) but are protected apart "
            f"({by(t1)}; {by(t2)}): a cell suppressed, rounded or perturbed in one is "
            f"published otherwise in the other, and together they give it away; {fix}"),
            key=True)]

    @staticmethod
    def private(t1: Artefact, t2: Artefact) -> bool:
        """Both tables protected by differentially private steps only: what they give
        away together is bounded by the composition of their spends, which the recipe's
        privacy budget already counts (:mod:`sdcflow.recipe._privacy`)."""
        return bool(t1.own and t2.own) and all(
            getattr(s.plugin, "differentially_private", False) for s in t1.own + t2.own)

    def consistent(self, t1: Artefact, t2: Artefact, shared: list[str]) -> bool:
        """Both tables protected by steps that give a cell the same protected value in
        every table, with the same parameters, on the same values of the shared cells."""
        def protection(t: Artefact) -> list:
            return [(s.plugin_name, self.params[s.id]) for s in t.own]

        return bool(t1.own and t2.own) and \
            all(s.plugin.consistent_across_tables for s in t1.own + t2.own) and \
            protection(t1) == protection(t2) and \
            all(t1.columns[d] == t2.columns[d] for d in shared)

    def published_counts(self, tables: list[Artefact]) -> list[Finding]:
        out = []
        for i, sid in enumerate(self.recipe.release.get("measures") or []):
            step = self.index.get(sid)
            if step is None or not step.ok or step.table is not None or \
                    not step.plugin.counts_combinations:
                continue
            state = self.flow.before[step.id]
            keys = step.plugin.variables(self.params[step.id], state.metadata(self.declared))
            for t in tables:
                if not t.own or not keys or state.records != t.records or not all(
                        k in t.table.dims and k in state.columns
                        and state.columns[k].producer == t.columns.get(k) for k in keys):
                    continue
                out.append(Finding("published_counts", (t.id,), ("release", "measures", i), (
                    f"release.measures: '{sid}' ({step.plugin_name}) counts the records by "
                    f"{', '.join(keys)} as table '{t.id}' counted them: its published "
                    "figures (e.g. the records in combinations of fewer than k) are sums of "
                    f"the table's original cells, which {self.named(s.id for s in t.own)} "
                    "protect. Leave it out of release.measures (it stays in measures.json)")))
        return out


def _acknowledge(recipe: Recipe, findings: list[Finding], artefacts: list[Artefact]
                 ) -> tuple[list[Problem], list[dict]]:
    """The findings ``release.acknowledge`` does not cover (problems), the acknowledged
    ones (for the manifest), and acknowledgements that cover nothing (problems: an
    acknowledgement is for an attack the release is open to, not a standing waiver)."""
    doc = recipe.doc
    entries = recipe.release.get("acknowledge") or []
    released = [a.id for a in artefacts if a.table is not None]
    problems: list[Problem] = []
    used = [False] * len(entries)
    for j, entry in enumerate(entries):
        for k, tid in enumerate(entry.get("tables", [])):
            if tid not in released:
                problems.append(doc.problem(("release", "acknowledge", j, "tables", k), (
                    f"release.acknowledge[{j}].tables: '{tid}' is not a released table"
                    f"{did_you_mean(tid, released)}")))
    acknowledged = []
    for f in findings:
        covering = [j for j, e in enumerate(entries) if e["attack"] == f.attack
                    and ("tables" not in e or set(f.tables) <= set(e["tables"]))]
        if not covering:
            listed = ", ".join(f.tables)
            problems.append(doc.problem(f.path, (
                f"{f.message}; or, if it is safe here, say why: release.acknowledge: "
                f"[{{attack: {f.attack}, tables: [{listed}], reason: ...}}]"), key=f.key))
            continue
        for j in covering:
            used[j] = True
        acknowledged.append({"attack": f.attack, "tables": list(f.tables),
                             "reason": entries[covering[0]]["reason"],
                             "finding": f.message.split(": ", 1)[-1]})
    return problems + _unused(recipe, used), acknowledged


def _unused(recipe: Recipe, used: list[bool]) -> list[Problem]:
    out = []
    for j, entry in enumerate(recipe.release.get("acknowledge") or []):
        if j < len(used) and used[j]:
            continue
        on = f" on {', '.join(entry['tables'])}" if entry.get("tables") else ""
        out.append(recipe.doc.problem(("release", "acknowledge", j, "attack"), (
            f"release.acknowledge[{j}]: the release is open to no '{entry['attack']}' "
            f"attack{on} ({ATTACKS.get(entry['attack'], '')}): remove this acknowledgement")))
    return out
