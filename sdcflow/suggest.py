"""'Did you mean' suggestions for misspelt names (difflib, as argparse does), and hints
that say how to fix a declaration."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(name: object, choices: Iterable[object]) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``choices`` to ``name``, else ``''``."""
    close = difflib.get_close_matches(str(name), [str(c) for c in choices], n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def declare_numeric(name: object) -> str:
    """The fix for a numeric method on a variable declared categorical (or ordinal) whose
    values may well be numbers (an age read as categories)."""
    return (f"if its values are numbers, declare `type: integer` (or `type: continuous`) "
            f"under variables.{name}")
