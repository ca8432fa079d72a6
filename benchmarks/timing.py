"""Wall-clock timing for the benchmark scripts."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def best_of(fn: Callable[..., Any], *args: Any, repeat: int = 3,
            **kwargs: Any) -> tuple[float, Any]:
    """``(seconds, result)``: the fastest of ``repeat`` calls ``fn(*args, **kwargs)``
    (the least disturbed by other work on the machine) and the last call's result."""
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn(*args, **kwargs)
        best = min(best, time.perf_counter() - start)
    return best, out


def cpu_and_wall(fn: Callable[..., Any], *args: Any, **kwargs: Any
                 ) -> tuple[float, float, Any]:
    """``(cpu seconds, wall seconds, result)`` of one call (CPU time of the whole process,
    every thread: what the call cost, whatever else the machine was doing)."""
    cpu, wall = time.process_time(), time.perf_counter()
    out = fn(*args, **kwargs)
    return time.process_time() - cpu, time.perf_counter() - wall, out
