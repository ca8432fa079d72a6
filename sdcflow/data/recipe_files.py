"""The one way into the files a recipe names: its data, taxonomies, node attributes,
aggregated tables, population files and ptables.

Recipes are reviewed and run (in CI, say) by people other than their authors, so a recipe
must not be able to make sdcflow read, or repeat in its messages, a file its runner did
not mean to give it. Every file a recipe names is therefore

- found relative to the recipe's folder, and refused unless its real path (symbolic links
  followed, ``..`` resolved) lies below the recipe's folder, a folder (or file) the user
  allows (``--allow-path``, ``allow_paths=``), or sdcflow's shipped data; the test is made
  before the file is looked at, so a refusal says nothing about files elsewhere;
- refused when a part of its path below that folder is hidden (``.git``, ``.env``...):
  where credentials live, never data a recipe means;
- refused unless it is a regular file: a directory, pipe (FIFO), socket or device is
  refused from ``os.stat`` without being opened, and the file is opened non-blocking and
  checked again (same file, still regular), so that nothing can hang on it;
- refused when it is larger than the limit of its kind (:data:`MAX_BYTES`), before a byte
  is read.

:class:`RecipeFileError` (one error, carrying the recipe position of the field that names
the file) says why. Messages about a file never quote what it holds unless it parsed as
what it should be: a file that is not CSV, JSON, XML or a table with the expected columns
is described by its line numbers and by the names the recipe itself writes, never by its
first line or its header (:func:`quotable` says which names may be quoted).
"""

from __future__ import annotations

import codecs
import os
import re
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ..errors import SdcflowError

__all__ = ["MAX_BYTES", "CheckedFile", "RecipeFileError", "RecipeFiles", "allowed_roots",
           "as_files", "command_line_file", "file_lines", "quotable"]

# the largest file of each kind read whole into memory (the data file is read in bounded
# blocks, whatever its size: no limit); "file" for any other kind (a plugin's)
MAX_BYTES = {
    "data": None,
    "file": 64 << 20,
    "taxonomy": 16 << 20,     # a taxonomy of a million concepts is well below
    "ptable": 16 << 20,       # a ptable has a few thousand rows
    "nodes": 256 << 20,       # node attributes of some millions of nodes
    "table": 256 << 20,       # aggregated cells: at most 1,000,000 of them
    "population": 1 << 30,    # a population register's key variables
}
MAX_HEADER_COLUMNS = 10_000  # columns of a CSV file other than the data
SHOWN = 5  # lines of a file a message names
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_. -]{0,63}")


class RecipeFileError(SdcflowError):
    """A file a recipe names cannot be read as what it should be. ``where`` is the recipe
    position of the field naming it (keys and indexes, as the caller gave them);
    ``message`` says why, never quoting the file's content."""

    def __init__(self, where: tuple, message: str):
        self.where = tuple(where)
        self.message = message
        super().__init__(message)


def quotable(name: object) -> bool:
    """Whether a message may quote ``name`` read from a file: a plain name (letters,
    digits, ``_ . -`` and spaces, at most 64 characters), as column names are. A password
    hash, a ``KEY=value`` line or a URL is none."""
    return isinstance(name, str) and _PLAIN.fullmatch(name) is not None


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n:,} bytes"


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _shipped() -> tuple[Path, ...]:
    """The folders of sdcflow's shipped data sets and taxonomies (always allowed)."""
    here = Path(__file__).parent
    return tuple(_real(here / d) for d in ("datasets", "taxonomies"))


@dataclass(frozen=True)
class CheckedFile:
    """A file a recipe names, found allowed and regular: its real path, how the recipe
    names it, the position of that name and what it is (for messages), its identity."""

    path: Path
    name: str
    where: tuple
    what: str
    device: int
    inode: int
    size: int

    def refuse(self, message: str) -> RecipeFileError:
        """The error saying ``message`` about this file, at its position."""
        return RecipeFileError(self.where, f"the {self.what} {self.name}: {message}")

    @contextmanager
    def opened(self) -> Iterator[BinaryIO]:
        """The file opened for reading in binary; refused if it is no longer the regular
        file that was checked (replaced by a pipe or a link since). Opened non-blocking
        (a pipe put in its place cannot block), then made blocking again."""
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) \
            | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
        try:
            fd = os.open(self.path, flags)
        except OSError as exc:
            raise self.refuse(f"cannot be opened ({exc.strerror or exc})") from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != (self.device,
                                                                           self.inode):
                raise self.refuse("it changed while being read (it is no longer the regular "
                                  "file that was checked)")
            if hasattr(os, "set_blocking"):
                os.set_blocking(fd, True)
            fh = os.fdopen(fd, "rb")
        except BaseException:
            os.close(fd)
            raise
        with fh:
            yield fh

    def content(self) -> bytes:
        """The file's bytes (at most its checked size: a file that grew is refused)."""
        with self.opened() as fh:
            raw = fh.read(self.size + 1)
        if len(raw) > self.size:  # (or a file of /proc, whose size is 0)
            raise self.refuse("it grew while being read (is it a special file?)")
        return raw

    def decode(self, raw: bytes) -> str:
        """``raw`` (this file's bytes) as text: :meth:`check_text`, then decoded."""
        self.check_text(raw)
        return raw.decode("utf-8-sig")

    def check_text(self, raw: bytes) -> None:
        """Refuse ``raw`` (this file's bytes) when it holds NUL bytes (a binary file) or
        is not UTF-8, saying on which line; checked by blocks (nothing kept)."""
        nul = raw.find(b"\x00")
        if nul >= 0:
            line = raw.count(b"\n", 0, nul) + 1
            raise self.refuse(f"it holds NUL bytes (line {line}): it is a binary file, not "
                              "text")
        decoder = codecs.getincrementaldecoder("utf-8")()
        block = 16 << 20
        view = memoryview(raw)
        for start in range(0, len(raw), block):
            try:
                decoder.decode(view[start:start + block], final=start + block >= len(raw))
            except UnicodeDecodeError as exc:
                at = start + max(exc.start - len(decoder.getstate()[0]), 0)
                line = raw.count(b"\n", 0, at) + 1
                raise self.refuse(f"it is not UTF-8 text (line {line})") from None

    def lacks(self, columns: Iterable[str], header: list[str], where: tuple | None = None
              ) -> None:
        """Refuse the file if its ``header`` lacks one of ``columns`` (the names the recipe
        writes: at ``where``, default the file's position), suggesting only a plain name
        of the header (:func:`quotable`)."""
        missing = [c for c in columns if c not in header]
        if missing:
            noun = "column" if len(missing) == 1 else "columns"
            exc = self.refuse(f"it has no {noun} {', '.join(repr(c) for c in missing)} in "
                              f"its header{_close(missing[0], header)}")
            raise exc if where is None else RecipeFileError(where, exc.message)


def file_lines(mask) -> str:
    """The lines of the rows of ``mask`` (a boolean array over the records of a CSV file,
    whose line 1 is the header), the first five: "line 3", "lines 2, 7 and 4 more"."""
    import numpy as np

    rows = np.flatnonzero(mask)
    shown = ", ".join(str(r + 2) for r in rows[:SHOWN])
    more = f" and {len(rows) - SHOWN} more" if len(rows) > SHOWN else ""
    return f"line{'s' if len(rows) > 1 else ''} {shown}{more}"


def _close(name: str, names: list[str]) -> str:
    """A 'did you mean' among the plain names of a file's header."""
    from ..errors import did_you_mean

    return did_you_mean(name, [n for n in names if quotable(n)])


def allowed_roots(allow: Iterable[str | Path] = ()) -> tuple[Path, ...]:
    """The real paths of the folders (or files) ``allow`` (relative to the working
    directory), which a recipe may read besides its own folder. ValueError names one
    that does not exist."""
    roots = []
    for a in allow:
        path = _real(Path(a))
        if not path.exists():
            raise ValueError(f"allowed path {a}: no such file or folder")
        roots.append(path)
    return tuple(dict.fromkeys(roots))


@dataclass(frozen=True)
class RecipeFiles:
    """Where the files of one recipe may be: below ``recipe_dir`` (its folder, where
    relative names start), below an ``allowed`` folder (or that file), or among sdcflow's
    shipped data and taxonomies."""

    recipe_dir: Path
    allowed: tuple[Path, ...] = ()

    @property
    def roots(self) -> tuple[Path, ...]:
        return (_real(self.recipe_dir), *self.allowed, *_shipped())

    def _inside(self, real: Path) -> Path | None:
        """The allowed root ``real`` lies in (the innermost), or None."""
        inside = [root for root in self.roots if real.is_relative_to(root)]
        return max(inside, key=lambda root: len(root.parts), default=None)

    def _locate(self, name: str, where: tuple, what: str) -> Path:
        """The real path of ``name`` (relative to the recipe's folder), refused unless
        it is allowed and not hidden; whether it exists is not looked at (a refusal of a
        path outside says nothing of what is there)."""
        if "\x00" in name:
            raise RecipeFileError(where, f"the {what} name holds a NUL character")
        given = Path(name)
        try:
            real = _real(given if given.is_absolute() else self.recipe_dir / given)
        except (OSError, ValueError) as exc:  # (a name too long, say)
            raise RecipeFileError(where, f"the {what} {name}: cannot be found "
                                  f"({getattr(exc, 'strerror', None) or exc})") from None
        root = self._inside(real)
        if root is None:
            raise RecipeFileError(where, (
                f"the {what} {name}: it is outside the recipe's folder; files a recipe "
                "reads must be in its folder (or below it), unless allowed with "
                "--allow-path (sdcflow.run(..., allow_paths=[...]))"))
        hidden = [p for p in real.relative_to(root).parts if p.startswith(".")]
        if hidden:
            raise RecipeFileError(where, (
                f"the {what} {name}: it is hidden (in '{hidden[0]}'): hidden files and "
                "folders are not read, unless allowed with --allow-path"))
        return real

    def check(self, name: str, where: tuple, what: str, kind: str = "file") -> CheckedFile:
        """The file the recipe names ``name`` (at recipe position ``where``; ``what`` it
        is, for messages: "population file"), found allowed, not hidden, regular and not
        larger than the limit of its ``kind`` (a key of :data:`MAX_BYTES`); else
        :class:`RecipeFileError`."""
        name = str(name)
        real = self._locate(name, where, what)

        def refuse(message: str) -> RecipeFileError:
            return RecipeFileError(where, f"the {what} {name}: {message}")

        try:
            st = os.stat(real)
        except FileNotFoundError:
            raise refuse("no such file") from None
        except OSError as exc:  # a loop of links, no permission to look, a name too long
            raise refuse(f"cannot be found ({exc.strerror or exc})") from None
        if stat.S_ISDIR(st.st_mode):
            raise refuse("it is a folder, not a file")
        if not stat.S_ISREG(st.st_mode):
            raise refuse("it is not a regular file (a pipe, socket or device), which could "
                         "block or never end")
        limit = MAX_BYTES[kind] if kind in MAX_BYTES else MAX_BYTES["file"]
        if limit is not None and st.st_size > limit:
            raise refuse(f"it is {_size(st.st_size)}, larger than the {_size(limit)} a "
                         f"{what} may be")
        return CheckedFile(real, name, tuple(where), what, st.st_dev, st.st_ino, st.st_size)

    def folder(self, name: str, where: tuple, what: str) -> Path:
        """The real path of a folder the recipe names (or the folder a glob pattern
        starts from: the partitions of the Dask engine), allowed and not hidden; else
        :class:`RecipeFileError`."""
        return self._locate(str(name), where, what)


def command_line_file(path: Path, what: str = "data file", kind: str = "data"
                      ) -> CheckedFile:
    """A file named on the command line (``sdcflow init DATAFILE``, ``sdcflow
    public-recipe --check MANIFEST``), not by a recipe: the user chose it, so it is
    allowed wherever it is; only regular files are read, within the limit of ``kind``."""
    real = _real(path)
    return RecipeFiles(real.parent, (real,)).check(str(real), (), what, kind)


def as_files(files: RecipeFiles | Path | str) -> RecipeFiles:
    """``files`` as :class:`RecipeFiles`: a folder stands for a recipe in it (that folder
    allowed, nothing else)."""
    return files if isinstance(files, RecipeFiles) else RecipeFiles(Path(files))
