"""The ``sdcflow`` command: validate | plan | run | report | methods | public-recipe | init
| schema | compile.

Exit codes (the contract in DESIGN.md): 0 success; 1 invalid recipe or data, or a step
failed; 2 wrong command-line usage; 3 a release check failed (nothing released).
Errors are printed as ``file:line:col: message``, never as a traceback (``--debug``
shows one for bug reports)."""

from ._main import main
from .parser import build_parser

__all__ = ["build_parser", "main"]
