"""Advisory locks on directories (``flock`` on the directory itself, so no lock file is
left behind). They tell a run whether another run is using the same output parent or
cache, so that leftovers of killed runs can be removed safely. Where ``flock`` does not
exist (Windows), the lock is a no-op and leftovers are not removed."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Self

try:
    import fcntl
except ImportError:  # pragma: no cover - not on POSIX
    fcntl = None


class DirectoryLock:
    """A shared or exclusive lock on a directory."""

    def __init__(self, path: Path):
        self.path = path
        self._fd: int | None = None

    def acquire(self, *, shared: bool = False) -> None:
        """Wait for the lock."""
        if fcntl is None:
            return
        self._fd = os.open(self.path, os.O_RDONLY)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        except OSError:
            self.release()
            raise

    def acquire_shared_after(self, cleanup) -> None:
        """Take a shared lock; if no one else holds the directory, first take it
        exclusively and call ``cleanup()`` (removing what killed runs left behind).

        (Converting an flock lock is not atomic, so the exclusive attempt comes first,
        before this run has created anything another run's cleanup could remove.)"""
        if fcntl is None:
            return
        self._fd = os.open(self.path, os.O_RDONLY)
        try:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                pass
            else:
                cleanup()
            fcntl.flock(self._fd, fcntl.LOCK_SH)
        except BaseException:
            self.release()
            raise

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor releases the lock
            self._fd = None

    def __enter__(self) -> Self:
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()
