"""What a run tells as it goes, to whoever shows it.

The engine calls a :class:`RunObserver`; the command line implements one that draws
progress bars (:mod:`sdcflow.cli.display`), and the engine knows nothing of how it is shown.
The base class does nothing, so an observer overrides only what it shows.

Threads: steps run at the same time (:mod:`sdcflow.engine.scheduler`), so
:meth:`~RunObserver.step_started` is called on the thread that runs the step, and
:meth:`~RunObserver.step_progress` on that thread or one it started (a kernel's watcher,
:mod:`sdcflow.kernels.watch`); the other calls come from the thread that called
:func:`sdcflow.run`. An observer that keeps state must guard it.

A long computation inside a step may report how far it is through
:func:`sdcflow.plugins.progress.step_progress` (the plugins' side): the engine sets, for the thread running a step, a plain ``callable(fraction)`` (or
None), which a plugin can hand to its kernel; kernels never see the observer.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

from ..plugins.progress import reporting_to
from .records import StepRecord

__all__ = ["LineObserver", "RunObserver", "as_observer", "reporting_step"]


class RunObserver:
    """The events of a run, in order: :meth:`loading` (repeatedly, as the data load),
    :meth:`steps_started`, then per step :meth:`step_started`, :meth:`step_progress`
    (only if its computation reports) and :meth:`step_finished`, and :meth:`writing`
    before the outputs are written (not when nothing is written)."""

    def loading(self, what: str, fraction: float) -> None:
        """``fraction`` (0 to 1) of loading and checking the data ``what`` is done."""

    def steps_started(self, total: int) -> None:
        """The plan's ``total`` steps start (the data are loaded)."""

    def step_started(self, node: str, plugin: str) -> None:
        """Step ``node`` (running ``plugin``) starts, or is looked up in the cache."""

    def step_progress(self, node: str, fraction: float) -> None:
        """``fraction`` (0 to 1) of the computation of step ``node`` is done."""

    def step_finished(self, node: str, record: StepRecord) -> None:
        """Step ``node`` finished: ``record`` says how long it took, and if it was cached."""

    def writing(self) -> None:
        """Every step and check is done; the outputs are being written."""


class LineObserver(RunObserver):
    """One line per finished step, ``[3/9] micro (microaggregation) 18.26s`` (or
    ``cached``), handed to ``write``: for logs and for terminals that are not one."""

    def __init__(self, write: Callable[[str], None]):
        self.write = write
        self.total = 0
        self.finished = 0

    def steps_started(self, total: int) -> None:
        self.total = total

    def step_finished(self, node: str, record: StepRecord) -> None:
        self.finished += 1
        how = "cached" if record.cached else f"{record.seconds:.2f}s"
        self.write(f"[{self.finished}/{self.total}] {node} ({record.plugin}) {how}")


def as_observer(progress: RunObserver | Callable[[str], None] | None) -> RunObserver:
    """An observer for what :func:`sdcflow.run` accepts as ``progress``: an observer, a
    function of one line of text (:class:`LineObserver`), or None (nothing is shown)."""
    if progress is None:
        return RunObserver()
    if isinstance(progress, RunObserver):
        return progress
    if callable(progress):
        return LineObserver(progress)
    raise TypeError(f"progress must be a RunObserver or a function of a line of text, "
                    f"not {type(progress).__name__}")


@contextlib.contextmanager
def reporting_step(observer: RunObserver, node: str) -> Iterator[None]:
    """Within: :func:`~sdcflow.plugins.progress.step_progress` reports to ``observer`` as step ``node`` (nothing
    is set for an observer that does not show progress within steps). Fractions only
    grow: a kernel that reports from several threads cannot make the bar go back."""
    if type(observer).step_progress is RunObserver.step_progress:
        yield
        return
    lock = threading.Lock()
    best = [0.0]

    def report(fraction: float) -> None:
        with lock:
            if fraction <= best[0]:
                return
            best[0] = min(float(fraction), 1.0)
        observer.step_progress(node, best[0])

    with reporting_to(report):
        yield
