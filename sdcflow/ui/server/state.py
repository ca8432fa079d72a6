"""What the workbench holds between requests, and the page renderer every page uses."""

from __future__ import annotations

from dataclasses import dataclass, field

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse

from .project import Project
from .security import Access
from .workspace import Workspace


@dataclass
class State:
    """What the workbench holds between requests (one browser, one open recipe)."""

    project: Project
    access: Access
    workspace: Workspace | None = None
    extras: dict = field(default_factory=dict)  # a page's own state, by page name


templates = Environment(loader=PackageLoader("sdcflow.ui", "templates"),
                        autoescape=select_autoescape(("html",)), trim_blocks=True,
                        lstrip_blocks=True)


def state(request: Request) -> State:
    return request.app.state.workbench


def render(request: Request, template: str, status_code: int = 200, **context) -> HTMLResponse:
    """``template`` rendered with the page context every template may use: ``pages``
    (the navigation), ``csrf``, ``ws`` (the open recipe or None), ``project`` and
    ``partial`` (true for an htmx request: render the fragment only)."""
    st = state(request)
    page = templates.get_template(template)
    html = page.render(request=request, pages=request.app.state.pages, csrf=st.access.csrf,
                       ws=st.workspace, project=st.project,
                       partial=request.headers.get("HX-Request") == "true", **context)
    return HTMLResponse(html, status_code=status_code)


