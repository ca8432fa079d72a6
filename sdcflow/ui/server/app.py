"""The workbench application: its state, its pages and the templates they render.

Each page is a module of :mod:`sdcflow.ui.pages` that declares a :class:`Page` (its name in
the navigation bar, its address and its routes); :func:`create_app` mounts them behind the
:class:`~sdcflow.ui.server.security.Guard`. The state (:class:`State`) is the project folder, the
access tokens and the open recipe."""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..pages import PAGES
from .project import Project
from .security import Access, Guard, new_token
from .state import State
from .workspace import Workspace

STATIC = Path(__file__).parents[1] / "static"


def create_app(project_dir: str | Path, token: str | None = None,
               recipe: str | None = None, *, data: str | None = None) -> Starlette:
    """The workbench for the project folder ``project_dir``, reachable with ``token`` (a
    new one when None: ``app.state.workbench.access.token``); ``recipe`` (a path relative to
    the folder) is opened at start; ``data`` (a data file of the folder) is the one the
    project page offers a new recipe for."""
    st = State(Project.at(project_dir), Access(token or new_token()))
    if recipe is not None:
        st.workspace = Workspace.open(st.project.path(recipe))
    if data is not None:
        st.project.path(data)  # (inside the folder, or refused)
        st.extras["start_data"] = data
    routes = [route for page in PAGES for route in page.routes]
    routes.append(Route("/favicon.ico", lambda request: Response(status_code=204)))
    routes.append(Mount("/static", app=StaticFiles(directory=STATIC), name="static"))
    app = Starlette(routes=routes)
    app.state.workbench = st
    app.state.pages = PAGES
    app.add_middleware(Guard, access=st.access)
    return app
