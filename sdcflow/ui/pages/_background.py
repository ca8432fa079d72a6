"""Pages whose figures are computed in the background (:mod:`sdcflow.ui.running.jobs`): the page
shows the progress and htmx polls a status address that answers with the results once
they are there."""

from __future__ import annotations

from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse

from ..running.jobs import Job, Jobs
from ..server.state import render, state


def page_job(request: Request, page: str, key: str, work: Callable[[Job], object]
             ) -> tuple[Job, bool]:
    """The job of ``key`` for ``page`` (started when new) and whether it had finished
    (read once: it may finish while the page is drawn)."""
    job = state(request).extras.setdefault(page, Jobs()).start(key, work)
    return job, job.finished


def job_views(template: str, fragment: str, context: Callable[[Request], dict]):
    """The page (``template``) and its status fragment (``fragment``), both drawn with
    ``context(request)``; without an open recipe the page sends to the project."""

    async def show(request: Request):
        if state(request).workspace is None:
            return RedirectResponse("/", status_code=303)
        return render(request, template, **context(request))

    async def status(request: Request):
        if state(request).workspace is None:
            return PlainTextResponse("no recipe is open", status_code=409)
        return render(request, fragment, **context(request))

    return show, status
