"""The Risk page: the risks of the original data before any method (k-anonymity,
individual and household risk, SUDA, the rarest key combinations), computed in the
background by the recipe's own measure plugins (:mod:`sdcflow.ui.content.risk_overview`); each
figure can join the recipe as a measure step on the original data."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse
from starlette.routing import Route

from ...errors import RecipeError
from ...report.headline import number_text
from ..content import risk_overview
from ..content.pictures import svg_src
from ..editing.recipe_edit import RecipeDocument
from ..server.state import state
from ._background import job_views, page_job
from ._edit import apply_edit
from ._page import Page


def _context(request: Request) -> dict:
    """The job of the draft and, once it is done, what the template shows."""
    ws = state(request).workspace
    draft, path = ws.draft, ws.path
    job, finished = page_job(request, "risk", risk_overview.cache_key(draft, path),
                             lambda job: risk_overview.compute(draft, path, job.note))
    context: dict = {"job": job, "finished": finished, "overview": None, "pictures": {},
                     "in_recipe": {}, "fmt": number_text}
    if finished and job.error is None:
        overview = job.result
        context["overview"] = overview
        context["pictures"] = {name: svg_src(svg) for name, svg in overview.pictures.items()}
        try:
            doc = RecipeDocument.parse(ws.draft, ws.path.name)
            context["in_recipe"] = {m: risk_overview.recipe_step(doc, m)
                                    for m in risk_overview.MEASURES}
        except RecipeError:
            pass  # a draft that does not parse says nothing of its steps (Recipe page: why)
    return context


show, status = job_views("risk.html", "risk_results.html", _context)


async def add(request: Request):
    ws = state(request).workspace
    if ws is None:
        return RedirectResponse("/", status_code=303)
    measure = str((await request.form()).get("measure", ""))
    if measure not in risk_overview.MEASURES:
        return PlainTextResponse(f"not a risk measure of this page: {measure!r}",
                                 status_code=400)
    return apply_edit(ws, lambda doc: risk_overview.add_risk_step(doc, measure), "/risk")


PAGE = Page("risk", "Risk", "/risk", [
    Route("/risk", show), Route("/risk/status", status),
    Route("/risk/add", add, methods=["POST"])])
