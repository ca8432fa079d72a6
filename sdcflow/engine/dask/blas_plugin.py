"""The Dask worker plugin that puts a worker's BLAS libraries on one thread
(:mod:`sdcflow.engine.blas`), registered by the Dask runner for every worker of a run."""

from __future__ import annotations

from distributed.diagnostics.plugin import WorkerPlugin

from ..blas import limit_worker_blas


class OneBlasThread(WorkerPlugin):
    """On each worker, at its start (or when registered): one BLAS thread."""

    name = "sdcflow-one-blas-thread"

    def setup(self, worker) -> None:
        limit_worker_blas()
