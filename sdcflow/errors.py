"""Problems found in a recipe or its data, the one exception that carries them, and the
"did you mean" hints their messages give.

Following pandera, problems are collected and reported together rather than raised one
by one: every check appends :class:`Problem` objects, and callers raise
:class:`RecipeError` once with all of them.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One problem, located in a file as ``file:line:col`` (line and column 1-based)."""

    file: str
    line: int | None
    col: int | None
    message: str
    severity: str = "error"  # "error" or "warning"
    path: tuple = ()  # where in the recipe (keys and indexes), when it is about the recipe

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f":{self.line}:{self.col or 1}"
        prefix = "warning: " if self.severity == "warning" else ""
        return f"{where}: {prefix}{self.message}"

    def as_dict(self) -> dict:
        return {
            "file": self.file,
            "line": self.line,
            "col": self.col,
            "severity": self.severity,
            "message": self.message,
        }


class SdcflowError(Exception):
    """Base class of the errors sdcflow reports to users (never with a traceback)."""

    exit_code = 1


class RecipeError(SdcflowError):
    """The recipe or its data is invalid; ``problems`` lists every problem found."""

    def __init__(self, problems: list[Problem]):
        def order(p: Problem):
            return (p.file, p.line or 0, p.col or 0)

        self.problems = sorted((p for p in problems if p.severity == "error"), key=order) \
            or list(problems)
        self.warnings = sorted((p for p in problems if p.severity == "warning"), key=order)
        super().__init__("\n".join(str(p) for p in self.problems))


class CheckFailed(SdcflowError):
    """A release check failed: nothing was released. ``failures``: one line per failed
    check with the figures it compared; ``result``: the run's result (its ``out_dir``
    holds the outputs of the failed run when they were written, ``withdrawn`` the files
    of an earlier release taken out of it); ``write_error``: why the output directory
    could not be written (then it was left as it was)."""

    exit_code = 3

    def __init__(self, failures: list[str], result=None):
        self.failures = failures
        self.result = result
        self.write_error: str | None = None
        super().__init__("\n".join(failures))


class PluginError(SdcflowError):
    """A plugin failed while running on valid input (reported with the step id)."""

    def __init__(self, step: str, message: str):
        self.step = step
        super().__init__(f"step '{step}': {message}")


def unique_problems(problems: list[Problem]) -> list[Problem]:
    """The problems without repeats (one message per position and text), in order."""
    seen, out = set(), []
    for p in problems:
        key = (p.file, p.line, p.col, p.message)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


class OutputError(SdcflowError):
    """The output directory cannot be written as asked (it holds files sdcflow did not
    write, it is a file, it cannot be created...): nothing was touched."""


class InternalError(SdcflowError):
    """A bug in sdcflow or in a plugin (an unexpected exception inside a step)."""

    exit_code = 4


# 'Did you mean' suggestions for misspelt names (difflib, as argparse does), and hints
# that say how to fix a declaration.

def did_you_mean(name: object, choices: Iterable[object]) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``choices`` to ``name``, else ``''``."""
    close = difflib.get_close_matches(str(name), [str(c) for c in choices], n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def declare_numeric(name: object) -> str:
    """The fix for a numeric method on a variable declared categorical (or ordinal) whose
    values may well be numbers (an age read as categories)."""
    return (f"if its values are numbers, declare `type: integer` (or `type: continuous`) "
            f"under variables.{name}")
