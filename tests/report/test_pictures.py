"""Which picture each step gets (sdcflow.report.pictures): the one that shows what its
method changed, and the key variables original and released in their natural order."""

import re

import numpy as np
import pandas as pd

from sdcflow.data.dataset import Variable
from sdcflow.report.build import ReportData, StepView
from sdcflow.report.pictures import distribution, key_variables, step_pictures


def _data(original, released, variables, external=False):
    return ReportData(recipe_name="t", external=external, status="released", about=[],
                      checks=[], steps=[], measures={}, original=original,
                      released=released, variables=variables, value_labels={},
                      tables={}, risk=[], utility=[])


def _step(plugin, writes, params=None, result=None):
    return StepView("s", "method", plugin, params or {}, [("", result)], list(writes),
                    released_result=result)


def _titles(html: str) -> list[str]:
    return re.findall(r"<figcaption>(.*?)</figcaption>", html)


def test_a_permuting_method_gets_original_against_released_not_two_histograms():
    rng = np.random.default_rng(3)
    x = rng.normal(50_000, 10_000, 300).round()
    swapped = x.copy()
    swapped[:100] = swapped[:100][::-1]  # values moved between records: same histogram
    data = _data(pd.DataFrame({"income": x}), pd.DataFrame({"income": swapped}),
                 {"income": Variable("income", "numeric", "continuous")})
    for plugin in ("rank_swap", "shuffling"):
        html = distribution(data, "income", _step(plugin, ["income"]))
        assert "released value against its original one" in _titles(html)[0]
        assert "records changed" in html and "distribution before and after" not in html
    # a method that does not move values keeps the histograms
    html = distribution(data, "income", _step("noise", ["income"]))
    assert "income: distribution before and after" in html


def test_record_swap_of_a_category_shows_where_its_records_went():
    before = pd.Series(["1", "1", "2", "2", "3", "3"])
    after = pd.Series(["2", "1", "1", "2", "3", "3"])
    data = _data(pd.DataFrame({"region": before}), pd.DataFrame({"region": after}),
                 {"region": Variable("region", "key", "categorical")})
    html = distribution(data, "region", _step("record_swap", ["region"]))
    assert "region: where each category&#x27;s records went" in html or \
        "region: where each category's records went" in html
    assert "2 of 6 records changed category" in html
    # the shares written in the cells: half of region 1 went to 2, half of 2 to 1
    assert html.count(">0.50<") == 4


def test_top_coding_marks_its_cut_on_the_histogram():
    x = np.arange(1000, dtype=float)
    data = _data(pd.DataFrame({"income": x}), pd.DataFrame({"income": np.minimum(x, 960)}),
                 {"income": Variable("income", "numeric", "continuous")})
    step = _step("top_bottom_code", ["income"], {"variable": "income",
                                                 "top": {"quantile": 0.96}},
                 {"top": {"threshold": 960.0, "coded": 39, "replaced_by": 960.0}})
    assert "top code at 960 (39 values)" in distribution(data, "income", step)


def test_recoded_classes_are_listed_apart_from_the_original_values_in_natural_order():
    ages = pd.Series([3, 8, 10, 12, 14, 20, 2, 11])
    classes = pd.Series(["<=8", "<=8", "9-11", "12", "13-15", "16+", "<=8", "9-11"])
    data = _data(pd.DataFrame({"age": ages}), pd.DataFrame({"age": classes}),
                 {"age": Variable("age", "key", "integer")})
    html = key_variables(data)
    original, released = re.findall(r"<table>.*?</table>", html)
    assert re.findall(r"<tr><td>([^<]*)</td>", original) == [
        "2", "3", "8", "10", "11", "12", "14", "20"]
    assert re.findall(r"<tr><td>([^<]*)</td>", released) == [
        "&lt;=8", "9-11", "12", "13-15", "16+"]
    assert "<th>original</th>" in original and "<th>released</th>" not in original
    # and the bars of the released classes in the same order
    pictures = step_pictures(data, _step("global_recode", ["age"]), {"age": "s"})
    svg = pictures[0].split("<figure>")[-1]  # (the first figure: the original ages)
    assert "records per category, released" in svg
    positions = [svg.index(f">{label}<") for label in ("&lt;=8", "9-11", "12", "13-15",
                                                        "16+")]
    assert positions == sorted(positions)


def test_kept_categories_share_one_table_in_their_declared_order():
    before = pd.Series(["low", "high", "mid", "mid"])
    after = pd.Series(["low", "high", "mid", None])
    data = _data(pd.DataFrame({"edu": before}), pd.DataFrame({"edu": after}),
                 {"edu": Variable("edu", "key", "ordinal", order=("low", "mid", "high"))})
    html = key_variables(data)
    assert html.count("<table>") == 1
    assert re.findall(r"<tr><td>([^<]*)</td>", html) == ["low", "mid", "high", "(missing)"]
    assert '<tr><td>mid</td><td class="num">2</td><td class="num">1</td></tr>' in html


def test_pram_matrix_rows_in_numeric_order():
    from sdcflow.report.pictures import pram_pictures

    matrix = {"10": {"10": 0.9, "2": 0.1}, "2": {"2": 0.8, "1": 0.2}, "1": {"1": 1.0}}
    data = _data(None, pd.DataFrame({"v": ["1"]}), {"v": Variable("v", "pram", "categorical")})
    svg = pram_pictures(data, _step("pram", ["v"], result={"transition_matrix": {"v": matrix}}))[0]
    positions = [svg.index(f">{code}<") for code in ("1", "2", "10")]
    assert positions == sorted(positions)
