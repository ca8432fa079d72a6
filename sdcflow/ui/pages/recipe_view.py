"""The recipe page: the draft as YAML, what the checks find in it, the diff to the saved
file, and undo and save."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse
from starlette.routing import Route

from ..state import render, state
from ._page import Page


def _no_recipe():
    return RedirectResponse("/", status_code=303)


async def show(request: Request):
    ws = state(request).workspace
    if ws is None:
        return _no_recipe()
    return render(request, "recipe.html", problems=ws.problems(), diff=ws.diff())


async def undo(request: Request):
    ws = state(request).workspace
    if ws is None:
        return _no_recipe()
    ws.undo()
    return RedirectResponse("/recipe", status_code=303)


async def save(request: Request):
    ws = state(request).workspace
    if ws is None:
        return _no_recipe()
    ws.save()
    return RedirectResponse("/recipe", status_code=303)


PAGE = Page("recipe", "Recipe", "/recipe", [
    Route("/recipe", show), Route("/recipe/undo", undo, methods=["POST"]),
    Route("/recipe/save", save, methods=["POST"])])
