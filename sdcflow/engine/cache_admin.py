"""The step cache seen from outside a run (``sdcflow cache info|clear``): where it is,
what it holds, which recipe's runs use which entries, and clearing it.

The cache of a recipe is the folder ``.sdcflow-cache`` next to it (shared by the recipes
of that folder); an entry is ``ROOT/ab/abcdef...`` (the 64 hex digits of the step's
fingerprint, see :mod:`.cache`). Entries record no recipe: a recipe's entries are those
whose fingerprints its last run's manifest lists (in its default output directory,
``output/NAME``; a run written elsewhere with ``--out`` is not found).

Clearing removes only what has the shape of an entry (a directory named by a fingerprint
in a directory named by its first two digits) and the leftovers of killed runs
(``.tmp-*``, ``.old-*``), never a symbolic link, never anything else, and only while no
run holds the cache (a run holds it for its whole duration).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from .cache import OLD_PREFIX, TMP_PREFIX

_PREFIX = re.compile(r"[0-9a-f]{2}")
_FINGERPRINT = re.compile(r"[0-9a-f]{64}")


class CacheBusy(OSError):
    """A run is using the cache."""


@dataclass
class Entry:
    fingerprint: str
    path: Path
    size: int


@dataclass
class CacheInfo:
    """A cache's entries, leftovers, and the entries of each recipe's last run."""

    root: Path
    exists: bool
    entries: list[Entry] = field(default_factory=list)
    leftovers: list[Path] = field(default_factory=list)
    # recipe file -> the fingerprints of its last run (None: no run found)
    recipes: dict[str, set[str] | None] = field(default_factory=dict)

    def used(self) -> set[str]:
        """The fingerprints of the recipes' last runs."""
        return set().union(*(fps for fps in self.recipes.values() if fps))

    @property
    def size(self) -> int:
        return sum(e.size for e in self.entries)

    def as_dict(self) -> dict:
        by_fp = {e.fingerprint: e for e in self.entries}
        recipes = {}
        for name, fps in sorted(self.recipes.items()):
            if fps is None:
                recipes[name] = None
                continue
            held = [by_fp[f] for f in sorted(fps) if f in by_fp]
            recipes[name] = {"entries": len(held), "bytes": sum(e.size for e in held),
                             "steps_of_last_run": len(fps)}
        used = self.used()
        unused = [e for e in self.entries if e.fingerprint not in used]
        return {"cache": str(self.root), "exists": self.exists,
                "entries": len(self.entries), "bytes": self.size,
                "leftovers": len(self.leftovers), "recipes": recipes,
                "other_entries": {"entries": len(unused),
                                  "bytes": sum(e.size for e in unused)}}


def _size(path: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_size
            except OSError:
                pass
    return total


def _entries(root: Path) -> tuple[list[Entry], list[Path]]:
    """The entries (by their shape, never through a symbolic link) and the leftovers of
    killed runs."""
    entries, leftovers = [], []
    if not root.is_dir() or root.is_symlink():
        return entries, leftovers
    for child in sorted(root.iterdir()):
        if child.is_symlink() or not child.is_dir():
            continue
        if child.name.startswith((TMP_PREFIX, OLD_PREFIX)):
            leftovers.append(child)
        elif _PREFIX.fullmatch(child.name):
            for entry in sorted(child.iterdir()):
                if _FINGERPRINT.fullmatch(entry.name) and entry.name.startswith(child.name) \
                        and entry.is_dir() and not entry.is_symlink():
                    entries.append(Entry(entry.name, entry, _size(entry)))
    return entries, leftovers


def _run_fingerprints(manifest: Path, recipe_file: str) -> set[str] | None:
    """The fingerprints of the steps of the run whose manifest is ``manifest``, when
    the recipe file ``recipe_file`` wrote it (two recipes of one name share a default
    output directory)."""
    from ..data.recipe_files import RecipeFileError, command_line_file

    if not manifest.is_file():
        return None
    try:  # (a regular file only, never a pipe or a device, and bounded: recipe_files)
        doc = json.loads(command_line_file(manifest, "run manifest", "file").content()
                         .decode("utf-8"))
        if doc["recipe"]["file"] != recipe_file:
            return None
        return {s["fingerprint"] for s in doc["steps"]
                if isinstance(s.get("fingerprint"), str)}
    except (RecipeFileError, OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _recipe_runs(recipes: list[Path]) -> dict[str, set[str] | None]:
    """Recipe file -> the fingerprints of its last run in its default output directory
    (None: no run found there); files that are not valid recipes are left out."""
    from ..errors import SdcflowError
    from ..recipe import load_recipe
    from .runner import default_out_dir

    out = {}
    for path in recipes:
        try:
            recipe = load_recipe(path)
        except SdcflowError:  # not a recipe (or not a valid one): it has no runs
            continue
        out[path.name] = _run_fingerprints(default_out_dir(recipe) / "manifest.json",
                                           path.name)
    return out


def cache_root(where: Path) -> tuple[Path, list[Path]]:
    """The cache of ``where`` (a recipe, a folder of recipes, or the cache folder itself)
    and the recipes it serves (one, or the ``*.yaml``/``*.yml`` files of the folder)."""
    from .runner import CACHE_DIR

    where = where.resolve()
    if where.is_dir() and where.name == CACHE_DIR:
        where = where.parent
    if where.is_dir():
        recipes = sorted(p for p in where.iterdir()
                         if p.suffix in (".yaml", ".yml") and p.is_file())
        return where / CACHE_DIR, recipes
    return where.parent / CACHE_DIR, [where]


def cache_info(where: Path) -> CacheInfo:
    root, recipes = cache_root(where)
    entries, leftovers = _entries(root)
    return CacheInfo(root, root.is_dir(), entries, leftovers,
                     _recipe_runs(recipes))


def clear_cache(where: Path, *, only_recipe: bool = False) -> tuple[Path, int, int]:
    """Remove the entries of the cache of ``where`` (with ``only_recipe``: those of the
    recipe's last run only) and the leftovers of killed runs: ``(root, entries removed,
    bytes freed)``. :class:`CacheBusy` when a run holds the cache."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on POSIX
        fcntl = None
    info = cache_info(where)
    root = info.root
    if not info.exists:
        return root, 0, 0
    chosen = info.entries
    if only_recipe:
        fps = info.used()
        chosen = [e for e in info.entries if e.fingerprint in fps]
    fd = os.open(root, os.O_RDONLY)
    try:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise CacheBusy(f"a run is using the cache {root}; clear it when the run "
                                "has ended") from None
        removed = freed = 0
        for entry in chosen:
            shutil.rmtree(entry.path)
            removed += 1
            freed += entry.size
        if not only_recipe:
            for leftover in info.leftovers:
                shutil.rmtree(leftover)
        for prefix in {e.path.parent for e in chosen}:
            try:
                prefix.rmdir()  # only when empty
            except OSError:
                pass
        return root, removed, freed
    finally:
        os.close(fd)  # (releases the lock)
