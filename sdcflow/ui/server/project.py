"""The one folder the workbench serves: paths inside it, and the files it offers to open.

Every path the browser names is relative to the project folder and must stay inside it
after symbolic links are followed; anything else is refused. The workbench never reads or
writes outside this folder (a recipe may still name built-in data sets)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ...errors import SdcflowError

RECIPE_SUFFIXES = (".yaml", ".yml")
DATA_SUFFIXES = (".csv", ".parquet", ".sav", ".zsav", ".dta", ".sas7bdat", ".xpt")
# folders a listing skips: the run's outputs and caches, environments, version control
SKIPPED = {".git", ".venv", "venv", "node_modules", "__pycache__", ".sdcflow-cache",
           "output", "public", "site"}
MAX_LISTED = 500


class OutsideProject(SdcflowError):
    """A path that leaves the project folder, or names nothing usable in it."""


@dataclass(frozen=True)
class Project:
    """The project folder (absolute, symbolic links resolved)."""

    root: Path

    @classmethod
    def at(cls, folder: str | Path) -> Project:
        root = Path(folder).resolve()
        if not root.is_dir():
            raise SdcflowError(f"{folder}: not a folder")
        return cls(root)

    def path(self, relative: str) -> Path:
        """The absolute path of ``relative`` (a POSIX path inside the project); refuses
        absolute paths, ``..``, NUL bytes and links that lead outside."""
        if not relative or "\x00" in relative or "\\" in relative:
            raise OutsideProject(f"not a path in the project: {relative!r}")
        pure = PurePosixPath(relative)
        if pure.is_absolute() or ".." in pure.parts:
            raise OutsideProject(f"not a path in the project: {relative!r}")
        full = (self.root / pure).resolve()
        if full != self.root and self.root not in full.parents:
            raise OutsideProject(f"not a path in the project: {relative!r}")
        return full

    def relative(self, path: Path) -> str:
        """``path`` (inside the project) as the POSIX path the browser uses."""
        return path.resolve().relative_to(self.root).as_posix()

    def files(self, suffixes: tuple[str, ...]) -> list[str]:
        """The project's files with one of ``suffixes`` (relative POSIX paths, sorted),
        skipping hidden folders, outputs and environments; at most :data:`MAX_LISTED`."""
        found: list[str] = []
        for folder, dirs, names in os.walk(self.root):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED)
            for name in sorted(names):
                if name.lower().endswith(suffixes) and not name.startswith("."):
                    full = Path(folder) / name
                    if full.resolve().is_relative_to(self.root):
                        found.append(full.relative_to(self.root).as_posix())
                        if len(found) >= MAX_LISTED:
                            return sorted(found)
        return sorted(found)
