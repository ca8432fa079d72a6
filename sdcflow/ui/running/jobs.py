"""Computations the workbench runs in the background, keyed by what they depend on.

A page asks for a result by its key (e.g. the draft's text and the data file's time of
change); the first request starts a thread, later ones find it running (the page polls
for its progress) or finished (then the page shows the result at once). The last few
finished results are kept, so that going back to an earlier draft (undo) is instant."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from ...errors import SdcflowError

KEEP = 8  # finished results kept per page
# one computation at a time, whichever page asked: the machine's cores go to it, and
# matplotlib's pyplot (the pictures) is not safe to use from two threads at once
_ONE_AT_A_TIME = threading.Lock()


@dataclass
class Job:
    """One computation: the progress lines it reported, then its ``result`` or its
    ``error`` (a message for the user)."""

    key: str
    lines: list[str] = field(default_factory=list)
    result: object = None
    error: str | None = None
    done: threading.Event = field(default_factory=threading.Event, repr=False)

    @property
    def finished(self) -> bool:
        return self.done.is_set()

    def note(self, line: str) -> None:
        """Report progress (the page shows the last lines while it waits)."""
        self.lines.append(line)
        del self.lines[:-20]


class Jobs:
    """The computations of one page, by key."""

    def __init__(self, keep: int = KEEP) -> None:
        self.keep = keep
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> Job | None:
        with self._lock:
            return self._jobs.get(key)

    def start(self, key: str, work: Callable[[Job], object]) -> Job:
        """The job of ``key``: the one already known, else ``work(job)`` started in a
        thread (its return value becomes ``job.result``)."""
        with self._lock:
            job = self._jobs.get(key)
            if job is not None:
                self._jobs.move_to_end(key)
                return job
            job = Job(key)
            self._jobs[key] = job
            finished = [k for k, j in self._jobs.items() if j.finished]
            for old in finished[:max(0, len(finished) - self.keep)]:
                del self._jobs[old]
        threading.Thread(target=self._run, args=(job, work), daemon=True,
                         name=f"sdcflow-ui-{key[:12]}").start()
        return job

    def keys(self) -> list[str]:
        """The keys known, oldest first."""
        with self._lock:
            return list(self._jobs)

    @staticmethod
    def _run(job: Job, work: Callable[[Job], object]) -> None:
        try:
            if not _ONE_AT_A_TIME.acquire(blocking=False):
                job.note("waiting for another computation to finish")
                _ONE_AT_A_TIME.acquire()
            try:
                job.result = work(job)
            finally:
                _ONE_AT_A_TIME.release()
        except SdcflowError as exc:  # the recipe, its data or a check: said plainly
            job.error = str(exc)
        except Exception as exc:  # noqa: BLE001 (a bug: shown, never a silent page)
            job.error = (f"internal error: {type(exc).__name__}: {exc} (a bug: please "
                         "report it)")
        finally:
            job.done.set()
