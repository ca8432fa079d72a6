"""Which pictures each step of the report gets, and the data they are drawn from: the
distribution of each variable a method changed, before (internal report only) and after;
the PRAM matrix; the suppressions per variable; the individual-risk distribution."""

from __future__ import annotations

from html import escape

import numpy as np
import pandas as pd

from ..data.text import text_column
from . import figures
from .build import ReportData, StepView
from .headline import number_text
from .order import MISSING, ordered

MAX_VARIABLES = 6  # distributions drawn per step


def _counts(frame: pd.DataFrame | None, name: str) -> pd.Series | None:
    if frame is None or name not in frame:
        return None
    return text_column(frame[name]).fillna(MISSING).value_counts(dropna=False)


def _labelled(value: str, labels: dict | None) -> str:
    return f"{value} {labels[value]}" if labels and value in labels else value


def _figure(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption>{escape(caption)}</figcaption></figure>" if svg else ""


def _numeric(frame: pd.DataFrame | None, name: str) -> bool:
    return frame is not None and name in frame and \
        pd.api.types.is_numeric_dtype(frame[name]) and \
        not pd.api.types.is_bool_dtype(frame[name])


def _order(data: ReportData, name: str, labels) -> list[str]:
    var = data.variables.get(name)
    return ordered(labels, getattr(var, "order", None))


def _values(frame: pd.DataFrame, name: str) -> np.ndarray:
    return frame[name].to_numpy(dtype=float, na_value=np.nan)


def _apart(c0: pd.Series | None, c1: pd.Series) -> bool:
    """Whether the release holds categories the original data do not (classes of a
    recode, merged categories): then the two are listed apart, not on one axis."""
    return c0 is not None and not set(c1.index) - {MISSING} <= set(c0.index)


def _bars(data: ReportData, name: str, c0: pd.Series | None, c1: pd.Series | None,
          caption: str) -> str:
    counts = [c for c in (c0, c1) if c is not None]
    cats = _order(data, name, [v for c in counts for v in c.index])
    labels = data.value_labels.get(name)
    svg = figures.frequency_bars(
        name, [_labelled(c, labels) for c in cats],
        [int(c0.get(c, 0)) for c in cats] if c0 is not None else None,
        [int(c1.get(c, 0)) for c in cats] if c1 is not None else None)
    return _figure(svg, caption)


def _cuts(step: StepView | None, name: str) -> list[tuple[float, str]]:
    """The thresholds of top and bottom coding of ``name`` by ``step``, as (value, text)
    for the histogram: from the step's result, else from a threshold the recipe gives."""
    if step is None or step.plugin != "top_bottom_code" or step.params.get("variable") != name:
        return []
    result = step.released_result if isinstance(step.released_result, dict) else {}
    out = []
    for side in ("bottom", "top"):
        done, spec = result.get(side), step.params.get(side)
        threshold = done.get("threshold") if isinstance(done, dict) else None
        if threshold is None and isinstance(spec, dict):
            threshold = spec.get("value")
        if isinstance(threshold, (int, float)) and not isinstance(threshold, bool):
            coded = done.get("coded") if isinstance(done, dict) else None
            text = f"{side} code at {number_text(threshold)}" + (
                f" ({number_text(coded)} values)" if isinstance(coded, int) else "")
            out.append((float(threshold), text))
    return out


def distribution(data: ReportData, name: str, step: StepView | None = None) -> str:
    """The picture of variable ``name`` as ``step`` (the last method to change it) left
    it: for a method that moves values between records (see ``Method.permutes``) each
    record's released value against its original one, or the released category against
    the original one; else histograms for numbers (the cut of top or bottom coding
    marked) and frequency bars (with value labels, in the order of
    :func:`sdcflow.report.order.ordered`) for categories, original and released on one
    axis only when they share their categories."""
    before = None if data.external else data.original
    after = data.released
    if after is None or name not in after:
        return ""
    var = data.variables.get(name)
    categorical = var is not None and var.type in ("categorical", "ordinal")
    if _permutes(step) and before is not None and name in before and \
            len(before) == len(after):
        if _numeric(after, name) and _numeric(before, name) and not categorical:
            return _figure(figures.scatter(name, _values(before, name), _values(after, name)),
                           f"{name}: each record's released value against its original one "
                           "(the method moves values between records: their distribution "
                           "is unchanged)")
        return _moves(data, name, before, after)
    if _numeric(after, name) and not categorical:
        x0 = _values(before, name) if _numeric(before, name) else None
        return _figure(figures.histogram(name, x0, _values(after, name),
                                         cuts=_cuts(step, name)),
                       f"{name}: original and released values" if x0 is not None
                       else f"{name}: released values")
    c0, c1 = _counts(before, name), _counts(after, name)
    pictures = ""
    if _numeric(before, name) and not categorical:
        # numbers recoded into classes: the original distribution, then the classes
        pictures = _figure(figures.histogram(name, _values(before, name), None),
                           f"{name}: original values")
        c0 = None
    if _apart(c0, c1):
        return (_bars(data, name, c0, None, f"{name}: records per category, original")
                + _bars(data, name, None, c1, f"{name}: records per category, released"))
    return pictures + _bars(data, name, c0, c1, f"{name}: records per category" +
                            (", original and released" if c0 is not None else ", released"))


def _permutes(step: StepView | None) -> bool:
    from ..plugins.registry import get

    plugin = get(step.plugin) if step is not None else None
    return bool(getattr(plugin, "permutes", False))


def _draws_values(step: StepView) -> bool:
    from ..plugins.registry import get

    return bool(getattr(get(step.plugin), "draws_values", True))


def _moves(data: ReportData, name: str, before: pd.DataFrame, after: pd.DataFrame) -> str:
    """The share of the records of each original category (row) released in each
    category (column): where a swap or shuffle moved categorical values."""
    x0 = text_column(before[name]).fillna(MISSING).to_numpy(dtype=object)
    x1 = text_column(after[name]).fillna(MISSING).to_numpy(dtype=object)
    cats = _order(data, name, list(x0) + list(x1))
    if len(cats) > figures.MAX_BARS:
        return ""
    index = {c: i for i, c in enumerate(cats)}
    counts = np.zeros((len(cats), len(cats)))
    np.add.at(counts, ([index[v] for v in x0], [index[v] for v in x1]), 1)
    rows = counts.sum(axis=1, keepdims=True)
    share = np.divide(counts, rows, out=np.zeros_like(counts), where=rows > 0)
    labels = data.value_labels.get(name)
    moved = int(counts.sum() - np.trace(counts))
    return _figure(figures.heat_map(name, [_labelled(c, labels) for c in cats], share,
                                    title=f"{name}: where each category's records went"),
                   f"{name}: the share of the records of each original category (row) "
                   f"released in each category (column); {number_text(moved)} of "
                   f"{number_text(len(x0))} records changed category")


def _matrices(step: StepView) -> dict:
    """PRAM matrices by variable as nested mappings {from: {to: p}}: from the step's result
    (internal report), else from its public parameters (a matrix the recipe gives)."""
    result = step.released_result
    if isinstance(result, dict) and isinstance(result.get("transition_matrix"), dict):
        return result["transition_matrix"]
    given = step.params.get("matrix")
    return given if isinstance(given, dict) else {}


def pram_pictures(data: ReportData, step: StepView) -> list[str]:
    out = []
    for name, matrix in _matrices(step).items():
        if not isinstance(matrix, dict) or "by_stratum" in matrix or not matrix:
            continue
        if not all(isinstance(row, dict) for row in matrix.values()):
            continue
        rows = _order(data, name, matrix)  # (a result's keys may be sorted as text)
        P = np.array([[float(matrix[r].get(c, 0.0)) for c in rows] for r in rows])
        labels = data.value_labels.get(name)
        out.append(_figure(figures.heat_map(name, [_labelled(r, labels) for r in rows], P),
                           f"{name}: probability that a record's category (row) is "
                           "released as another (column)"))
    return out


def step_pictures(data: ReportData, step: StepView, last_writer: dict) -> list[str]:
    """The pictures of one step (see the module's description)."""
    result = step.released_result if isinstance(step.released_result, dict) else {}
    out: list[str] = []
    if step.kind == "method":
        out += pram_pictures(data, step)
        counts = result.get("suppressions")
        if isinstance(counts, dict) and counts and all(isinstance(v, int)
                                                       for v in counts.values()):
            out.append(_figure(figures.suppressions(counts),
                               "values suppressed in each variable"))
            return out
        drawn = [n for n in step.writes if last_writer.get(n) == step.id
                 and _draws_values(step)][:MAX_VARIABLES]
        for name in drawn:
            out.append(distribution(data, name, step))
    else:
        dist = result.get("distribution")
        if isinstance(dist, dict) and "edges" in dist and "records" in dist:
            out.append(_figure(figures.risk_distribution(dist["edges"], dist["records"],
                                                         result.get("threshold")),
                               "records by their risk of re-identification"))
        counts = result.get("suppressions")
        if isinstance(counts, dict) and counts and all(isinstance(v, int)
                                                       for v in counts.values()):
            out.append(_figure(figures.suppressions(counts),
                               "values suppressed in each variable"))
    return [p for p in out if p]


def key_variables(data: ReportData, limit: int = 25) -> str:
    """The records with each value of every key variable, before (internal report) and
    after, with the value labels of the input file and the recipe, in the order of
    :func:`sdcflow.report.order.ordered`. Original and released share one table when the
    release keeps the original categories; when it holds new ones (the classes of a
    recode) the two are listed apart, side by side, each in its own order."""
    before = None if data.external else data.original
    names = [n for n, v in data.variables.items() if v.role == "key" and
             ((before is not None and n in before) or
              (data.released is not None and n in data.released))]
    if not names:
        return ""
    title = "before and after" if before is not None else "in the release"
    parts = [f'<section id="key-variables"><h2>Key variables {title}</h2>']
    for name in names:
        c0, c1 = _counts(before, name), _counts(data.released, name)
        if c1 is not None and _apart(c0, c1):
            parts.append('<div class="apart" style="display:flex;gap:2em;'
                         'align-items:flex-start">'
                         + _frequency_table(data, name, [("original", c0)], limit)
                         + _frequency_table(data, name, [("released", c1)], limit)
                         + "</div>")
        else:
            columns = [(label, c) for label, c in (("original", c0), ("released", c1))
                       if c is not None]
            parts.append(_frequency_table(data, name, columns, limit))
    parts.append("</section>")
    return "".join(parts)


def _frequency_table(data: ReportData, name: str, columns: list, limit: int) -> str:
    """One table of the records per value of ``name``, a column per (label, counts)."""
    values = _order(data, name, [v for _, c in columns for v in c.index])
    labels = data.value_labels.get(name) or {}
    head = "".join(f"<th>{escape(h)}</th>" for h in [name] + [lab for lab, _ in columns])
    rows = []
    for v in values[:limit]:
        cells = "".join(f'<td class="num">{number_text(int(c.get(v, 0)))}</td>'
                        for _, c in columns)
        text = f"{v} ({labels[v]})" if v in labels else v
        rows.append(f"<tr><td>{escape(text)}</td>{cells}</tr>")
    if len(values) > limit:
        rows.append(f"<tr><td>... {len(values) - limit} more</td>"
                    + "<td></td>" * len(columns) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"
