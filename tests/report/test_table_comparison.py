"""Several protections of one table side by side in the report
(sdcflow.report.table_comparison): a row and an R-U point per table_utility result."""

import re

import pytest

from sdcflow import run
from sdcflow.report.build import StepView
from sdcflow.report.table_comparison import alternatives, comparison_table, dr_name, ru_points


def _utility(loss, risk, suppressed=0.0, small=1):
    # (keys in the order of text, as a result read back from measures.json has them)
    return {"by_size": {"0": {"mean_rel_error": None}, "10+": {"mean_rel_error": 0.01},
                        "1-2": {"mean_rel_error": 0.5}, "3-9": {"mean_rel_error": 0.1}},
            "loss_percent": loss, "share_suppressed": suppressed, "share_changed": 0.25,
            "l1": 12.0, "mean_abs_error": 1.5, "mean_rel_error": 0.2, "false_zero": 3,
            "false_positive": 0, "small_cells_exact": {"small": small, "percent": risk}}


STEPS = [
    StepView("ck", "method", "cell_key", {"D": 5, "V": 3}, [], table="t_ck"),
    StepView("u_ck", "measure", "table_utility", {}, [], table="t_ck",
             released_result=_utility(30.0, 0.0)),
    StepView("primary", "method", "sensitivity_rules", {"rules": [{"freq": 3}]}, [],
             table="t_sup"),
    StepView("secondary", "method", "secondary_suppression", {}, [], table="t_sup"),
    StepView("u_sup", "measure", "table_utility", {}, [], table="t_sup",
             released_result=_utility(40.0, 0.0, suppressed=0.4)),
    # a measure of the records, and a table_utility step with no published result
    StepView("risk", "measure", "k_anonymity", {}, [], released_result={"violations": {}}),
    StepView("u_hidden", "measure", "table_utility", {}, [], table="t_other"),
]


def test_one_row_per_protected_version_with_the_steps_that_made_it():
    rows = alternatives(STEPS, released_tables=["t_ck"])
    assert [(a.label, a.step, a.released) for a in rows] == \
        [("t_ck", "u_ck", True), ("t_sup", "u_sup", False)]
    assert rows[0].protection == ["ck (cell_key: D=5, V=3)"]
    assert rows[1].protection == ['primary (sensitivity_rules: rules=[{"freq":3}])',
                                  "secondary (secondary_suppression)"]
    # the classes of cell size in the order of size, not of text
    assert rows[0].classes == ["0", "1-2", "3-9", "10+"]
    assert ru_points(rows) == [("t_ck", 0.0, 30.0), ("t_sup", 0.0, 40.0)]


def test_the_comparison_table_in_percent():
    header, body = comparison_table(alternatives(STEPS))
    assert header[-3:] == ["rel. error (%), size 1-2", "rel. error (%), size 3-9",
                           "rel. error (%), size 10+"]
    assert "cells of 1 published exactly (%)" in header
    row = dict(zip(header, body[1]))
    assert row["cells suppressed (%)"] == 40.0 and row["cells changed (%)"] == 25.0
    assert row["mean rel. error (%)"] == 20.0 and row["rel. error (%), size 1-2"] == 50.0
    assert row["cell information lost (%)"] == 40.0


def test_one_table_measured_twice_is_labelled_by_step():
    steps = [*STEPS[:2], StepView("u_ck_inner", "measure", "table_utility", {}, [],
                                  table="t_ck", released_result=_utility(20.0, 5.0))]
    assert [a.label for a in alternatives(steps)] == ["u_ck", "u_ck_inner"]


def test_the_risk_figure_names_its_small_cells():
    rows = alternatives([*STEPS[:2], StepView(
        "u2", "measure", "table_utility", {}, [], table="t2",
        released_result=_utility(1.0, 1.0, small=2))])
    assert dr_name(rows[:1]) == "cells of 1 published exactly (%)"
    assert dr_name([rows[1]]) == "cells of 1 to 2 published exactly (%)"
    assert dr_name(rows) == "small cells published exactly (%)"


DATA = "g,h\n" + "".join(f"{g},{h}\n" for g, h, n in
                         (("A", "x", 1), ("A", "y", 4), ("B", "x", 6), ("B", "y", 2),
                          ("C", "x", 5), ("C", "y", 7)) for _ in range(n))
RECIPE = """sdcflow: 1
name: compare
seed: 3
data: {path: data.csv}
variables:
  g: {role: key}
  h: {role: key}
tables:
  - {id: by_cell_key, dims: [g, h]}
  - {id: by_suppression, dims: [g, h]}
steps:
  - {id: ck, method: cell_key, table: by_cell_key, params: {D: 2, V: 1.05, js: 1}}
  - {id: u_ck, measure: table_utility, table: by_cell_key}
  - {id: primary, method: sensitivity_rules, table: by_suppression, params: {rules: [{freq: 3}]}}
  - {id: secondary, method: secondary_suppression, table: by_suppression}
  - {id: u_sup, measure: table_utility, table: by_suppression}
release: {tables: {by_cell_key: t.csv}, measures: [u_ck]}
"""


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cmp")
    (tmp / "data.csv").write_text(DATA, encoding="utf-8")
    (tmp / "r.yaml").write_text(RECIPE, encoding="utf-8")
    run(tmp / "r.yaml", tmp / "out", use_cache=False)
    return ((tmp / "out" / "report.html").read_text(encoding="utf-8"),
            (tmp / "out" / "public" / "report.html").read_text(encoding="utf-8"))


def _section(html: str) -> str:
    start = html.index('<section id="table-comparison">')
    return html[start:html.index("</section>", start)]


def test_the_internal_report_compares_both_protections_on_a_map(reports):
    section = _section(reports[0])
    assert section.count("<tr>") == 3  # the header and two protections
    assert "<td>by_cell_key</td>" in section and "<td>by_suppression</td>" in section
    assert "<svg" in section and "released: by_cell_key" in section


def test_the_external_report_shows_only_what_is_published(reports):
    section = _section(reports[1])
    # the suppression alternative's figures are not published: one row, no map
    assert "<td>by_cell_key</td>" in section and "by_suppression" not in section
    assert "<svg" not in section
    assert not re.search(r"suppressed\.\d|\.cells\b", section)


def test_score_steps_of_several_alternatives_leave_the_axes_unnamed(tmp_path):
    # the R-U map's axes were named by the first score's expressions, here "u_ck...",
    # under the point of u_sup too; the points come from the score steps
    from sdcflow.report.from_run import report_data

    (tmp_path / "data.csv").write_text(DATA, encoding="utf-8")
    text = RECIPE.replace("release:", """  - {id: s_ck, measure: score, params: {il: "u_ck.loss_percent", dr: "u_ck.false_zero"}}
  - {id: s_sup, measure: score, params: {il: "u_sup.loss_percent", dr: "u_sup.false_zero"}}
release:""")
    (tmp_path / "r.yaml").write_text(text, encoding="utf-8")
    result = run(tmp_path / "r.yaml", write=False)
    data = report_data(result.validated, result, released_ok=True)
    assert [p[0] for p in data.ru] == ["s_ck", "s_sup"]
    assert data.ru_axes == ("disclosure risk (DR)", "information loss (IL)")


def test_one_score_names_the_axes_by_its_expressions(tmp_path):
    from sdcflow.report.from_run import report_data

    (tmp_path / "data.csv").write_text(DATA, encoding="utf-8")
    text = RECIPE.replace("release:", """  - {id: s_ck, measure: score, params: {il: "u_ck.loss_percent", dr: "u_ck.false_zero"}}
release:""")
    (tmp_path / "r.yaml").write_text(text, encoding="utf-8")
    result = run(tmp_path / "r.yaml", write=False)
    data = report_data(result.validated, result, released_ok=True)
    assert data.ru_axes == ("disclosure risk: u_ck.false_zero",
                            "information loss: u_ck.loss_percent")


def test_the_shipped_census_comparison_says_what_its_run_gives():
    # the figures its comments and docs/recipes.md quote; the internal report compares the
    # three protections, the external one publishes the released one alone
    from helpers import ROOT

    result = run(ROOT / "recipes" / "census_table_comparison.yaml", write=False)
    m = result.measures
    assert [round(m[s]["loss_percent"], 1) for s in
            ("utility_cell_key", "utility_suppression", "utility_dp")] == [17.2, 18.2, 40.1]
    assert m["utility_suppression"]["suppressed"] == 134
    assert m["utility_cell_key"]["by_size"]["1-2"]["cells"] == 62
    assert m["utility_dp"]["small_cells_exact"] == {"small": 1, "cells": 29, "exact": 1,
                                                    "percent": 100 / 29}
    internal = _section(result.report())
    assert internal.count("<tr>") == 4 and "epsilon=1" in internal and "<svg" in internal
    external = _section(result.external_report())
    assert external.count("<tr>") == 2 and "by_dp" not in external
