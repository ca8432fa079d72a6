"""camouflage_widths measure (Gopal, Garfinkel & Goes 2002): interval widths and interval
answers to queries on a hand example (the box and total of
tests/kernels/perturbative/test_camouflage.py)."""

import json

import numpy as np
import pytest
from helpers import small_dataset

from sdcflow.engine import canonical_json
from sdcflow.plugins import registry
from sdcflow.plugins.results import conformance
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("camouflage_widths")


def datasets():
    """The released bounds (with a region) and the original values."""
    released = small_dataset(x_lo=("numeric", "continuous", [8.0, 15, 29, 30]),
                             x_hi=("numeric", "continuous", [13.0, 22, 36, 44]),
                             region=("key", "categorical", ["a", "a", "a", "b"]))
    original = small_dataset(x=("numeric", "continuous", [10.0, 20, 30, 40]),
                             region=("key", "categorical", ["a", "a", "a", "b"]))
    return released, original


def evaluate(**params):
    released, original = datasets()
    params = registry.with_defaults(PLUGIN.params, {"camouflaged": ["x"], **params})
    return PLUGIN.evaluate(released, params, np.random.default_rng(0), original=original)


def test_conformance():
    both = small_dataset(x=("numeric", "continuous", [10.0, 20, 30, 40]),
                         x_lo=("numeric", "continuous", [8.0, 15, 29, 30]),
                         x_hi=("numeric", "continuous", [13.0, 22, 36, 44]))
    check_method(PLUGIN, both, {"camouflaged": ["x"], "queries": [{"variable": "x"}]})


def test_widths_and_queries_by_hand():
    out = evaluate(total_known=True,
                   queries=[{"variable": "x", "where": {"region": "a"}},
                            {"variable": "x", "statistic": "mean", "where": {"region": ["b"]}}])
    widths = out.summary["variables"]["x"]
    # widths 5, 7, 7, 14; relative 0.5, 0.35, 7/30, 0.35
    assert widths["mean_width"] == 8.25 and widths["contained"] == 4
    assert widths["median_relative_width"] == pytest.approx(0.35)
    region_a, region_b = out.summary["queries"]
    # region a = records 0..2 with T = 100: [max(52, 100 - 44), min(71, 100 - 30)] = [56, 70]
    assert region_a["low"] == pytest.approx(56, rel=1e-8)
    assert region_a["high"] == pytest.approx(70, rel=1e-8)
    assert region_a["exact"] == 60 and region_a["contains_exact"] and region_a["records"] == 3
    assert region_a["relative_width"] == pytest.approx(14 / 60, rel=1e-7)
    # region b = record 3: [30, 44], mean of one record
    assert region_b["low"] == pytest.approx(30, rel=1e-8)
    assert region_b["high"] == pytest.approx(44, rel=1e-8)
    # without the total: [52, 71]
    free = evaluate(queries=[{"variable": "x", "where": {"region": "a"}}]).summary
    assert free["queries"][0]["low"] == pytest.approx(52, rel=1e-8)
    assert free["queries"][0]["high"] == pytest.approx(71, rel=1e-8)
    # the exact answers are not published
    public = PLUGIN.public_summary(out.summary, {})
    assert all("exact" not in q and "relative_width" not in q for q in public["queries"])
    assert public["queries"][0]["low"] == region_a["low"]


def test_checks_and_reads():
    released, _ = datasets()
    params = {"camouflaged": ["x", "y"],
              "queries": [{"variable": "z"}, {"variable": "x", "where": {"nope": 1}}]}
    assert dict(PLUGIN.check(params, released.meta)) == {
        ("camouflaged", 1): "no variable 'y_lo' or 'y_hi': 'y' is not camouflaged before this step",
        ("queries", 0, "variable"): "'z' is not among the camouflaged variables",
        ("queries", 1, "where", "nope"): "'nope' is not a variable at this step"}
    assert PLUGIN.reads(params, released.meta) == {"x_lo", "x_hi", "y_lo", "y_hi", "nope"}
    assert PLUGIN.reference_reads(params) == {"x", "y"}


def test_the_summary_has_the_declared_shape():
    released, _ = datasets()
    for params in ({}, {"total_known": True, "queries": [
            {"variable": "x", "where": {"region": "a"}},
            {"variable": "x", "where": {"region": "nowhere"}}]}):
        out = evaluate(**params)
        resolved = registry.with_defaults(PLUGIN.params, {"camouflaged": ["x"], **params})
        summary = json.loads(canonical_json(out.summary))
        assert conformance(PLUGIN.result_shape(resolved, released.meta), summary) == []
    assert summary["queries"][1]["records"] == 0 and summary["queries"][1]["low"] is None
