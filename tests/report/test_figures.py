"""The report's pictures (sdcflow.report.figures): inline SVG, the same bytes on every call,
with their titles and labels as text; nothing drawn from nothing."""

import numpy as np

from sdcflow.measures.risk.individual_risk import RISK_BANDS, risk_bands
from sdcflow.report import figures


def _svg_ok(svg: str) -> None:
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    assert "<?xml" not in svg and "<script" not in svg


def test_histogram_before_and_after_is_deterministic_and_counts_missing():
    rng = np.random.default_rng(1)
    before = rng.normal(size=200)
    after = before + rng.normal(scale=0.1, size=200)
    after[:3] = np.nan
    a = figures.histogram("income", before, after)
    _svg_ok(a)
    assert a == figures.histogram("income", before, after)
    assert "income: distribution before and after" in a
    # the legend says how many values each histogram holds and how many are missing
    assert "original (200 values)" in a and "released (197 values, 3 missing)" in a
    assert figures.histogram("x", None, np.array([np.nan])) == ""


def test_frequency_bars_label_categories_and_sum_the_tail():
    svg = figures.frequency_bars("urbrur", ["1 urban", "2 rural"], [10, 5], [9, 6])
    _svg_ok(svg)
    assert "1 urban" in svg and "2 rural" in svg and "original" in svg and "released" in svg
    # 40 categories: the 29 largest and one bar for the 11 others
    cats = [f"c{i}" for i in range(40)]
    svg = figures.frequency_bars("v", cats, None, list(range(40, 0, -1)))
    assert "other (11 categories)" in svg and "c28" in svg and "c29" not in svg
    assert figures.frequency_bars("v", [], None, []) == ""


def test_heat_map_writes_each_probability():
    P = np.array([[0.8, 0.2], [0.1, 0.9]])
    svg = figures.heat_map("walls", ["1 brick", "2 wood"], P)
    _svg_ok(svg)
    for text in ("0.80", "0.20", "0.10", "0.90", "original walls", "released walls",
                 "PRAM transition probabilities: walls"):
        assert text in svg


def test_risk_bands_by_hand():
    # [0, .001), [.001, .002), ... [.5, 1]: 0.0005 -> band 0, 0.0015 -> band 1, 0.3 -> band
    # 8 ([.2, .5)), 1.0 -> band 9 (the last band is closed), each with its count
    out = risk_bands(np.array([0.0005, 0.0015, 0.3, 1.0]), np.array([1.0, 2.0, 3.0, 4.0]))
    assert out == {"edges": list(RISK_BANDS), "records": [1, 2, 0, 0, 0, 0, 0, 0, 3, 4]}
    svg = figures.risk_distribution(out["edges"], out["records"], threshold=0.1)
    _svg_ok(svg)
    assert "threshold 0.1" in svg and "0.2-0.5" in svg
    assert figures.risk_distribution(out["edges"], [0] * 10) == ""


def test_suppressions_bars_carry_their_counts():
    svg = figures.suppressions({"age": 2, "relat": 140, "water": 69})
    _svg_ok(svg)
    assert ">140<" in svg and ">69<" in svg and "suppressions per variable" in svg
    assert figures.suppressions({}) == ""


def test_ru_map_circles_the_released_variant_and_names_the_axes():
    points = [("p=2", 88.4, 7.5), ("p=15", 8.0, 39.6), ("p=20", 5.3, 40.0)]
    svg = figures.ru_map(points, released="p=15", dr_name="disclosure risk: link.percent",
                         il_name="information loss: loss.pil")
    _svg_ok(svg)
    assert "released: p=15" in svg
    assert "disclosure risk: link.percent" in svg and "information loss: loss.pil" in svg
    # close points get their labels raised (a leader line), not printed on each other
    assert svg == figures.ru_map(points, released="p=15",
                                 dr_name="disclosure risk: link.percent",
                                 il_name="information loss: loss.pil")
    assert "released:" not in figures.ru_map(points)
