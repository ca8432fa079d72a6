"""The project page: the recipes and data files of the folder, and opening one."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse
from starlette.routing import Route

from ..project import DATA_SUFFIXES, RECIPE_SUFFIXES, OutsideProject
from ..state import render, state
from ..workspace import Workspace
from ._page import Page


async def home(request: Request):
    st = state(request)
    return render(request, "home.html", recipes=st.project.files(RECIPE_SUFFIXES),
                  data_files=st.project.files(DATA_SUFFIXES), error=None)


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
        return render(request, "home.html", status_code=400,
                      recipes=st.project.files(RECIPE_SUFFIXES),
                      data_files=st.project.files(DATA_SUFFIXES), error=str(exc))
    return RedirectResponse("/recipe", status_code=303)


PAGE = Page("home", "Project", "/", [Route("/", home), Route("/open", open_recipe,
                                                              methods=["POST"])],
            needs_recipe=False)
