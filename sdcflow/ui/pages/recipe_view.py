"""The recipe page: the draft as YAML, what the checks find in it, the diff to the saved
file, and undo and save."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse
from starlette.routing import Route

from ..server.saving import NotSaved
from ..server.saving import save as save_draft
from ..server.state import render, state
from ._page import Page


def _no_recipe():
    return RedirectResponse("/", status_code=303)


async def show(request: Request):
    ws = state(request).workspace
    if ws is None:
        return _no_recipe()
    return render(request, "recipe.html", problems=ws.problems(), diff=ws.diff())


async def _back(request: Request) -> RedirectResponse:
    """Back to the page the form came from (one of the workbench's pages), else the
    recipe page."""
    back = str((await request.form()).get("back", ""))
    known = {page.path for page in request.app.state.pages}
    return RedirectResponse(back if back in known else "/recipe", status_code=303)


async def undo(request: Request):
    ws = state(request).workspace
    if ws is None:
        return _no_recipe()
    ws.undo()
    return await _back(request)


async def save(request: Request):
    ws = state(request).workspace
    if ws is None:
        return _no_recipe()
    try:
        save_draft(ws)
    except NotSaved as exc:
        return render(request, "recipe.html", status_code=409, problems=ws.problems(),
                      diff=ws.diff(), error=str(exc))
    return await _back(request)


PAGE = Page("recipe", "Recipe", "/recipe", [
    Route("/recipe", show), Route("/recipe/undo", undo, methods=["POST"]),
    Route("/recipe/save", save, methods=["POST"])])
