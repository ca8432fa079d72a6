"""Executing a plan: one random generator per step, cached results verified on read,
and every method's output checked before later steps see it.

Reproducibility. Each step instance gets ``numpy.random.default_rng(SeedSequence([seed,
*words(sha256(node id))]))``: the stream depends only on the recipe seed and the step
(and variant) id, never on execution order or on which steps came from the cache.

What a plugin sees. A step gets the columns it declares it reads (and writes), with
their declarations and the edit constraints; everything it sees is in its fingerprint
(:mod:`sdcflow.engine.fingerprint`), so a cached result is reused only when nothing it
depends on has changed.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable

import numpy as np
import pandas as pd

from ..data import Dataset, Variable
from ..data.dataset import as_declared
from ..data.households import collapse, expand, household_units
from ..errors import InternalError, PluginError, RecipeError
from ..kernels.parallel import threads
from ..plugins.registry import MeasureResult, MethodResult
from ..recipe import ORIGINAL, Recipe, Validated
from ..recipe.plan import PlannedStep
from .cache import Cache
from .canonical import canonical_json, jsonable
from .fingerprint import column_hash, constraint_spec, fingerprint, variable_spec
from .output_checks import method_output
from .progress import RunObserver, as_observer, reporting_step
from .records import StepRecord
from .scheduler import run_plan


def step_rng(seed: int, node: str) -> np.random.Generator:
    """The generator of step instance ``node``: from the recipe seed and the node id only."""
    digest = hashlib.sha256(node.encode("utf-8")).digest()
    words = [int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4)]
    return np.random.default_rng(np.random.SeedSequence([seed, *words]))


class Store:
    """Column versions by producing node, with their hashes and metadata."""

    def __init__(self, original: Dataset):
        self.columns: dict[str, dict[str, pd.Series]] = {ORIGINAL: dict(original.frame.items())}
        self.meta: dict[str, dict[str, Variable]] = {ORIGINAL: dict(original.variables)}
        self.hashes: dict[tuple[str, str], str] = {}
        self.result_hashes: dict[str, str] = {}  # measure node -> sha256 of its summary
        self.tables: dict[str, object] = {}  # table step node -> the table it left
        self.order = list(original.frame.columns)
        self.constraints = original.constraints

    def put(self, node: str, frame: pd.DataFrame, meta: dict[str, Variable]) -> None:
        self.columns[node] = dict(frame.items())
        self.meta[node] = meta

    def hash(self, node: str, col: str) -> str:
        key = (node, col)
        if key not in self.hashes:
            self.hashes[key] = column_hash(self.columns[node][col])
        return self.hashes[key]

    def records(self, view: dict) -> int:
        """The number of records in a view (every column of a view has the same length)."""
        col = next(iter(view), None)
        return len(self.columns[view[col]][col]) if col is not None else 0

    def dataset(self, view: dict, rows: int | None = None) -> Dataset:
        """The columns of ``view`` as a data set (``rows`` empty records when it has none);
        the original columns in file order, then any a step added, by name."""
        known = set(self.order)
        cols = [c for c in self.order if c in view] + sorted(c for c in view if c not in known)
        frame = pd.DataFrame({c: self.columns[view[c]][c] for c in cols})
        if not cols:
            frame = pd.DataFrame(index=pd.RangeIndex(rows or 0))
        meta = {c: self.meta[view[c]][c] for c in cols}
        return Dataset(frame, meta, self.constraints)

    def described(self, view: dict) -> dict:
        """Each column of ``view`` with its hash and full declaration."""
        return {c: [self.hash(p, c), variable_spec(self.meta[p][c])]
                for c, p in sorted(view.items())}


def rows(ps: PlannedStep, store: Store) -> int:
    """The number of records the step sees, read from a column it depends on: with steps
    running at the same time, other columns of its view may not be written yet."""
    ready = {c: p for c, p in ps.view.items() if p == ORIGINAL or p in ps.deps}
    if ready:
        return store.records(ready)
    # a step that reads no column: the records are those of the step that last changed
    # them (a dependency, so written), or those loaded (the steps that wrote its view's
    # columns may still be running, or not have started)
    written = store.columns.get(ps.records, {})
    return store.records(dict.fromkeys(written, ps.records))


def visible(ps: PlannedStep) -> dict:
    """The columns the step's plugin gets (column -> producing node): what it declares
    it reads and writes, or every column when it reads or changes all of them."""
    if ps.reads is None or ps.writes is None:
        return dict(ps.view)
    wanted = set(ps.reads) | set(ps.writes)
    return {c: p for c, p in ps.view.items() if c in wanted}


def reference_view(ps: PlannedStep, store: Store) -> dict:
    """The columns of a measure's reference data (the original data unless it names a
    step) that it gets: those it reads, as for the data it measures, and those it reads
    from the reference only (:meth:`~sdcflow.plugins.registry.Measure.reference_reads`)."""
    reference = ps.reference or dict.fromkeys(store.order, ORIGINAL)
    wanted = set(visible(ps)) | ps.step.plugin.reference_reads(ps.params)
    return {c: p for c, p in reference.items() if c in wanted}


def step_fingerprint(validated: Validated, ps: PlannedStep, store: Store) -> str:
    """The fingerprint of a step instance (see :mod:`sdcflow.engine.fingerprint`)."""
    view = visible(ps)
    payload = {
        "plugin": ps.step.plugin_name,
        "version": ps.step.plugin.version,
        "params": ps.params,
        "seed": validated.recipe.seed,
        "node": ps.node,
        "records": rows(ps, store),
        "inputs": store.described(view),
        "constraints": [constraint_spec(c) for c in store.constraints],
    }
    environment = ps.step.plugin.environment(ps.params)
    if environment:  # (only then: the fingerprints of other steps stay as they were)
        payload["environment"] = environment
    if ps.kind == "measure":
        payload["reference"] = store.described(reference_view(ps, store))
        payload["results"] = {sid: store.result_hashes[node]
                              for sid, node in sorted(ps.result_nodes.items())}
    return fingerprint(payload)


def check_step_data(ps: PlannedStep, data: Dataset) -> None:
    """The plugin's data checks (``check_data``) on the data the step receives. Validation
    runs them on the loaded data; a step after steps that changed values or records
    (suppressions making values missing, sampling dropping records) gets them here, so
    that it stops with the plugin's message instead of failing inside its kernel."""
    if ps.step.sees_loaded_data:
        return  # (checked at validation on these very data)
    messages = [message for _, message in ps.step.plugin.check_data(ps.params, data)]
    if messages:
        raise PluginError(ps.node, "on the data it receives from earlier steps: "
                          + "; ".join(dict.fromkeys(messages)))


def _call(ps: PlannedStep, data, rng, original, results: dict):
    """Run the plugin; plugin errors name the step, anything unexpected is a bug."""
    plugin = ps.step.plugin
    try:
        if ps.kind == "method":
            result = plugin.apply(data, ps.params, rng)
            if not isinstance(result, MethodResult):
                raise TypeError(f"apply() returned {type(result).__name__}, not MethodResult")
            return result
        extra = {"results": results} if ps.result_nodes else {}
        result = plugin.evaluate(data, ps.params, rng, original=original, **extra)
        if not isinstance(result, MeasureResult):
            raise TypeError(f"evaluate() returned {type(result).__name__}, not MeasureResult")
        return result
    except (PluginError, RecipeError):
        raise
    except MemoryError:
        raise PluginError(ps.node, f"{ps.step.plugin_name} ran out of memory; use smaller "
                          "parameters or a machine with more memory") from None
    except Exception as exc:
        raise InternalError(f"step '{ps.node}': {ps.step.plugin_name} failed unexpectedly: "
                            f"{type(exc).__name__}: {exc} (a bug: please report it; "
                            "--debug shows the traceback)") from exc


def execute(validated: Validated, cache: Cache | None = None,
            progress: RunObserver | Callable[[str], None] | None = None,
            workers: int | None = None) -> tuple[Store, dict, list[StepRecord], dict]:
    """Run every step of the plan, independent steps at the same time on up to
    ``workers`` threads (default: :func:`sdcflow.kernels.parallel.threads`); return the column
    store, measures, step records and per-record measure tables, all in plan order.
    ``progress`` hears of every step (:mod:`sdcflow.engine.progress`)."""
    plan, original = validated.plan, validated.data
    store = Store(original)
    measures: dict = {}
    per_record: dict = {}
    observer = as_observer(progress)
    observer.steps_started(len(plan.steps))

    def run_step(ps: PlannedStep) -> StepRecord:
        observer.step_started(ps.node, ps.step.plugin_name)
        with reporting_step(observer, ps.node):
            if ps.table is not None:
                return _run_table_step(validated, ps, store, measures)
            if ps.kind == "method":
                return _run_method(validated, ps, store, cache)
            return _run_measure(validated, ps, store, cache, measures, per_record)

    def done(ps: PlannedStep, record: StepRecord) -> None:
        observer.step_finished(ps.node, record)

    results = run_plan(plan, run_step, threads() if workers is None else workers, done)
    records = [results[ps.node] for ps in plan.steps]
    nodes = [ps.node for ps in plan.steps]
    measures = {n: measures[n] for n in nodes if n in measures}
    per_record = {n: per_record[n] for n in nodes if n in per_record}
    if cache is not None:
        cache.notes.sort(key=_note_order(nodes))
    return store, measures, records, per_record


def _note_order(nodes: list[str]):
    """Notes about steps in plan order (the others first, as they came)."""
    place = {n: i for i, n in enumerate(nodes)}

    def key(note: str) -> int:
        if note.startswith("step '"):
            return place.get(note[6:note.find("'", 6)], -1)
        return -1
    return key


def _run_method(validated: Validated, ps: PlannedStep, store: Store,
                cache: Cache | None) -> StepRecord:
    start = time.perf_counter()
    fp = step_fingerprint(validated, ps, store)
    cols = sorted(ps.writes) if ps.writes is not None else None
    entry = cache.load(fp, ps.node) if cache else None
    # (a step that rebuilds the records leaves a number of its own: not checked)
    records = None if ps.step.plugin.changes_records(ps.params, ps.meta) else rows(ps, store)
    loaded = _method_entry(entry, cols, records) if entry else None
    if entry is not None and loaded is None and cache is not None:
        cache.notes.append(f"step '{ps.node}': the cached result does not fit the step "
                           "(columns or records); recomputed")
    if loaded is not None:
        frame, meta, info = loaded
    else:
        data = store.dataset(visible(ps), rows(ps, store))
        check_step_data(ps, data)
        frame, meta, info = _apply_method(ps, data, step_rng(validated.recipe.seed, ps.node))
        info = jsonable(info)
        if cache:
            cache.save(fp, {"variables": {k: variable_spec(v) for k, v in meta.items()},
                            "info": info}, {"columns.parquet": frame})
    store.put(ps.node, frame, meta)
    out_hash = hashlib.sha256("".join(
        f"{c}:{store.hash(ps.node, c)};" for c in sorted(frame.columns)).encode()).hexdigest()
    return StepRecord(ps.node, ps.kind, ps.step.plugin_name, ps.step.plugin.version,
                      jsonable(ps.params), ps.variant, fp, out_hash,
                      time.perf_counter() - start, loaded is not None, info)


def _apply_method(ps: PlannedStep, data: Dataset, rng: np.random.Generator):
    """Run a method; one that writes household-level variables (and acts once per
    household) runs on one record per household, and its result is copied to every
    member (see :mod:`sdcflow.data.households`)."""
    ids = [n for n in data.meta.names("household") if n in data.frame]
    level = [c for c in ps.writes or () if c in data.variables  # (a new variable: no)
             and data.variables[c].level == "household"]
    if ps.step.plugin.households != "per_household" or not level or len(ids) != 1:
        result = _call(ps, data, rng, None, {})
        return method_output(ps, data, result)
    units, count = household_units(data.frame[ids[0]])
    cols = [c for c in data.frame.columns if c != ids[0]]
    once = Dataset(collapse(data.frame[cols], units, count),
                   {c: data.variables[c] for c in cols}, data.constraints)
    frame, meta, info = method_output(ps, once, _call(ps, once, rng, None, {}))
    return expand(frame, units), meta, {**info, "households": count}


def _method_entry(entry: dict, cols: list[str] | None, records: int | None):
    """A cached method result as (frame, metadata, info), or None if it does not fit."""
    try:
        frame = entry["frames"]["columns.parquet"]
        meta = {name: Variable(name=name, **_var_fields(spec))
                for name, spec in entry["variables"].items()}
        if sorted(meta) != sorted(frame.columns):
            return None
        if not len(frame.columns):  # (Parquet keeps no rows without a column)
            if records is None:
                return None
            frame = pd.DataFrame(index=pd.RangeIndex(records))
        if cols is not None and (list(frame.columns) != cols or
                                 records is not None and len(frame) != records):
            return None
        # text comes back from Parquet as Python objects under pandas 2: hold it as text
        return as_declared(frame, meta), meta, entry["info"]
    except (KeyError, TypeError, ValueError):
        return None


def _var_fields(spec: dict) -> dict:
    out = dict(spec)
    if out.get("order") is not None:
        out["order"] = tuple(out["order"])
    out["missing"] = tuple(out.get("missing", ()))
    return out


def _run_measure(validated: Validated, ps: PlannedStep, store: Store, cache: Cache | None,
                 measures: dict, per_record: dict) -> StepRecord:
    start = time.perf_counter()
    fp = step_fingerprint(validated, ps, store)
    entry = cache.load(fp, ps.node) if cache else None
    result = None
    if entry is not None:
        frames = entry.get("frames", {})
        if isinstance(entry.get("summary"), dict) and set(frames) <= {"per_record.parquet"}:
            result = MeasureResult(entry["summary"], frames.get("per_record.parquet"))
        elif cache is not None:
            cache.notes.append(f"step '{ps.node}': the cached result does not fit the step; "
                               "recomputed")
    cached = result is not None
    if result is None:
        data = store.dataset(visible(ps), rows(ps, store))
        # (a reference of no column still has its records: those of its whole view)
        reference = store.dataset(reference_view(ps, store),
                                  store.records(ps.reference or dict.fromkeys(store.order,
                                                                             ORIGINAL)))
        results = {sid: measures[node] for sid, node in ps.result_nodes.items()}
        check_step_data(ps, data)
        result = _call(ps, data, step_rng(validated.recipe.seed, ps.node), reference, results)
        result = MeasureResult(jsonable(result.summary), result.per_record)
        if cache:
            frames = {}
            if isinstance(result.per_record, pd.DataFrame):
                frames["per_record.parquet"] = result.per_record
            cache.save(fp, {"summary": result.summary}, frames)
    measures[ps.node] = result.summary
    if result.per_record is not None:
        per_record[ps.node] = result.per_record
    out_hash = hashlib.sha256(canonical_json(result.summary).encode()).hexdigest()
    store.result_hashes[ps.node] = out_hash
    return StepRecord(ps.node, ps.kind, ps.step.plugin_name, ps.step.plugin.version,
                      jsonable(ps.params), ps.variant, fp, out_hash,
                      time.perf_counter() - start, cached, {})


# The stream of the record keys the engine draws for the cell key method: named for the
# recipe, not for a step, so that every table of the recipe gets the same keys and a cell
# the same noise in every table it appears in; counter-based (the key of the record at
# position r), so that partitions of the records get the same keys (the Dask engine).
RECORD_KEYS_STREAM = "record keys"
DRAWN_KEYS = "__record_key__"


def record_keys_of(ps: PlannedStep) -> tuple[str | None, int, int] | None:
    """``(column, digits, top)`` of the record keys a table step needs (column None:
    drawn by the engine; ``top``: the largest contributions per cell it needs), or None."""
    wanted = getattr(ps.step.plugin, "record_keys", None)
    return wanted(ps.params) if callable(wanted) else None


def _keyed_table(validated: Validated, ps: PlannedStep, store: Store, keys: tuple):
    """The step's table built with the cell keys of its cells: the record keys are read
    from a column, or drawn once for the records from the recipe's stream."""
    from ..kernels.tabular.cell_key import counter_record_keys
    from ..recipe.tables import build

    recipe = validated.recipe
    column, digits, top = keys
    data = store.dataset(visible(ps), rows(ps, store))
    if column is None:
        column = DRAWN_KEYS
        units = counter_record_keys(recipe.seed, 0, len(data.frame), digits,
                                    RECORD_KEYS_STREAM)
        data = data.with_columns({column: units / 10 ** digits})
    try:
        return build(recipe.tables[ps.table], data, key=column,
                     key_digits=digits, top=top)
    except (KeyError, ValueError) as exc:
        raise PluginError(ps.node, f"cell keys of table {ps.table!r}: {exc}") from None


def with_cell_keys(table, keyed):
    """``table`` with the cell keys of ``keyed`` (the same table built with record keys),
    and the largest contributions ``keyed`` has beyond those ``table`` kept."""
    cells = table.cells.copy()
    for column in ("cell_key", "cell_key_nonzero"):
        if column in keyed.cells:
            cells[column] = keyed.cells[column].to_numpy()
    for column in keyed.top_columns:
        if column not in cells:
            cells[column] = keyed.cells[column].to_numpy()
    return table.with_cells(cells)


def _run_table_step(validated: Validated, ps: PlannedStep, store: Store,
                    measures: dict) -> StepRecord:
    """A step on a table: its input is the table left by the previous step on the same
    table, or the table built from the data it sees. Table steps are not cached (a table
    is rebuilt in well under a second)."""
    from ..recipe.tables import build, table_hash

    recipe = validated.recipe
    start = time.perf_counter()
    keys = record_keys_of(ps)
    if ps.table_input is not None:
        table = store.tables[ps.table_input]
        if keys is not None:
            table = with_cell_keys(table, _keyed_table(validated, ps, store, keys))
    elif keys is not None:
        table = _keyed_table(validated, ps, store, keys)
    else:
        try:
            table = build(recipe.tables[ps.table], store.dataset(visible(ps), rows(ps, store)))
        except (KeyError, ValueError) as exc:  # (data changed by earlier steps)
            raise PluginError(ps.node, f"table {ps.table!r}: {exc}") from None
    rng = step_rng(recipe.seed, ps.node)
    result = _call(ps, table, rng, None, {})
    info: dict = {}
    if ps.kind == "method":
        store.tables[ps.node] = result.data
        info = jsonable(result.info or {})
        out_hash = table_hash(result.data)
    else:
        store.tables[ps.node] = table
        summary = jsonable(result.summary)
        measures[ps.node] = summary
        out_hash = hashlib.sha256(canonical_json(summary).encode()).hexdigest()
        store.result_hashes[ps.node] = out_hash
    fp = fingerprint({"plugin": ps.step.plugin_name, "version": ps.step.plugin.version,
                      "params": ps.params, "seed": recipe.seed, "node": ps.node,
                      "table": table_hash(table)})
    return StepRecord(ps.node, ps.kind, ps.step.plugin_name, ps.step.plugin.version,
                      jsonable(ps.params), ps.variant, fp, out_hash,
                      time.perf_counter() - start, False, info)


def execution_options(recipe: Recipe, **given) -> dict:
    """The recipe's ``execution`` section with the command line's options over it."""
    section = dict((recipe.doc.data or {}).get("execution") or {})
    section.update({k: v for k, v in given.items() if v is not None})
    return section
