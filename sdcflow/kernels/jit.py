"""numba's ``njit`` with a cache that can never stop sdcflow from starting.

``numba.njit(cache=True)`` looks for a directory to keep the compiled code in when the
function is *decorated* (that is, when the module is imported): ``NUMBA_CACHE_DIR`` if
set, the ``__pycache__`` next to the source file, then the per-user cache directory
(``$XDG_CACHE_HOME/numba`` or ``~/.cache/numba``). When none of them can be written (a
read-only installation run by a user without a home directory, a container with a
read-only file system) numba raises ``RuntimeError: cannot cache function ...: no
locator available`` and every command of sdcflow, ``validate`` included, would fail on
import. Every compiled kernel of sdcflow is decorated with :func:`njit` from here: the
choice is made once, for all of them; without a writable directory the kernels are
compiled in each process (slower to start, same results) and one warning line says so.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable

import numba

__all__ = ["caching_available", "njit"]

_log = logging.getLogger("sdcflow")
_NO_LOCATOR = "no locator available"


def _probe() -> int:  # pragma: no cover - compiled only to find a cache directory
    return 0


@functools.cache
def caching_available() -> bool:
    """Whether numba finds a writable cache directory for sdcflow's kernels (decided
    once per process, by decorating a trivial function as the kernels are decorated)."""
    try:
        numba.njit(cache=True)(_probe)
    except RuntimeError as exc:
        if _NO_LOCATOR not in str(exc):
            raise
        _log.warning("sdcflow: compiled kernels are not cached (no writable cache "
                     "directory: NUMBA_CACHE_DIR, the package's __pycache__ and ~/.cache "
                     "all failed); set NUMBA_CACHE_DIR to a writable directory to keep "
                     "them between runs")
        return False
    return True


def njit(*args, cache: bool = False, **options) -> Callable:
    """``numba.njit`` (same arguments, used as ``@njit`` or ``@njit(cache=True, ...)``),
    except that ``cache=True`` means "cache when a writable directory exists", and that
    kernels release the GIL (``nogil=True``) unless told otherwise, so that independent
    steps of a plan can run at the same time on several threads."""
    options.setdefault("nogil", True)

    def decorate(func: Callable) -> Callable:
        if cache and caching_available():
            try:
                return numba.njit(cache=True, **options)(func)
            except RuntimeError as exc:  # this file's directory alone is not writable
                if _NO_LOCATOR not in str(exc):
                    raise
        return numba.njit(cache=False, **options)(func)

    if len(args) == 1 and callable(args[0]) and options == {"nogil": True} and not cache:
        return decorate(args[0])
    if args:
        raise TypeError("njit: pass the options by keyword, e.g. @njit(cache=True)")
    return decorate
