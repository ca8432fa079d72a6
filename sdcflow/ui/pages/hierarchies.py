"""The Hierarchies page (ARX's wizards): a generalisation hierarchy built for a variable
from its values (intervals, masking, groups named level by level), previewed (each
value's path up the levels and the records per generalised value at each level) and
written to the recipe where ``anonymize`` or ``global_recode`` use it
(:mod:`sdcflow.ui.content.hierarchy_builders`, :mod:`sdcflow.ui.content.hierarchy_recipe`)."""

from __future__ import annotations

import math
from urllib.parse import urlencode

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse
from starlette.routing import Route

from ...errors import RecipeError
from ..content.hierarchy_builders import BuilderError
from ..content.hierarchy_recipe import (
    BUILDERS,
    GROUP_LEVELS,
    build_from_fields,
    read_recipe_data,
    targets,
    value_counts,
    write,
)
from ..editing.recipe_edit import EditError, RecipeDocument
from ..server.state import render, state
from ._page import Page

MAX_PREVIEW = 500  # values listed in the preview


def _defaults(builder: str, column) -> dict:
    """Starting settings of a builder for a column (intervals: from the floor of the
    smallest value, ten intervals wide at the finest level)."""
    if builder != "intervals":
        return {}
    x = column.dropna()
    try:
        lo, hi = float(x.min()), float(x.max())
    except (TypeError, ValueError):
        return {}
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return {}
    span = max(hi - lo, 1.0)
    width = 10 ** math.floor(math.log10(span / 10)) if span >= 10 else 1
    return {"lower": f"{math.floor(lo / width) * width:g}", "width": f"{width:g}",
            "levels": "3", "merge": "2"}


def _page(request: Request, status_code: int = 200, error: str | None = None):
    st = state(request)
    ws = st.workspace
    q = dict(request.query_params)
    context: dict = {"error": error, "problems": None, "variables": [], "hierarchy": None,
                     "builders": BUILDERS, "group_levels": GROUP_LEVELS, "q": q,
                     "diff": ws.diff(), "written": q.get("written")}
    try:
        data = read_recipe_data(ws.draft, ws.path)
    except RecipeError as exc:
        context["problems"] = exc.problems
        return render(request, "hierarchies.html", status_code=status_code, **context)
    doc = RecipeDocument.parse(ws.draft, ws.path.name)
    names = [n for n in doc.variables() if n in data.frame]
    context["variables"] = names
    variable = q.get("variable") if q.get("variable") in names else (names[0] if names else None)
    if variable is None:
        return render(request, "hierarchies.html", status_code=status_code, **context)
    var = data.variables[variable]
    builder = q.get("builder") if q.get("builder") in BUILDERS else (
        "intervals" if var.is_numeric else "masking")
    fields = {**_defaults(builder, data.frame[variable]), **q}
    column = data.frame[variable]
    counts = value_counts(column, var.is_numeric)
    anonymize = [s["id"] for s in doc.steps() if isinstance(s, dict)
                 and s.get("method") == "anonymize" and "id" in s]
    context.update(variable=variable, var_type=var.type, builder=builder, fields=fields,
                   categories=sorted(counts), targets=targets(builder, var.type, anonymize))
    try:
        hierarchy = build_from_fields(fields, list(counts), builder)
    except BuilderError as exc:
        context["error"] = error or str(exc)
    else:
        rows = hierarchy.paths(counts)
        context.update(hierarchy=hierarchy, rows=rows[:MAX_PREVIEW], n_rows=len(rows))
    return render(request, "hierarchies.html", status_code=status_code, **context)


async def show(request: Request):
    if state(request).workspace is None:
        return RedirectResponse("/", status_code=303)
    return await run_in_threadpool(_page, request)  # (reading the data takes a while)


async def write_hierarchy(request: Request):
    """Build the hierarchy the page's settings (the query) describe and write it where
    the form says (``target``, ``level``)."""
    if state(request).workspace is None:
        return RedirectResponse("/", status_code=303)
    form = dict(await request.form())
    return await run_in_threadpool(_write, request, form)


def _write(request: Request, form: dict):
    ws = state(request).workspace
    q = dict(request.query_params)
    try:
        data = read_recipe_data(ws.draft, ws.path)
        variable = q.get("variable", "")
        if variable not in data.frame or variable not in data.variables:
            raise BuilderError(f"no declared variable {variable!r} in the data")
        var = data.variables[variable]
        builder = q.get("builder", "")
        counts = value_counts(data.frame[variable], var.is_numeric)
        hierarchy = build_from_fields({**_defaults(builder, data.frame[variable]), **q},
                                      list(counts), builder)
        target = str(form.get("target", ""))
        anonymize = [s["id"] for s in RecipeDocument.parse(ws.draft).steps()
                     if isinstance(s, dict) and s.get("method") == "anonymize"]
        if target not in [t for t, _ in targets(builder, var.type, anonymize)]:
            raise BuilderError(f"the hierarchy cannot be written to {target!r}")
        level_text = str(form.get("level", "") or "1")
        if not level_text.isdigit():
            raise BuilderError(f"level: {level_text!r} is not a whole number")
        written: list[str] = []
        ws.edit(lambda doc: written.append(write(doc, target, variable, builder, hierarchy,
                                                 int(level_text))))
    except (BuilderError, EditError, RecipeError, KeyError) as exc:
        return _page(request, 400, str(exc))
    q["written"] = written[0]
    return RedirectResponse("/hierarchies?" + urlencode(q), status_code=303)


PAGE = Page("hierarchies", "Hierarchies", "/hierarchies", [
    Route("/hierarchies", show),
    Route("/hierarchies/write", write_hierarchy, methods=["POST"])])
