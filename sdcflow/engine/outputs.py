"""The output directory of a run: what a run may replace, and replacing it atomically.

A run writes one directory (``--out DIR``, by default ``output/NAME`` next to the recipe).
It may only ever replace what an earlier sdcflow run of the same recipe wrote there:

* a DIR that does not exist is created (with its parents);
* an empty DIR is used;
* a DIR holding an earlier release of the same recipe is replaced, provided it holds
  nothing but the files that release's ``manifest.json`` lists (and its ``run.json``),
  each with the sha256 recorded there: a file added, or changed by hand, is kept and the
  run is refused;
* anything else is refused, untouched: a plain file, a folder with other files (the
  data's folder, the recipe's, a home directory), the release of another recipe, the
  working directory itself. A symbolic link is followed and its target judged by the
  same rules.

A run whose checks fail replaces DIR in the same way, with the internal outputs of the
failed run alone (see :mod:`sdcflow.engine.runner`): an earlier release there is withdrawn
(its files, and only they, are deleted), so that DIR never holds a release its recipe no
longer stands behind.

The new contents are built in a temporary sibling ``.DIR.tmp-XXXXXXXX`` (a random, never
PID-based, name) and renamed into place: readers never see a partial release, and a
failure leaves the earlier one as it was. Writers hold an exclusive lock on DIR's parent
while they write; the first thing a writer does with the lock is to remove the
temporaries of killed runs (``.DIR.tmp-*`` still marked partial, and replaced releases
``.DIR.old-*``), deleting only the files sdcflow wrote there.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from ..data.io import sha256_file
from ..errors import OutputError
from .locks import DirectoryLock

MANIFEST = "manifest.json"
RUN_LOG = "run.json"  # the volatile part of a run (timings, cache hits, notes)
PARTIAL = ".sdcflow-partial"  # the first file of a directory being built
_SHOW = 5


def check_target(target: Path, recipe_name: str) -> Path:
    """The real directory a run of recipe ``recipe_name`` writes for ``--out target``;
    raises :class:`OutputError` when the run may not write there."""
    target = Path(os.path.abspath(target))
    if os.path.islink(target):
        if not target.exists():
            raise OutputError(f"the output directory {target} is a broken symbolic link")
        target = target.resolve()
    else:
        target = _resolve_parents(target)
    if target.parent == target:
        raise OutputError(f"the output directory may not be the root directory {target}")
    cwd = Path.cwd().resolve()
    if target == cwd or target in cwd.parents:
        raise OutputError(f"the output directory {target} is the working directory or "
                          "contains it; give a directory of its own, e.g. --out release")
    _owned(target, recipe_name)
    return target


def _resolve_parents(target: Path) -> Path:
    """``target`` with symbolic links in its parents resolved (the last part kept)."""
    try:
        return target.parent.resolve() / target.name
    except OSError as exc:
        raise OutputError(f"cannot use the output directory {target}: "
                          f"{exc.strerror or exc}") from None


def _owned(target: Path, recipe_name: str) -> list[str]:
    """The files of ``target`` that an earlier run of this recipe wrote (empty for a
    new or empty directory); raises :class:`OutputError` if anything else is there."""
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise OutputError(f"cannot use the output directory {target}: "
                          f"{exc.strerror or exc}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise OutputError(f"{target} exists and is not a directory: sdcflow writes its "
                          "outputs into a directory of their own; give another --out")
    entries = _entries(target)
    if not entries:
        return []
    manifest = _read_manifest(target)
    refuse = (f"{target} holds files that sdcflow did not write for recipe "
              f"'{recipe_name}'")
    if manifest is None:
        raise OutputError(f"{refuse} ({_names(entries)}); nothing was touched. A run only "
                          "replaces an earlier release of the same recipe: choose a new or "
                          "empty directory")
    other = manifest["recipe"].get("name")
    if other != recipe_name:
        raise OutputError(f"{target} holds the release of recipe '{other}', not of "
                          f"'{recipe_name}'; nothing was touched: choose another directory")
    listed = manifest["files"]
    own = set(listed) | {MANIFEST, RUN_LOG}
    foreign = [e for e in entries if e not in own]
    if foreign:
        raise OutputError(f"{refuse}: {_names(foreign)} (not in its manifest); nothing was "
                          "touched. Move them elsewhere or choose another directory")
    changed = [rel for rel, digest in sorted(listed.items())
               if rel in entries and _digest(target / rel) != digest]
    if changed:
        raise OutputError(f"{target}: {_names(changed)} changed since sdcflow wrote "
                          f"{'it' if len(changed) == 1 else 'them'}; nothing was touched. "
                          "Move the changed files elsewhere or choose another directory")
    return [e for e in entries if e in own]


def earlier_release(target: Path, recipe_name: str | None = None) -> list[str]:
    """The published files (``public/...``) of a release that an earlier run (of recipe
    ``recipe_name``, or of any recipe) left in ``target``, as its manifest lists them
    (empty when ``target`` holds no such release, e.g. the outputs of a run whose checks
    failed)."""
    manifest = _read_manifest(Path(target))
    if manifest is None or recipe_name not in (None, manifest["recipe"].get("name")):
        return []
    return sorted(f for f in manifest["files"] if f.split("/")[0] == "public")


def _digest(path: Path) -> str | None:
    try:
        return sha256_file(path)
    except OSError:
        return None


def _entries(root: Path) -> list[str]:
    """Every file under ``root`` (relative POSIX paths; a symbolic link or any other
    non-directory counts as a file), without following links."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        rel = Path(dirpath).relative_to(root)
        for name in filenames:
            out.append((rel / name).as_posix())
        for name in list(dirnames):
            if os.path.islink(os.path.join(dirpath, name)):
                out.append((rel / name).as_posix())
                dirnames.remove(name)
            elif not os.listdir(os.path.join(dirpath, name)):
                out.append((rel / name).as_posix() + "/")  # an empty folder is content too
    return sorted(out)


def _read_manifest(root: Path) -> dict | None:
    """The manifest of an sdcflow output in ``root`` (None if there is none)."""
    path = root / MANIFEST
    try:
        if path.is_symlink() or not path.is_file():
            return None
        doc = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or "sdcflow" not in doc or not isinstance(
            doc.get("recipe"), dict):
        return None
    files = doc.get("files", doc.get("outputs"))  # "outputs": releases before the split
    if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                              for k, v in files.items()):
        return None
    return {"recipe": doc["recipe"], "files": files}


def _names(entries: list[str]) -> str:
    shown = ", ".join(entries[:_SHOW])
    return shown + (f" and {len(entries) - _SHOW} more" if len(entries) > _SHOW else "")


def replace_output(target: Path, recipe_name: str, build: Callable[[Path], None], *,
                   previous: list[str] | None = None) -> Path:
    """Build the new output with ``build(tmp)`` in a temporary sibling of ``target`` and
    rename it into place (see the module docstring). Returns the real target.
    ``previous``, when given, is filled (before ``build`` runs) with the files of the
    earlier output that the new one replaces (relative POSIX paths; empty for a new or
    empty directory)."""
    target = check_target(target, recipe_name)
    parent = target.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create the output directory {target}: "
                          f"{exc.strerror or exc}") from None
    lock = DirectoryLock(parent)
    try:
        lock.acquire()
    except OSError as exc:
        raise OutputError(f"cannot use the output directory {target}: "
                          f"{exc.strerror or exc}") from None
    try:
        remove_leftovers(parent, target.name)
        owned = _owned(target, recipe_name)  # again: it may have changed while steps ran
        if previous is not None:
            previous[:] = owned
        tmp = None
        try:
            tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=parent))
            (tmp / PARTIAL).write_bytes(b"")
            build(tmp)
            _sync_tree(tmp)
            os.chmod(tmp, 0o755)
            (tmp / PARTIAL).unlink()
            _swap(tmp, target)
            tmp = None
        except OSError as exc:
            raise OutputError(f"cannot write the output directory {target}: "
                              f"{exc.strerror or exc}"
                              f"{f' ({exc.filename})' if exc.filename else ''}; "
                              "nothing was released") from None
        finally:
            if tmp is not None:
                shutil.rmtree(tmp, ignore_errors=True)
    finally:
        lock.release()
    return target


def _swap(new: Path, target: Path) -> None:
    """Put ``new`` in the place of ``target``; an earlier release there is renamed
    aside, then its files (and only its files) are deleted."""
    try:
        os.replace(new, target)  # also replaces an empty directory, atomically
        return
    except OSError:
        if not os.path.lexists(target):
            raise
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
    os.replace(target, old)  # onto the empty directory just made
    try:
        os.replace(new, target)
    except OSError:
        os.replace(old, target)  # put the earlier release back
        raise
    remove_output(old)


def remove_output(root: Path) -> bool:
    """Delete an sdcflow output directory: the files its manifest lists, the manifest,
    the run log, then the folders left empty. Anything else stays (and so does
    ``root``). True when ``root`` is gone."""
    manifest = _read_manifest(root)
    names = set(manifest["files"]) if manifest else set()
    for rel in sorted(names | {MANIFEST, RUN_LOG, PARTIAL}):
        path = root / rel
        if ".." in Path(rel).parts or path.is_dir() and not path.is_symlink():
            continue
        try:
            path.unlink()
        except FileNotFoundError:
            pass
    for dirpath, _, _ in sorted(os.walk(root), key=lambda w: -len(w[0])):
        try:
            os.rmdir(dirpath)
        except OSError:
            pass  # not empty: something sdcflow did not write is there
    return not os.path.lexists(root)


def remove_leftovers(parent: Path, name: str) -> None:
    """Remove what killed runs left for output ``name`` in ``parent`` (to be called with
    the parent's lock held, so no living run owns them)."""
    try:
        children = list(parent.iterdir())
    except OSError:
        return
    for child in children:
        if child.is_symlink() or not child.is_dir():
            continue
        if child.name.startswith(f".{name}.tmp-"):
            if (child / PARTIAL).exists():
                shutil.rmtree(child, ignore_errors=True)  # all of it was being written
            else:
                remove_output(child)  # complete, but killed before it was renamed
        elif child.name.startswith(f".{name}.old-"):
            remove_output(child)


def _sync_tree(root: Path) -> None:
    """fsync every file and folder under ``root``, so the rename publishes complete
    files even after a crash of the machine."""
    for dirpath, _, filenames in os.walk(root):
        for name in filenames:
            fd = os.open(os.path.join(dirpath, name), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        fd = os.open(dirpath, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
