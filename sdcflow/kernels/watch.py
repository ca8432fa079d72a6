"""Reporting how far a compiled loop is, without calling Python from it.

A kernel that wants to be watched takes a one-element int64 array and writes into it the
work done so far (records grouped, say); :func:`watched` runs the kernel (which releases
the GIL) while a thread reads the count a few times a second and hands the fraction to
a plain ``callable(fraction)``. The kernel's results cannot depend on it: it only
writes the count.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

EVERY = 0.25  # seconds between two readings


def counter() -> np.ndarray:
    """The array a watched kernel counts its work in (starts at 0)."""
    return np.zeros(1, dtype=np.int64)


def watched(run: Callable[[], object], count: np.ndarray, total: int,
            progress: Callable[[float], None] | None) -> object:
    """``run()``, while ``progress(count[0] / total)`` is called every :data:`EVERY`
    seconds from another thread (and with 1.0 at the end); just ``run()`` without
    ``progress``."""
    if progress is None:
        return run()
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(EVERY):
            progress(min(int(count[0]) / total, 1.0) if total else 1.0)

    watcher = threading.Thread(target=watch, name="sdcflow-watch", daemon=True)
    watcher.start()
    try:
        result = run()
    finally:
        stop.set()
        watcher.join()
    progress(1.0)
    return result
