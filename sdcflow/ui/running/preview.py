"""The preview of a step: the open recipe (its draft) run up to and including the step,
as ``sdcflow run --until STEP`` runs it (a partial run, which never releases), into the
scratch folder ``.sdcflow-ui/preview`` of the project that the workbench alone writes; the
step's figures and the report's pictures of it."""

from __future__ import annotations

import base64
import html
import re
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path

from ...errors import CheckFailed, RecipeError, SdcflowError

PREVIEW_DIR = Path(".sdcflow-ui") / "preview"
_LOCK = threading.Lock()  # one preview at a time
_SVG = re.compile(r"<svg\b.*?</svg>", re.DOTALL)
_FIGURE = re.compile(r"<figure>.*?</figure>", re.DOTALL)
_CAPTION = re.compile(r"<figcaption>(.*?)</figcaption>", re.DOTALL)


@dataclass
class Preview:
    """What the preview of ``step`` shows: its figures (label, value) per variant, its
    pictures (``(data: URL of the SVG, caption)``) and the problems that stopped it."""

    step: str
    figures: list[tuple[str, list[tuple[str, object]]]] = field(default_factory=list)
    pictures: list[tuple[str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    report: str | None = None  # the partial run's report, relative to the project


def _pictures(html_figures: list[str]) -> list[tuple[str, str]]:
    """The report's ``<figure>`` pictures as data: URLs of their SVG (an <img> draws
    them whatever the page's style policy) with their captions."""
    out = []
    for fig in (f for html_text in html_figures for f in _FIGURE.findall(html_text)):
        svg = _SVG.search(fig)
        if svg is None:
            continue
        caption = _CAPTION.search(fig)
        data = base64.b64encode(svg.group(0).encode("utf-8")).decode("ascii")
        out.append((f"data:image/svg+xml;base64,{data}",
                    html.unescape(caption.group(1)) if caption else ""))
    return out


def _data_after(validated, step: str):
    """The data as the (first instance of the) method ``step`` left them, from the
    partial run's cache (every step just ran: nothing is computed again), or None for a
    measure or a table step."""
    from ...engine.cache import Cache
    from ...engine.execution import execute
    from ...engine.runner import CACHE_DIR

    planned = next((ps for ps in validated.plan.steps if ps.step.id == step), None)
    if planned is None or planned.kind != "method" or planned.table is not None:
        return None
    with Cache(validated.recipe.base_dir / CACHE_DIR, read=True) as cache:
        store, *_ = execute(validated, cache, None)
    view = dict(planned.view)
    view.update(dict.fromkeys(store.columns.get(planned.node, {}), planned.node))
    return store.dataset(view).frame


def preview_step(draft: str, recipe_path: Path, project_root: Path, step: str) -> Preview:
    """Run ``draft`` (the recipe at ``recipe_path``) up to ``step`` into the preview
    folder and collect what the report shows of the step."""
    from ...engine import run
    from ...engine.partial import Selection
    from ...recipe import recipe_from_text
    from ...report.from_run import report_data
    from ...report.html import step_figures
    from ...report.pictures import step_pictures

    out = Preview(step)
    with _LOCK:
        try:
            recipe = recipe_from_text(draft, recipe_path.name, recipe_path)
            result = run(recipe, project_root / PREVIEW_DIR,
                         selection=Selection(until=step))
        except CheckFailed as exc:  # (a partial run does not fail checks; kept safe)
            result = exc.result
        except RecipeError as exc:
            out.problems = [str(p) for p in exc.problems]
            return out
        except SdcflowError as exc:
            out.problems = [str(exc)]
            return out
        data = report_data(result.validated, result, released_ok=True)
        after = _data_after(result.validated, step)
    if after is not None:  # (a partial run releases no data: the step's own output)
        data = replace(data, released=after)
    last_writer: dict = {}
    for view in data.steps:
        for name in view.writes:
            last_writer[name] = view.id
    for view in data.steps:
        if view.id != step:
            continue
        for label, value in view.results:
            out.figures.append((label, step_figures(view, value)))
        out.pictures = _pictures(step_pictures(data, view, last_writer))
    report = project_root / PREVIEW_DIR / "report.html"
    if report.is_file():
        out.report = (PREVIEW_DIR / "report.html").as_posix()
    return out
