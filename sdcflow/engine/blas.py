"""One BLAS thread while a run computes, so that its numbers do not depend on the
machine's cores.

A threaded BLAS splits a long dot product among its threads and adds their partial sums:
with OpenBLAS, ``a @ b`` over a million values differs in its last bits between one and
two threads. A figure computed so (a loss, a risk, a model's coefficients) would then
change with ``OPENBLAS_NUM_THREADS`` or the number of cores, and so would the manifest's
hashes, against the promise that a recipe and its input give the same release anywhere.
Runs limit every BLAS library to one thread for their duration, through threadpoolctl
(the limit scikit-learn uses); on a Dask cluster each worker does so for the tasks it
runs. The heavy kernels are compiled loops, not BLAS, so little speed is lost."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from threadpoolctl import threadpool_limits


def _load_blas() -> None:
    """Load the BLAS libraries a run may use, so that the limit reaches them: numpy's,
    and scipy's own (scipy's wheels carry another OpenBLAS, loaded with scipy.linalg;
    a library loaded after the limit would keep its threads)."""
    import numpy  # noqa: F401
    import scipy.linalg  # noqa: F401


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Limit the BLAS libraries of numpy and scipy to one thread inside the block; their
    earlier limits are restored after it."""
    _load_blas()
    limits = threadpool_limits(limits=1, user_api="blas")
    try:
        yield
    finally:
        limits.restore_original_limits()


def limit_worker_blas() -> None:
    """Limit this process's BLAS libraries to one thread for good (a Dask worker's setup:
    its tasks are parts of runs)."""
    _load_blas()
    threadpool_limits(limits=1, user_api="blas")
