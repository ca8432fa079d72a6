"""Protected tables drawn as grids (sdcflow.report.grid): categories in the report's
order within each subtotal, one format for all the table's figures."""

import re

import pandas as pd

from sdcflow.report.grid import table_grid


def _frame(codes, levels, values):
    return pd.DataFrame({"size": codes, "level_size": levels, "freq": [1] * len(codes),
                         "value": values, "status": ["safe"] * len(codes)})


def test_grid_rows_in_the_order_of_categories_with_the_total_kept_last():
    # the table holds leaf codes sorted as text ("10" before "9"), then the total
    frame = _frame(["10", "9", "<=8", "Total"], [1, 1, 1, 0], [1.0, 2.0, 3.0, 6.0])
    html = table_grid("t", frame, ["size"], external=False)
    assert re.findall(r"<tr><th>([^<]*)</th>", html)[1:] == ["&lt;=8", "9", "10", "Total"]


def test_grid_without_levels_keeps_the_table_order():
    frame = _frame(["10", "9", "Total"], [1, 1, 0], [1.0, 2.0, 3.0]).drop(
        columns="level_size")
    html = table_grid("t", frame, ["size"], external=False)
    assert re.findall(r"<tr><th>([^<]*)</th>", html)[1:] == ["10", "9", "Total"]


def test_grid_figures_share_one_format():
    frame = _frame(["a", "b", "Total"], [1, 1, 0], [11234567890.4, 218500000.0,
                                                    11453067890.4])
    html = table_grid("t", frame, ["size"], external=False)
    cells = re.findall(r'<td class="num [^"]*" title="[^"]*">([^<]*)</td>', html)
    assert cells == ["11\u202f234\u202f567\u202f890", "218\u202f500\u202f000",
                     "11\u202f453\u202f067\u202f890"]
