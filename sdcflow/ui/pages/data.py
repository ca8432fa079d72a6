"""The Data page: the variables table (the data's columns with the recipe's declarations
and the starter's guesses), identifiers flagged, and forms that declare a variable's role,
type, household level and value labels (each an edit of the recipe's ``variables``)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse
from starlette.routing import Route

from ...errors import RecipeError
from ..content.data_columns import HIDDEN, columns_of, read_text_columns
from ..editing.recipe_edit import EditError, RecipeDocument
from ..server.state import render, state
from ._page import Page

ROLES = ("identifier", "key", "numeric", "sensitive", "weight", "household", "strata",
         "pram")
TYPES = ("categorical", "ordinal", "integer", "continuous")
LEVELS = ("record", "household")


def _columns(ws):
    try:
        doc = RecipeDocument.parse(ws.draft, ws.path.name)
    except RecipeError as exc:
        return [], [str(p) for p in exc.problems]
    frame, problems = read_text_columns(doc.get(["data"]), ws.path.parent)
    return columns_of(frame, doc.variables()), problems


def _page(request: Request, status_code: int = 200, errors: dict | None = None,
          edit: str | None = None):
    ws = state(request).workspace
    columns, read_problems = _columns(ws)
    return render(request, "data.html", status_code=status_code, columns=columns,
                  read_problems=read_problems, errors=errors or {}, edit=edit,
                  roles=ROLES, types=TYPES, levels=LEVELS, hidden=HIDDEN,
                  identifiers=[c for c in columns if c.identifier],
                  problems=ws.problems(), diff=ws.diff())


async def show(request: Request):
    if state(request).workspace is None:
        return RedirectResponse("/", status_code=303)
    return _page(request, edit=request.query_params.get("edit"))


def _labels(text: str) -> tuple[dict | None, str | None]:
    """``code: label`` lines as a mapping (None when empty), or an error."""
    out: dict[str, str] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        code, sep, label = line.partition(":")
        if not sep or not code.strip() or not label.strip():
            return None, f"line {n}: write each label as 'code: label'"
        if code.strip() in out:
            return None, f"line {n}: code {code.strip()!r} is labelled twice"
        out[code.strip()] = label.strip()
    return out or None, None


def parse_variable_form(form, known: set[str]) -> tuple[str, dict, dict]:
    """(name, the fields to set, errors by field) from a variable form: ``role``,
    ``type`` (empty: undeclared), ``level`` (record: the default, not written) and,
    when the form has it, ``labels``."""
    name = str(form.get("name", ""))
    errors: dict[str, str] = {}
    if name not in known:
        errors["name"] = f"no variable or column named {name!r}"
    role = str(form.get("role", ""))
    if role not in ROLES:
        errors["role"] = f"choose a role ({', '.join(ROLES)})"
    kind = str(form.get("type", ""))
    if kind and kind not in TYPES:
        errors["type"] = f"choose a type ({', '.join(TYPES)}) or none"
    level = str(form.get("level", "record") or "record")
    if level not in LEVELS:
        errors["level"] = "record or household"
    fields = {"role": role, "type": kind or None,
              "level": None if level == "record" else level}
    if "labels" in form:
        labels, problem = _labels(str(form.get("labels", "")))
        if problem:
            errors["labels"] = problem
        fields["labels"] = labels
    return name, fields, errors


async def set_variable(request: Request):
    ws = state(request).workspace
    if ws is None:
        return RedirectResponse("/", status_code=303)
    form = await request.form()
    columns, _ = _columns(ws)
    name, fields, errors = parse_variable_form(form, {c.name for c in columns})
    if not errors:
        try:
            ws.edit(lambda doc: doc.set_variable(name, **fields))
        except (EditError, RecipeError, ValueError) as exc:
            errors["name"] = str(exc)
    if errors:
        return _page(request, status_code=400, errors={"variable": name, **errors},
                     edit=name if "labels" in form else None)
    return RedirectResponse("/data", status_code=303)


async def undeclare(request: Request):
    ws = state(request).workspace
    if ws is None:
        return RedirectResponse("/", status_code=303)
    name = str((await request.form()).get("name", ""))
    try:
        ws.edit(lambda doc: doc.remove_variable(name))
    except KeyError:
        return _page(request, status_code=400,
                     errors={"variable": name, "name": f"no variable named {name!r}"})
    except (EditError, RecipeError) as exc:
        return _page(request, status_code=400, errors={"variable": name, "name": str(exc)})
    return RedirectResponse("/data", status_code=303)


PAGE = Page("data", "Data", "/data", [
    Route("/data", show), Route("/data/variable", set_variable, methods=["POST"]),
    Route("/data/undeclare", undeclare, methods=["POST"])])
