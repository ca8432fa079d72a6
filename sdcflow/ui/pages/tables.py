"""The Tables page (tau-Argus' view): each table of the recipe as a grid of its cells,
coloured by status (safe, primary with its rule, secondary, perturbed, rounded,
adjusted), the published value beside the original one, the audit's intervals; the
primary rules and the secondary suppression set per table (written to the recipe), and
the table steps run from the grid (:mod:`sdcflow.ui.running.table_run`)."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse
from starlette.routing import Route

from ...errors import PluginError, RecipeError, SdcflowError
from ..content.table_rules import (
    PRIMARY,
    SECONDARY,
    RuleInputError,
    add_audit,
    rule_fields,
    rules_from_form,
    set_rules,
    set_secondary,
    step_on,
)
from ..editing.recipe_edit import EditError, RecipeDocument
from ..running.table_run import STATUSES, run_tables
from ..server.state import render, state
from ._page import Page

EXTRA = "tables"
# tables these protect get no suppression forms (their cells are published perturbed or
# rounded); controlled adjustment takes primary rules but no secondary suppression
OTHER_PROTECTION = {"cell_key", "dp_table", "controlled_rounding"}
FAILURES = (RecipeError, PluginError, SdcflowError, ValueError, OSError)


def _result(request: Request):
    """The last computation of the tables, if it was made from the current draft; else
    the primary rules run now (cheap, nothing written)."""
    st = state(request)
    ws = st.workspace
    last = st.extras.get(EXTRA)
    if last is not None and last.draft == ws.draft:
        return last, None
    try:
        last = run_tables(ws.draft, ws.path, st.project.root, complete=False, write=False)
    except FAILURES as exc:
        return None, exc
    st.extras[EXTRA] = last
    return last, None


def _back(request: Request) -> RedirectResponse:
    """Back to the grid as it was shown (the same table, dimensions and codes)."""
    query = request.url.query
    return RedirectResponse("/tables" + (f"?{query}" if query else ""), status_code=303)


def _page(request: Request, status_code: int = 200, error: str | None = None):
    st = state(request)
    ws = st.workspace
    result, failure = _result(request)
    views = result.views if result else {}
    wanted = request.query_params.get("table")
    tid = wanted if wanted in views else next(iter(views), None)
    view = views.get(tid)
    context = {"result": result, "failure": failure, "views": views, "view": view,
               "statuses": STATUSES, "error": error, "grid": None}
    if view is not None:
        q = request.query_params
        dims = view.dims
        rows = q.get("rows") if q.get("rows") in dims else dims[0]
        cols = q.get("cols") if q.get("cols") in dims and q.get("cols") != rows else \
            next((d for d in dims if d != rows), None)
        fixed = {d: q.get(f"at_{d}", "") for d in dims if d not in (rows, cols)}
        doc = RecipeDocument.parse(ws.draft, ws.path.name)
        primary = step_on(doc, view.source, PRIMARY)
        fields, kept = rule_fields((primary or {}).get("params", {}).get("rules", []))
        secondary = step_on(doc, view.source, SECONDARY)
        on_table = [s for s in doc.steps()
                    if isinstance(s, dict) and s.get("table") == view.source]
        methods = {s.get("method") for s in on_table}
        context.update(
            pending=[s.get("id") for s in on_table if s.get("id") not in result.ran],
            other_protection=sorted(m for m in methods if m in OTHER_PROTECTION),
            adjusted="controlled_adjustment" in methods,
            rows=rows, cols=cols, fixed=fixed, grid=view.grid(rows, cols, fixed),
            row_codes=view.codes[dims.index(rows)],
            row_depths=view.depths[dims.index(rows)],
            col_codes=view.codes[dims.index(cols)] if cols else [view.id],
            col_depths=view.depths[dims.index(cols)] if cols else [0],
            others=[(d, view.codes[dims.index(d)], fixed[d]) for d in fixed],
            primary=primary, fields=fields, kept=kept, secondary=secondary,
            secondary_params=(secondary or {}).get("params") or {},
            has_audit=view.audit is not None or step_on(doc, view.source, "table_audit"))
    return render(request, "tables.html", status_code=status_code, **context)


def _no_recipe():
    return RedirectResponse("/", status_code=303)


async def show(request: Request):
    if state(request).workspace is None:
        return _no_recipe()
    # (the table steps run off the event loop: the server keeps answering)
    return await run_in_threadpool(_page, request)


async def run(request: Request):
    """Run every table step of the draft (and the steps they need) and show the result."""
    st = state(request)
    ws = st.workspace
    if ws is None:
        return _no_recipe()
    try:
        st.extras[EXTRA] = await run_in_threadpool(run_tables, ws.draft, ws.path,
                                                   st.project.root)
    except FAILURES as exc:
        st.extras.pop(EXTRA, None)
        return await run_in_threadpool(_page, request, 400,
                                       f"the table steps did not run: {exc}")
    return _back(request)


async def _edit(request: Request, change):
    """Apply ``change(document)`` to the draft; a bad input leaves it as it was."""
    ws = state(request).workspace
    if ws is None:
        return _no_recipe()
    try:
        ws.edit(change)
    except (RuleInputError, EditError, KeyError, IndexError, RecipeError) as exc:
        return await run_in_threadpool(_page, request, 400, str(exc))
    return _back(request)


def _table_of(form) -> str:
    table = str(form.get("source", "")).strip()
    if not table:
        raise RuleInputError("no table named")
    return table


async def rules(request: Request):
    """Write the primary rules of a table (its sensitivity_rules step)."""
    form = await request.form()

    def change(doc):
        table = _table_of(form)
        current = step_on(doc, table, PRIMARY)
        _, kept = rule_fields((current or {}).get("params", {}).get("rules", []))
        set_rules(doc, table, rules_from_form(form, kept))

    return await _edit(request, change)


async def secondary(request: Request):
    """Write the secondary suppression of a table (its secondary_suppression step)."""
    form = await request.form()
    return await _edit(request, lambda doc: set_secondary(
        doc, _table_of(form), str(form.get("algorithm", "")), str(form.get("cost", ""))))


async def audit(request: Request):
    """Add an audit step on a table."""
    form = await request.form()
    return await _edit(request, lambda doc: add_audit(doc, _table_of(form)))


PAGE = Page("tables", "Tables", "/tables", [
    Route("/tables", show), Route("/tables/run", run, methods=["POST"]),
    Route("/tables/rules", rules, methods=["POST"]),
    Route("/tables/secondary", secondary, methods=["POST"]),
    Route("/tables/audit", audit, methods=["POST"])])
