"""The Compare page: the draft run as ``sdcflow run`` runs it (into the workbench's scratch
folder), its variants side by side with the report's R-U map and the risk and utility
figures of each (:mod:`sdcflow.ui.variants`), and "Release this variant", which sets
``release.variant`` in the recipe."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse
from starlette.routing import Route

from ...errors import RecipeError
from ...grid import grid_variants
from ...recipe import recipe_from_text
from ...report.headline import number_text
from .. import variants
from ..jobs import Jobs
from ..pictures import svg_src
from ..recipe_edit import EditError
from ..risk_overview import draft_key
from ..state import render, state
from ._page import Page


def _context(request: Request) -> dict:
    """The run of the draft (started when new) and what the template shows of it."""
    st = state(request)
    ws = st.workspace
    draft, path, root = ws.draft, ws.path, st.project.root
    key = draft_key(draft, path)
    job = st.extras.setdefault("compare", Jobs()).start(
        key, lambda job: variants.run_draft(draft, path, root, job.note))
    finished = job.finished  # (once: the job may finish while the page is drawn)
    context = {"job": job, "finished": finished, "comparison": None, "ru_map": "",
               "fmt": number_text}
    if finished and job.error is None:
        context["comparison"] = job.result
        context["ru_map"] = svg_src(variants.ru_picture(job.result))
    return context


async def show(request: Request):
    if state(request).workspace is None:
        return RedirectResponse("/", status_code=303)
    return render(request, "compare.html", **_context(request))


async def status(request: Request):
    """The comparison once the run is done, else its progress (htmx polls it)."""
    if state(request).workspace is None:
        return PlainTextResponse("no recipe is open", status_code=409)
    return render(request, "compare_results.html", **_context(request))


async def release(request: Request):
    """Set ``release.variant`` to the variant numbered ``variant`` (0-based, in the
    grid's order)."""
    ws = state(request).workspace
    if ws is None:
        return RedirectResponse("/", status_code=303)
    wanted = str((await request.form()).get("variant", ""))
    try:
        draft = variants.sweep_text(ws.draft, ws.path.name) or ws.draft
        recipe = recipe_from_text(draft, ws.path.name, ws.path)
    except RecipeError as exc:
        return PlainTextResponse(f"the recipe has problems: {exc}", status_code=400)
    choices = grid_variants(recipe)
    if len(choices) < 2 or not wanted.isdigit() or int(wanted) >= len(choices):
        return PlainTextResponse(f"no such variant: {wanted!r}", status_code=400)
    choice = variants.release_choice(choices[int(wanted)])
    try:
        ws.edit(lambda doc: doc.set(["release", "variant"], choice))
    except (RecipeError, EditError) as exc:
        return PlainTextResponse(f"the recipe cannot be edited: {exc}", status_code=400)
    return RedirectResponse("/compare", status_code=303)


PAGE = Page("compare", "Compare", "/compare", [
    Route("/compare", show), Route("/compare/status", status),
    Route("/compare/release", release, methods=["POST"])])
