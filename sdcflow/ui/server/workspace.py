"""The recipe being edited: its file, the text saved there, the draft and its history.

The draft is YAML text; every edit is a function of a
:class:`sdcflow.ui.editing.recipe_edit.RecipeDocument` that changes it, and the text it leaves is
the new draft (so the user's comments, order and formatting survive). Undo steps back
through the drafts; saving writes the draft to the file atomically (a temporary file in the
same folder, then a rename)."""

from __future__ import annotations

import difflib
import os
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import Problem, RecipeError

HISTORY = 200


@dataclass
class Workspace:
    """One open recipe: ``path`` (absolute, inside the project), ``saved`` (the file's
    text), ``draft`` (the edited text) and the drafts before it."""

    path: Path
    saved: str
    draft: str
    history: list[str] = field(default_factory=list)
    is_new: bool = False  # not yet saved to ``path``: saving never replaces a file there
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def open(cls, path: Path) -> Workspace:
        text = path.read_text(encoding="utf-8")
        return cls(path, text, text)

    @classmethod
    def new(cls, path: Path, text: str) -> Workspace:
        """A recipe not yet saved to ``path``."""
        return cls(path, "", text, is_new=True)

    @property
    def changed(self) -> bool:
        return self.draft != self.saved

    def set_draft(self, text: str) -> None:
        """Make ``text`` the draft (the old one joins the history)."""
        with self.lock:
            if text != self.draft:
                self.history.append(self.draft)
                del self.history[:-HISTORY]
                self.draft = text

    def edit(self, change: Callable) -> None:
        """Apply ``change(document)`` to the draft parsed as a RecipeDocument."""
        from ..editing.recipe_edit import RecipeDocument

        document = RecipeDocument.parse(self.draft, self.path.name)
        change(document)
        self.set_draft(document.text())

    def undo(self) -> bool:
        """Step back one edit; False when there is nothing to undo."""
        with self.lock:
            if not self.history:
                return False
            self.draft = self.history.pop()
            return True

    def diff(self) -> str:
        """The unified diff from the saved file to the draft ('' when they agree)."""
        name = self.path.name
        return "".join(difflib.unified_diff(
            self.saved.splitlines(keepends=True), self.draft.splitlines(keepends=True),
            fromfile=f"{name} (saved)", tofile=f"{name} (draft)"))

    def problems(self) -> list[Problem]:
        """What the recipe checks (schema and semantics, not the data) find in the draft."""
        from ...recipe._load import recipe_from_text

        try:
            recipe_from_text(self.draft, self.path.name, self.path)
        except RecipeError as exc:
            return [*exc.problems, *exc.warnings]
        return []

    def save(self) -> None:
        """Write the draft to the recipe file atomically; a new recipe is linked into
        place, so a file that appeared at its path meanwhile is never replaced (raises
        FileExistsError)."""
        with self.lock:
            folder = self.path.parent
            fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp",
                                       dir=folder)
            try:
                with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
                    out.write(self.draft)
                if self.is_new:
                    os.link(tmp, self.path)
                    os.unlink(tmp)
                else:
                    if self.path.exists():
                        os.chmod(tmp, self.path.stat().st_mode & 0o777)
                    os.replace(tmp, self.path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
            self.saved = self.draft
            self.is_new = False
