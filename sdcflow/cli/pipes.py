"""The command line in a pipeline: when the reader of our output goes away
(``sdcflow methods | head -1``), stop quietly instead of reporting a broken pipe."""

from __future__ import annotations

import contextlib
import sys


def reader_went_away() -> int:
    """The program reading our output stopped (``sdcflow methods | head -1``): not an
    error. Point standard output at the null device so that Python's final flush at exit
    does not fail again, and exit 0 as the rest of the pipeline expects."""
    import os

    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 0


def stdout_closed() -> bool:
    """Whether standard output is a pipe whose reader went away (polling it reports an
    error), rather than some other pipe breaking (a bug to report)."""
    import select

    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):  # no poll (Windows): assume stdout
        return True
    return False
