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

MAX_VARIABLES = 6  # distributions drawn per step


def _natural(value: str):
    """Numbers as numbers (a class ``10-19`` by its lower end) and text as text, missing
    last; ties broken by the text, so that the order never depends on a set's."""
    try:
        return (value == "(missing)", 0, float(value.split("-")[0] if value[:1] != "-"
                                               else value), value)
    except ValueError:
        return (value == "(missing)", 1, 0.0, value)


def _counts(frame: pd.DataFrame | None, name: str) -> pd.Series | None:
    if frame is None or name not in frame:
        return None
    return text_column(frame[name]).fillna("(missing)").value_counts(dropna=False)


def _labelled(value: str, labels: dict | None) -> str:
    return f"{value} {labels[value]}" if labels and value in labels else value


def _figure(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption>{escape(caption)}</figcaption></figure>" if svg else ""


def _numeric(frame: pd.DataFrame | None, name: str) -> bool:
    return frame is not None and name in frame and \
        pd.api.types.is_numeric_dtype(frame[name]) and \
        not pd.api.types.is_bool_dtype(frame[name])


def distribution(data: ReportData, name: str) -> str:
    """The picture of variable ``name`` before and after: histograms for numbers,
    frequency bars (with value labels) for categories."""
    before = None if data.external else data.original
    after = data.released
    if after is None or name not in after:
        return ""
    var = data.variables.get(name)
    categorical = var is not None and var.type in ("categorical", "ordinal")
    if _numeric(after, name) and not categorical:
        x0 = before[name].to_numpy(dtype=float, na_value=np.nan) if _numeric(before, name) \
            else None
        x1 = after[name].to_numpy(dtype=float, na_value=np.nan)
        return _figure(figures.histogram(name, x0, x1),
                       f"{name}: original and released values" if x0 is not None
                       else f"{name}: released values")
    c0, c1 = _counts(before, name), _counts(after, name)
    pictures = ""
    if _numeric(before, name) and not categorical:
        # numbers recoded into classes: the original distribution, then the classes
        pictures = _figure(figures.histogram(
            name, before[name].to_numpy(dtype=float, na_value=np.nan), None),
            f"{name}: original values")
        c0 = None
    cats = sorted(set(c1.index) | (set(c0.index) if c0 is not None else set()), key=_natural)
    labels = data.value_labels.get(name)
    svg = figures.frequency_bars(
        name, [_labelled(c, labels) for c in cats],
        [int(c0.get(c, 0)) for c in cats] if c0 is not None else None,
        [int(c1.get(c, 0)) for c in cats])
    return pictures + _figure(svg, f"{name}: records per category" +
                              (", original and released" if c0 is not None else ", released"))


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
        rows = list(matrix)
        if not all(isinstance(matrix[r], dict) for r in rows):
            continue
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
        drawn = [n for n in step.writes if last_writer.get(n) == step.id][:MAX_VARIABLES]
        for name in drawn:
            out.append(distribution(data, name))
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
    """The counts of each value of every key variable, before (internal report) and
    after, with the value labels of the input file and the recipe."""
    before = None if data.external else data.original
    names = [n for n, v in data.variables.items() if v.role == "key" and
             ((before is not None and n in before) or
              (data.released is not None and n in data.released))]
    if not names:
        return ""
    title = "before and after" if before is not None else "in the release"
    parts = [f'<section id="key-variables"><h2>Key variables {title}</h2>']
    for name in names:
        columns = [(label, c) for label, c in (("original", _counts(before, name)),
                                               ("released", _counts(data.released, name)))
                   if c is not None]
        values = sorted(set().union(*(c.index for _, c in columns)), key=_natural)
        labels = data.value_labels.get(name) or {}
        head = "".join(f"<th>{escape(h)}</th>" for h in [name] + [lab for lab, _ in columns])
        rows = []
        for v in values[:limit]:
            cells = "".join(f'<td class="num">{int(c.get(v, 0))}</td>' for _, c in columns)
            text = f"{v} ({labels[v]})" if v in labels else v
            rows.append(f"<tr><td>{escape(text)}</td>{cells}</tr>")
        if len(values) > limit:
            rows.append(f"<tr><td>... {len(values) - limit} more</td>"
                        + "<td></td>" * len(columns) + "</tr>")
        parts.append(f"<table><tr>{head}</tr>{''.join(rows)}</table>")
    parts.append("</section>")
    return "".join(parts)
