"""How many threads sdcflow's kernels may use.

Every result is the same whatever the number: a kernel that uses threads splits its
work into pieces fixed by the data (not by the number of threads), and randomness never
depends on which thread draws it. The number is the CPUs this process may run on
(``os.sched_getaffinity``), or ``SDCFLOW_THREADS`` when set (1: no threads at all).
"""

from __future__ import annotations

import os


def threads() -> int:
    """The number of threads a kernel may use (at least 1)."""
    wanted = os.environ.get("SDCFLOW_THREADS", "").strip()
    if wanted:
        try:
            return max(1, int(wanted))
        except ValueError:
            pass
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)
