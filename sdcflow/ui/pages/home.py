"""The project page: the recipes and data files of the folder, and opening one."""

from __future__ import annotations

from pathlib import PurePosixPath

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse
from starlette.routing import Route

from ...cli.starter import InitError
from ..editing.recipe_edit import starter_document
from ..server.project import DATA_SUFFIXES, RECIPE_SUFFIXES, OutsideProject, Project
from ..server.state import render, state
from ..server.workspace import Workspace
from ._page import Page


def _home(request: Request, status_code: int = 200, error: str | None = None, **extra):
    st = state(request)
    return render(request, "home.html", status_code=status_code,
                  recipes=st.project.files(RECIPE_SUFFIXES),
                  data_files=st.project.files(DATA_SUFFIXES), error=error,
                  start_data=st.extras.get("start_data"), **extra)


async def home(request: Request):
    return _home(request)


async def open_recipe(request: Request):
    st = state(request)
    form = await request.form()
    relative = str(form.get("path", ""))
    try:
        path = st.project.path(relative)
        if not path.is_file() or not path.name.lower().endswith(RECIPE_SUFFIXES):
            raise OutsideProject(f"not a recipe in the project: {relative!r}")
        st.workspace = Workspace.open(path)
    except (OutsideProject, OSError, UnicodeDecodeError) as exc:
        return _home(request, 400, str(exc))
    return RedirectResponse("/recipe", status_code=303)


def recipe_name(name: str, data: str) -> str:
    """The recipe file the user named (``.yaml`` added when it has no recipe suffix),
    beside the data when it is a bare name; default ``<data stem>.yaml``."""
    name = name.strip() or PurePosixPath(data).stem + ".yaml"
    if not name.lower().endswith(RECIPE_SUFFIXES):
        name += ".yaml"
    if "/" not in name:
        name = str(PurePosixPath(data).parent / name).removeprefix("./")
    return name


def create_recipe(project: Project, data_rel: str, name: str, draft: bool) -> Workspace:
    """The starter recipe (``sdcflow init``'s) for the project's data file ``data_rel``,
    as a recipe named ``name``: written (never over an existing file: the file is
    created exclusively) or, with ``draft``, held unsaved."""
    data = project.path(data_rel)
    if not data.is_file() or not data.name.lower().endswith(DATA_SUFFIXES):
        raise OutsideProject(f"not a data file in the project: {data_rel!r}")
    target = project.path(recipe_name(name, data_rel))
    if target.exists() or target.is_symlink():
        raise InitError(f"{project.relative(target)} exists; choose another name "
                        "(the workbench never replaces a file)")
    text = starter_document(data, target).text()
    if draft:
        return Workspace.new(target, text)
    with open(target, "x", encoding="utf-8", newline="") as out:
        out.write(text)
    return Workspace.open(target)


async def new_recipe(request: Request):
    """Open a data file of the project as a new recipe (:func:`create_recipe`; reading
    the data runs outside the event loop)."""
    st = state(request)
    form = await request.form()
    try:
        st.workspace = await run_in_threadpool(
            create_recipe, st.project, str(form.get("data", "")), str(form.get("name", "")),
            form.get("how") == "draft")
    except (OutsideProject, InitError, OSError) as exc:
        return _home(request, 400, str(exc), new_error=True)
    return RedirectResponse("/data", status_code=303)


PAGE = Page("home", "Project", "/", [Route("/", home), Route("/open", open_recipe,
                                                              methods=["POST"]),
                                  Route("/new", new_recipe, methods=["POST"])],
            needs_recipe=False)
