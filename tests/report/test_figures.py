"""The report's pictures (sdcflow.report.figures): inline SVG, the same bytes on every call,
with their titles and labels as text; nothing drawn from nothing."""

import numpy as np
import pytest
from matplotlib.text import Text

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


def _circles_meet_box(box, cx, cy, r) -> bool:
    """Whether the disc (cx, cy, r) meets the rectangle ``box`` (display units)."""
    nx, ny = min(max(cx, box.x0), box.x1), min(max(cy, box.y0), box.y1)
    return (nx - cx) ** 2 + (ny - cy) ** 2 < r ** 2


RU_LAYOUTS = [
    # the shipped casc_ru_map sweep's shape: one far point, the rest close together
    [("p=2", 88.4, 7.5), ("p=15", 8.0, 39.6), ("p=20", 5.3, 40.0)],
    # six variants within a few per cent of the axes of each other, the released among them
    [(f"k={k}", 10 + 0.4 * i, 30 - 0.3 * i) for i, k in enumerate((2, 3, 4, 5, 6, 8))]
    + [("k=20", 90.0, 80.0)],
    # points at the corners of the axes, where a label has least room
    [("a", 0.0, 0.0), ("b", 100.0, 0.0), ("c", 0.0, 100.0), ("d", 100.0, 100.0),
     ("e", 50.0, 50.0)],
]


@pytest.mark.parametrize("points", RU_LAYOUTS)
def test_ru_map_labels_and_legend_cover_no_point(points):
    # the geometry as matplotlib's renderer draws it: each label's text box and the
    # legend's box against every marker's disc (its area in points squared, the circle of
    # the released variant larger) and against each other
    released = points[1][0]
    with figures.ru_map_drawn(points, released=released) as (fig, ax, labels, legend):
        renderer = fig.canvas.get_renderer()
        pixels = fig.dpi / 72.0
        discs = []
        for label, x, y in points:
            cx, cy = ax.transData.transform((x, y))
            size = figures.CIRCLE_SIZE if label == released else figures.POINT_SIZE
            discs.append((cx, cy, np.sqrt(size) / 2 * pixels))
        boxes = []
        for t in labels:  # the text alone, without its leader line
            t.update_positions(renderer)
            boxes.append(Text.get_window_extent(t, renderer))
        assert [t.get_text() for t in labels] == [p[0] for p in points]
        legend_box = legend.get_window_extent(renderer)
        for box in [*boxes, legend_box]:
            assert not any(_circles_meet_box(box, *d) for d in discs)
        for i, a in enumerate([*boxes, legend_box]):
            for b in [*boxes, legend_box][i + 1:]:
                assert not a.overlaps(b)
        # every label inside the figure (not cut off at its edge)
        figure_box = fig.bbox
        assert all(figure_box.contains(b.x0, b.y0) and figure_box.contains(b.x1, b.y1)
                   for b in boxes)


def test_integer_variables_get_integer_bins():
    # ages 0..79 in 30 bins would put 2 or 3 integers in alternate bins (a comb); bins of
    # a whole width centred on the integers hold the same number of integers each
    edges = figures.histogram_edges(np.arange(80, dtype=float))
    assert np.all(np.diff(edges) == 3.0) and edges[0] == -0.5
    assert np.all((edges - 0.5) == np.round(edges - 0.5))  # at half-integers
    # few values: one bin per integer
    assert list(figures.histogram_edges(np.array([1.0, 2.0, 4.0]))) == [
        0.5, 1.5, 2.5, 3.5, 4.5]
    # decimals: equal bins over the range
    assert len(figures.histogram_edges(np.array([0.5, 2.25]), bins=10)) == 11


def test_top_coding_cut_is_marked():
    x0 = np.arange(1000, dtype=float)
    x1 = np.minimum(x0, 960.0)
    svg = figures.histogram("income", x0, x1, cuts=[(960.0, "top code at 960 (40 values)")])
    assert "top code at 960 (40 values)" in svg
    assert svg == figures.histogram("income", x0, x1,
                                    cuts=[(960.0, "top code at 960 (40 values)")])


def test_charts_of_nothing_but_zeros_are_skipped():
    assert figures.frequency_bars("v", ["a", "b"], [0, 0], [0, 0]) == ""
    assert figures.suppressions({"age": 0, "sex": 0}) == ""
    assert figures.heat_map("v", ["a", "b"], np.zeros((2, 2))) == ""
    assert figures.frequency_bars("v", ["a", "b"], [0, 0], [0, 1]) != ""


def test_scatter_of_moved_values_counts_the_changed_records():
    before = np.arange(10, dtype=float)
    after = before.copy()
    after[[0, 1]] = after[[1, 0]]  # one swap: two records changed
    svg = figures.scatter("income", before, after)
    _svg_ok(svg)
    assert "income: 2 of 10 records changed" in svg
    assert "original income" in svg and "released income" in svg
    # many records: an evenly spaced sample drawn, the title says how many
    big = np.arange(5000, dtype=float)
    assert "2000 of them drawn" in figures.scatter("x", big, big[::-1], limit=2000)
