"""Saving the open recipe without ever replacing a file the workbench did not open."""

from __future__ import annotations

from ...errors import SdcflowError
from .workspace import Workspace


class NotSaved(SdcflowError):
    """The draft was not saved (the message says why)."""


def save(ws: Workspace) -> None:
    """Save the draft; a new recipe (never saved) is refused when a file appeared at its
    path since it was made (the workbench never overwrites a file it did not open)."""
    try:
        ws.save()
    except FileExistsError:
        raise NotSaved(f"{ws.path.name} exists now; the new recipe was not saved over it "
                       "(open that file, or start again under another name)") from None
