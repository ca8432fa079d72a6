"""The command line's progress display, drawn with rich on standard error.

:class:`LiveDisplay` shows a run (:class:`sdcflow.engine.progress.RunObserver`): a bar for
loading the data, then a bar of the steps done out of all with the time remaining, and
one line per running step with its time so far. Anything is shown only once it has
lasted a second (short runs stay quiet); a step that ran longer leaves a line behind
when it finishes. :class:`CompileDisplay` shows ``sdcflow compile``.

The remaining time is ``elapsed * (1 - done) / done``: the share done so far, counted in
steps (a step reporting its own progress counts by its fraction) or in loading's own
fraction, is taken to go on at the pace it went. Nothing here writes to standard output,
which belongs to the command's results.
"""

from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING, Self, TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from ..engine.progress import RunObserver

if TYPE_CHECKING:
    from ..engine.records import StepRecord

DELAY = 1.0  # seconds a task runs before it is shown


def console(stream: TextIO | None = None) -> Console:
    """A rich console on ``stream`` (standard error by default): a live display when
    it is a terminal."""
    return Console(file=stream if stream is not None else sys.stderr, highlight=False)


class _RemainingColumn(ProgressColumn):
    """The time remaining at the pace so far (blank before anything is done)."""

    def render(self, task: Task) -> Text:
        elapsed = task.elapsed or 0.0
        if not task.total or task.completed <= 0 or task.finished:
            return Text("")
        done = min(task.completed / task.total, 1.0)
        seconds = int(elapsed * (1.0 - done) / done + 0.5)
        minutes, seconds = divmod(seconds, 60)
        hours, minutes = divmod(minutes, 60)
        text = f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"
        return Text(f"ETA {text}", style="progress.remaining")


class _DelayedProgress(Progress):
    """rich's Progress showing only the tasks that have run at least :data:`DELAY`
    seconds (rich redraws on its own thread, so a task appears without any call)."""

    def get_renderables(self):
        yield self.make_tasks_table(
            [t for t in self.tasks if t.elapsed is not None and t.elapsed >= DELAY])


def _task(progress: Progress, task_id) -> Task:
    """The task of that id (``progress.tasks`` is a list, which loses the ids' places
    once a task is removed)."""
    return next(t for t in progress.tasks if t.id == task_id)


def _progress(out: Console) -> Progress:
    return _DelayedProgress(
        SpinnerColumn(), TextColumn("{task.description}"), BarColumn(bar_width=30),
        TaskProgressColumn(), TimeElapsedColumn(), _RemainingColumn(),
        console=out, transient=True, redirect_stdout=False, refresh_per_second=8)


class LiveDisplay(RunObserver):
    """A run's progress bars (see the module docstring); use as a context manager
    around :func:`sdcflow.run`."""

    def __init__(self, out: Console):
        self.console = out
        self.progress = _progress(out)
        self.lock = threading.Lock()
        self.load_task = None
        self.steps_task = None
        self.running: dict[str, int] = {}  # node -> its task
        self.fractions: dict[str, float] = {}  # node -> fraction reported while running
        self.finished = 0
        self.total = 0

    def __enter__(self) -> Self:
        self.progress.start()
        return self

    def __exit__(self, *exc) -> None:
        self.progress.stop()

    def loading(self, what: str, fraction: float) -> None:
        with self.lock:
            if self.load_task is None:
                self.load_task = self.progress.add_task(f"loading {what}", total=1.0)
            self.progress.update(self.load_task, completed=fraction)

    def steps_started(self, total: int) -> None:
        with self.lock:
            if self.load_task is not None:
                task = _task(self.progress, self.load_task)
                if (task.elapsed or 0.0) >= DELAY:
                    self.console.print(f"{task.description}: {task.elapsed:.1f}s",
                                       markup=False, highlight=False)
                self.progress.remove_task(self.load_task)
                self.load_task = None
            self.total = total
            self.steps_task = self.progress.add_task("steps", total=max(total, 1))

    def step_started(self, node: str, plugin: str) -> None:
        with self.lock:
            self.running[node] = self.progress.add_task(f"  {node} ({plugin})", total=None)

    def step_progress(self, node: str, fraction: float) -> None:
        with self.lock:
            task = self.running.get(node)
            if task is None:
                return
            self.fractions[node] = fraction
            self.progress.update(task, total=1.0, completed=fraction)
            self._advance()

    def step_finished(self, node: str, record: StepRecord) -> None:
        with self.lock:
            task = self.running.pop(node, None)
            self.fractions.pop(node, None)
            self.finished += 1
            if task is not None:
                if not record.cached and record.seconds >= DELAY:
                    self.console.print(f"[{self.finished}/{self.total}] {node} "
                                       f"({record.plugin}) {record.seconds:.1f}s",
                                       markup=False, highlight=False)
                self.progress.remove_task(task)
            self._advance()

    def writing(self) -> None:
        with self.lock:
            if self.steps_task is not None:
                self.progress.remove_task(self.steps_task)
                self.steps_task = None
            self.progress.add_task("writing the outputs", total=None)

    def _advance(self) -> None:
        """The steps bar: finished steps, plus the fractions running steps reported."""
        if self.steps_task is not None:
            self.progress.update(self.steps_task,
                                 completed=self.finished + sum(self.fractions.values()),
                                 description=f"steps {self.finished}/{self.total}")


class CompileDisplay:
    """``sdcflow compile``: one bar over the kernel families, weighted by how long each
    takes to compile, and one line per family compiled."""

    def __init__(self, out: Console, total_weight: float):
        self.console = out
        self.progress = _progress(out)
        self.task = self.progress.add_task("compiling", total=total_weight)

    def __enter__(self) -> Self:
        self.progress.start()
        return self

    def __exit__(self, *exc) -> None:
        self.progress.stop()

    def started(self, name: str) -> None:
        self.progress.update(self.task, description=f"compiling {name}")

    def finished(self, name: str, weight: float, seconds: float) -> None:
        self.console.print(f"compiled {name} in {seconds:.1f}s", markup=False, highlight=False)
        self.progress.advance(self.task, weight)
