"""numba's ``njit`` with a cache that can never stop sdcflow from starting.

Where the compiled code is kept. numba compiles a kernel the first time it is called
(about 20 s for a recipe with microaggregation) and, with ``cache=True``, keeps the
machine code so that later processes only load it. sdcflow chooses the directory itself,
once, before the first kernel is decorated (:func:`cache_directory`):

1. ``NUMBA_CACHE_DIR`` when the user set it (numba's own fallbacks apply if it cannot
   be written);
2. ``$XDG_CACHE_HOME/sdcflow/numba``, or ``~/.cache/sdcflow/numba``;
3. ``sdcflow-<uid>/numba`` under the temporary directory (``tempfile.gettempdir()``),
   used only if that directory belongs to the user and is closed to others: compiled
   code is loaded from there, so nobody else may write it;
4. none: numba's own locations (the package's ``__pycache__``, ``~/.cache/numba``).

The choice is exported as ``NUMBA_CACHE_DIR``, so processes started by sdcflow (Dask
workers, for instance) share it. ``sdcflow compile`` fills it ahead of time.

When nothing can be written at all (a read-only installation run by a user without a
home directory, a container with a read-only file system) ``numba.njit(cache=True)``
would raise ``RuntimeError: cannot cache function ...: no locator available`` when the
function is *decorated*, that is when the module is imported, and every command of
sdcflow, ``validate`` included, would fail. Every compiled kernel of sdcflow is
decorated with :func:`njit` from here: without a writable directory the kernels are
compiled in each process (slower to start, same results) and one warning line says so.
"""

from __future__ import annotations

import functools
import logging
import os
import stat
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

import numba

__all__ = ["cache_directory", "caching_available", "choose_cache_dir", "kernels", "njit"]

_log = logging.getLogger("sdcflow")
_NO_LOCATOR = "no locator available"
ENV = "NUMBA_CACHE_DIR"

# Every dispatcher made by njit below, in the order of decoration: what `sdcflow
# compile` checks it has compiled.
_KERNELS: list = []


def _writable(path: Path) -> bool:
    """Whether ``path`` is a directory this process can write into (made if missing,
    closed to others; tried with a file, as permissions alone do not tell on a read-only
    file system or for root)."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=path, prefix=".sdcflow-probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError:
        return False
    return True


def _private_temp(tmp: Path) -> Path | None:
    """``tmp/sdcflow-<uid>/numba`` if ``tmp/sdcflow-<uid>`` is (or can be made) a real
    directory of this user that nobody else can write; None otherwise. Anyone can create
    names in a shared temporary directory: one made by someone else (or a symbolic link)
    could feed this process compiled code, so it is refused, not repaired."""
    base = tmp / f"sdcflow-{_user_tag()}"
    try:
        base.mkdir(mode=0o700, exist_ok=True)
        info = base.lstat()
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode):  # a symbolic link or a file
        return None
    if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & 0o022):
        return None
    return base / "numba"


def _user_tag() -> str:
    if hasattr(os, "getuid"):
        return str(os.getuid())
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError, ImportError):  # no user name known: share nothing by name
        return "user"


def _home() -> Path | None:
    try:
        return Path.home()
    except (RuntimeError, KeyError, OSError):  # no HOME and no password entry
        return None


def choose_cache_dir(environ: Mapping[str, str] | None = None, home: Path | None = None,
                     tmp: Path | None = None) -> tuple[str | None, str]:
    """The directory for sdcflow's compiled kernels and where the choice came from:
    ``(NUMBA_CACHE_DIR, "env")`` when the user set it, else the first writable of
    ``$XDG_CACHE_HOME/sdcflow/numba`` (``~/.cache/sdcflow/numba`` without it,
    ``"user"``) and a directory private to the user under the temporary directory
    (``"temp"``), else ``(None, "none")``. ``environ``, ``home`` and ``tmp`` default to
    the process's (they are arguments for the tests)."""
    environ = os.environ if environ is None else environ
    if environ.get(ENV):
        return environ[ENV], "env"
    xdg = environ.get("XDG_CACHE_HOME", "")
    home = _home() if home is None else home
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else (
        home / ".cache" if home is not None else None)
    if base is not None and _writable(base / "sdcflow" / "numba"):
        return str(base / "sdcflow" / "numba"), "user"
    try:
        tmp = Path(tempfile.gettempdir()) if tmp is None else tmp
    except (OSError, FileNotFoundError):  # no usable temporary directory at all
        return None, "none"
    private = _private_temp(tmp)
    if private is not None and _writable(private):
        return str(private), "temp"
    return None, "none"


@functools.cache
def cache_directory() -> tuple[str | None, str]:
    """Choose the cache directory (:func:`choose_cache_dir`) once per process and tell
    numba, before any kernel of sdcflow is decorated; returns the choice."""
    path, source = choose_cache_dir()
    if path is not None and source != "env":
        os.environ[ENV] = path
        # numba read its configuration when it was imported; it reads it again when the
        # environment changed (and the compiler asks for it), so a later reload agrees
        numba.core.config.reload_config()
    return path, source


def _probe() -> int:  # pragma: no cover - compiled only to find a cache directory
    return 0


@functools.cache
def caching_available() -> bool:
    """Whether numba finds a writable cache directory for sdcflow's kernels (decided
    once per process, by decorating a trivial function as the kernels are decorated)."""
    cache_directory()
    try:
        numba.njit(cache=True)(_probe)
    except RuntimeError as exc:
        if _NO_LOCATOR not in str(exc):
            raise
        _log.warning("sdcflow: compiled kernels are not cached (no writable cache "
                     "directory: NUMBA_CACHE_DIR, ~/.cache, the temporary directory and "
                     "the package's __pycache__ all failed); set NUMBA_CACHE_DIR to a "
                     "writable directory to keep them between runs")
        return False
    return True


def kernels() -> list:
    """The numba dispatchers decorated so far through :func:`njit` (those of the modules
    imported), in the order of decoration."""
    return list(_KERNELS)


def njit(*args, cache: bool = False, **options) -> Callable:
    """``numba.njit`` (same arguments, used as ``@njit`` or ``@njit(cache=True, ...)``),
    except that ``cache=True`` means "cache when a writable directory exists", and that
    kernels release the GIL (``nogil=True``) unless told otherwise, so that independent
    steps of a plan can run at the same time on several threads."""
    options.setdefault("nogil", True)

    def decorate(func: Callable) -> Callable:
        dispatcher = None
        if cache and caching_available():
            try:
                dispatcher = numba.njit(cache=True, **options)(func)
            except RuntimeError as exc:  # this file's directory alone is not writable
                if _NO_LOCATOR not in str(exc):
                    raise
        if dispatcher is None:
            dispatcher = numba.njit(cache=False, **options)(func)
        _KERNELS.append(dispatcher)
        return dispatcher

    if len(args) == 1 and callable(args[0]) and options == {"nogil": True} and not cache:
        return decorate(args[0])
    if args:
        raise TypeError("njit: pass the options by keyword, e.g. @njit(cache=True)")
    return decorate
