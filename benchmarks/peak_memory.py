"""Time and peak memory of one call, measured in a forked child process (Linux).

The child starts with the parent's memory (the data, shared copy-on-write), resets its
peak resident set size (``/proc/self/clear_refs``, value 5) and reads it back after the
call (``VmHWM`` in ``/proc/self/status``): the peak is every page the call made resident,
whichever allocator made it (NumPy, pandas, LAPACK workspaces, numba's runtime), exactly,
not sampled. The child first hands the free memory its allocator keeps back to the
system (``malloc_trim``), so that reused pages count too. Each call runs in its own
child, so memory freed by one case and kept by the allocator cannot hide the
allocations of the next (``tracemalloc`` sees NumPy but not
numba; the resident size of one long process under-reports every case after the first).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import pickle
import time
from collections.abc import Callable
from typing import Any


def _status_bytes(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def measure(call: Callable[[], Any], warm: Callable[[], Any] | None = None
            ) -> tuple[float, int, Any]:
    """``(seconds, peak bytes above the resident size before the call, result)`` of
    ``call()`` run in a forked child; ``warm()`` runs first in the child, unmeasured
    (e.g. to load compiled kernels). The result must be picklable (return a summary)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: measure, report through the pipe, exit without cleanup
        code = 0
        try:
            os.close(read)
            if warm is not None:
                warm()
            # free memory the allocator keeps goes back to the system, so that the
            # call cannot reuse pages already counted as resident
            ctypes.CDLL(ctypes.util.find_library("c")).malloc_trim(0)
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
            base = _status_bytes("VmRSS")
            start = time.perf_counter()
            result = call()
            seconds = time.perf_counter() - start
            payload = pickle.dumps((seconds, _status_bytes("VmHWM") - base, result))
        except BaseException as exc:  # noqa: BLE001 - handed to the parent
            payload, code = pickle.dumps(exc), 1
        with os.fdopen(write, "wb") as f:
            f.write(payload)
        os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as f:
        payload = f.read()
    os.waitpid(pid, 0)
    out = pickle.loads(payload)
    if isinstance(out, BaseException):
        raise out
    return out
