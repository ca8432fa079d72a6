"""Runs compute with one BLAS thread (sdcflow.engine.blas): a threaded dot product's last
bits depend on the number of threads, and a run's figures must not depend on the
machine's cores."""

import subprocess
import sys

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from sdcflow.engine import dispatch
from sdcflow.engine.blas import one_blas_thread

DOT = ("import numpy as np; rng = np.random.default_rng(7); a = rng.random(1_000_000); "
       "b = rng.random(1_000_000) * 1e3; print(float(a @ b).hex())")


def blas_threads() -> list[int]:
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


def test_one_blas_thread_inside_the_block_and_the_limits_restored_after():
    import scipy.linalg  # noqa: F401  (scipy's own BLAS loaded too)
    before = blas_threads()
    assert before  # (numpy's BLAS is loaded)
    with one_blas_thread():
        assert blas_threads() == [1] * len(before)
    assert blas_threads() == before


def test_a_long_dot_product_is_that_of_one_thread_whatever_the_threads():
    # the same sum in a process of one BLAS thread and in one of two, limited inside
    def dot(threads: str, limited: bool) -> str:
        code = DOT if not limited else (
            "from sdcflow.engine.blas import one_blas_thread\n"
            f"with one_blas_thread():\n    exec({DOT!r})")
        env = {"OPENBLAS_NUM_THREADS": threads, "PATH": "/usr/bin:/bin"}
        return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, check=True).stdout.strip()

    assert dot("2", limited=True) == dot("1", limited=False)


def test_a_run_computes_with_one_blas_thread(monkeypatch, recipe):
    seen = []

    def run_in_memory(*args, **kwargs):
        seen.append(blas_threads())
        raise RuntimeError("enough")

    monkeypatch.setattr(dispatch, "run_in_memory", run_in_memory)
    with pytest.raises(RuntimeError, match="enough"):
        dispatch.run(recipe, write=False)
    assert seen and set(seen[0]) == {1}
    assert blas_threads() != [] and np.ones(2) @ np.ones(2) == 2.0  # (BLAS still usable)


def test_dask_workers_compute_with_one_blas_thread():
    from sdcflow.engine.dask.runner import _client

    def threads_there():
        import scipy.linalg  # noqa: F401
        from threadpoolctl import threadpool_info
        return sorted({lib["num_threads"] for lib in threadpool_info()
                       if lib["user_api"] == "blas"})

    with _client({"workers": 1}) as client:
        found = client.run(threads_there)
    assert list(found.values()) == [[1]]
