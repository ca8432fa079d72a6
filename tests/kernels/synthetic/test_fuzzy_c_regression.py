"""Fuzzy c-regression models (Hathaway & Bezdek 1993) and the synthetic data drawn from
them (Cano & Torra, FUZZ-IEEE 2009). Expected values worked out by hand."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.synthetic.fuzzy_c_regression import fuzzy_c_regression, synthesise
from sdcflow.kernels.synthetic.least_squares import TooFewRecords

# two crossing lines, y = 1 + 2x and y = 10 - x (they meet at x = 3, left out)
X_LINES = np.array([0, 1, 2, 4, 5, 6] * 2, dtype=float)
Y_LINES = np.r_[1 + 2 * X_LINES[:6], 10 - X_LINES[6:]]
DESIGN = np.column_stack([np.ones(12), X_LINES])


def test_two_lines_are_found_exactly():
    # each record lies on one of the lines: J = 0 there, the global minimum, with each
    # record's membership 1 to its line (its residual under the other is 9 to 144)
    fit = fuzzy_c_regression(DESIGN, Y_LINES, 2, np.random.default_rng(0))
    np.testing.assert_allclose(fit.coefficients[:, :, 0], [[1, 2], [10, -1]], atol=1e-9)
    np.testing.assert_allclose(fit.membership[:6, 0], 1, atol=1e-9)
    np.testing.assert_allclose(fit.membership[6:, 1], 1, atol=1e-9)
    assert fit.objective == pytest.approx(0, abs=1e-12)
    # as many models as the data have lines: the synthetic values are the original ones
    # (the risk end of the trade-off)
    for output in ("weighted", "maximum"):
        np.testing.assert_allclose(synthesise(DESIGN, Y_LINES, 2, np.random.default_rng(1),
                                              output=output), Y_LINES, atol=1e-9)


def test_fuzzy_c_means_start_alone_gets_stuck_and_restarts_fix_it():
    # started only from fuzzy c-means on (x, y), FCRM settles on two parallel lines of
    # slope 1/2 (J = 16.73): why the kernel restarts from random memberships too
    stuck = fuzzy_c_regression(DESIGN, Y_LINES, 2, np.random.default_rng(0), restarts=1)
    np.testing.assert_allclose(stuck.coefficients[:, 1, 0], [0.5, 0.5], atol=1e-6)
    assert stuck.objective == pytest.approx(16.7315, abs=1e-4)


def test_one_model_is_least_squares_by_hand():
    # x = 0..3, y = 1, 3, 2, 5: Sxy = 5.5, Sxx = 5, slope 1.1, intercept 2.75 - 1.65 = 1.1
    X = np.column_stack([np.ones(4), np.arange(4.0)])
    y = np.array([1.0, 3, 2, 5])
    np.testing.assert_allclose(synthesise(X, y, 1, np.random.default_rng(0)),
                               [1.1, 2.2, 3.3, 4.4])


def test_memberships_follow_the_residuals_by_hand():
    # records on y = 0 and on y = 4 (x = 0, 1, 2, forty times each) and one at y = 1: its
    # squared residuals under the models y = 0 and y = 4 are E = (1, 9), so with m = 2
    # u = E_2 / (E_1 + E_2) = 0.9 and 0.1, and its weighted synthetic value is
    # 0.9 * 0 + 0.1 * 4 = 0.4 (its own pull on the 240 others moves the models a little:
    # the formula is checked exactly against the fitted models, the figures to 1e-2)
    x = np.r_[np.tile([0.0, 1, 2], 80), 1.0]
    y = np.r_[np.zeros(120), np.full(120, 4.0), 1.0]
    X = np.column_stack([np.ones(len(x)), x])
    fit = fuzzy_c_regression(X, y, 2, np.random.default_rng(0))
    predicted = fit.predictions(X)[:, -1, 0]
    residuals = (y[-1] - predicted) ** 2
    np.testing.assert_allclose(fit.membership[-1], [residuals[1], residuals[0]]
                               / residuals.sum(), rtol=1e-6)
    assert fit.membership[-1, 0] == pytest.approx(0.9, abs=0.01)
    out = synthesise(X, y, 2, np.random.default_rng(0))
    assert out[-1] == pytest.approx(fit.membership[-1] @ predicted, rel=1e-6)
    assert out[-1] == pytest.approx(0.4, abs=0.05)


def test_too_few_records():
    with pytest.raises(TooFewRecords):
        fuzzy_c_regression(DESIGN[:2], Y_LINES[:2], 2, np.random.default_rng(0))
    with pytest.raises(ValueError, match="fuzzifier"):
        fuzzy_c_regression(DESIGN, Y_LINES, 2, np.random.default_rng(0), m=1.0)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 1000), n=st.integers(6, 30), c=st.integers(1, 3),
       m=st.floats(1.3, 4.0))
def test_invariants(seed, n, c, m):
    rng = np.random.default_rng(seed)
    X = np.column_stack([np.ones(n), rng.normal(size=(n, 2))])
    Y = rng.normal(size=(n, 2))
    fit = fuzzy_c_regression(X, Y, c, np.random.default_rng(seed), m=m, restarts=3)
    u = fit.membership
    assert u.shape == (n, c) and (u >= 0).all()
    np.testing.assert_allclose(u.sum(axis=1), 1)
    again = synthesise(X, Y, c, np.random.default_rng(seed), m=m, restarts=3)
    np.testing.assert_array_equal(again, synthesise(X, Y, c, np.random.default_rng(seed),
                                                    m=m, restarts=3))  # deterministic
    # the weighted output is a convex combination of the models' predictions
    predicted = fit.predictions(X)
    assert (again >= predicted.min(axis=0) - 1e-9).all()
    assert (again <= predicted.max(axis=0) + 1e-9).all()
