"""A protected table drawn as a grid, as tau-Argus shows it: the first dimension down,
the second across (one grid per combination of the others), each cell's value with its
status marked by colour. The internal grid shows every value and marks primary and
secondary suppressions; the external grid shows the published values and an ``x`` for
each suppressed cell, saying nothing of why it was suppressed."""

from __future__ import annotations

from html import escape

import pandas as pd

from ..data.text import text_column
from .headline import number_format, number_text
from .order import tree_order

MAX_CELLS = 2500  # cells drawn per table; a larger table is only listed in the CSV files
MAX_GRIDS = 12

STATUS_CLASS = {"primary": "primary", "secondary": "secondary", "suppressed": "suppressed",
                "adjusted": "adjusted"}


def _order(frame: pd.DataFrame, dim: str) -> list[str]:
    """The codes of ``dim`` with each subtotal's codes in the report's order of categories
    (:func:`sdcflow.report.order.tree_order`: ``2`` before ``10``, ``<=8`` before
    ``9-11``), the totals where the table puts them; in the table's order when the frame
    does not give each code's level."""
    codes = list(dict.fromkeys(frame[dim].tolist()))
    level = f"level_{dim}"
    if level not in frame:
        return codes
    depth = dict(zip(frame[dim].tolist(), frame[level].tolist()))
    return tree_order(codes, [depth[c] for c in codes]) or codes


def _cell_text(row, external: bool, fmt=number_text) -> str:
    """The text of one cell, its figures written by ``fmt`` (the table's one format)."""
    status = str(row["status"])
    if external and status == "suppressed":
        return "x"
    value = row.get("value")
    shown = row.get("published_value")  # a rounded or adjusted table (office copy)
    if shown is not None and not pd.isna(shown) and value is not None and not pd.isna(value) \
            and float(shown) != float(value):
        return f"{fmt(float(shown))} ({fmt(float(value))})"
    if value is not None and not pd.isna(value):
        return fmt(float(value))
    freq = row.get("freq")
    if freq is None or pd.isna(freq):
        return ""
    original = row.get("original_freq")  # a perturbed count (the cell key method)
    if original is not None and not pd.isna(original) and int(original) != int(freq):
        return f"{fmt(int(freq))} ({fmt(int(original))})"
    return fmt(int(freq))


def table_grid(name: str, frame: pd.DataFrame, dims: list[str], external: bool) -> str:
    """HTML grids of the table ``frame`` (the internal frame with ``status`` primary /
    secondary / safe..., or the release frame with published / suppressed)."""
    if len(frame) > MAX_CELLS:
        return (f"<p>Table <b>{escape(name)}</b> has {len(frame)} cells: too many to draw "
                "here; see its CSV file.</p>")
    frame = frame.copy()
    for d in dims:
        frame[d] = text_column(frame[d]).fillna("")
    rows_dim = dims[0]
    cols_dim = dims[1] if len(dims) > 1 else None
    rest = dims[2:]
    groups = [((), frame)] if not rest else list(frame.groupby(rest, sort=False))
    # one format for every figure of the table (no 1.12e+10 beside 218 500 000)
    fmt = number_format([float(v) for c in ("value", "published_value") if c in frame
                         for v in frame[c].dropna()])
    out = [_legend(external)]
    for key, part in groups[:MAX_GRIDS]:
        key = key if isinstance(key, tuple) else (key,)
        caption = escape(name) + "".join(f", {escape(d)} = {escape(str(k))}"
                                         for d, k in zip(rest, key))
        out.append(_one_grid(caption, part, rows_dim, cols_dim, external, fmt))
    if len(groups) > MAX_GRIDS:
        out.append(f"<p>... and {len(groups) - MAX_GRIDS} more layers (see the CSV file).</p>")
    return "".join(out)


def _one_grid(caption: str, frame: pd.DataFrame, rows_dim: str, cols_dim: str | None,
              external: bool, fmt=number_text) -> str:
    row_codes = _order(frame, rows_dim)
    col_codes = _order(frame, cols_dim) if cols_dim else [""]
    cells = {}
    for _, row in frame.iterrows():
        cells[(row[rows_dim], row[cols_dim] if cols_dim else "")] = row
    corner = escape(rows_dim) + (" / " + escape(cols_dim) if cols_dim else "")
    head = f"<th>{corner}</th>"
    head += "".join(f"<th>{escape(c) if cols_dim else 'value'}</th>" for c in col_codes)
    body = []
    for r in row_codes:
        tds = [f"<th>{escape(r)}</th>"]
        for c in col_codes:
            row = cells.get((r, c))
            if row is None:
                tds.append('<td class="num empty"></td>')
                continue
            status = str(row["status"])
            css = STATUS_CLASS.get(status, "")
            title = status + (f": {row['rule']}" if not external and "rule" in row
                              and isinstance(row["rule"], str) and row["rule"] else "")
            tds.append(f'<td class="num {css}" title="{escape(title)}">'
                       f"{escape(_cell_text(row, external, fmt))}</td>")
        body.append("<tr>" + "".join(tds) + "</tr>")
    return (f'<table class="grid"><caption>{caption}</caption><tr>{head}</tr>'
            + "".join(body) + "</table>")


def _legend(external: bool) -> str:
    if external:
        return ('<p class="legend"><span class="suppressed">x</span> suppressed cell '
                "(not published)</p>")
    return ('<p class="legend"><span class="primary">primary</span> sensitive cell, '
            'suppressed &nbsp; <span class="secondary">secondary</span> suppressed to '
            'protect a sensitive cell &nbsp; <span class="adjusted">adjusted</span> sensitive '
            "cell published with a changed value &nbsp; other cells are published; a "
            "perturbed, rounded or adjusted cell shows the published figure with the "
            "original in brackets</p>")
