"""Running a recipe on a Dask cluster, partition by partition (``--engine dask``).

The data are the files of ``data.path`` (a directory or a glob pattern), one partition
per file, read on the workers and never brought together unless a step needs its columns
together and they fit (``execution.collect_limit``). Each step runs as its plugin
declares (:mod:`sdcflow.plugins.distribution`); the client only combines small partial results.
Partition ``p`` is always the same file and its records keep their order, so the release
(one file per partition, ``part-00000.parquet`` ...) is the same bytes whatever the number
of workers. Not on this engine: the step cache, methods that change the records
(sampling), grids of variants, per-record measure tables.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

import numpy as np

from ...errors import Problem, RecipeError
from ...plugins.distribution import Groups, MapReduce, Rows
from ...plugins.registry import MeasureResult
from ...recipe import ORIGINAL, Recipe, Validated, as_recipe, validate
from ...recipe._distribution import distribution_problems
from ...recipe.plan import chosen_variant
from ..canonical import canonical_json
from ..checks import evaluate_checks
from ..execution import execution_options
from ..manifest import full_manifest, public_manifest
from ..outputs import check_target, replace_output
from ..progress import RunObserver, as_observer
from ..records import StepRecord
from . import tasks
from .partitions import partition_files, read_partition, source_entry
from .release import write_release
from .tables import TableSteps

GIB = 2 ** 30


def run_dask(recipe: Recipe | str | Path, out_dir: str | Path | None = None, *,
             write: bool = True, scheduler: str | None = None, workers: int | None = None,
             progress: RunObserver | Callable[[str], None] | None = None,
             allow_paths: Iterable[str | Path] = ()):
    """Validate the recipe, run it on a Dask cluster (``scheduler``: an existing one's
    address; default a local cluster of ``workers`` processes) and write the outputs as
    the in-memory engine does (a release when every check passes, else the outputs of the
    failed run, see :func:`sdcflow.engine.runner.not_released`); returns a
    :class:`sdcflow.engine.runner.RunResult`."""
    from ..runner import RunResult, default_out_dir, not_released, report_html

    recipe = as_recipe(recipe, allow_paths)
    validated = validate(recipe, data=False)
    problems = distribution_problems(validated.recipe, validated.plan)
    if problems:
        raise RecipeError(problems)
    options = execution_options(recipe, scheduler=scheduler, workers=workers)
    files = partition_files(recipe)
    target = None
    if write:
        target = check_target(Path(out_dir) if out_dir is not None else
                              default_out_dir(recipe), recipe.name)
    with _client(options) as client:
        run = _DaskRun(client, validated, files, options, as_observer(progress))
        run.load()
        validated = replace(validated, source=source_entry(recipe, files, run.records))
        plan = validated.plan
        view = plan.release_view(chosen_variant(plan.variants, recipe.release.get("variant")),
                                 recipe.release.get("from"))
        last = _last_use(plan, set(view.values()))
        for i, ps in enumerate(plan.steps):
            run.step(ps)
            # outputs no later step (nor the release) reads are dropped from the cluster
            for node in [n for n, at in last.items() if at == i and n in run.frames]:
                del run.frames[node]
        plan, release = validated.plan, recipe.release
        chosen = chosen_variant(plan.variants, release.get("variant"))
        checks = evaluate_checks(recipe, plan, run.measures, [0])
        manifest = full_manifest(validated, run.step_records, chosen)
        failures = [c for c in checks if not c["passed"]]
        result = RunResult(run.measures, None, {}, checks, manifest, None, run.step_records,
                           publishes=chosen is not None and ("path" in release or
                                                             bool(release.get("tables"))),
                           validated=validated)
        result.report = lambda **kw: report_html(validated, result, released_ok=not failures,
                                                 preview=not write, **kw)
        result.external_report = lambda: report_html(validated, result, released_ok=True,
                                                     external=True, chosen=chosen,
                                                     preview=not write)
        if failures:
            raise not_released(validated, result, target, run.observer)
        if chosen is not None:
            result.public_manifest = public_manifest(validated, run.step_records, chosen,
                                                     run.measures, checks, {}, {})
        if write:
            run.observer.writing()
            view = plan.release_view(chosen, release.get("from"))
            result.out_dir = replace_output(
                target, recipe.name,
                lambda tmp: write_release(tmp, validated, result, run, view))
    return result


class _client:
    """A client of the given scheduler, or of a local cluster of worker processes."""

    def __init__(self, options: dict):
        self.options = options

    def __enter__(self):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise RecipeError([Problem("sdcflow", None, None, (
                "the Dask engine needs the 'dask' extra: pip install 'sdcflow[dask]'"))]) from None
        from ...kernels.parallel import threads

        if self.options.get("scheduler"):
            self.cluster = None
            self.client = Client(self.options["scheduler"])
        else:
            memory = self.options.get("worker_memory")
            # with a memory limit, Dask's workers spill data to disk beyond 60% of it
            self.cluster = LocalCluster(
                n_workers=int(self.options.get("workers") or threads()), threads_per_worker=1,
                processes=True, dashboard_address=None, silence_logs=50,
                memory_limit=f"{float(memory)}GiB" if memory else "auto")
            self.client = Client(self.cluster)
        # every worker's BLAS on one thread (the figures independent of its cores), for
        # the workers there are and those that join
        from .blas_plugin import OneBlasThread

        self.client.register_plugin(OneBlasThread())
        return self.client

    def __exit__(self, *exc):
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


class _DaskRun(TableSteps):
    """The state of a run: per node, the futures of its output columns by partition."""

    def __init__(self, client, validated: Validated, files: list, options: dict,
                 progress):
        self.client, self.validated, self.files = client, validated, files
        self.recipe = validated.recipe
        self.limit = float(options.get("collect_limit", 4)) * GIB
        self.observer = progress
        self.frames: dict[str, list] = {}  # node -> futures of data frames
        self.meta: dict[str, dict] = {ORIGINAL: dict(self.recipe.variables)}
        self.order = list(self.recipe.variables)
        self.constraints = tuple(self.recipe.constraints)
        self.measures: dict = {}
        self.tables: dict = {}  # node -> the table a table step left
        self.step_records: list[StepRecord] = []
        self.records: list[int] = []

    # ------------------------------------------------------------------ data
    def load(self) -> None:
        spec = self.recipe.data
        options = {k: v for k, v in spec.items() if k not in ("path", "builtin")}
        # each file by its real path (checked again on the worker, with the same roots)
        read = [self.client.submit(read_partition, str(f.path), self.recipe.files,
                                   options,
                                   dict(self.recipe.variables), self.constraints,
                                   key=f"read-{i}-{f.path.name}", pure=False)
                for i, f in enumerate(self.files)]
        self._wait(read)
        self.frames[ORIGINAL] = [self.client.submit(lambda d: d.frame, r, pure=False)
                                 for r in read]
        self.records = self.client.gather([self.client.submit(tasks.rows_of, r) for r in read])
        if not sum(self.records):
            raise RecipeError([self.recipe.doc.problem(("data", "path"), "the data hold no "
                                                       "records")])
        self._whole_households()
        self.observer.loading(f"{len(self.files)} partitions", 1.0)
        self.observer.steps_started(len(self.validated.plan.steps))

    def _whole_households(self) -> None:
        """Households act as units (methods per household, the released ids): each must
        lie in one partition."""
        ids = [n for n, v in self.recipe.variables.items() if v.role == "household"]
        if len(ids) != 1:
            return
        keys = self.client.gather([self.client.submit(tasks.id_hashes, f, ids[0], pure=False)
                                   for f in self.frames[ORIGINAL]])
        owner = np.repeat(np.arange(len(keys)), [len(k) for k in keys])
        every = np.concatenate(keys) if keys else np.zeros(0, dtype=np.uint64)
        order = np.argsort(every, kind="stable")
        same = np.flatnonzero(every[order][1:] == every[order][:-1])
        if same.size:
            a, b = owner[order][same[0]], owner[order][same[0] + 1]
            raise RecipeError([self.recipe.doc.problem(("variables", ids[0]), (
                f"a household (variable '{ids[0]}') has members in two partitions "
                f"({self.files[a].path.name} and {self.files[b].path.name}): the Dask engine needs "
                "whole households in each file (write the data partitioned by household)"))])

    def _data(self, view: dict) -> list:
        """Futures of the data sets of ``view`` (column -> node), one per partition."""
        by_node: dict[str, list[str]] = {}
        for col, node in view.items():
            by_node.setdefault(node, []).append(col)
        meta = {c: self.meta[n][c] for c, n in view.items()}
        known = set(self.order)  # the declared columns, then any a step added, by name
        order = [c for c in self.order if c in view] + sorted(c for c in view if c not in known)
        return [self.client.submit(
            tasks.dataset, [(self.frames[n][p], cols) for n, cols in by_node.items()],
            order, meta, self.constraints, pure=False) for p in range(len(self.files))]

    def _wait(self, futures) -> None:
        """Wait for ``futures``; the first error (in partition order) is raised as is."""
        from distributed import wait

        wait(futures)
        for f in futures:
            if f.status == "error":
                raise f.exception()

    # ----------------------------------------------------------------- steps
    def step(self, ps) -> None:
        from ..execution import visible

        start = time.perf_counter()
        self.observer.step_started(ps.node, ps.step.plugin_name)
        if ps.table is not None:
            return self._table_step(ps, start)
        job = tasks.Job(ps.node, ps.kind, ps.step.plugin_name, ps.params,
                        tuple(sorted(ps.writes)) if ps.writes is not None else None,
                        tuple(ps.result_nodes), ps.step.sees_loaded_data)
        how = ps.step.plugin.distributes(ps.params, ps.meta)
        data = self._data(visible(ps))
        if ps.kind == "method":
            out, info = self._method(job, how, data, ps)
            digest = self._hash(out)
        else:
            reference = ps.reference or dict.fromkeys(self.order, ORIGINAL)
            wanted = set(visible(ps)) | ps.step.plugin.reference_reads(ps.params)
            ref = self._data({c: n for c, n in reference.items() if c in wanted})
            result = self._measure(ps, job, how, data, ref)
            self.measures[ps.node] = result.summary
            info = {}
            digest = hashlib.sha256(canonical_json(result.summary).encode()).hexdigest()
        self._record(ps, start, digest, info, {"partitions": list(self.records)})

    def _record(self, ps, start: float, digest: str, info: dict, inputs: dict) -> None:
        fingerprint = hashlib.sha256(canonical_json({
            "engine": "dask", "plugin": ps.step.plugin_name, "version": ps.step.plugin.version,
            "params": ps.params, "seed": self.recipe.seed, "node": ps.node, **inputs})
            .encode()).hexdigest()
        self.step_records.append(StepRecord(
            ps.node, ps.kind, ps.step.plugin_name, ps.step.plugin.version, ps.params,
            ps.variant, fingerprint, digest, time.perf_counter() - start, False, info))
        self.observer.step_finished(ps.node, self.step_records[-1])

    def _method(self, job, how, data, ps):
        client, plugin, seed = self.client, ps.step.plugin, self.recipe.seed
        if isinstance(how, Rows):
            state = None
            for rnd in range(how.rounds):
                partials = [client.submit(tasks.fit_partial, job, rnd, d, state, pure=False)
                            for d in data]
                self._wait(partials)
                state = plugin.combine(rnd, client.gather(partials), ps.params, state)
            shared = client.scatter(state, broadcast=True) if state is not None else None
            outs = [client.submit(tasks.apply_rows, job, d, seed, f"partition {p}", shared,
                                  pure=False) for p, d in enumerate(data)]
        elif isinstance(how, Groups) and plugin.strata(ps.params, ps.meta):
            outs, strata = self._by_stratum(job, data, plugin.strata(ps.params, ps.meta))
        else:  # Groups without strata, Whole: the columns collected
            whole = self._collect(ps, data)
            done = client.submit(tasks.apply_whole, job, whole, seed, "whole", pure=False)
            outs, start = [], 0
            for n in self.records:
                outs.append(client.submit(tasks.slice_rows, done, start, n, pure=False))
                start += n
        self._wait(outs)
        small = client.gather([client.submit(tasks.meta_info, o, pure=False) for o in outs])
        metas = [m for m, _ in small]
        if any(m != metas[0] for m in metas[1:]):
            raise RecipeError([self.recipe.doc.problem(ps.step.path, (
                f"step '{ps.step.id}' ({ps.step.plugin_name}) gave its variables different "
                "declarations on different partitions (e.g. categories found in the data): "
                "run it with the in-memory engine"))])
        self.meta[ps.node] = metas[0]
        self.frames[ps.node] = [client.submit(tasks.first, o, pure=False) for o in outs]
        if isinstance(how, Rows):
            infos = [i for _, i in small]
        elif isinstance(how, Groups) and plugin.strata(ps.params, ps.meta):
            infos = client.gather([client.submit(tasks.info_of, r, pure=False) for r in strata])
        else:
            infos = [small[0][1]]
        info = infos[0] if len(infos) == 1 else plugin.combine_info(infos, ps.params)
        return self.frames[ps.node], info

    def _by_stratum(self, job, data, strata):
        client = self.client
        pieces = [client.submit(tasks.pieces_of, d, strata, pure=False) for d in data]
        sizes = client.gather([client.submit(tasks.sizes, pc, pure=False) for pc in pieces])
        labels = sorted({lab for s in sizes for lab in s}, key=repr)
        meta = None
        results = {}
        for label in labels:
            parts = [client.submit(tasks.take_label, data[p], pieces[p], label, pure=False)
                     for p in range(len(data)) if label in sizes[p]]
            if meta is None:
                meta = client.submit(tasks.meta_of, data[0], pure=False)
            results[label] = client.submit(tasks.run_stratum, job, parts, meta,
                                           self.constraints, self.recipe.seed, label,
                                           pure=False)
        outs = []
        offset = dict.fromkeys(labels, 0)
        for p, d in enumerate(data):
            mine = [lab for lab in labels if lab in sizes[p]]
            places = []
            for lab in mine:
                places.append(offset[lab])
                offset[lab] += sizes[p][lab]
            outs.append(client.submit(tasks.assemble_partition, self.records[p], pieces[p], mine,
                                      [results[lab] for lab in mine], places, pure=False))
        return outs, [results[lab] for lab in labels]

    def _collect(self, ps, data):
        """The partitions of ``data`` brought together on one worker (within the limit);
        ``ps``: the planned step that needs them."""
        size = sum(self.client.gather([self.client.submit(tasks.column_bytes, d, pure=False)
                                       for d in data]))
        if size > self.limit:
            raise RecipeError([self.recipe.doc.problem(ps.step.path, (
                f"step '{ps.step.id}' ({ps.step.plugin_name}) needs its {size / GIB:.1f} GiB of "
                f"columns together, over the limit of {self.limit / GIB:g} GiB "
                "(execution.collect_limit): give it strata, or raise the limit on workers "
                "with enough memory"))])
        return self.client.submit(tasks.concat, data, pure=False)

    def _measure(self, ps, job, how, data, ref) -> MeasureResult:
        client, plugin = self.client, job.plugin
        if isinstance(how, MapReduce):
            state = None
            for rnd in range(how.rounds):
                partials = [client.submit(tasks.measure_partial, job, rnd, d, state, r,
                                          pure=False) for d, r in zip(data, ref)]
                self._wait(partials)
                state = plugin.combine(rnd, client.gather(partials), job.params, state)
                if state is not None and rnd + 1 < how.rounds:
                    state = client.scatter(state, broadcast=True)
            return tasks._guarded(job, lambda: plugin.finish(state, job.params))
        whole = self._collect(ps, data)
        original = self._collect(ps, ref)
        result = client.submit(tasks.evaluate_whole, job, whole, self.recipe.seed, original,
                               {}, pure=False)
        self._wait([result])
        measured = result.result()
        return MeasureResult(measured.summary, None)

    def _hash(self, futures) -> str:
        digests = self.client.gather([self.client.submit(tasks.frame_hash, f, pure=False)
                                      for f in futures])
        return hashlib.sha256("".join(digests).encode()).hexdigest()


def _last_use(plan, kept: set) -> dict:
    """For each node whose output columns some step reads, the index of the last step
    that reads them; the nodes in ``kept`` (the release's) are never dropped."""
    last: dict = {}
    for i, ps in enumerate(plan.steps):
        for node in {*ps.view.values(), *(ps.reference or {}).values()}:
            last[node] = i
    return {n: i for n, i in last.items() if n not in kept}
