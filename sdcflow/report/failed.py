"""The first thing the report of a failed run says: which checks failed, each with the
figure it found and the threshold it was held to, then what the release would have held
had the checks passed (its files, the variables and number of records of the data, the
tables with their dimensions and number of cells), never the data themselves."""

from __future__ import annotations

import ast
from html import escape

from .build import ReportData

_OPS = {ast.Lt: "<", ast.LtE: "\u2264", ast.Gt: ">", ast.GtE: "\u2265", ast.Eq: "=",
        ast.NotEq: "\u2260", ast.In: "in", ast.NotIn: "not in"}
_FLIPPED = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE}


def thresholds(check_text: str) -> list[str]:
    """The thresholds of a check: for each comparison of a figure with a constant, the
    comparison as it reads with the figure on the left (``0.05 >= risk.max`` gives
    ``\u2264 0.05``); a comparison of two figures has none."""
    from ..constraints import ExprError, parse

    try:
        expr = parse(check_text, subscripts=True)
    except ExprError:
        return []
    out = []
    for node in ast.walk(expr.tree.body):
        if not isinstance(node, ast.Compare):
            continue
        left = node.left
        for op, right in zip(node.ops, node.comparators):
            if right in expr.constants and left not in expr.constants:
                out.append(f"{_OPS.get(type(op), '?')} {ast.unparse(right)}")
            elif left in expr.constants and right not in expr.constants:
                flipped = _FLIPPED.get(type(op), type(op))
                out.append(f"{_OPS.get(flipped, '?')} {ast.unparse(left)}")
            left = right
    return out


def _failed_checks(data: ReportData) -> str:
    from ..constraints.checks import figure_text

    rows = []
    for check in (c for c in data.checks if not c["passed"]):
        name = check["check"] + (f" [variant {check['variant']}]" if "variant" in check
                                 else "")
        figures = check.get("figures") or {}
        found = "; ".join(f"{k} = {figure_text(v)}" for k, v in figures.items())
        if "error" in check:
            found = (found + "; " if found else "") + check["error"]
        rows.append(f"<tr><td><code>{escape(name)}</code></td>"
                    f'<td>{escape(found or "missing")}</td>'
                    f'<td>{escape("; ".join(thresholds(check["check"])) or "-")}'
                    f'</td><td>{escape(check.get("message", ""))}</td></tr>')
    return ('<table class="failed-checks"><tr><th>failed check</th><th>figure</th>'
            "<th>threshold</th><th>note</th></tr>" + "".join(rows) + "</table>")


def _would_release(data: ReportData) -> str:
    if not data.would_release:
        return "<p>The recipe releases no data: it would have published measures only.</p>"
    rows = "".join(f"<tr><td><code>{escape(path)}</code></td><td>{escape(what)}</td></tr>"
                   for path, what in data.would_release)
    return ("<h3>What would have been released</h3><p>Had every check passed, the run "
            "would have written these files to <code>public/</code> (none was written; "
            "the data themselves are not in this report):</p>"
            f'<table class="would-release"><tr><th>file</th><th>holding</th></tr>{rows}'
            "</table>")


def failed_section(data: ReportData) -> str:
    """The section that opens the report of a failed run: the failed checks (figure and
    threshold of each) and what the release would have held."""
    return ('<section id="not-released"><h2>Not released: the checks that failed</h2>'
            + _failed_checks(data)
            + "<p>Nothing of this run is in <code>public/</code>: a run whose checks fail "
            "writes no release and withdraws an earlier release of the recipe from its "
            "output directory. Where this report says \u201creleased\u201d, read "
            "\u201cprotected by the recipe, not released\u201d.</p>"
            + _would_release(data) + "</section>")


def would_release(recipe, result) -> list[tuple[str, str]]:
    """What the release of ``result`` (a run of ``recipe``) would hold, one ``(file under
    public/, what it holds)`` per file: the data file (its variables and number of
    records), each table (its dimensions and number of cells), the public manifest and
    the external report(s). Names and counts only: no value of the data."""
    release = recipe.release
    rows = []
    if "path" in release and result.data is not None:
        frame = result.data
        names = ", ".join(map(str, frame.columns))
        rows.append((f"public/{release['path']}",
                     (f"the protected data: {len(frame)} records of {frame.shape[1]} "
                      f"variables ({names})")))
    for tid, path in (release.get("tables") or {}).items():
        table = (result.tables or {}).get(tid)
        if table is None:
            rows.append((f"public/{path}", f"the protected table {tid}"))
            continue
        dims = list(table.dims)
        rows.append((f"public/{path}",
                     (f"the protected table {tid}: {len(table.cells)} cells by "
                      f"{', '.join(map(str, dims))}")))
    if not rows:
        return rows
    measures = release.get("measures") or []
    rows.append(("public/manifest.json", "the public manifest: the public form of the "
                 "recipe, the checks" + (f", the results of {', '.join(measures)}"
                                         if measures else "") + " and each file's sha256"))
    rows.append(("public/report.html", "the external report"))
    if release.get("pdf"):
        rows.append(("public/report.pdf", "the external report as PDF"))
    return rows
