"""The step cache: results stored by fingerprint, verified on every read.

An entry is a directory ``ROOT/ab/abcdef...`` (the step's fingerprint) holding
``result.json`` and the Parquet files of the result. ``result.json`` records the sha256
of each file and a checksum of its own content; an entry whose files or text do not
match (edited, truncated, replaced by another valid file) is never used: the step is
recomputed, the entry replaced, and the run says so in its notes. The cache is an
optimisation and never decides a result: a cache that cannot be read or written only
costs time.

Concurrency and interruptions: entries are built in a temporary directory and renamed
into place; every run holds a shared lock on the cache for its duration, and a run that
finds no other run using the cache first removes the temporary directories that killed
runs left behind.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Self

import pandas as pd

from ..data.io import sha256_file
from .canonical import canonical_json, sha256_text
from .locks import DirectoryLock

TMP_PREFIX = ".tmp-"
OLD_PREFIX = ".old-"
FORMAT = 2  # entries of another layout are ignored (recomputed and replaced)


class EntryInvalid(Exception):
    """A cache entry exists but cannot be trusted (the message says why)."""


class Cache:
    """Results by fingerprint in ``root``. ``read=False`` (``--no-cache``) recomputes
    every step but still refreshes the entries it computes."""

    def __init__(self, root: Path, *, read: bool = True):
        self.root = root
        self.read = read
        self.notes: list[str] = []
        self._lock: DirectoryLock | None = None
        self.usable = False

    def __enter__(self) -> Self:
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            self._lock = DirectoryLock(self.root)
            self._lock.acquire_shared_after(self._remove_debris)
            self.usable = True
        except OSError as exc:
            self.notes.append(f"the cache {self.root} cannot be used ({exc.strerror or exc}); "
                              "every step is computed")
            self.close()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def _entry(self, fp: str) -> Path:
        return self.root / fp[:2] / fp

    def load(self, fp: str, node: str) -> dict | None:
        """The stored payload of fingerprint ``fp`` with its frames (``payload["frames"]``:
        name -> DataFrame), or None (absent, not read, or failed verification: noted)."""
        if not (self.usable and self.read):
            return None
        entry = self._entry(fp)
        if not os.path.lexists(entry):
            return None
        try:
            return _read_entry(entry, fp)
        except EntryInvalid as exc:
            self.notes.append(f"step '{node}': the cached result failed verification ({exc}); "
                              "recomputed")
        except (OSError, ValueError, TypeError, KeyError) as exc:
            self.notes.append(f"step '{node}': the cached result could not be read "
                              f"({type(exc).__name__}: {exc}); recomputed")
        return None

    def save(self, fp: str, payload: dict, frames: dict[str, pd.DataFrame]) -> None:
        """Store ``payload`` and ``frames`` under ``fp``, replacing any entry there."""
        if not self.usable:
            return
        tmp = None
        try:
            tmp = Path(tempfile.mkdtemp(prefix=TMP_PREFIX, dir=self.root))
            files = {}
            for name, frame in sorted(frames.items()):
                frame.to_parquet(tmp / name)
                files[name] = sha256_file(tmp / name)
            body = {"format": FORMAT, "fingerprint": fp, "files": files, "payload": payload}
            doc = {"checksum": sha256_text(canonical_json(body)), **body}
            (tmp / "result.json").write_text(canonical_json(doc), "utf-8")
            entry = self._entry(fp)
            entry.parent.mkdir(parents=True, exist_ok=True)
            _replace(tmp, entry, self.root)
            tmp = None
        except (OSError, ValueError, TypeError) as exc:
            # e.g. a full disk or a read-only cache: the result stands, only reuse is lost
            self.notes.append(f"a result could not be cached ({type(exc).__name__}: {exc})")
        finally:
            if tmp is not None:
                shutil.rmtree(tmp, ignore_errors=True)

    def _remove_debris(self) -> None:
        """Temporary and replaced entries left by runs that were killed (only called
        while no other run holds the cache)."""
        for child in self.root.iterdir():
            if child.name.startswith((TMP_PREFIX, OLD_PREFIX)) and child.is_dir() \
                    and not child.is_symlink():
                shutil.rmtree(child, ignore_errors=True)


def _read_entry(entry: Path, fp: str) -> dict:
    if entry.is_symlink() or not entry.is_dir():
        raise EntryInvalid("the entry is not a directory")
    doc = json.loads((entry / "result.json").read_text("utf-8"))
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise EntryInvalid("written by another version of sdcflow")
    body = {k: v for k, v in doc.items() if k != "checksum"}
    if doc.get("checksum") != sha256_text(canonical_json(body)):
        raise EntryInvalid("result.json does not match its checksum")
    if doc.get("fingerprint") != fp:
        raise EntryInvalid("the entry belongs to another fingerprint")
    frames = {}
    for name, digest in sorted(doc["files"].items()):
        path = entry / name
        if path.is_symlink() or sha256_file(path) != digest:
            raise EntryInvalid(f"{name} does not match its recorded sha256")
        frames[name] = pd.read_parquet(path)
    present = {p.name for p in entry.iterdir()} - {"result.json"}
    if present != set(frames):
        raise EntryInvalid(f"unexpected files {sorted(present - set(frames))}")
    return {**doc["payload"], "frames": frames}


def _replace(new: Path, entry: Path, root: Path) -> None:
    """Rename ``new`` to ``entry``; an entry already there (a stale or damaged one) is
    renamed aside first and removed afterwards."""
    try:
        os.replace(new, entry)
        return
    except OSError:
        if not os.path.lexists(entry):
            raise
    old = Path(tempfile.mkdtemp(prefix=OLD_PREFIX, dir=root))
    os.replace(entry, old / "entry")
    os.replace(new, entry)
    shutil.rmtree(old, ignore_errors=True)
