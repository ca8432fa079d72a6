"""The Steps page: the recipe's steps in order, adding any method or measure of the
registry, editing parameters and grids, removing, moving, disabling, the checks, undo, and
the preview of a step (a partial run up to it, never a release)."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse
from starlette.routing import Route

from ...cli.describe import example_step
from ...errors import RecipeError
from ...plugins import registry
from ..editing.forms import form_fields, parse_form
from ..editing.params_text import parse_values, summary
from ..editing.recipe_edit import EditError, RecipeDocument
from ..running.preview import preview_step
from ..server.state import render, state
from ._page import Page

EDIT_ERRORS = (EditError, RecipeError, KeyError, IndexError, ValueError, RuntimeError)


def _doc(ws) -> RecipeDocument | None:
    try:
        return RecipeDocument.parse(ws.draft, ws.path.name)
    except RecipeError:
        return None


def _plugin_of(step: dict):
    return registry.get(str(step.get("method") or step.get("measure") or ""))


def _steps_view(doc: RecipeDocument | None) -> list[dict]:
    out = []
    for i, step in enumerate(doc.steps() if doc else []):
        if not isinstance(step, dict):
            continue
        plugin = _plugin_of(step)
        out.append({"index": i, "id": step.get("id", ""),
                    "kind": "method" if "method" in step else "measure",
                    "plugin": step.get("method") or step.get("measure"),
                    "summary": summary(step.get("params") or {}),
                    "params": step.get("params") or {},
                    "grid": step.get("grid") or {}, "enabled": step.get("enabled", True),
                    "input": step.get("input"), "known": plugin is not None})
    return out


def _picker() -> dict[str, list]:
    return {"Methods": registry.plugins("method"), "Measures": registry.plugins("measure")}


def page(request: Request, status_code: int = 200, **context):
    st = state(request)
    ws = st.workspace
    doc = _doc(ws)
    adding = context.pop("adding", None) or request.query_params.get("add")
    plugin = registry.get(adding) if adding else None
    if adding and plugin is None:
        context.setdefault("error", f"no method or measure named {adding!r} ('sdcflow "
                                    "methods' lists them)")
        status_code = 400 if status_code == 200 else status_code
    editing = context.pop("editing", None) or request.query_params.get("edit")
    steps = _steps_view(doc)
    edited = next((s for s in steps if s["id"] == editing), None)
    variables = list(doc.variables()) if doc else []
    answers = context.pop("answers", None)
    edited_plugin = _plugin_of({edited["kind"]: edited["plugin"]}) if edited else None
    return render(request, "steps.html", status_code=status_code, steps=steps,
                  picker=_picker(), plugin=plugin,
                  add_fields=_fields(plugin, {}, variables, answers) if plugin else [],
                  example=example_step(plugin) if plugin else "",
                  edited=edited,
                  edit_fields=_fields(edited_plugin, edited["params"], variables, answers)
                  if edited_plugin else [],
                  checks=doc.checks() if doc else [],
                  variant=(doc.get(["release", "variant"]) if doc else None),
                  preview=st.extras.get("preview"), problems=ws.problems(), diff=ws.diff(),
                  **{"error": None, "field_errors": {}, "form": {}, **context})


def _fields(plugin, values: dict, variables: list[str], answers: dict | None = None):
    """The form fields of ``plugin``'s parameters showing ``values`` (a step's params),
    or, after a refused form, the answers as the user wrote them."""
    fields = form_fields(plugin.params, values, variables=variables)
    for f in fields if answers is not None else []:
        raw = answers.get(f.name)
        f.selected = raw if isinstance(raw, list) else ([raw] if raw else [])
        f.value = raw[-1] if isinstance(raw, list) and raw else (raw or "")
    return fields


def read_params(plugin, form) -> tuple[dict, dict[str, list[str]], dict]:
    """The parameters of a step form (fields ``p.NAME``, :mod:`sdcflow.ui.editing.forms`), the
    errors by field ("" for the parameters as a whole) and the answers as written."""
    kinds = {f.name: f.kind for f in form_fields(plugin.params, {}, variables=[])}
    answers: dict = {}
    for name, kind in kinds.items():
        values = form.getlist(f"p.{name}")
        if kind == "multiselect" or len(values) > 1:
            answers[name] = list(values)
        elif values:
            answers[name] = values[0]
    params, errors = parse_form(plugin.params, answers)
    by_field: dict[str, list[str]] = {}
    for error in errors:
        name = error.split(":", 1)[0].split("[", 1)[0].strip()
        by_field.setdefault(name if name in kinds else "", []).append(error)
    return params, by_field, answers


def _needs_recipe(handler):
    async def wrapped(request: Request):
        if state(request).workspace is None:
            return RedirectResponse("/", status_code=303)
        return await handler(request)
    return wrapped


def _done(anchor: str = "") -> RedirectResponse:
    return RedirectResponse("/steps" + anchor, status_code=303)


@_needs_recipe
async def show(request: Request):
    return page(request)


@_needs_recipe
async def add(request: Request):
    ws = state(request).workspace
    form = await request.form()
    name = str(form.get("plugin", ""))
    plugin = registry.get(name)
    if plugin is None:
        return page(request, 400, error=f"no method or measure named {name!r} ('sdcflow "
                                        "methods' lists them)")
    params, problems, answers = read_params(plugin, form)
    step_id = str(form.get("id", "")).strip() or name
    if problems:
        return page(request, 400, adding=name, field_errors=problems, form=dict(form),
                    answers=answers)
    entry = {"id": step_id, plugin.kind: name}
    if params:
        entry["params"] = params
    before = str(form.get("before", ""))
    try:
        ws.edit(lambda doc: doc.add_step(
            entry, doc.step_index(before) if before else None))
    except EDIT_ERRORS as exc:
        return page(request, 400, adding=name, error=str(exc), form=dict(form))
    return _done()


@_needs_recipe
async def update(request: Request):
    ws = state(request).workspace
    form = await request.form()
    step_id = str(form.get("id", ""))
    step = next((s for s in _steps_view(_doc(ws)) if s["id"] == step_id), None)
    if step is None:
        return page(request, 400, error=f"no step {step_id!r}")
    plugin = _plugin_of({step["kind"]: step["plugin"]})
    if plugin is None:
        return page(request, 400, error=f"step {step_id}: no method or measure named "
                                        f"{step['plugin']!r}")
    params, problems, answers = read_params(plugin, form)
    if problems:
        return page(request, 400, editing=step_id, field_errors=problems, form=dict(form),
                    answers=answers)
    try:
        ws.edit(lambda doc: doc.update_step(step_id, params=params or None))
    except EDIT_ERRORS as exc:
        return page(request, 400, editing=step_id, error=str(exc))
    return _done()


def _step_action(change):
    """A route applying ``change(doc, step_id, form)`` to the draft."""
    @_needs_recipe
    async def action(request: Request):
        ws = state(request).workspace
        form = await request.form()
        step_id = str(form.get("id", ""))
        try:
            ws.edit(lambda doc: change(doc, step_id, form))
        except EDIT_ERRORS as exc:
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
            return page(request, 400, error=f"{step_id}: {message}")
        return _done()
    return action


def _move(doc, step_id, form):
    i = doc.step_index(step_id)
    j = i - 1 if form.get("direction") == "up" else i + 1
    if not 0 <= j < len(doc.steps()):
        raise IndexError("the step cannot move further")
    doc.move_step(step_id, j)


def _grid(doc, step_id, form):
    param = str(form.get("param", "")).strip()
    step = doc.steps()[doc.step_index(step_id)]
    grid = dict(step.get("grid") or {})
    params = dict(step.get("params") or {})
    text = str(form.get("values", "")).strip()
    if not param:
        raise ValueError("name the parameter the grid varies")
    if text:
        values, problem = parse_values(text)
        if problem:
            raise ValueError(f"grid of {param}: {problem}")
        grid[param] = values
        params.pop(param, None)  # (a gridded parameter is given in the grid only)
    else:
        grid.pop(param, None)
    doc.update_step(step_id, grid=grid or None, params=params or None)


def _variant(doc, step_id, form):
    text = str(form.get("variant", "")).strip()
    if not text:
        if doc.get(["release", "variant"]) is not None:
            doc.delete(["release", "variant"])
        return
    values, problem = parse_values(f"[{{{text}}}]")
    if problem:
        raise ValueError(f"variant: {problem} (write e.g. k: 3)")
    doc.set(["release", "variant"], values[0])


@_needs_recipe
async def add_check(request: Request):
    ws = state(request).workspace
    form = await request.form()
    expr = str(form.get("expr", "")).strip()
    message = str(form.get("message", "")).strip() or None
    if not expr:
        return page(request, 400, field_errors={"expr": ["write the check's expression"]})
    try:
        ws.edit(lambda doc: doc.add_check(expr, message))
    except EDIT_ERRORS as exc:
        return page(request, 400, error=str(exc))
    return _done("#checks")


@_needs_recipe
async def remove_check(request: Request):
    ws = state(request).workspace
    form = await request.form()
    try:
        index = int(str(form.get("index", "")))
        ws.edit(lambda doc: doc.remove_check(index))
    except (ValueError, KeyError, IndexError):
        return page(request, 400, error=f"no check number {form.get('index')!r}")
    except EDIT_ERRORS as exc:
        return page(request, 400, error=str(exc))
    return _done("#checks")


@_needs_recipe
async def preview(request: Request):
    """Run the draft up to a step (in a worker thread, outside the event loop)."""
    st = state(request)
    step_id = str((await request.form()).get("id", ""))
    ws = st.workspace
    st.extras["preview"] = await run_in_threadpool(preview_step, ws.draft, ws.path,
                                                   st.project.root, step_id)
    return _done("#preview")


PAGE = Page("steps", "Steps", "/steps", [
    Route("/steps", show),
    Route("/steps/add", add, methods=["POST"]),
    Route("/steps/update", update, methods=["POST"]),
    Route("/steps/remove", _step_action(lambda d, s, f: d.remove_step(s)), methods=["POST"]),
    Route("/steps/move", _step_action(_move), methods=["POST"]),
    Route("/steps/enable", _step_action(
        lambda d, s, f: d.set_enabled(s, f.get("enabled") == "1")), methods=["POST"]),
    Route("/steps/grid", _step_action(_grid), methods=["POST"]),
    Route("/steps/variant", _step_action(_variant), methods=["POST"]),
    Route("/steps/check/add", add_check, methods=["POST"]),
    Route("/steps/check/remove", remove_check, methods=["POST"]),
    Route("/steps/preview", preview, methods=["POST"])])
