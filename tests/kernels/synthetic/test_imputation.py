"""Sequential regression synthesis kernel (seed 000, "Multiple imputation"; Rubin 1993,
Raghunathan, Reiter & Rubin 2003): means, regressions and correlations reproduced within
sampling error on a large seeded sample; determinism; exact linear identities."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.synthetic.imputation import sequential_regression
from sdcflow.kernels.synthetic.ipso import TooFewRecords

N = 20_000


def population(n=N, seed=8):
    """x1 normal, x2 a 0/1 dummy; y1 = 2 + 3 x1 + 5 x2 + N(0, 2^2),
    y2 = -1 + 0.5 y1 + x1 + N(0, 1), y3 = y1 + y2 exactly."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.standard_normal(n), rng.integers(0, 2, n)])
    y1 = 2 + 3 * X[:, 0] + 5 * X[:, 1] + 2 * rng.standard_normal(n)
    y2 = -1 + 0.5 * y1 + X[:, 0] + rng.standard_normal(n)
    return X, np.column_stack([y1, y2, y1 + y2])


def ols(X, y):
    D = np.column_stack([np.ones(len(X)), X])
    beta = np.linalg.lstsq(D, y, rcond=None)[0]
    resid = y - D @ beta
    se = np.sqrt(resid @ resid / (len(y) - D.shape[1]) * np.diag(np.linalg.inv(D.T @ D)))
    return beta, se


@pytest.fixture(scope="module")
def synthetic():
    X, Y = population()
    return X, Y, sequential_regression(X, Y, np.random.default_rng(1))


def test_means_within_sampling_error(synthetic):
    _, Y, S = synthetic
    # the synthetic mean differs from the original by the posterior draw of the
    # parameters and the new noise (each about var / n) plus what the earlier synthetic
    # variables carry over: at most 3 var(y) / n; 6 sigma
    se = np.sqrt(3 * Y.var(axis=0) / N)
    assert np.all(np.abs(S.mean(axis=0) - Y.mean(axis=0)) < 6 * se)


def test_regressions_on_the_predictors_within_sampling_error(synthetic):
    X, Y, S = synthetic
    for j in range(3):
        beta, se = ols(X, Y[:, j])
        beta_syn, _ = ols(X, S[:, j])
        # original estimate, posterior draw and synthetic noise: at most sqrt(3) times
        # the standard error of the original estimate between the two; 6 sigma
        assert np.all(np.abs(beta_syn - beta) < 6 * np.sqrt(3) * se), j
    # and the regression of y2 on y1 and the predictors (the sequential model itself)
    D = np.column_stack([X, Y[:, 0]])
    Ds = np.column_stack([X, S[:, 0]])
    beta, se = ols(D, Y[:, 1])
    assert np.all(np.abs(ols(Ds, S[:, 1])[0] - beta) < 6 * np.sqrt(3) * se)


def test_variances_and_correlation_within_sampling_error(synthetic):
    _, Y, S = synthetic
    # relative standard error of a variance about sqrt(2 / n), twice for the difference
    ratio = S[:, :2].var(axis=0) / Y[:, :2].var(axis=0)
    assert np.all(np.abs(ratio - 1) < 6 * 2 * np.sqrt(2 / N))
    rho = np.corrcoef(Y[:, 0], Y[:, 1])[0, 1]
    rho_syn = np.corrcoef(S[:, 0], S[:, 1])[0, 1]
    assert abs(rho_syn - rho) < 6 * 2 * (1 - rho ** 2) / np.sqrt(N)


def test_an_exact_linear_identity_is_kept_when_the_total_comes_last(synthetic):
    # y3 = y1 + y2 has no residual: its posterior variance is 0, so the synthetic y3 is
    # the same combination of the synthetic y1 and y2
    _, _, S = synthetic
    np.testing.assert_allclose(S[:, 2], S[:, 0] + S[:, 1], rtol=1e-8,
                               atol=1e-8 * np.abs(S[:, 2]).max())


def test_records_are_synthetic_not_copies(synthetic):
    _, Y, S = synthetic
    assert np.all(S[:, :2] != Y[:, :2])
    # the synthetic value of a record is only loosely tied to its original value:
    # y1 given x has residual sd 2, so |y1* - y1| has mean about 2 * 2 / sqrt(pi) = 2.26
    assert np.mean(np.abs(S[:, 0] - Y[:, 0])) > 1.5


@settings(max_examples=30, deadline=None)
@given(st.integers(6, 40), st.integers(0, 3), st.integers(1, 3), st.integers(0, 2**32 - 1))
def test_deterministic_for_a_seed_and_finite(n, q, m, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, q))
    Y = rng.standard_normal((n, m)) * 100 + 50
    if n <= q + m:
        return
    a = sequential_regression(X, Y, np.random.default_rng([seed, 1]))
    b = sequential_regression(X, Y, np.random.default_rng([seed, 1]))
    assert np.array_equal(a, b) and np.all(np.isfinite(a))


def test_rank_deficient_predictors_and_no_predictors():
    X, Y = population(n=300)
    Xd = np.column_stack([X, X[:, 0], np.zeros(300), np.full(300, 4.0)])
    out = sequential_regression(Xd, Y[:, :2], np.random.default_rng(3))
    assert out.shape == (300, 2) and np.all(np.isfinite(out))
    alone = sequential_regression(np.empty((300, 0)), Y[:, 0], np.random.default_rng(3))
    assert alone.shape == (300,)
    assert abs(alone.mean() - Y[:, 0].mean()) < 6 * np.sqrt(3 * Y[:, 0].var() / 300)


def test_too_few_records():
    with pytest.raises(TooFewRecords):
        sequential_regression(np.array([[1.0], [2.0]]), np.array([1.0, 3.0]),
                              np.random.default_rng(0))
