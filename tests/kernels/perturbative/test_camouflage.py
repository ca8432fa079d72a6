"""Camouflage kernels (Gopal, Garfinkel & Goes 2002, "Confidentiality via camouflage"):
intervals that contain the values, interval answers to sum/mean queries by linear
programming over the camouflage set, and the widths measure.

Expected values: the hand example below. Over the box lo <= y <= hi with the total
sum(y) = T, the sum over a subset S ranges over [max(sum_S lo, T - sum_notS hi),
min(sum_S hi, T - sum_notS lo)] (each bound: the records of S as low / high as their
intervals allow, unless the others cannot make up the total); without a total it is
[sum_S lo, sum_S hi]."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.perturbative.camouflage import (
    camouflage_intervals,
    interval_widths,
    query_interval,
    relative_intervals,
)

X = np.array([10.0, 20, 30, 40])
LO = np.array([8.0, 15, 29, 30])
HI = np.array([13.0, 22, 36, 44])
REL = 1e-8  # the answers are widened by 1e-9 of their magnitude (solver tolerances)


def test_intervals_by_hand():
    x, w = np.array([10.0, -20, 0, np.nan]), np.array([2.0, 4, 1, 1])
    lo, hi = camouflage_intervals(x, w, np.random.default_rng(3))
    u = np.random.default_rng(3).random(4)
    np.testing.assert_allclose(lo[:3], x[:3] - u[:3] * w[:3], rtol=1e-15)
    np.testing.assert_allclose(hi[:3] - lo[:3], w[:3], rtol=1e-12)
    assert np.isnan(lo[3]) and np.isnan(hi[3])
    assert np.all(lo[:3] <= x[:3]) and np.all(x[:3] <= hi[:3])


def test_sum_without_total_by_hand():
    # records 0, 1: [8 + 15, 13 + 22] = [23, 35], exact 30
    low, high = query_interval(LO, HI, np.array([1, 1, 0, 0], bool))
    assert low == pytest.approx(23, rel=REL) and high == pytest.approx(35, rel=REL)
    assert low <= 30 <= high


def test_sum_and_mean_with_the_total_by_hand():
    # T = 100; S = {0, 1, 2}: sum_S lo = 52, sum_S hi = 71, record 3 in [30, 44]:
    # [max(52, 100 - 44), min(71, 100 - 30)] = [56, 70], exact 60
    s = np.array([1, 1, 1, 0], bool)
    low, high = query_interval(LO, HI, s, total=100)
    assert low == pytest.approx(56, rel=REL) and high == pytest.approx(70, rel=REL)
    assert low <= 60 <= high
    low, high = query_interval(LO, HI, s, total=100, statistic="mean")
    assert low == pytest.approx(56 / 3, rel=REL) and high == pytest.approx(70 / 3, rel=REL)
    # S = {3}: [max(30, 100 - 71), min(44, 100 - 52)] = [30, 44]: the total does not bind
    low, high = query_interval(LO, HI, ~s, total=100)
    assert low == pytest.approx(30, rel=REL) and high == pytest.approx(44, rel=REL)
    # all the records: the total itself
    low, high = query_interval(LO, HI, np.ones(4, bool), total=100)
    assert low == pytest.approx(100, rel=REL) and high == pytest.approx(100, rel=REL)
    assert low <= 100 <= high


def test_missing_intervals_are_left_out_and_bad_queries_refused():
    lo, hi = LO.copy(), HI.copy()
    lo[0] = hi[0] = np.nan
    low, high = query_interval(lo, hi, np.array([1, 1, 0, 0], bool))
    assert low == pytest.approx(15, rel=REL) and high == pytest.approx(22, rel=REL)
    with pytest.raises(ValueError, match="no record"):
        query_interval(lo, hi, np.array([1, 0, 0, 0], bool))
    with pytest.raises(ValueError, match="statistic"):
        query_interval(LO, HI, np.ones(4, bool), statistic="median")


def test_widths_by_hand():
    # widths 5, 7, 7, 14: mean 8.25; relative .5, .35, 7/30, .35: mean 0.358333..,
    # median (0.35 + 0.35) / 2
    out = interval_widths(LO, HI, X)
    assert out["records"] == 4 and out["contained"] == 4
    assert out["mean_width"] == 8.25
    assert out["mean_relative_width"] == pytest.approx((0.5 + 0.35 + 7 / 30 + 0.35) / 4)
    assert out["median_relative_width"] == pytest.approx(0.35)
    # a value outside its interval is not counted as contained; zeros have no relative
    assert interval_widths(np.array([0.0, 5]), np.array([1.0, 6]), np.array([0.0, 7])) == {
        "records": 2, "mean_width": 1.0, "mean_relative_width": 1 / 7,
        "median_relative_width": 1 / 7, "contained": 1}


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=25),
       width=st.floats(0.0, 2.0), seed=st.integers(0, 2 ** 32 - 1),
       statistic=st.sampled_from(["sum", "mean"]), total_known=st.booleans())
def test_answers_contain_the_exact_one_and_equal_the_closed_form(values, width, seed,
                                                                 statistic, total_known):
    x = np.array(values)
    rng = np.random.default_rng(seed)
    lo, hi = camouflage_intervals(x, width * np.abs(x), rng)
    s = rng.random(len(x)) < 0.5
    s[0] = True
    total = float(x.sum()) if total_known else None
    low, high = query_interval(lo, hi, s, statistic=statistic, total=total)
    k = s.sum() if statistic == "mean" else 1
    exact = x[s].sum() / k
    assert low <= exact <= high
    want_low, want_high = lo[s].sum(), hi[s].sum()
    if total_known:
        want_low = max(want_low, total - hi[~s].sum())
        want_high = min(want_high, total - lo[~s].sum())
    scale = (np.abs(lo).sum() + np.abs(hi).sum()) / k + 1e-300
    assert abs(low - want_low / k) <= 1e-7 * scale
    assert abs(high - want_high / k) <= 1e-7 * scale


def test_relative_intervals_by_hand():
    # [x - a|x|, x + b|x|], a then b = c x default_rng(5).random(n)
    x = np.array([10.0, -20, 0, np.nan])
    lo, hi = relative_intervals(x, 0.5, np.random.default_rng(5))
    rng = np.random.default_rng(5)
    a, b = 0.5 * rng.random(4), 0.5 * rng.random(4)
    np.testing.assert_allclose(lo[:3], x[:3] - a[:3] * np.abs(x[:3]), rtol=1e-15)
    np.testing.assert_allclose(hi[:3], x[:3] + b[:3] * np.abs(x[:3]), rtol=1e-15)
    assert lo[2] == hi[2] == 0 and np.isnan(lo[3]) and np.isnan(hi[3])
    assert np.all(lo[:3] <= x[:3]) and np.all(x[:3] <= hi[:3])
