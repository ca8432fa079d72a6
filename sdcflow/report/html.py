"""The HTML report: one self-contained page (no scripts, no external files), written
with the standard library's escaping so that recipe text cannot inject markup."""

from __future__ import annotations

import json
from html import escape

import pandas as pd

from ..data.text import text_column
from .rumap import ru_map_svg, ru_points, ru_ranking

_STYLE = """
body{font-family:DejaVu Sans,Arial,sans-serif;margin:2em;color:#222;max-width:70em}
h1{font-size:1.6em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0;font-size:.9em}
td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left;vertical-align:top}
th{background:#f0f0f0}.pass{color:#176b2c;font-weight:bold}.fail{color:#a11;font-weight:bold}
pre{background:#f7f7f7;padding:.8em;overflow-x:auto;font-size:.85em}
.num{text-align:right}
"""


def _flatten(value, prefix: str = "") -> list[tuple[str, str]]:
    if isinstance(value, dict):
        out = []
        for key, sub in sorted(value.items(), key=lambda kv: str(kv[0])):
            out += _flatten(sub, f"{prefix}.{key}" if prefix else str(key))
        return out
    if isinstance(value, list) and len(value) > 12:
        value = value[:12] + ["..."]
    if isinstance(value, float):
        return [(prefix, f"{value:.6g}")]
    return [(prefix, json.dumps(value) if isinstance(value, (list, bool)) or value is None
             else str(value))]


def _table(header: list[str], rows: list[list[str]], numeric: set[int] = frozenset()) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f'<td class="num">{escape(c)}</td>' if i in numeric
                         else f"<td>{escape(c)}</td>" for i, c in enumerate(row)) + "</tr>"
        for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _natural(value: str):
    """Sort numbers as numbers and text as text, missing last."""
    try:
        return (value == "(missing)", 0, float(value), "")
    except ValueError:
        return (value == "(missing)", 1, 0.0, value)


def _frequencies(original: pd.DataFrame | None, released: pd.DataFrame | None, name: str,
                 limit: int = 25, labels: dict | None = None) -> str:
    """The counts of each value of ``name`` before and after; a value with a label (from
    the input file's value labels) is shown as ``code (label)``."""
    def counts(frame: pd.DataFrame) -> pd.Series:
        return text_column(frame[name]).fillna("(missing)").value_counts(dropna=False)

    columns = [(label, counts(frame)) for label, frame in
               (("original", original), ("released", released))
               if frame is not None and name in frame]
    values = sorted(set().union(*(c.index for _, c in columns)), key=_natural)
    header = [name] + [label for label, _ in columns]
    labels = labels or {}
    rows = [[f"{v} ({labels[v]})" if v in labels else v] + [str(int(c.get(v, 0)))
                                                           for _, c in columns]
            for v in values[:limit]]
    if len(values) > limit:
        rows.append([f"... {len(values) - limit} more"] + [""] * (len(header) - 1))
    return _table(header, rows, {1, 2})


GENERATOR = '<meta name="generator" content="sdcflow">'


def render_report(*, recipe_name: str, recipe_text: str | None, manifest: dict,
                  measures: dict, checks: list[dict], original: pd.DataFrame | None,
                  released: pd.DataFrame | None, keys: list[str], released_ok: bool,
                  publishes: bool, external: bool = False) -> str:
    """The report page as a string (deterministic: same inputs, same bytes).

    The internal report shows everything; the ``external`` one (for public/, as
    sdcMicro's ``report(internal = FALSE)``) gets the public manifest and only the
    published measures, and shows no original data, seed or recipe text."""
    kind = "external report" if external else "internal report"
    parts = [(f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">{GENERATOR}"
             f"<meta name=\"sdcflow-recipe\" content=\"{escape(recipe_name)}\">"
             f"<title>sdcflow report: {escape(recipe_name)}</title><style>{_STYLE}</style>"
             f"</head><body><h1>sdcflow report: {escape(recipe_name)}</h1>"
             f"<p>{kind}{' (do not publish)' if not external else ''}</p>")]
    if not released_ok:
        status = "not released: a check failed"
    elif not publishes:
        status = "measures only (no data released)"
    else:
        status = "released"
    about = (f"<p>Status: <b>{escape(status)}</b>. sdcflow {escape(manifest['sdcflow'])}, "
             f"recipe sha256 <code>{escape(manifest['recipe']['sha256'][:16])}</code>")
    if not external:
        about += (f", seed {manifest['seed']}, input "
                  f"<code>{escape(str(manifest['input'].get('file', '')))}</code>")
    parts.append(about + ".</p>")
    parts.append("<h2>Checks</h2>")
    if checks:
        rows = [[c["check"] + (f" [{c['variant']}]" if "variant" in c else ""),
                 "pass" if c["passed"] else "FAIL", c.get("message", c.get("error", ""))]
                for c in checks]
        table = _table(["check", "result", "note"], rows)
        table = table.replace("<td>pass</td>", '<td class="pass">pass</td>').replace(
            "<td>FAIL</td>", '<td class="fail">FAIL</td>')
        parts.append(table)
    else:
        parts.append("<p>No checks.</p>")
    parts.append("<h2>Steps</h2>")
    rows = []
    for step in manifest["steps"]:
        kind = "method" if "method" in step else "measure"
        params = json.dumps(step["params"], sort_keys=True)
        info = json.dumps(step.get("info", {}), sort_keys=True) if step.get("info") else ""
        rows.append([step["id"], f"{kind} {step[kind]}", params, info])
    parts.append(_table(["step", "plugin", "parameters", "result"], rows))
    points = ru_points(measures)
    if points:
        parts.append("<h2>R-U map</h2>")
        parts.append(ru_map_svg(points))
        parts.append(_table(["variant", "DR", "IL", "score", "rank", "Pareto"],
                            ru_ranking(measures), {1, 2, 3, 4}))
    parts.append("<h2>Measures</h2>")
    for node, summary in measures.items():
        parts.append(f"<h3>{escape(node)}</h3>")
        parts.append(_table(["measure", "value"], [list(r) for r in _flatten(summary)], {1}))
    shown = [n for n in keys if (original is not None and n in original) or
             (released is not None and n in released)]
    if shown:
        parts.append("<h2>Key variables" + (" before and after</h2>" if original is not None
                                            else " in the release</h2>"))
        value_labels = (manifest.get("input") or {}).get("value_labels") or {}
        for name in shown:
            parts.append(_frequencies(original, released, name, labels=value_labels.get(name)))
    if recipe_text is not None:
        parts.append("<h2>Recipe</h2>")
        parts.append(f"<pre>{escape(recipe_text)}</pre>")
    parts.append("</body></html>\n")
    return "".join(parts)
