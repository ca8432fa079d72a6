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
