"""How far a long step is: the plugins' side of the run's progress.

While the engine runs a step it sets, for the thread running it, a plain
``callable(fraction)`` (:func:`sdcflow.engine.progress.reporting_step`); a plugin asks for
it with :func:`step_progress` and hands it to its kernel, which calls it with the
fraction of its computation done. Kernels never see the engine or its observers.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar

__all__ = ["reporting_to", "step_progress"]

# The reporting function of the step the current thread runs (None: not in a step).
_STEP: ContextVar[Callable[[float], None] | None] = ContextVar("sdcflow_step_progress",
                                                                default=None)


def step_progress() -> Callable[[float], None] | None:
    """The function to which the step running on this thread reports the fraction of its
    computation done (for a plugin to pass to a long kernel), or None outside a step or
    when nobody listens."""
    return _STEP.get()


@contextlib.contextmanager
def reporting_to(report: Callable[[float], None]) -> Iterator[None]:
    """Within: :func:`step_progress` on this thread (and the contexts it copies) is
    ``report``."""
    token = _STEP.set(report)
    try:
        yield
    finally:
        _STEP.reset(token)
