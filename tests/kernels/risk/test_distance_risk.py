"""sdcMicro's dRisk and dRiskRMD kernels, and the MCD covariance they use."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdcflow.kernels.risk.distance_risk import d_risk, d_risk_rmd
from sdcflow.kernels.risk.robust_covariance import mcd_covariance


def test_d_risk_by_hand():
    # masked column (0, 10, 20, 30) has sd sqrt(500/3) = 12.9099; k = 0.05: half-width
    # 0.645497. Original (0.5, 10.7, 20, 29.3): |diffs| 0.5, 0.7, 0, 0.7 -> records 0 and 2
    # inside; a second variable (masked 1, 2, 3, 4: sd 1.290994, half-width 0.0645497),
    # original (1.06, 2, 3.07, 4): record 2 is outside there (0.07) -> only record 0
    xm = np.array([[0.0, 1], [10, 2], [20, 3], [30, 4]])
    x = np.array([[0.5, 1.06], [10.7, 2], [20, 3.07], [29.3, 4]])
    assert d_risk(x[:, 0], xm[:, 0]).tolist() == [True, False, True, False]
    assert d_risk(x, xm).tolist() == [True, False, False, False]
    # k = 0.1 doubles the widths: 1.291 and 0.1291 -> records 0, 1, 2, 3 all inside
    assert d_risk(x, xm, k=0.1).all()


def test_d_risk_missing_comparisons_are_left_out():
    # as sdcMicro's rowSums(..., na.rm = TRUE): record 1's missing masked value is not
    # compared, its other value is inside; record 2 has nothing to compare: at risk.
    # masked sd of (0, 10, 20) is 10, of (1, 2) 0.7071
    x = np.array([[0.0, 1.0], [10.0, 5.0], [99.0, np.nan]])
    xm = np.array([[0.0, 1.0], [10.2, np.nan], [np.nan, 2.0]])
    xm[2, 0] = 20.0
    x[2, 0] = np.nan
    assert d_risk(x, xm).tolist() == [True, True, True]
    xm[0, 1] = 1.5  # 0.5 > 0.05 * 0.7071 away: record 0 leaves
    assert d_risk(x, xm).tolist() == [False, True, True]


def test_mcd_ignores_outliers():
    # 20% of the records shifted far away: the classical covariance is inflated, the
    # MCD's stays near the generating one (diag 1, 1, 2; covariance 0.5 between 0 and 1)
    rng = np.random.default_rng(3)
    truth = np.array([[1, 0.5, 0], [0.5, 1, 0], [0, 0, 2.0]])
    x = rng.multivariate_normal(np.zeros(3), truth, 1000)
    x[:200] += 15
    cov = mcd_covariance(x)
    assert np.abs(cov - truth).max() < 0.2
    assert np.abs(np.cov(x, rowvar=False) - truth).max() > 10


def test_mcd_on_clean_normal_data_is_consistent():
    # without outliers the reweighted, consistency-corrected MCD estimates the covariance
    rng = np.random.default_rng(5)
    x = rng.normal(size=(4000, 2)) * [1.0, 3.0]
    np.testing.assert_allclose(np.diag(mcd_covariance(x)), [1.0, 9.0], rtol=0.08)
    with pytest.raises(ValueError, match="more records than variables"):
        mcd_covariance(np.ones((2, 2)))


def test_d_risk_rmd_by_hand_with_identity_covariance():
    # data symmetric about 0 where every point is inside the MCD half: covariance
    # estimate is diagonal; rmd = 0.05 * sqrt(x' C^-1 x) on standardised data. With
    # masked = original every record is close (xm strictly inside x +- k rmd needs rmd > 0:
    # the centre record at 0 has rmd 0 and is not close); isolated: nearest other masked
    # record farther than k2.
    x = np.array([[-2.0, 0], [2, 0], [0, -2], [0, 2], [0, 0], [-1, -1], [1, 1], [-1, 1],
                  [1, -1]])
    res = d_risk_rmd(x, x.copy())
    assert res.rmd[4] == 0.0 and not res.close[4]
    assert res.close.sum() == 8 and res.isolated.sum() == 8
    s = res.summary()
    assert s["risk1"] == pytest.approx(8 / 9) and s["risk2"] == pytest.approx(8 / 9)
    # wrisk1 = count * sum(rmd) / n (sdcMicro's formula)
    assert s["wrisk1"] == pytest.approx(8 * res.rmd.sum() / 9)
    # two masked records made identical: not isolated any more
    xm = x.copy()
    xm[6] = xm[5]
    res = d_risk_rmd(x, xm)
    assert not res.isolated[5] and not res.isolated[6]


def test_d_risk_rmd_missing_values_and_errors():
    x = np.array([[-2.0, 0], [2, 0], [0, -2], [0, 2], [0, 0], [-1, -1], [1, 1], [-1, 1],
                  [1, -1], [np.nan, 1]])
    res = d_risk_rmd(x, x.copy())
    assert np.isnan(res.rmd[9]) and not res.close[9] and not res.isolated[9]
    with pytest.raises(ValueError, match="no variation"):
        d_risk_rmd(np.ones((5, 1)), np.ones((5, 1)))
    with pytest.raises(ValueError, match="compared by position"):
        d_risk(np.ones((5, 1)), np.ones((4, 1)))


@given(st.lists(st.floats(-100, 100), min_size=3, max_size=30), st.floats(0.01, 1))
def test_d_risk_is_monotone_in_k(col, k):
    # invariant: widening the intervals never removes a record at risk; unmasked data
    # are all at risk
    rng = np.random.default_rng(len(col))
    x = np.array(col)
    xm = x + rng.normal(size=x.size)
    assert (d_risk(x, xm, k) <= d_risk(x, xm, 2 * k)).all()
    assert d_risk(x, x, k).all()


def test_d_risk_rmd_exact_fit_falls_back_to_the_classical_covariance():
    # 60 of 100 records share the value 0 of the second variable: every h-subset
    # (h = 51) of the MCD has a singular covariance; the classical one is used and said
    rng = np.random.default_rng(0)
    x = rng.normal(size=(100, 2))
    x[:60, 1] = 0
    res = d_risk_rmd(x, x + 0.01)
    assert not res.robust
    assert np.isfinite(res.rmd).all() and res.rmd.min() >= 0
    assert d_risk_rmd(rng.normal(size=(50, 2)), rng.normal(size=(50, 2))).robust
