"""The project page: the recipes and data files of the folder, and opening one."""

from __future__ import annotations

from pathlib import PurePosixPath

from starlette.requests import Request
from starlette.responses import RedirectResponse
from starlette.routing import Route

from ...starter import InitError
from ..project import DATA_SUFFIXES, RECIPE_SUFFIXES, OutsideProject
from ..state import render, state
from ..recipe_edit import starter_document
from ..workspace import Workspace
from ._page import Page


def _home(request: Request, status_code: int = 200, error: str | None = None, **extra):
    st = state(request)
    return render(request, "home.html", status_code=status_code,
                  recipes=st.project.files(RECIPE_SUFFIXES),
                  data_files=st.project.files(DATA_SUFFIXES), error=error, **extra)


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


async def new_recipe(request: Request):
    """A starter recipe for a data file of the project (``sdcflow init``'s), saved under
    the name given (never over an existing file) or held as an unsaved draft; then open."""
    st = state(request)
    form = await request.form()
    data_rel = str(form.get("data", ""))
    try:
        data = st.project.path(data_rel)
        if not data.is_file() or not data.name.lower().endswith(DATA_SUFFIXES):
            raise OutsideProject(f"not a data file in the project: {data_rel!r}")
        target = st.project.path(recipe_name(str(form.get("name", "")), data_rel))
        if target.exists() or target.is_symlink():
            raise InitError(f"{st.project.relative(target)} exists; choose another name "
                            "(the workbench never replaces a file)")
        text = starter_document(data, target).text()
        if form.get("how") == "draft":
            st.workspace = Workspace.new(target, text)
        else:
            with open(target, "x", encoding="utf-8", newline="") as out:
                out.write(text)
            st.workspace = Workspace.open(target)
    except (OutsideProject, InitError, OSError) as exc:
        return _home(request, 400, str(exc), new_error=True)
    return RedirectResponse("/data", status_code=303)


PAGE = Page("home", "Project", "/", [Route("/", home), Route("/open", open_recipe,
                                                              methods=["POST"]),
                                  Route("/new", new_recipe, methods=["POST"])],
            needs_recipe=False)
