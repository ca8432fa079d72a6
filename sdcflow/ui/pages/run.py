"""The Run page: ``sdcflow run`` on the saved recipe (saving the draft first), its
progress streamed to the page by htmx polling, cancel, and the outcome: released or the
check that failed, the exit code, the files of the manifest with their sha256 and links to
the reports (served read-only from the output folder)."""

from __future__ import annotations

import mimetypes

from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from ...errors import SdcflowError
from ..running.runner import RunBusy, Runner, file_identity, release_files
from ..server.project import OutsideProject
from ..server.saving import save as save_draft
from ..server.state import render, state
from ._page import Page

# the reports are sdcflow's own HTML with inline styles and SVG: styles and pictures
# allowed, never a script, and sandboxed
REPORT_CSP = ("sandbox; default-src 'none'; style-src 'unsafe-inline'; "
              "img-src data:; frame-ancestors 'self'")


def runner(request: Request) -> Runner:
    return state(request).extras.setdefault("runner", Runner())


def out_dir(ws):
    """The output folder ``sdcflow run`` writes for the recipe (output/NAME beside it),
    or None when the saved recipe cannot be read."""
    from ...engine import default_out_dir
    from ...recipe import load_recipe

    try:
        return default_out_dir(load_recipe(ws.path))
    except (SdcflowError, OSError):
        return None


def _context(request: Request) -> dict:
    st = state(request)
    job = runner(request).job
    out = out_dir(st.workspace) if job is not None and not job.running else None
    files = release_files(out) if out is not None else []
    reports = []
    if out is not None:
        for name in ("report.html", "public/report.html"):
            if (out / name).is_file():
                reports.append(st.project.relative(out / name))
    manifest = out / "manifest.json" if out is not None else None
    fresh = manifest is not None and manifest.is_file() and \
        file_identity(manifest) != job.manifest_before
    return {"job": job, "out": st.project.relative(out) if out is not None and
            out.is_dir() else None, "files": files, "reports": reports, "fresh": fresh}


async def show(request: Request):
    if state(request).workspace is None:
        return RedirectResponse("/", status_code=303)
    return render(request, "run.html", error=None, **_context(request))


async def progress(request: Request):
    if state(request).workspace is None:
        return PlainTextResponse("no recipe is open", status_code=409)
    return render(request, "partials/run_progress.html", **_context(request))


async def start(request: Request):
    st = state(request)
    ws = st.workspace
    if ws is None:
        return RedirectResponse("/", status_code=303)
    try:
        if ws.changed:
            save_draft(ws)
        out = out_dir(ws)
        runner(request).start(ws.path, out / "manifest.json" if out is not None else None)
    except (RunBusy, SdcflowError, OSError) as exc:
        return render(request, "run.html", status_code=409, error=str(exc),
                      **_context(request))
    return RedirectResponse("/run", status_code=303)


async def cancel(request: Request):
    job = runner(request).job
    if job is not None:
        job.cancel()
    return RedirectResponse("/run", status_code=303)


async def output_file(request: Request):
    """A file of the run's output folder, read-only (reports with their own CSP)."""
    st = state(request)
    relative = request.path_params["path"]
    try:
        path = st.project.path(relative)
    except OutsideProject as exc:
        return PlainTextResponse(str(exc), status_code=404)
    served = [d for d in (out_dir(st.workspace) if st.workspace else None,
                          st.project.root / ".sdcflow-ui") if d is not None]
    if not path.is_file() or not any(path.is_relative_to(d.resolve()) for d in served):
        return PlainTextResponse("not a file of the run's output", status_code=404)
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    headers = {"Content-Security-Policy": REPORT_CSP, "X-Content-Type-Options": "nosniff"}
    if not kind.startswith(("text/html", "image/svg")):
        kind, headers["Content-Disposition"] = "text/plain; charset=utf-8", "inline"
    return Response(path.read_bytes(), media_type=kind, headers=headers)


PAGE = Page("run", "Run", "/run", [
    Route("/run", show), Route("/run/progress", progress),
    Route("/run/start", start, methods=["POST"]), Route("/run/cancel", cancel, methods=["POST"]),
    Route("/files/{path:path}", output_file)])
