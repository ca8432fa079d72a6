"""The Compare page: the draft run as ``sdcflow run`` runs it (into the workbench's scratch
folder), its variants side by side with the report's R-U map and the risk and utility
figures of each (:mod:`sdcflow.ui.running.variants`), and "Release this variant", which sets
``release.variant`` in the recipe."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse
from starlette.routing import Route

from ...errors import RecipeError
from ...recipe import recipe_from_text
from ...recipe.grid import grid_variants
from ...report.headline import number_text
from ..content.pictures import svg_src
from ..content.risk_overview import draft_key
from ..running import variants
from ..server.state import state
from ._background import job_views, page_job
from ._edit import apply_edit
from ._page import Page


def _context(request: Request) -> dict:
    """The run of the draft (started when new) and what the template shows of it."""
    st = state(request)
    draft, path, root = st.workspace.draft, st.workspace.path, st.project.root
    job, finished = page_job(request, "compare", draft_key(draft, path),
                             lambda job: variants.run_draft(draft, path, root, job.note))
    context = {"job": job, "finished": finished, "comparison": None, "ru_map": "",
               "fmt": number_text}
    if finished and job.error is None:
        context["comparison"] = job.result
        context["ru_map"] = svg_src(variants.ru_picture(job.result))
    return context


show, status = job_views("compare.html", "compare_results.html", _context)


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
    return apply_edit(ws, lambda doc: doc.set(["release", "variant"], choice), "/compare")


PAGE = Page("compare", "Compare", "/compare", [
    Route("/compare", show), Route("/compare/status", status),
    Route("/compare/release", release, methods=["POST"])])
