"""Executing a plan: one random generator per step, a content-addressed cache, the
release checks, and an atomic release with ``manifest.json`` and ``measures.json``.

Reproducibility. Each step instance gets ``numpy.random.default_rng(SeedSequence([seed,
*words(sha256(node id))]))``: the stream depends only on the recipe seed and the step
(and variant) id, never on execution order or on which steps were cached.

Caching. A step's fingerprint is the sha256 of its plugin name and version, its
normalised parameters, the seed and node id (its random stream), the hashes of the
columns it reads (with their metadata) and, for measures, of the original data. An
unchanged step is read back from ``.sdcflow-cache/`` next to the recipe.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from . import __version__
from .constraints import ExprError
from .data import Dataset, Variable, write_table
from .data.io import sha256_file, table_format
from .errors import CheckFailed, PluginError, RecipeError
from .plan import Plan, PlannedStep, variant_label
from .recipe import ORIGINAL, Recipe, Validated, load_recipe, validate
from .registry import MeasureResult, MethodResult

CACHE_DIR = ".sdcflow-cache"


def step_rng(seed: int, node: str) -> np.random.Generator:
    """The generator of step instance ``node``: from the recipe seed and the node id only."""
    digest = hashlib.sha256(node.encode("utf-8")).digest()
    words = [int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4)]
    return np.random.default_rng(np.random.SeedSequence([seed, *words]))


def column_hash(series: pd.Series) -> str:
    """sha256 of a column's values and dtype (independent of its index)."""
    h = hashlib.sha256(str(series.dtype).encode())
    h.update(pd.util.hash_pandas_object(series, index=False).to_numpy().tobytes())
    return h.hexdigest()


def canonical_json(value) -> str:
    return json.dumps(_jsonable(value), sort_keys=True, separators=(",", ":"), allow_nan=False)


def _jsonable(value):
    """Plain JSON values: NumPy scalars to Python, NaN/inf to None, tuples to lists."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


@dataclass
class StepRecord:
    node: str
    kind: str
    plugin: str
    version: str
    params: dict
    variant: dict
    fingerprint: str
    output_sha256: str
    seconds: float
    cached: bool
    info: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        out = {
            "id": self.node,
            self.kind: self.plugin,
            "plugin_version": self.version,
            "params": self.params,
            "fingerprint": self.fingerprint,
            "output_sha256": self.output_sha256,
            "seconds": round(self.seconds, 4),
            "cached": self.cached,
        }
        if self.variant:
            out["variant"] = self.variant
        if self.info:
            out["info"] = self.info
        return out


@dataclass
class RunResult:
    """What :func:`run` returns: measures by step, the released data, per-record
    measure tables, check results, and where the release went (``None``: not written)."""

    measures: dict
    data: pd.DataFrame | None
    per_record: dict
    checks: list[dict]
    manifest: dict
    out_dir: Path | None
    steps: list[StepRecord]
    report: Callable[[], str] | None = None  # the HTML report of the run
    publishes: bool = False  # the release holds data (a file of records or a table)


class _Store:
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

    def dataset(self, view: dict) -> Dataset:
        cols = [c for c in self.order if c in view]
        frame = pd.DataFrame({c: self.columns[view[c]][c] for c in cols})
        meta = {c: self.meta[view[c]][c] for c in cols}
        return Dataset(frame, meta, self.constraints)


def _fingerprint(recipe: Recipe, ps: PlannedStep, store: _Store) -> str:
    reads = ps.view if ps.reads is None or ps.writes is None else \
        {c: ps.view[c] for c in sorted(ps.reads) if c in ps.view}
    inputs = {c: [store.hash(p, c), store.meta[p][c].as_dict()] for c, p in sorted(reads.items())}
    payload = {
        "sdcflow": __version__,
        "plugin": ps.step.plugin_name,
        "version": ps.step.plugin.version,
        "params": ps.params,
        "seed": recipe.seed,
        "node": ps.node,
        "records": store.records(ps.view),
        "inputs": inputs,
    }
    if ps.result_nodes:
        payload["results"] = {sid: store.result_hashes[node]
                              for sid, node in sorted(ps.result_nodes.items())}
    if ps.kind == "measure":
        reference = ps.reference or dict.fromkeys(store.order, ORIGINAL)
        payload["original"] = {c: store.hash(p, c) for c, p in sorted(reference.items())}
        payload["constraints"] = [(c.id, c.kind, sorted(c.variables)) for c in store.constraints]
    return hashlib.sha256(canonical_json(payload).encode()).hexdigest()


def _cache_load(cache: Path | None, fp: str, kind: str):
    if cache is None:
        return None
    entry = cache / fp[:2] / fp
    try:
        info = json.loads((entry / "result.json").read_text("utf-8"))
        if kind == "method":
            frame = pd.read_parquet(entry / "columns.parquet")
            meta = {name: Variable(name=name, **_var_fields(spec))
                    for name, spec in info["variables"].items()}
            return frame, meta, info["info"]
        per_record = pd.read_parquet(entry / "per_record.parquet") \
            if (entry / "per_record.parquet").exists() else None
        return MeasureResult(info["summary"], per_record)
    except (OSError, ValueError, KeyError):
        return None  # a missing or damaged cache entry is simply recomputed


def _var_fields(spec: dict) -> dict:
    out = dict(spec)
    if out.get("order") is not None:
        out["order"] = tuple(out["order"])
    out["missing"] = tuple(out.get("missing", ()))
    return out


def _var_spec(var: Variable) -> dict:
    return {"role": var.role, "type": var.type,
            "order": list(var.order) if var.order is not None else None,
            "labels": var.labels, "hierarchy": var.hierarchy, "missing": list(var.missing)}


def _cache_save(cache: Path | None, fp: str, payload: dict, frames: dict) -> None:
    if cache is None:
        return
    entry = cache / fp[:2] / fp
    tmp = None
    try:
        tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=cache))
        for name, frame in frames.items():
            frame.to_parquet(tmp / name)
        (tmp / "result.json").write_text(canonical_json(payload), "utf-8")
        entry.parent.mkdir(parents=True, exist_ok=True)
        os.replace(tmp, entry)
    except OSError:  # caching is an optimisation, never fatal
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _run_step(ps: PlannedStep, data: Dataset, rng, original: Dataset, results: dict):
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
    except Exception as exc:  # report which step failed, without a traceback
        raise PluginError(ps.node, f"{ps.step.plugin_name} failed: {type(exc).__name__}: {exc}") \
            from exc


def execute(validated: Validated, *, cache_dir: Path | None = None,
            progress: Callable[[str], None] | None = None) -> tuple[_Store, dict, list[StepRecord],
                                                                     dict]:
    """Run every step of the plan; return the column store, measures, step records and
    per-record measure tables."""
    recipe, plan, original = validated.recipe, validated.plan, validated.data
    store = _Store(original)
    measures: dict = {}
    per_record: dict = {}
    records: list[StepRecord] = []
    if cache_dir is not None:
        try:
            cache_dir.mkdir(parents=True, exist_ok=True)
        except OSError:
            cache_dir = None  # e.g. a read-only recipe directory: run without a cache
    total = len(plan.steps)
    for i, ps in enumerate(plan.steps, 1):
        if ps.table is not None:
            records.append(_run_table_step(validated, ps, store, measures))
            if progress:
                progress(f"[{i}/{total}] {ps.node} ({ps.step.plugin_name}) "
                         f"{records[-1].seconds:.2f}s")
            continue
        start = time.perf_counter()
        fp = _fingerprint(recipe, ps, store)
        data = None
        cached = _cache_load(cache_dir, fp, ps.kind)
        info: dict = {}
        if ps.kind == "method":
            if cached is not None:
                frame, meta, info = cached
            else:
                data = store.dataset(ps.view)
                result = _run_step(ps, data, step_rng(recipe.seed, ps.node), original, {})
                frame, meta, info = _method_output(ps, data, result)
                info = _jsonable(info)
                _cache_save(cache_dir, fp, {"variables": {k: _var_spec(v) for k, v in meta.items()},
                                            "info": info},
                            {"columns.parquet": frame})
            store.put(ps.node, frame, meta)
            out_hash = hashlib.sha256("".join(
                f"{c}:{store.hash(ps.node, c)};" for c in sorted(frame.columns)).encode()).hexdigest()
        else:
            if cached is not None:
                result = cached
            else:
                data = store.dataset(ps.view)
                reference = store.dataset(ps.reference) if ps.reference else original
                results = {sid: measures[node] for sid, node in ps.result_nodes.items()}
                result = _run_step(ps, data, step_rng(recipe.seed, ps.node), reference, results)
                result = MeasureResult(_jsonable(result.summary), result.per_record)
                frames = {}
                if isinstance(result.per_record, pd.DataFrame):
                    frames["per_record.parquet"] = result.per_record
                _cache_save(cache_dir, fp, {"summary": result.summary}, frames)
            measures[ps.node] = result.summary
            if result.per_record is not None:
                per_record[ps.node] = result.per_record
            out_hash = hashlib.sha256(canonical_json(result.summary).encode()).hexdigest()
            store.result_hashes[ps.node] = out_hash
        seconds = time.perf_counter() - start
        records.append(StepRecord(ps.node, ps.kind, ps.step.plugin_name, ps.step.plugin.version,
                                  _jsonable(ps.params), ps.variant, fp, out_hash, seconds,
                                  cached is not None, info))
        if progress:
            how = "cached" if cached is not None else f"{seconds:.2f}s"
            progress(f"[{i}/{total}] {ps.node} ({ps.step.plugin_name}) {how}")
    return store, measures, records, per_record


def _run_table_step(validated: Validated, ps: PlannedStep, store: _Store,
                    measures: dict) -> StepRecord:
    """A step on a table: its input is the table left by the previous step on the same
    table, or the table built from the data it sees. Table steps are not cached (a table
    is rebuilt in well under a second)."""
    from .tables import build, table_hash

    recipe = validated.recipe
    start = time.perf_counter()
    if ps.table_input is not None:
        table = store.tables[ps.table_input]
    else:
        table = build(recipe.tables[ps.table], store.dataset(ps.view), recipe.base_dir)
    rng = step_rng(recipe.seed, ps.node)
    result = _run_step(ps, table, rng, None, {})
    info: dict = {}
    if ps.kind == "method":
        store.tables[ps.node] = result.data
        info = _jsonable(result.info or {})
        out_hash = table_hash(result.data)
    else:
        store.tables[ps.node] = table
        summary = _jsonable(result.summary)
        measures[ps.node] = summary
        out_hash = hashlib.sha256(canonical_json(summary).encode()).hexdigest()
        store.result_hashes[ps.node] = out_hash
    fingerprint = hashlib.sha256(canonical_json(
        {"plugin": ps.step.plugin_name, "params": ps.params, "node": ps.node,
         "table": table_hash(table)}).encode()).hexdigest()
    return StepRecord(ps.node, ps.kind, ps.step.plugin_name, ps.step.plugin.version,
                      _jsonable(ps.params), ps.variant, fingerprint, out_hash,
                      time.perf_counter() - start, False, info)


def _method_output(ps: PlannedStep, data: Dataset, result: MethodResult):
    out = result.data
    if ps.writes is None:
        cols = [c for c in data.frame.columns]
    else:
        cols = sorted(ps.writes)
        if len(out.frame) != len(data.frame):
            raise PluginError(ps.node, f"{ps.step.plugin_name} changed the number of records but"
                              " does not declare it (writes() must return None)")
    missing = [c for c in cols if c not in out.frame.columns]
    if missing:
        raise PluginError(ps.node, f"{ps.step.plugin_name} dropped columns {missing}")
    frame = out.frame[cols].reset_index(drop=True)
    meta = {c: out.variables[c] for c in cols}
    return frame, meta, dict(result.info or {})


def evaluate_checks(recipe: Recipe, plan: Plan, measures: dict, variants: list[int]) -> list[dict]:
    """Evaluate every check for each variant in ``variants``; one dict per evaluation."""
    out = []
    for vi in variants:
        nodes = plan.nodes_by_variant[vi]
        label = variant_label(plan.variants[vi])
        for check in recipe.checks:
            env = {}
            for name in check.expr.names:
                head = name.split(".")[0]
                env[head] = measures.get(nodes[head], {})
            entry = {"check": check.text}
            if label:
                entry["variant"] = label
            try:
                value = _check_value(check.expr.tree.body, env)
                entry["passed"] = bool(value)
            except (KeyError, TypeError, ValueError, IndexError, ExprError) as exc:
                entry["passed"] = False
                entry["error"] = str(exc).strip("'\"")
            if check.message and not entry["passed"]:
                entry["message"] = check.message
            out.append(entry)
    return out


def expression_value(text: str, results: dict):
    """The value of an expression over measure results (``link.percent / 2``)."""
    from .constraints import parse

    expr = parse(text, subscripts=True, condition=False)
    return _check_value(expr.tree.body, results)


def _check_value(node, env):
    """Evaluate a check expression over measure summaries (scalars, not arrays)."""
    import ast

    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, (ast.Attribute, ast.Subscript)):
        base = _check_value(node.value, env)
        key = node.attr if isinstance(node, ast.Attribute) else node.slice.value
        if isinstance(base, dict):
            if key in base:
                return base[key]
            if str(key) in base:
                return base[str(key)]
            raise KeyError(f"no '{key}' in the result (it has: {', '.join(map(str, base))})")
        if isinstance(base, list) and isinstance(key, int):
            return base[key]
        raise TypeError(f"cannot look up '{key}' in {type(base).__name__}")
    if isinstance(node, ast.BoolOp):
        values = [_check_value(v, env) for v in node.values]
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.UnaryOp):
        v = _check_value(node.operand, env)
        return (not v) if isinstance(node.op, ast.Not) else (-v if isinstance(node.op, ast.USub)
                                                             else v)
    from .constraints.expr import _BINOPS, _FUNCS

    if isinstance(node, ast.BinOp):
        return _BINOPS[type(node.op)](_check_value(node.left, env), _check_value(node.right, env))
    if isinstance(node, ast.Call):
        return _FUNCS[node.func.id](*(_check_value(a, env) for a in node.args))
    if isinstance(node, ast.Compare):
        left = _check_value(node.left, env)
        ops = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
               ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
               ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
               ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
        for op, comp in zip(node.ops, node.comparators):
            right = [e.value for e in comp.elts] if isinstance(comp, (ast.List, ast.Tuple, ast.Set)) \
                else _check_value(comp, env)
            if left is None or right is None:
                raise ValueError("a value in the check is missing (null)")
            if not ops[type(op)](left, right):
                return False
            left = right
        return True
    raise ValueError(f"cannot evaluate {ast.unparse(node)}")


def default_out_dir(recipe: Recipe) -> Path:
    return recipe.base_dir / "output" / recipe.name


def run(recipe: Recipe | str | Path, out_dir: str | Path | None = None, *, write: bool = True,
        use_cache: bool = True, progress: Callable[[str], None] | None = None) -> RunResult:
    """Validate and run a recipe; write the release when every check passes.

    Raises :class:`RecipeError` (invalid recipe or data), :class:`PluginError` (a step
    failed) or :class:`CheckFailed` (a check failed: nothing is written). With
    ``write=False`` nothing is written and the result is only returned."""
    if not isinstance(recipe, Recipe):
        recipe = load_recipe(recipe)
    validated = validate(recipe)
    plan: Plan = validated.plan
    cache = (recipe.base_dir / CACHE_DIR) if use_cache else None
    store, measures, records, per_record = execute(validated, cache_dir=cache, progress=progress)

    release = recipe.release
    chosen = _chosen_variant(recipe, plan)
    check_variants = [chosen] if chosen is not None else list(range(len(plan.variants)))
    checks = evaluate_checks(recipe, plan, measures, check_variants)
    released = None
    tables = {}
    if chosen is not None:
        data = store.dataset(plan.release_view(chosen, release.get("from")))
        released = data.for_release()
        tables = _released_tables(validated, store, chosen, data)
    manifest = _manifest(validated, records, plan, chosen)
    failures = [c for c in checks if not c["passed"]]
    result = RunResult(measures, released, per_record, checks, manifest, None, records,
                       publishes=chosen is not None and ("path" in release or bool(tables)))
    result.report = lambda: report_html(validated, result, released_ok=not failures)
    if failures:
        raise CheckFailed([_failure_text(c) for c in failures], result)
    if write:
        target = Path(out_dir) if out_dir is not None else default_out_dir(recipe)
        _write_release(target, released, release, measures, checks, manifest,
                       result.report(), tables)
        result.out_dir = target
    return result


def report_html(validated: Validated, result: RunResult, *, released_ok: bool) -> str:
    """The HTML report of a run (see :mod:`sdcflow.report`)."""
    from .report import render_report

    recipe = validated.recipe
    keys = recipe.meta().names("key")
    return render_report(recipe_name=recipe.name, recipe_text=recipe.text,
                         manifest=result.manifest, measures=result.measures,
                         checks=result.checks, original=validated.data.frame,
                         released=result.data, keys=keys, released_ok=released_ok,
                         publishes=result.publishes)


def _failure_text(check: dict) -> str:
    text = f"check failed: {check['check']}"
    if "variant" in check:
        text += f" [variant {check['variant']}]"
    if "error" in check:
        text += f" ({check['error']})"
    if "message" in check:
        text += f": {check['message']}"
    return text


def _chosen_variant(recipe: Recipe, plan: Plan) -> int | None:
    """Index of the variant whose data are released (None: a sweep without a choice)."""
    if len(plan.variants) == 1:
        return 0
    wanted = recipe.release.get("variant")
    if not wanted:
        return None
    for i, variant in enumerate(plan.variants):
        flat = {}
        for step_id, values in variant.items():
            for param, value in values.items():
                flat[f"{step_id}.{param}"] = value
                flat.setdefault(param, value)
        if all(flat.get(k) == v for k, v in wanted.items()):
            return i
    return None


def _manifest(validated: Validated, records: list[StepRecord], plan: Plan,
              chosen: int | None) -> dict:
    recipe = validated.recipe
    return {
        "sdcflow": __version__,
        "recipe": {"file": recipe.path.name, "name": recipe.name, "sha256": recipe.sha256},
        "input": validated.source,
        "seed": recipe.seed,
        "variant": variant_label(plan.variants[chosen]) if chosen is not None and
        plan.variants[chosen] else None,
        "steps": [r.as_dict() for r in records],
        "outputs": {},
        "environment": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "pandas": pd.__version__,
            "platform": sys.platform,
        },
    }


def _released_tables(validated: Validated, store: _Store, variant: int,
                     data: Dataset) -> dict:
    """Table id -> the table to release: as left by the last step on it (of the released
    variant), or built from the released ``data`` when no step works on it."""
    from .tables import build

    recipe, plan = validated.recipe, validated.plan
    out = {}
    for tid in recipe.release.get("tables", {}):
        last = [s.id for s in recipe.steps if s.table == tid]
        if last:
            out[tid] = store.tables[plan.nodes_by_variant[variant][last[-1]]]
        else:
            out[tid] = build(recipe.tables[tid], data, recipe.base_dir)
    return out


def _write_release(target: Path, released: pd.DataFrame | None, release: dict, measures: dict,
                   checks: list[dict], manifest: dict, report: str,
                   tables: dict | None = None) -> None:
    """Write everything into a temporary sibling directory, then swap it in, so that a
    reader never sees a partial release and a failure leaves the old one untouched."""
    target = target.resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
    try:
        outputs = {}
        if released is not None and "path" in release:
            rel = Path(release["path"])
            write_table(released, tmp / rel, table_format(release, rel))
            outputs[rel.as_posix()] = sha256_file(tmp / rel)
        for tid, table in (tables or {}).items():
            from .tables import release_frame

            rel = Path(release["tables"][tid])
            write_table(release_frame(table), tmp / rel, "csv")
            outputs[rel.as_posix()] = sha256_file(tmp / rel)
        measures_doc = {"measures": measures, "checks": checks}  # plain JSON already
        (tmp / "measures.json").write_text(json.dumps(measures_doc, indent=2, sort_keys=True,
                                                      allow_nan=False) + "\n", "utf-8")
        outputs["measures.json"] = sha256_file(tmp / "measures.json")
        (tmp / "report.html").write_text(report, "utf-8")
        outputs["report.html"] = sha256_file(tmp / "report.html")
        manifest["outputs"] = outputs
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n",
                                           "utf-8")
        for path in (tmp / "measures.json", tmp / "manifest.json", tmp / "report.html"):
            os.chmod(path, 0o644)
        os.chmod(tmp, 0o755)
        old = None
        if target.exists():
            old = target.parent / f".{target.name}.old-{os.getpid()}"
            os.replace(target, old)
        os.replace(tmp, target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


