"""Running a recipe: validate, execute, check, and write the outputs.

The output directory (see :mod:`sdcflow.engine.outputs` for what a run may replace)::

    DIR/
      public/              safe to publish whole
        <release files>    the protected data and tables (cells only published/suppressed)
        manifest.json      public manifest (no seed, no original values)
        report.html        external report
      manifest.json        full manifest: seed, input hash, every step, every file's sha256
      measures.json        every measure's full result and every check
      report.html          internal report (original frequencies, recipe text, ...)
      tables/ID.csv        protected tables with primary/secondary status and rules
      household-ids.csv    original -> released household id (ids are replaced)
      steps/ID.ptable.csv  the ptable a cell key step used (its write_ptable)
      run.json             timings, cache hits and notes of this run (the only file that
                           differs between two runs of the same recipe and input)

A run whose checks fail releases nothing and says so in DIR (:func:`not_released`): DIR
then holds only ``manifest.json`` (``"released": false`` and the failed checks),
``measures.json``, the internal ``report.html`` (``report.pdf``), marked NOT RELEASED,
and ``run.json`` (with the files of an earlier release it withdrew). There is no
``public/`` at all: an earlier release of the recipe in DIR is withdrawn, as the recipe no
longer stands behind it, and a publishing job that copies ``public/`` finds nothing to
copy instead of a stale release.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd

from .._version import __version__
from ..data import write_table
from ..data.households import household_digests, household_units, new_ids
from ..data.io import sha256_file, table_format
from ..data.release_numbers import release_rounding, released_numbers
from ..data.stat_files import labels_for_release
from ..errors import CheckFailed, OutputError, RecipeError
from ..recipe import Recipe, Validated, validate
from ..recipe._stat_release import release_format, release_position, release_value_problem
from ..recipe.plan import Plan, chosen_variant
from .cache import Cache
from .canonical import pretty_json
from .checks import evaluate_checks, failure_text, unprotected_failures
from .execution import execute
from .manifest import full_manifest, public_manifest
from .outputs import MANIFEST, RUN_LOG, check_target, earlier_release, replace_output
from .partial import Selection, evaluable_checks, partial_plan, selected_nodes
from .progress import RunObserver
from .records import StepRecord

CACHE_DIR = ".sdcflow-cache"
PUBLIC = "public"
STEP_FILES = "steps"  # internal: files steps ask for (a cell key step's ptable)
HOUSEHOLD_IDS = "household-ids.csv"  # internal: original -> released household id


@dataclass
class RunResult:
    """What :func:`sdcflow.run` returns: measures by step, the released data, per-record
    measure tables, check results, the manifests, and where the outputs went
    (``out_dir`` is None when nothing was written)."""

    measures: dict
    data: pd.DataFrame | None
    per_record: dict
    checks: list[dict]
    manifest: dict
    out_dir: Path | None
    steps: list[StepRecord]
    # the internal HTML report of the run (keyword run_date: the date it shows)
    report: Callable[..., str] | None = None
    publishes: bool = False  # the release holds data (a file of records or a table)
    public_manifest: dict | None = None
    external_report: Callable[[], str] | None = None
    notes: list[str] = field(default_factory=list)  # e.g. cache entries recomputed
    household_ids: pd.DataFrame | None = None  # original -> released id (internal)
    tables: dict = field(default_factory=dict)  # table id -> the protected table released
    # a run whose checks failed: the files of an earlier release it withdrew from DIR
    withdrawn: list[str] = field(default_factory=list)
    validated: Validated | None = None  # the recipe as run, with its plan and data
    # a partial run (--select/--until): what it ran and the checks it could not evaluate
    partial: dict | None = None

    @property
    def public_dir(self) -> Path | None:
        return self.out_dir / PUBLIC if self.out_dir is not None else None


def default_out_dir(recipe: Recipe) -> Path:
    return recipe.base_dir / "output" / recipe.name


def run_in_memory(recipe: Recipe, out_dir: str | Path | None, *, write: bool,
                  use_cache: bool, observer: RunObserver, workers: int | None,
                  selection: Selection | None) -> RunResult:
    """Run ``recipe`` in this process (:func:`sdcflow.engine.dispatch.run` documents the
    arguments, the outputs and the errors): steps run by :func:`execute` (``workers``
    threads for independent steps), checks evaluated, outputs written by
    :func:`_write_outputs` or, when a check fails, :func:`not_released`."""
    what = _data_name(recipe)
    validated = validate(recipe, progress=lambda fraction: observer.loading(what, fraction))
    if selection:
        return run_partial(validated, selection, out_dir, write=write, use_cache=use_cache,
                           observer=observer, workers=workers)
    target = None
    if write:  # refuse a directory the run may not write before spending time on steps
        target = check_target(Path(out_dir) if out_dir is not None else
                              default_out_dir(recipe), recipe.name)
    with Cache(recipe.base_dir / CACHE_DIR, read=use_cache) as cache:
        store, measures, records, per_record = execute(validated, cache, observer,
                                                      workers=workers)
    plan: Plan = validated.plan
    release = recipe.release
    chosen = chosen_variant(plan.variants, release.get("variant"))
    check_variants = [chosen] if chosen is not None else list(range(len(plan.variants)))
    checks = evaluate_checks(recipe, plan, measures, check_variants)
    released, tables, ids = None, {}, None
    if chosen is not None:
        data = store.dataset(plan.release_view(chosen, release.get("from")))
        released, ids = _household_ids(recipe, data.for_release())
        _check_release_values(recipe, released)
        tables = _released_tables(validated, store, chosen, data)
    households = _households_entry(recipe, ids, released)
    manifest = full_manifest(validated, records, chosen, households)
    failures = [c for c in checks if not c["passed"]]
    result = RunResult(measures, released, per_record, checks, manifest, None, records,
                       publishes=chosen is not None and ("path" in release or bool(tables)),
                       notes=list(cache.notes), tables=tables, validated=validated)
    result.report = lambda **kw: report_html(validated, result, released_ok=not failures,
                                             preview=not write, **kw)
    if failures:
        raise not_released(validated, result, target, observer)
    result.household_ids = ids
    if chosen is not None:
        public = {"household_ids": {k: v for k, v in households["household_ids"].items()
                                    if k != "households"}} if households else {}
        result.public_manifest = public_manifest(validated, records, chosen, measures, checks,
                                                 {}, public)
        result.external_report = lambda: report_html(validated, result, released_ok=True,
                                                     external=True, chosen=chosen,
                                                     preview=not write)
    if write:
        observer.writing()
        result.out_dir = replace_output(
            target, recipe.name,
            lambda tmp: _write_outputs(tmp, validated, result, tables, chosen))
    return result


def partial_out_dir(recipe: Recipe) -> Path:
    """Where a partial run writes by default: beside the recipe's own output directory,
    so that it never replaces (withdraws) a release there."""
    return recipe.base_dir / "output" / f"{recipe.name}.partial"


def run_partial(validated: Validated, selection: Selection, out_dir: str | Path | None, *,
                write: bool, use_cache: bool, observer: RunObserver,
                workers: int | None) -> RunResult:
    """Run the steps of ``selection`` (:mod:`sdcflow.engine.partial`) and never release:
    evaluate the checks whose measures all ran, and write (into ``out_dir``, by default
    :func:`partial_out_dir`) the internal outputs only, the manifest saying
    ``"released": false`` and ``"partial"``: what was selected, the steps that ran and the
    checks not evaluated. A directory holding a release is refused: a partial run, which
    did not run the recipe's checks, neither replaces nor withdraws it."""
    recipe = validated.recipe
    nodes = selected_nodes(recipe, validated.plan, selection)
    validated = replace(validated, plan=partial_plan(validated.plan, nodes))
    target = None
    if write:
        target = check_target(Path(out_dir) if out_dir is not None else
                              partial_out_dir(recipe), recipe.name)
        if earlier_release(target, recipe.name):
            raise OutputError(f"{target} holds a release of recipe '{recipe.name}': a "
                              "partial run (--select, --until) neither replaces nor "
                              "withdraws it; nothing was touched. Give another --out (by "
                              "default a partial run writes into output/NAME.partial)")
    with Cache(recipe.base_dir / CACHE_DIR, read=use_cache) as cache:
        _store, measures, records, per_record = execute(validated, cache, observer,
                                                       workers=workers)
    plan = validated.plan
    chosen = chosen_variant(plan.variants, recipe.release.get("variant"))
    variants = [chosen] if chosen is not None else list(range(len(plan.variants)))
    ready, waiting = evaluable_checks(recipe, plan, set(nodes), variants)
    checks = evaluate_checks(replace(recipe, checks=ready), plan, measures, variants)
    manifest = full_manifest(validated, records, None)
    partial = {**selection.as_dict(), "steps": nodes,
               "not_evaluated": [c.text for c in waiting]}
    manifest.update(released=False, partial=partial)
    result = RunResult(measures, None, per_record, checks, manifest, None, records,
                       notes=list(cache.notes), validated=validated, partial=partial)
    result.report = lambda: report_html(validated, result, released_ok=True,
                                        preview=not write)
    if write:
        observer.writing()
        result.out_dir = replace_output(target, recipe.name,
                                        lambda tmp: _write_internal(tmp, validated, result))
    return result


def _check_release_values(recipe: Recipe, released: pd.DataFrame | None) -> None:
    """Refuse, before anything is written, a release in a statistics format that cannot
    hold its values as they are (:mod:`sdcflow.data.stat_limits`)."""
    fmt = release_format(recipe)
    if fmt is None or released is None:
        return
    problem = release_value_problem(released_numbers(released, *release_rounding(recipe)),
                                    fmt, recipe.release["path"])
    if problem:
        raise RecipeError([recipe.doc.problem(release_position(recipe), f"release: {problem}")])


def _data_name(recipe: Recipe) -> str:
    """How progress names the recipe's data: the file's name or the shipped data set's."""
    data = recipe.data or {}
    if "builtin" in data:
        return str(data["builtin"])
    return Path(str(data.get("path", "the data"))).name


def _write_outputs(tmp: Path, validated: Validated, result: RunResult, tables: dict,
                   chosen: int | None, released: dict[str, str] | None = None) -> None:
    """Write every output file into ``tmp`` (the directory being built); ``released``:
    files already written into ``public/`` (by the Dask engine's workers) and their sha256."""
    from ..recipe.tables import internal_frame, release_frame
    from ..report import pdf_bytes

    release = validated.recipe.release
    public = tmp / PUBLIC
    released = dict(released or {})
    result.tables = tables
    if result.data is not None and "path" in release:
        rel = Path(release["path"])
        write_table(released_numbers(result.data, *release_rounding(validated.recipe)),
                    public / rel, table_format(release, rel), release_labels(validated))
        released[rel.as_posix()] = sha256_file(public / rel)
    for tid, table in tables.items():
        rel = Path(release["tables"][tid])
        write_table(release_frame(table), public / rel, "csv")
        released[rel.as_posix()] = sha256_file(public / rel)
        write_table(internal_frame(table), tmp / "tables" / f"{tid}.csv", "csv")
    if chosen is not None:
        result.public_manifest["released"] = dict(sorted(released.items()))
        _write_text(public / MANIFEST, pretty_json(result.public_manifest))
        external = result.external_report()
        _write_text(public / "report.html", external)
        if release.get("pdf"):
            _write_bytes(public / "report.pdf", pdf_bytes(external, validated.recipe.name))
    result.manifest["released"] = True
    _write_internal(tmp, validated, result)


def not_released(validated: Validated, result: RunResult, target: Path | None,
                 observer: RunObserver) -> CheckFailed:
    """The :class:`CheckFailed` of a run whose checks failed (``result``), after writing
    its outputs into ``target`` (None: nothing is written).

    The run's verdict replaces DIR as a release would (atomically, and only what an
    earlier sdcflow run of the recipe wrote there, see :mod:`.outputs`), with the internal
    outputs alone: ``manifest.json`` saying ``"released": false`` and the failed checks
    (so that the next run recognises DIR as its own), ``measures.json``, the internal
    report marked NOT RELEASED, ``run.json``. No ``public/``: the files of an earlier
    release there are withdrawn (``result.withdrawn`` lists them, ``run.json`` too).
    Nothing that differs between two runs goes into the manifest or the report, so these
    outputs are the same bytes on every run, cached or not. When DIR cannot be written
    (files changed there while the steps ran, a full disk), the error is kept on the
    exception (``write_error``) and DIR is left as it was."""
    failed_checks = [c for c in result.checks if not c["passed"]]
    failures = [failure_text(c) for c in failed_checks]
    # (and what a failed risk check meant: the release rested on it, the recipe guide's "Release
    # policy", docs/recipe-guide.md)
    failed = CheckFailed(failures + unprotected_failures(validated.recipe, failed_checks),
                         result)
    result.manifest["released"] = False
    result.manifest["failed_checks"] = failures
    if target is None:
        return failed
    observer.writing()
    replaced: list[str] = []

    def build(tmp: Path) -> None:
        # (``replaced`` is filled before the build starts: run.json names what goes)
        result.withdrawn = [f for f in replaced if f.split("/")[0] == PUBLIC]
        _write_internal(tmp, validated, result)

    try:
        result.out_dir = replace_output(target, validated.recipe.name, build,
                                        previous=replaced)
    except OutputError as exc:
        result.withdrawn = []
        failed.write_error = str(exc)
    return failed


def _write_internal(tmp: Path, validated: Validated, result: RunResult) -> None:
    """The internal outputs of a run into ``tmp``: measures, the internal report, the
    household ids, then the full manifest (with every file's sha256) and the run log."""
    from ..report import pdf_bytes

    release = validated.recipe.release
    _write_text(tmp / "measures.json", pretty_json({"measures": result.measures,
                                                     "checks": result.checks}))
    internal = result.report()
    _write_text(tmp / "report.html", internal)
    if release.get("pdf"):
        _write_bytes(tmp / "report.pdf", pdf_bytes(internal, validated.recipe.name))
    if result.household_ids is not None:
        write_table(result.household_ids, tmp / HOUSEHOLD_IDS, "csv")
    _write_step_files(tmp, result)
    files = {}
    for path in sorted(p for p in tmp.rglob("*") if p.is_file()):
        rel = path.relative_to(tmp).as_posix()
        if rel not in (MANIFEST, RUN_LOG) and not rel.startswith("."):
            files[rel] = sha256_file(path)
    result.manifest["files"] = files
    _write_text(tmp / MANIFEST, pretty_json(result.manifest))
    _write_text(tmp / RUN_LOG, pretty_json(run_log(result)))


def step_file(node: str, name: str) -> str:
    """Where a step's internal file goes: ``steps/NODE.NAME``; a node of a grid variant
    (``ck[D=3]``, whose values may hold any character) keeps its letters, digits and
    ``.=,_-``, and a short hash of the node keeps two variants apart."""
    import hashlib
    import re

    safe = re.sub(r"[^A-Za-z0-9.=,_-]", "_", node)
    if safe != node:
        safe += "-" + hashlib.sha256(node.encode("utf-8")).hexdigest()[:8]
    return f"{STEP_FILES}/{safe}.{name}"


def _write_step_files(tmp: Path, result: RunResult) -> None:
    """The files steps ask for (:meth:`~sdcflow.plugins.registry.Plugin.internal_files`), into
    ``steps/`` of the internal output."""
    from ..plugins import registry

    for record in result.steps:
        plugin = registry.get(record.plugin)
        files = plugin.internal_files(record.params) if plugin is not None else {}
        for name, text in sorted(files.items()):
            _write_text(tmp / step_file(record.node, name), text)


def release_labels(validated: Validated) -> dict:
    """The labels a release in a statistics format carries (:func:`labels_for_release`)."""
    return labels_for_release(validated.recipe.variables, validated.source)


def run_log(result: RunResult) -> dict:
    """The volatile part of a run: how long each step took, which came from the cache,
    the notes (e.g. cache entries that failed verification and were recomputed) and,
    for a run that released nothing, the files of an earlier release it withdrew (they
    depend on what DIR held before, so they are not in the manifest)."""
    from ..report.signoff import run_timestamp

    # the run's date: here, in the one file that may differ between runs (the reports,
    # hashed in the manifest, show it only when SOURCE_DATE_EPOCH fixes it)
    log = {"sdcflow": __version__, "date": run_timestamp(),
           "steps": [{"id": s.node, "seconds": round(s.seconds, 4), "cached": s.cached}
                     for s in result.steps],
           "notes": result.notes}
    if result.manifest.get("released") is False:
        log["withdrawn"] = result.withdrawn
    return log


def _write_text(path: Path, text: str) -> None:
    _write_bytes(path, text.encode("utf-8"))


def _write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    path.chmod(0o644)


def report_html(validated: Validated, result: RunResult, *, released_ok: bool,
                external: bool = False, chosen: int | None = None,
                preview: bool = False, run_date: str | None = None) -> str:
    """The HTML report of a run (see :mod:`sdcflow.report`): the internal one, or with
    ``external`` the one for public/ (published measures and public parameters only, no
    original data, no recipe text). ``preview``: the run writes nothing (``write=False``,
    ``sdcflow report``), so the report may not say that anything was released.
    ``run_date``: the date the internal report shows (see :mod:`sdcflow.report.signoff`)."""
    from ..report import render_report, report_data

    return render_report(report_data(validated, result, released_ok=released_ok,
                                     external=external, chosen=chosen, preview=preview,
                                     run_date=run_date))


def _household_ids(recipe: Recipe, frame: pd.DataFrame
                   ) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """The release with the household id replaced by new numbers (unless
    ``release.household_ids: keep``): 1 .. H in the order of a digest of each household's
    released records (see :func:`sdcflow.data.households.new_ids`: neither the original
    ids nor a draw of the seed, which a search would find from them), and the table
    original -> released id."""
    ids = [n for n, v in recipe.variables.items() if v.role == "household" and n in frame]
    if len(ids) != 1 or recipe.release.get("household_ids", "replace") == "keep":
        return frame, None
    name = ids[0]
    original = frame[name]
    units, count = household_units(original)
    written = released_numbers(frame.drop(columns=[name]), *release_rounding(recipe))
    released = new_ids(household_digests(written, units, count), original.isna().to_numpy(),
                       units)
    frame = frame.copy()
    frame[name] = pd.Series(released, index=frame.index, dtype=original.dtype)
    mapping = pd.DataFrame({"original": original, "released": frame[name]}).dropna()
    return frame, mapping.drop_duplicates().reset_index(drop=True)


def _households_entry(recipe: Recipe, ids: pd.DataFrame | None,
                      released: pd.DataFrame | None) -> dict:
    """What the manifests say of the household id."""
    names = [n for n, v in recipe.variables.items() if v.role == "household"]
    if released is None or len(names) != 1 or names[0] not in released:
        return {}
    entry = {"variable": names[0], "replaced": ids is not None}
    if ids is not None:
        entry["households"] = len(ids)
    return {"household_ids": entry}


def _released_tables(validated: Validated, store, variant: int, data) -> dict:
    """Table id -> the table to release: as left by the last step on it (of the released
    variant), or built from the released ``data`` when no step works on it."""
    from ..recipe.tables import build, release_source, released_table

    recipe, plan = validated.recipe, validated.plan
    out = {}
    for tid in recipe.release.get("tables", {}):
        source = release_source(recipe, tid)  # (a linked table: its table of linked tables)
        last = [s.id for s in recipe.steps if s.table == source]
        if last:
            out[tid] = released_table(recipe, tid, source,
                                      store.tables[plan.nodes_by_variant[variant][last[-1]]])
        else:
            try:
                out[tid] = build(recipe.tables[tid], data)
            except (KeyError, ValueError) as exc:  # (the released data: changed by steps)
                raise RecipeError([recipe.doc.problem(
                    ("release", "tables", tid), f"release.tables.{tid}: {exc}")]) from None
    return out
