"""What the shipped recipes' reports show: the summary first (status, each check with its
figures, the risk before and after, the utility cost), a section per step in plain
words, and the pictures of each kind; the external report draws released data and
published results only."""

import re
import shutil

import pytest
from helpers import ROOT

from sdcflow import run
from sdcflow.constraints.checks import check_figures
from sdcflow.constraints.expr import parse


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """name -> (internal report, external report or None) of shipped recipes."""
    base = tmp_path_factory.mktemp("reports")
    shutil.copytree(ROOT / "recipes" / "data", base / "data")
    out = {}
    for name in ("quickstart", "testdata_kanon", "tables_profession_town", "casc_ru_map",
                 "casc_perturbative"):
        recipe = base / f"{name}.yaml"
        shutil.copy(ROOT / "recipes" / f"{name}.yaml", recipe)
        result = run(recipe, base / "out" / name)
        public = result.public_dir / "report.html"
        out[name] = ((result.out_dir / "report.html").read_text(),
                     public.read_text() if public.exists() else None)
    return out


def _section(html: str, anchor: str) -> str:
    start = html.index(f'id="{anchor}"')
    end = html.find("</section>", start)
    return html[start:end]


def test_summary_comes_first_with_status_checks_and_risk(reports):
    html, _ = reports["quickstart"]
    assert html.index('id="summary"') < html.index('id="steps"')
    summary = _section(html, "summary")
    assert "Released: every check passed" in summary
    # the check and the figures it compared: sdcMicro's testdata, 653 records violate
    # 2-anonymity in the original (Templ 2019), 106 after recoding and top coding
    assert "risk.violations[2] = 106; risk_original.violations[2] = 653" in summary
    row = re.search(r"<tr><td>records violating 2-anonymity</td>"
                    r'<td class="num">(\d+)</td><td class="num">(\d+)</td></tr>', summary)
    assert row.groups() == ("653", "106")
    assert "edit constraint violations" in summary  # the utility cost
    # what each method did, in plain words, linked to its section
    assert '<a href="#step-walls_pram">walls_pram</a> (pram): The Post-Randomisation' in summary
    # water is household-level: the recode ran once per household, so 21 counts households
    assert ("Categories of water were merged: 6-9 from 6, 7 and 9. 21 households&#x27; values "
            "changed (of 1000 households; every member has the household&#x27;s value).") \
        in summary


def test_each_step_has_its_section_and_pictures(reports):
    html, _ = reports["quickstart"]
    for step in ("risk_original", "age10", "risk_age", "water_groups", "relat_groups",
                 "walls_pram", "income_top", "risk", "edits"):
        assert f'id="step-{step}"' in html
    # recoded classes as bars (the original ages as a histogram), the merged water
    # categories before and after, the PRAM matrix as a heat map with its probabilities
    age = _section(html, "step-age10")
    assert "age: distribution (original)" in age and "age: records per category" in age
    assert "80-130" in age
    water = _section(html, "step-water_groups")
    assert "water: records per category" in water and ">6-9<" in water
    walls = _section(html, "step-walls_pram")
    assert "PRAM transition probabilities: walls" in walls and "0.80" in walls
    # top coding: income before and after as histograms
    assert "income: distribution before and after" in _section(html, "step-income_top")
    # value labels flow into the pictures and tables (urbrur 1 = urban, from the recipe)
    assert "1 (urban)" in _section(html, "key-variables")


def test_risk_and_suppression_pictures(reports):
    html, _ = reports["testdata_kanon"]
    kanon = _section(html, "step-kanon")
    # 218 suppressions: 11 / 69 / 0 / 0 / 138 of urbrur, water, sex, age, relat (the recipe)
    assert "suppressions per variable" in kanon and ">138<" in kanon and ">69<" in kanon
    indiv = _section(html, "step-indiv")
    assert "records by their risk of re-identification" in indiv
    assert "threshold 0.1" in indiv
    # the measures read the released data: their figures are "after" in the summary
    summary = _section(html, "summary")
    assert re.search(r"records violating 3-anonymity</td><td class=\"num\">1087</td>"
                     r"<td class=\"num\">0</td>", summary)
    assert re.search(r"values suppressed</td><td class=\"num\">218</td>", summary)


def test_protected_table_grid_marks_primary_and_secondary(reports):
    internal, external = reports["tables_profession_town"]
    grid = _section(internal, "tables")
    # Torra's profession x town table: (P1, M1) 360 is primary by frequency and dominance,
    # (P3, M2) 22 by frequency, (P5, M3) 363 by dominance; four secondary cells protect them
    assert grid.count('class="num primary"') == 3 and grid.count('class="num secondary"') == 4
    assert '<td class="num primary" title="primary: freq(3),dominance(1,50)">360</td>' in grid
    public = _section(external, "tables")
    assert public.count('class="num suppressed"') == 7 and "primary" not in public
    assert ">360<" not in public and ">22<" not in public and ">363<" not in public
    # the audit read the protected table: its figure is "after"
    # (no measure read the original table: no column of dashes for it)
    assert re.search(r"sensitive cells not protected</td><td class=\"num\">0</td></tr>",
                     _section(internal, "summary"))
    assert "No risk measure read the original data." in _section(internal, "summary")


def test_ru_map_circles_the_released_variant(reports):
    html, external = reports["casc_ru_map"]
    ru = _section(html, "ru-map")
    assert "released: p=15" in ru
    assert "disclosure risk: link.percent" in ru and "information loss: loss.pil" in ru
    # the published measures are those of the released variant only
    assert external is not None and 'id="ru-map"' not in external


def test_numeric_distributions_before_and_after(reports):
    html, external = reports["casc_perturbative"]
    noise = _section(html, "step-income_noise")
    for name in ("PEARNVAL", "POTHVAL", "PTOTVAL"):
        assert f"{name}: distribution before and after" in noise
    # the external report draws the released values only
    public = _section(external, "step-income_noise")
    assert "PEARNVAL: distribution (released)" in public and "original (" not in public


def test_external_report_holds_no_original_data_or_method_results(reports):
    internal, external = reports["quickstart"]
    assert "Internal report: holds original data" in internal
    assert "External report (safe to publish)" in external
    for forbidden in ('id="recipe"', "seed", "original walls", "(4480 values"):
        assert forbidden not in external
    # a method's result (its info) is internal: the external step shows its parameters only
    assert "outside breaks" in _section(internal, "step-age10")
    assert "outside breaks" not in _section(external, "step-age10")


def test_check_figures_by_hand():
    expr = parse("risk.violations[2] <= risk_original.violations[2] and loss.pil / 2 < 30",
                 subscripts=True, condition=True)
    results = {"risk": {"violations": {"2": 106}}, "risk_original": {"violations": {"2": 653}},
               "loss": {"pil": 32.5}}
    assert check_figures(expr, results) == {"risk.violations[2]": 106,
                                            "risk_original.violations[2]": 653,
                                            "loss.pil / 2": 16.25}
    # a side the results do not have is left out, not an error
    assert check_figures(expr, {"risk": {"violations": {"2": 1}}}) == {"risk.violations[2]": 1}


def test_the_appendix_lists_values_and_counts_records():
    # table_audit's cells (a list of records) were dumped as one blob of JSON
    from sdcflow.report.html import _flatten

    rows = dict(_flatten({"cells": [{"a": 1}, {"a": 2}], "k": [2, 3, 5],
                          "long": list(range(14)), "none": [], "ok": True}))
    assert rows == {"cells": "2 entries (listed in measures.json)", "k": "2, 3, 5",
                    "long": "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 2 more",
                    "none": "(none)", "ok": "true"}


def test_step_figures_leave_solver_internals_out():
    # a secondary suppression's result says how the MILP went (cuts, rounds, LPs solved):
    # the report's figures of the step are what was done (cells suppressed, optimal,
    # audited); the internals stay in the manifest
    from sdcflow.report.build import StepView
    from sdcflow.report.html import step_figures

    info = {"method": "optimal", "primary": 3, "secondary": 5, "suppressed": 8, "cost": 5.0,
            "cuts": 14, "optimal": True, "rounds": 2, "lp_solved": 4,
            "tie_break_done": True, "lower_bound": 5.0, "gap": 0.0, "fixed_out": 0,
            "audit_passed": True}
    step = StepView("secondary", "method", "secondary_suppression", {}, [("", info)])
    labels = [label for label, _ in step_figures(step, info)]
    assert labels == ["primary", "secondary", "suppressed", "cost", "optimal", "audit passed"]
