"""A page action that edits the recipe's draft, then shows the page again."""

from __future__ import annotations

from collections.abc import Callable

from starlette.responses import PlainTextResponse, RedirectResponse, Response

from ...errors import RecipeError
from ..editing.recipe_edit import EditError
from ..server.workspace import Workspace


def apply_edit(ws: Workspace, change: Callable, back: str) -> Response:
    """``change(document)`` applied to the draft of ``ws``, then a redirect to ``back``;
    a draft that cannot be read or an edit refused is a 400 with the reason."""
    try:
        ws.edit(change)
    except (RecipeError, EditError) as exc:
        return PlainTextResponse(f"the recipe cannot be edited: {exc}", status_code=400)
    return RedirectResponse(back, status_code=303)
