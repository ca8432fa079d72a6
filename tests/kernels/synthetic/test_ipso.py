"""IPSO kernel (seed 000, "The IPSO family"; Burridge 2003) and its least squares:
B keeps the OLS coefficients exactly, C also the residual covariance (hence means and
covariances), A only in distribution."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.synthetic.design import Design
from sdcflow.kernels.synthetic.ipso import ipso
from sdcflow.kernels.synthetic.least_squares import TooFewRecords


def ols(X, Y):
    """Reference: numpy's SVD least squares on [1, X] -> (coefficients, residual SSP)."""
    D = np.column_stack([np.ones(len(X)), X])
    B = np.linalg.lstsq(D, Y, rcond=None)[0]
    R = Y - D @ B
    return B, R.T @ R


def sample(n=500, seed=0):
    """Three predictors (one a 0/1 dummy) and two correlated responses on income-like
    scales, so that relative precision is what is tested."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.standard_normal(n) * 10 + 40, rng.integers(0, 2, n),
                         rng.gamma(2.0, 3.0, n)])
    E = rng.standard_normal((n, 2)) @ np.array([[1.0, 0.5], [0.0, 0.8]])
    Y = 1000 * (X @ np.array([[2.0, 1.0], [5.0, -3.0], [0.5, 0.2]]) + 10 * E + 50)
    return X, Y


def assert_same(a, b, rel=1e-9):
    np.testing.assert_allclose(a, b, rtol=rel, atol=rel * np.abs(b).max())


def test_variant_b_keeps_the_ols_coefficients_exactly():
    X, Y = sample()
    out = ipso(X, Y, np.random.default_rng(1), variant="B")
    B0, S0 = ols(X, Y)
    B1, S1 = ols(X, out)
    assert_same(B1, B0)
    # but not the residual covariance, and the records are changed
    assert not np.allclose(S1, S0, rtol=1e-3)
    assert np.all(out != Y)


def test_variant_c_keeps_coefficients_and_residual_covariance_exactly():
    X, Y = sample()
    out = ipso(X, Y, np.random.default_rng(1), variant="C")
    B0, S0 = ols(X, Y)
    B1, S1 = ols(X, out)
    assert_same(B1, B0)
    assert_same(S1, S0)
    # hence (with the intercept) the means and the whole covariance matrix of (X, Y)
    before, after = np.column_stack([X, Y]), np.column_stack([X, out])
    assert_same(after.mean(axis=0), before.mean(axis=0))
    assert_same(np.cov(after.T), np.cov(before.T))
    assert np.all(np.abs(out - Y) > 1e-6 * np.abs(Y))


def test_variant_a_keeps_the_model_in_distribution_only():
    X, Y = sample(n=4000, seed=3)
    n = len(X)
    B0, S0 = ols(X, Y)
    out = ipso(X, Y, np.random.default_rng(2), variant="A")
    B1, S1 = ols(X, out)
    # B1 - B0 = (D'D)^-1 D'E with E ~ N(0, S0/n): standard error sqrt(diag((D'D)^-1) s_jj)
    D = np.column_stack([np.ones(n), X])
    se = np.sqrt(np.outer(np.diag(np.linalg.inv(D.T @ D)), np.diag(S0) / n))
    assert np.all(np.abs(B1 - B0) < 6 * se)
    assert not np.allclose(B1, B0, rtol=1e-6)
    # the residual variances: chi-square with n - 4 degrees of freedom around
    # (n - 4) s_jj / n, relative standard error sqrt(2 / (n - 4))
    ratio = np.diag(S1) / (np.diag(S0) * (n - 4) / n)
    assert np.all(np.abs(ratio - 1) < 6 * np.sqrt(2 / (n - 4)))


@settings(max_examples=40, deadline=None)
@given(st.integers(8, 80), st.integers(0, 4), st.integers(1, 3), st.integers(0, 3),
       st.sampled_from(["B", "C"]), st.integers(0, 2**32 - 1))
def test_b_and_c_are_exact_on_random_designs(n, q, m, levels, variant, seed):
    rng = np.random.default_rng(seed)
    cols = [rng.standard_normal((n, q)) * rng.uniform(0.1, 1e4, q)]
    if levels:  # dummies of a categorical predictor (some levels possibly absent)
        codes = rng.integers(0, levels + 1, n)
        cols.append((codes[:, None] == np.arange(1, levels + 1)).astype(float))
    X = np.hstack(cols)
    Y = X @ rng.standard_normal((X.shape[1], m)) + rng.standard_normal((n, m)) * 5 + 7
    try:
        out = ipso(X, Y, np.random.default_rng([seed, 1]), variant=variant)
    except TooFewRecords:
        assert n - np.linalg.matrix_rank(Design.of(X).toarray()) < (m if variant == "C" else 1)
        return
    D = np.column_stack([np.ones(n), X])
    fit0, fit1 = D @ ols(X, Y)[0], D @ ols(X, out)[0]
    assert_same(fit1, fit0, rel=1e-8)  # fitted values: unique even for rank-deficient X
    if variant == "C":
        assert_same(ols(X, out)[1], ols(X, Y)[1], rel=1e-8)


def test_rank_deficient_design_duplicate_and_empty_columns():
    X, Y = sample(n=300, seed=4)
    Xd = np.column_stack([X, X[:, 0] * 2.0, np.zeros(len(X))])  # collinear and zero
    out = ipso(Xd, Y, np.random.default_rng(5), variant="C")
    B0, S0 = ols(X, Y)
    B1, S1 = ols(X, out)  # the same column space as Xd
    assert_same(B1, B0)
    assert_same(S1, S0)


def test_a_record_fitted_exactly_is_reproduced_by_b_and_c():
    # a category with a single record (its own dummy) has leverage 1: its residual is
    # zero in every variant, and B and C remove the noise from it (documented risk)
    X, Y = sample(n=100, seed=6)
    alone = np.zeros(len(X))
    alone[17] = 1.0
    Xa = np.column_stack([X, alone])
    for variant in ("B", "C"):
        out = ipso(Xa, Y, np.random.default_rng(7), variant=variant)
        assert_same(out[17], Y[17])
        assert np.all(out[:17] != Y[:17])
    assert np.all(ipso(Xa, Y, np.random.default_rng(7), variant="A")[17] != Y[17])


def test_determinism_and_one_dimensional_input():
    X, Y = sample(n=50)
    a = ipso(X, Y[:, 0], np.random.default_rng(9))
    b = ipso(X, Y[:, 0], np.random.default_rng(9))
    assert a.shape == (50,) and np.array_equal(a, b)
    assert not np.array_equal(a, ipso(X, Y[:, 0], np.random.default_rng(10)))


def test_too_few_records_and_bad_variant():
    X = np.arange(6.0).reshape(3, 2) ** 2
    with pytest.raises(TooFewRecords):
        ipso(X, np.ones((3, 1)), np.random.default_rng(0), variant="B")  # 3 params
    with pytest.raises(TooFewRecords):  # C needs n - rank >= m: 4 - 2 < 3
        ipso(np.arange(4.0), np.random.default_rng(1).standard_normal((4, 3)),
             np.random.default_rng(0), variant="C")
    with pytest.raises(ValueError):
        ipso(X, np.ones(3), np.random.default_rng(0), variant="D")
