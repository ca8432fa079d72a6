"""sdcMicro's dRisk and dRiskRMD kernels, and the MCD covariance they use."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from r_rng import r_rnorm

from sdcflow.kernels.risk.distance_risk import d_risk, d_risk_rmd
from sdcflow.kernels.risk.robust_covariance import (
    consistency_factor,
    finite_sample_factor,
    mcd,
    mcd_covariance,
)


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


def test_correction_factors_as_robustbase():
    # robustbase's published covMcd results (its tests/MCD-specials.Rout.save): p = 1,
    # n = 52, h = 27: raw.cnp2 = (6.45, 1.14), cnp2 = (1.17, 1.01); n = 12, h = 7:
    # raw.cnp2 = (4.97, 1.41) (printed to 3 digits)
    assert round(consistency_factor(1, 27 / 52), 2) == 6.45
    assert round(finite_sample_factor(1, 52), 2) == 1.14
    assert round(consistency_factor(1, 0.975), 2) == 1.17
    assert round(finite_sample_factor(1, 52, raw=False), 2) == 1.01
    assert round(consistency_factor(1, 7 / 12), 2) == 4.97
    assert round(finite_sample_factor(1, 12), 2) == 1.41
    # .MCDcons by hand for p = 2 (chi2_2 quantile -2 log(1 - a), chi2_4 cdf
    # 1 - e^(-q/2) (1 + q/2)): a = h/n = 51/100 gives 0.51 / (1 - 0.49 (1 - log 0.49))
    assert consistency_factor(2, 0.51) == pytest.approx(0.51 / (1 - 0.49 * (1 - math.log(0.49))))
    # .MCDcnp2 by hand: p = 2, n = 100: 1 / (1 - exp(0.673292623522027) / 100^0.691365864961895)
    assert finite_sample_factor(2, 100) == pytest.approx(
        1 / (1 - math.exp(0.673292623522027) / 100 ** 0.691365864961895))
    assert finite_sample_factor(2, 100, raw=False) == pytest.approx(
        1 / (1 - math.exp(3.11101712909049) / 100 ** 1.91401056721863))
    # p = 3: a - b log(2 * 9) = log(1.42764571687802 / 3^1.26263336932151) and
    # a - b log(3 * 9) = log(1.06141115981725 / 3^1.28907991440387) give a = 1.2890912,
    # b = 0.8027372; n = 50: 1 / (1 - e^a / 50^b) = 1.1863002
    assert finite_sample_factor(3, 50) == pytest.approx(1.1863002, abs=1e-7)
    # small n at alpha = 1/2: robustbase's simulated values (MCDcnp2s): p = 2, n = 5 and
    # p = 5, n = 12
    assert finite_sample_factor(2, 5) == pytest.approx(1.799889)
    assert finite_sample_factor(2, 5, raw=False) == pytest.approx(1.418526)
    assert finite_sample_factor(5, 12) == pytest.approx(2.016117)
    assert finite_sample_factor(5, 12, raw=False) == pytest.approx(1.784373)


def test_univariate_mcd_as_robustbase_publishes_it():
    # robustbase's tests/MCD-specials.R: set.seed(1); x <- c(rnorm(50), 100, 1e10);
    # covMcd(x) prints centre 0.1922, covariance 0.5978, raw centre 0.325, raw
    # covariance 0.839, Log(Det.) -2.13, outliers 14, 24, 51, 52 (R's random numbers
    # rebuilt in tests/r_rng.py: the first five, -0.626 0.184 -0.836 1.595 0.33, as
    # printed there)
    normal = r_rnorm(1, 50)
    np.testing.assert_allclose(normal[:5], [-0.626, 0.184, -0.836, 1.595, 0.33], atol=5e-4)
    x = np.concatenate([normal, [100.0, 1e10]])[:, None]
    m = mcd(x)
    assert round(float(m.center[0]), 4) == 0.1922
    assert round(float(m.cov[0, 0]), 4) == 0.5978
    assert round(float(m.raw_center[0]), 3) == 0.325
    assert round(float(m.raw_cov[0, 0]), 3) == 0.839
    assert round(m.crit, 2) == -2.13
    assert (np.flatnonzero(~m.weights) + 1).tolist() == [14, 24, 51, 52]


def _least_log_det(x: np.ndarray, h: int) -> float:
    """The smallest log determinant of the covariance of h of the records, by trying
    every h-subset."""
    best = np.inf
    for subset in itertools.combinations(range(len(x)), h):
        sign, logdet = np.linalg.slogdet(np.cov(x[list(subset)], rowvar=False))
        if sign > 0:
            best = min(best, logdet)
    return best


def test_mcd_finds_the_minimum_determinant_subset():
    # 12 records, h = 7: every one of the 792 7-subsets tried. The least log determinant
    # is -2.278667; the MCD's five deterministic starts refined by C-steps stopped at
    # -2.230013 before (the finding: a larger determinant than one that exists)
    x = np.array([[-1.6, -1.2], [-1.1, 1.8], [0.6, -1.6], [-0.4, -0.6], [0.3, -0.3],
                  [-0.7, -0.6], [-0.1, -1.0], [2.0, -0.2], [-1.1, 0.4], [0.1, 0.1],
                  [0.6, -2.2], [1.2, -0.8]])
    least = _least_log_det(x, 7)
    assert least == pytest.approx(-2.278667, abs=1e-6)
    assert mcd(x).crit == pytest.approx(least, abs=1e-9)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(7, 11), st.sampled_from([2, 3]))
def test_mcd_reaches_the_least_determinant_on_small_data(seed, n, p):
    # invariant: on data small enough to try every h-subset, the search finds the least
    # determinant (heavy-tailed data, where starts disagree most)
    x = np.random.default_rng(seed).standard_t(2, (n, p))
    h = (n + p + 1) // 2
    assert mcd(x, np.random.default_rng(seed)).crit <= _least_log_det(x, h) + 1e-9


def test_detmcd_gives_its_six_starts():
    # the docstring promised DetMCD's six initial estimates where the code had five (the
    # Gnanadesikan-Kettenring start was missing): six h-subsets on data in general position
    from sdcflow.kernels.risk.robust_covariance import _deterministic_starts

    z = np.random.default_rng(2).normal(size=(40, 3))
    starts = list(_deterministic_starts(z, 22))
    assert len(starts) == 6 and all(len(s) == 22 for s in starts)


def test_mcd_is_deterministic_from_the_generator():
    rng = np.random.default_rng(7)
    x = rng.standard_t(3, (300, 3))
    a = mcd(x, np.random.default_rng(1))
    b = mcd(x, np.random.default_rng(1))
    assert np.array_equal(a.cov, b.cov) and np.array_equal(a.best, b.best)


def test_mcd_on_clean_normal_data_is_consistent():
    # without outliers the reweighted, consistency-corrected MCD estimates the covariance
    rng = np.random.default_rng(5)
    x = rng.normal(size=(4000, 2)) * [1.0, 3.0]
    np.testing.assert_allclose(np.diag(mcd_covariance(x)), [1.0, 9.0], rtol=0.08)
    with pytest.raises(ValueError, match="more records than variables"):
        mcd_covariance(np.ones((3, 2)))


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
