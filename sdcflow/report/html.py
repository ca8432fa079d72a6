"""The HTML report: one self-contained page (no scripts, no external files; pictures are
inline SVG), written with the standard library's escaping so that recipe text cannot
inject markup. The summary comes first (released or not, each check with its figures,
the risk before and after, the utility cost), then one section per step in plain words
with its key figures and pictures, the R-U map, the protected tables, the key variables
before and after, every measure's result, and (internal report) the recipe."""

from __future__ import annotations

import json
from html import escape

from . import figures
from .build import ReportData
from .failed import failed_section
from .grid import table_grid
from .headline import number_column, number_text, risk_figures, utility_figures
from .pictures import step_pictures
from .rumap import ru_ranking
from .signoff import page_header, page_style, signoff_block
from .style import STYLE

GENERATOR = '<meta name="generator" content="sdcflow">'

_STATUS = {
    "released": ("released", ("Released: every check passed and the data below were "
                              "written for publication.")),
    # sdcflow report (or run(write=False)): the same verdict, but nothing was written
    "preview": ("released", ("Every check passed: a run of this recipe releases the data "
                             "below. Nothing was released by making this report.")),
    "failed": ("failed", ("NOT RELEASED: a check failed, so nothing may be published from "
                          "this run.")),
    "measures": ("measures", ("Measures only: every check passed; this recipe releases no "
                              "data.")),
    "partial": ("failed", ("PARTIAL RUN, NOT RELEASED: only the selected steps ran "
                           "(--select/--until) and the checks on the others were not "
                           "evaluated, so nothing may be published from this run.")),
}


def _table(header: list[str], rows: list[list[str]], numeric: set[int] = frozenset(),
           css: str = "") -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f'<td class="num">{escape(c)}</td>' if i in numeric
                         else f"<td>{escape(c)}</td>" for i, c in enumerate(row)) + "</tr>"
        for row in rows)
    cls = f' class="{css}"' if css else ""
    return f"<table{cls}><tr>{head}</tr>{body}</table>"


def _flatten(value, prefix: str = "") -> list[tuple[str, str]]:
    if isinstance(value, dict):
        out = []
        for key, sub in sorted(value.items(), key=lambda kv: str(kv[0])):
            out += _flatten(sub, f"{prefix}.{key}" if prefix else str(key))
        return out
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        # records (e.g. table_audit's cells): a count, not a blob of JSON
        return [(prefix, f"{len(value)} entries (listed in measures.json)")]
    if isinstance(value, list):
        shown = ", ".join(number_text(v) if isinstance(v, (int, float)) and
                          not isinstance(v, bool) else str(v) for v in value[:12])
        more = f" and {len(value) - 12} more" if len(value) > 12 else ""
        return [(prefix, f"{shown}{more}" if value else "(none)")]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [(prefix, number_text(value))]
    return [(prefix, json.dumps(value) if isinstance(value, bool) or value is None
             else str(value))]


_ECHOES = frozenset({"variables", "weight", "reference", "method", "qual", "alpha"})


def step_figures(step, result, raw: bool = False) -> list[tuple[str, object]]:
    """The figures of one result of ``step``: the headline figures of its plugin (what the
    summary compares) first, then the other numbers of the result; a mapping of numbers
    (one per variable, say) only for plugins without headline figures. With ``raw`` the
    numbers are left as numbers (to be written in their column's one format)."""
    from ..plugins.registry import get

    headline = risk_figures(step.plugin, result) + utility_figures(step.plugin, result) \
        if isinstance(result, dict) else []
    rows = [(label, v if raw else number_text(v)) for label, v in headline]
    plugin = get(step.plugin)
    if isinstance(result, dict) and plugin is not None and plugin.solver_keys:
        result = {k: v for k, v in result.items() if k not in plugin.solver_keys}
    rows += key_figures(result, step.params, mappings=not headline, raw=raw)
    return rows


def key_figures(result, params=None, mappings: bool = True,
                raw: bool = False) -> list[tuple[str, object]]:
    """The figures of a step's result worth a line: its numbers and short texts, and a
    mapping of numbers (one per variable, say) on one line; deeper structures (matrices,
    lists of groups) are left to the pictures and the appendix. Entries that only repeat
    the step's parameters (or the variables it read) are left out."""
    rows = []
    if not isinstance(result, dict):
        return rows
    params = params or {}
    for key, value in result.items():
        if key in _ECHOES or (key in params and params[key] == value):
            continue
        label = str(key).replace("_", " ")
        if isinstance(value, (int, float, bool)) or value is None:
            rows.append((label, value if raw else number_text(value)))
        elif isinstance(value, str) and len(value) <= 120:
            rows.append((label, value))
        elif mappings and isinstance(value, dict) and 0 < len(value) <= 12 and all(
                isinstance(v, (int, float)) and not isinstance(v, bool)
                for v in value.values()):
            rows.append((label, ", ".join(f"{k}: {number_text(v)}" for k, v in value.items())))
        elif isinstance(value, list) and len(value) <= 8 and all(
                isinstance(v, (str, int, float)) for v in value):
            rows.append((label, ", ".join(map(str, value))))
    return rows


def _appendix_table(rows: list[tuple[str, str]]) -> str:
    """A measure's result in the appendix: each key in plain words, the raw key (as checks
    name it) in the cell's tooltip."""
    from .keys import plain_key

    body = "".join(f'<tr><td title="{escape(key)}">{escape(plain_key(key))}</td>'
                   f'<td class="num">{escape(value)}</td></tr>' for key, value in rows)
    return f"<table><tr><th>result</th><th>value</th></tr>{body}</table>"


def _checks(data: ReportData) -> str:
    if not data.checks:
        return "<p>The recipe has no checks.</p>"
    rows = []
    for c in data.checks:
        name = c["check"] + (f" [{c['variant']}]" if "variant" in c else "")
        figures_text = "; ".join(f"{k} = {number_text(v)}" for k, v in
                                 (c.get("figures") or {}).items())
        note = c.get("message", c.get("error", ""))
        css = "pass" if c["passed"] else "fail"
        rows.append(f"<tr><td><code>{escape(name)}</code></td><td>{escape(figures_text)}</td>"
                    f'<td class="{css}">{"pass" if c["passed"] else "FAIL"}</td>'
                    f"<td>{escape(note)}</td></tr>")
    return ("<table><tr><th>check (threshold)</th><th>figure</th><th>result</th>"
            "<th>note</th></tr>" + "".join(rows) + "</table>")


def _risk(data: ReportData) -> str:
    """The risk before and after; a column with no figure in it (the original data's in
    the external report, whose measures of the original are not published) is left out
    rather than shown as a column of dashes."""
    if not data.risk:
        return ""
    after = "protected data (not released)" if data.status in ("failed", "partial") else \
        "released data"
    columns = [(i, name) for i, name in ((1, "original data"), (2, after))
               if any(row[i] is not None for row in data.risk)]
    if not columns:
        return ""
    note = "" if any(i == 1 for i, _ in columns) else (
        "<p>The figures of the original data are not published.</p>" if data.external
        else "<p>No risk measure read the original data.</p>")
    return ("<h3>Disclosure risk before and after</h3>" + note + _table(
        ["figure"] + [name for _, name in columns],
        # (a figure before and after in one format: 0.0120 beside 0.0034)
        [[row[0]] + number_column([row[i] for i, _ in columns]) for row in data.risk],
        set(range(1, len(columns) + 1))))


def _utility(data: ReportData) -> str:
    """The utility cost: what each method step cost (from its own result), the released
    data against the original variable by variable (internal report), and the figures of
    the utility measures that read the released data."""
    from .costs import change_rows, method_costs

    steps = data.method_steps()
    if not steps and not data.utility:
        return ""
    parts = ["<h3>Utility cost</h3>"]
    if steps:
        rows = []
        for step in steps:
            if data.external:
                cost = ("in the internal report (the method's figures are not published)")
            else:
                cost = "; ".join(method_costs(step.plugin, step.released_result)) or \
                    "(its result counts nothing)"
            rows.append([step.id, step.plugin, cost])
        parts.append(
            "<p>Every method applied. What each cost is counted against the original data "
            "and is shown only in the internal report.</p>" if data.external else
            "<p>What each method cost, from its own result. Each count says what it "
            "counts: values (one per record and variable), records, households (a method "
            "acting once per household on a household-level variable counts each "
            "household once), table cells or edges.</p>")
        parts.append(_table(["step", "method", "what it cost"], rows, css="costs"))
    if data.changes and data.changes["variables"]:
        parts.append("<p>The released data against the original, variable by variable "
                     "(all the steps on a variable together): a household-level variable "
                     "counts households, every other records.</p>")
        parts.append(_table(["variable", "changed by", "values changed", "made missing",
                             "distinct values (original \u2192 released)",
                             "mean absolute deviation"],
                            change_rows(data.changes), {5}, "changes"))
    if data.changes:
        removed = []
        if (data.changes.get("records_removed") or 0) > 0:
            removed.append(f"records removed: {number_text(data.changes['records_removed'])}"
                           " (values not compared: the released records cannot be matched "
                           "to the original ones)")
        if data.changes.get("variables_removed"):
            removed.append("variables removed: " + ", ".join(
                data.changes["variables_removed"]))
        if removed:
            parts.append("<p>" + escape("; ".join(removed)) + ".</p>")
    if data.utility:
        parts.append("<p>The utility measures of the released data:</p>")
        parts.append(_table(["figure", "value"], [[label, number_text(v)]
                                                 for label, v in data.utility], {1}))
    return "".join(parts)


def _summary(data: ReportData) -> str:
    css, text = _STATUS[data.status]
    parts = ['<section id="summary"><h2>Summary</h2>',
             f'<p class="status {css}">{escape(text)}</p>']
    parts += ["<h3>Checks</h3>", _checks(data)]
    parts.append(_risk(data))
    parts.append(_utility(data))
    if any(s.kind == "method" for s in data.steps):
        parts.append("<h3>What the methods did</h3><ol>")
        for step in (s for s in data.steps if s.kind == "method"):
            parts.append(f'<li><a href="#step-{escape(step.id)}">{escape(step.id)}</a> '
                         f"({escape(step.plugin)}): {escape(step.explanation)}</li>")
        parts.append("</ol>")
    parts.append("<h3>About this run</h3>")
    parts.append("<table>" + "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>"
                                     for k, v in data.about) + "</table>")
    parts.append("</section>")
    return "".join(parts)


def _step(number: int, data: ReportData, step, last_writer: dict) -> str:
    anchor = escape(step.id)
    parts = [(f'<section class="step" id="step-{anchor}"><h3>{number}. {anchor} '
              f'<span class="plugin">{escape(step.kind)} {escape(step.plugin)}</span></h3>'),
             f"<p>{escape(step.explanation)}</p>"]
    shown = [(label, result) for label, result in step.results if result is not None]
    if len(shown) > 1:
        names = []
        figs = [dict(step_figures(step, result, raw=True)) for _, result in shown]
        for f in figs:
            names += [k for k in f if k not in names]
        names = names[:6]
        # a column per figure, each in its one format (no 1.12e+10 beside 218 500 000)
        columns = [number_column([f.get(n, "") for f in figs]) for n in names]
        rows = [[label, *cells] for (label, _), *cells in zip(shown, *columns)]
        parts.append(_table(["variant"] + names, rows, set(range(1, len(names) + 1))))
    elif shown:
        figs = step_figures(step, shown[0][1])
        if figs:
            parts.append(_table(["figure", "value"], [list(f) for f in figs], {1}, "figures"))
    elif data.external and step.kind == "measure":
        parts.append("<p>(Its result is not published.)</p>")
    params = {k: v for k, v in step.params.items()}
    if params:
        parts.append('<p class="params">Parameters: ' + escape(", ".join(
            f"{k} = {json.dumps(v, sort_keys=True)}" for k, v in params.items())) + "</p>")
    parts += step_pictures(data, step, last_writer)
    parts.append("</section>")
    return "".join(parts)


def _ru(data: ReportData) -> str:
    if len(data.ru) < 2:  # a map of one variant compares nothing
        return ""
    svg = figures.ru_map(data.ru, released=data.released_variant, dr_name=data.ru_axes[0],
                         il_name=data.ru_axes[1])
    ranking = ru_ranking(data.measures)
    return ('<section id="ru-map"><h2>R-U map</h2><p>Each variant of the recipe\'s grid '
            "as a point: its disclosure risk across, its information loss up (Duncan, "
            "Keller-McNulty and Stokes 2001); lower and further left is better; the "
            "variants on the Pareto front are not beaten on both.</p>"
            f'<figure>{svg}</figure>'
            + _table(["variant", "DR", "IL", "score", "rank", "Pareto"], ranking,
                     {1, 2, 3, 4}) + "</section>")


def _comparison(data: ReportData) -> str:
    """Several protections of one table side by side (sdcflow.report.table_comparison):
    a row per table_utility result and, with two or more, their R-U map."""
    from .table_comparison import IL_NAME, alternatives, comparison_table, dr_name, ru_points

    rows = alternatives(data.steps, list(data.tables))
    if not rows:
        return ""
    points = ru_points(rows)
    released = next((a.label for a in rows if a.released), None)
    svg = figures.ru_map(points, released=released, dr_name=dr_name(rows), il_name=IL_NAME,
                         title="R-U map: each protection's risk and loss", connect=False) \
        if len(points) > 1 else ""
    header, body = comparison_table(rows)
    # each column of figures in its one format
    columns = [number_column([r[k] for r in body]) for k in range(3, len(header))]
    text_rows = [[*r[:3], *cells] for r, *cells in zip(body, *columns)]
    return ('<section id="table-comparison"><h2>Protections of a table compared</h2>'
            "<p>Each protected version of a table measured by <code>table_utility</code>, "
            "against the original table: the share of its cells suppressed and changed, "
            "the errors of its published cells (a suppressed cell has no published value, "
            "so no error: it counts in the cells suppressed, and as wholly lost in the "
            "information lost), the cells made zero and the zeros made positive, the "
            "relative error by class of original cell size, and as the risk figure the "
            "share of the small cells published with their exact value (Shlomo, Tudor and "
            "Groom 2010). On the map, lower and further left is better.</p>"
            + (f"<figure>{svg}</figure>" if svg else "")
            + _table(header, text_rows, set(range(3, len(header))), "comparison")
            + "</section>")


def _tables(data: ReportData) -> str:
    if not data.tables:
        return ""
    parts = ['<section id="tables"><h2>Protected tables</h2>']
    for tid, (frame, dims) in data.tables.items():
        parts.append(f"<h3>{escape(tid)}</h3>")
        parts.append(table_grid(tid, frame, dims, data.external))
    parts.append("</section>")
    return "".join(parts)


def render_report(data: ReportData) -> str:
    """The report page as a string (deterministic: same inputs, same bytes)."""
    kind = "External report (safe to publish)" if data.external else \
        "Internal report: holds original data, do not publish"
    title = data.recipe_name + (" (NOT RELEASED)" if data.status == "failed" else
                                " (PARTIAL RUN, NOT RELEASED)" if data.status == "partial"
                                else "")
    parts = [(f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">{GENERATOR}"
              f"<meta name=\"sdcflow-recipe\" content=\"{escape(data.recipe_name)}\">"
              f"<title>sdcflow report: {escape(title)}</title>"
              f"<style>{STYLE}</style>{page_style(data)}</head><body>{page_header(data)}"
              f"<h1>sdcflow report: {escape(title)}</h1>"
              f'<p class="kind">{escape(kind)}</p>')]
    if data.status == "failed":  # first of all: why nothing was released
        parts.append(failed_section(data))
    parts.append(_summary(data))
    if not data.external:
        parts.append(signoff_block(data))
    parts.append('<section id="steps"><h2>Steps</h2>')
    last_writer = {}
    for step in data.steps:
        # a suppression's section shows the suppressions, so the distribution of a
        # variable goes with the last method that changed its values otherwise
        result = step.released_result
        if isinstance(result, dict) and isinstance(result.get("suppressions"), dict):
            continue
        for name in step.writes:
            last_writer[name] = step.id
    for number, step in enumerate(data.steps, 1):
        parts.append(_step(number, data, step, last_writer))
    parts.append("</section>")
    parts.append(_ru(data))
    parts.append(_comparison(data))
    parts.append(_tables(data))
    from .pictures import key_variables

    parts.append(key_variables(data))
    parts.append('<section id="measures"><h2>Appendix: every measure\'s result</h2>')
    for node, summary in data.measures.items():
        parts.append(f"<h3>{escape(node)}</h3>")
        parts.append(_appendix_table(_flatten(summary)))
    parts.append("</section>")
    if data.recipe_text is not None:
        parts.append('<section id="recipe"><h2>Recipe</h2>')
        parts.append(f"<pre>{escape(data.recipe_text)}</pre></section>")
    parts.append("</body></html>\n")
    return "".join(parts)
