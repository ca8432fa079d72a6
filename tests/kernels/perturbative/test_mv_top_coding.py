"""Multivariate top coding (sdcMicro's ``mvTopCoding``, R/mvTopCoding.R): outliers beyond
the squared Mahalanobis distance d = qchisq(1 - alpha, p) are moved to
centre + sqrt(d / D2) (x - centre). Expected values worked out by hand from that
definition (R is not installed)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.perturbative.mv_top_coding import (
    location_scatter,
    mv_top_code,
    squared_distances,
)

CHI2_975_1 = 5.023886187314888  # qchisq(0.975, 1) = qnorm(0.9875)^2 = 2.241403^2
CHI2_975_2 = -2 * math.log(0.025)  # qchisq(1 - a, 2) = -2 log(a): 7.377759


def test_one_variable_by_hand():
    # nine zeros and a ten: mean 1, variance (9 * 1 + 81) / 9 = 10; D2(10) = 81/10 = 8.1
    # > 5.0239, so 10 moves to 1 + sqrt(5.0239 / 8.1) * 9 = 1 + sqrt(10 * 5.0239) = 8.087938
    x = np.array([0.0] * 9 + [10.0])[:, None]
    done = mv_top_code(x, estimator="classical")
    assert done.limit == pytest.approx(CHI2_975_1)
    assert done.coded.tolist() == [False] * 9 + [True]
    assert done.values[9, 0] == pytest.approx(1 + math.sqrt(10 * CHI2_975_1))
    assert done.values[9, 0] == pytest.approx(8.087938, abs=1e-6)
    np.testing.assert_array_equal(done.values[:9], x[:9])


def test_two_variables_by_hand():
    # (+-1, +-1) four times each and the outliers (10, 10), (-10, -10): mean 0,
    # Sxx = Syy = (16 + 200) / 17, Sxy = 200 / 17; along (1, 1) the variance is
    # Sxx + Sxy = 416 / 17, so D2(10, 10) = 200 / (416 / 17) = 8.173 > 7.378 (= -2 log 0.025)
    # and it moves to sqrt(7.3778 * 416 / 3400) (10, 10) = (9.50100, 9.50100); along
    # (1, -1) the variance is 16 / 17: D2(1, -1) = 2.125, not coded
    corners = [(1, 1), (1, -1), (-1, 1), (-1, -1)] * 4
    x = np.array(corners + [(10, 10), (-10, -10)], dtype=float)
    done = mv_top_code(x, estimator="classical")
    assert done.coded.sum() == 2 and done.coded[-2:].all()
    factor = math.sqrt(CHI2_975_2 * 416 / 3400)
    np.testing.assert_allclose(done.values[-2], [10 * factor, 10 * factor])
    np.testing.assert_allclose(done.values[-1], [-10 * factor, -10 * factor])
    assert done.values[-2, 0] == pytest.approx(9.50100, abs=1e-5)
    np.testing.assert_array_equal(done.values[:-2], x[:-2])
    # alpha = 0.001: d = -2 log(0.001) = 13.8 > 8.17, nothing is coded
    assert not mv_top_code(x, 0.001, "classical").coded.any()


def test_a_record_with_a_missing_value_is_left_alone_and_out_of_the_estimate():
    x = np.array([0.0] * 9 + [10.0, np.nan])[:, None]
    x = np.column_stack([x, np.ones(11) + np.arange(11) % 2])
    x[10, 1] = 50.0  # far out, but its first value is missing: no distance (R: NA)
    done = mv_top_code(x, estimator="classical")
    assert done.incomplete == 1 and not done.coded[10]
    np.testing.assert_array_equal(done.values[10], x[10])
    center, _ = location_scatter(x, "classical")
    np.testing.assert_allclose(center, x[:10].mean(axis=0))


def test_mcd_sees_the_outliers_that_mask_themselves():
    # 40 records near the line y = x and 6 records together far off it: their own cluster
    # inflates the classical covariance so that they do not stand out (the masking
    # effect); the robust MCD (sdcMicro's default) finds all six
    rng = np.random.default_rng(3)
    t = rng.normal(0, 1, 40)
    good = np.column_stack([t, t + rng.normal(0, 0.1, 40)])
    bad = np.array([[2.5, -2.5]]) + rng.normal(0, 0.05, (6, 2))
    x = np.vstack([good, bad])
    assert not mv_top_code(x, estimator="classical").coded[-6:].all()
    done = mv_top_code(x, rng=np.random.default_rng(0))
    assert done.coded[-6:].all()
    # each coded record lies on the ellipsoid of the MCD's centre and scatter
    center, cov = location_scatter(x, "mcd", np.random.default_rng(0))
    d2 = squared_distances(done.values[done.coded], center, cov)
    np.testing.assert_allclose(d2, done.limit)


def test_singular_scatter_is_an_error():
    x = np.column_stack([np.arange(10.0), 2 * np.arange(10.0)])
    with pytest.raises(ValueError, match="singular"):
        mv_top_code(x, estimator="classical")
    with pytest.raises(ValueError, match="alpha"):
        mv_top_code(x, alpha=1.0)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(8, 40), p=st.integers(1, 3),
       alpha=st.floats(0.001, 0.5))
def test_invariants(seed, n, p, alpha):
    rng = np.random.default_rng(seed)
    x = rng.standard_t(2, (n, p))
    done = mv_top_code(x, alpha, "classical")
    center, cov = location_scatter(x, "classical")
    before = squared_distances(x, center, cov)
    after = squared_distances(done.values, center, cov)
    # nothing beyond the ellipsoid remains; the coded are on it, the others unchanged
    assert (after <= done.limit * (1 + 1e-9)).all()
    np.testing.assert_allclose(after[done.coded], done.limit)
    np.testing.assert_array_equal(done.values[~done.coded], x[~done.coded])
    assert (done.coded == (before > done.limit)).all()
    # pulled towards the centre along the same line: same direction, shorter
    moved = done.values[done.coded] - center
    orig = x[done.coded] - center
    ratio = np.linalg.norm(moved, axis=1) / np.linalg.norm(orig, axis=1)
    np.testing.assert_allclose(moved, orig * ratio[:, None], atol=1e-9)
    assert (ratio < 1).all()
