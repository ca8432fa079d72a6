"""Least squares by blocks of rows (the machinery of IPSO, shuffling and sequential
regression imputation): against numpy's lstsq and QR, on arrays and on designs held by
their terms."""

import numpy as np
import pytest

from sdcflow.kernels.synthetic.design import Columns, Constant, Design, Indicators
from sdcflow.kernels.synthetic.least_squares import (
    LeastSquares,
    cross,
    product,
    residual_products,
    transform_rows,
    triangular_factor,
)


def assert_same(a, b, rel=1e-9):
    np.testing.assert_allclose(a, b, rtol=rel, atol=rel * np.abs(b).max())


def test_least_squares_matches_lstsq_and_makes_orthogonal_residuals():
    rng = np.random.default_rng(11)
    n = 2000
    # badly scaled columns: an income-like one, a year-like one, and a small dummy
    X = np.column_stack([np.ones(n), rng.gamma(2.0, 2e4, n), 2000 + rng.integers(0, 5, n),
                         rng.integers(0, 2, n)])
    Y = rng.standard_normal((n, 2)) * 1e3 + X[:, 1:2] * 0.3
    fit = LeastSquares(X)
    assert fit.rank == 4
    assert_same(fit.solve(Y), np.linalg.lstsq(X, Y, rcond=None)[0], rel=1e-8)
    r = fit.residuals(Y)
    # X'r relative to the size of the terms it sums
    assert np.all(np.abs(X.T @ r) <= 1e-11 * (np.abs(X).T @ np.abs(r)))
    # coefficient_root: L L' = (X'X)^-1
    L = fit.coefficient_root()
    np.testing.assert_allclose(L @ L.T, np.linalg.inv(X.T @ X), rtol=1e-7,
                               atol=1e-12 * np.abs(np.linalg.inv(X.T @ X)).max())


def test_least_squares_on_rank_deficient_design():
    rng = np.random.default_rng(12)
    base = rng.standard_normal((50, 2))
    X = np.column_stack([base, base[:, 0] + base[:, 1], np.zeros(50)])
    y = rng.standard_normal(50)
    fit = LeastSquares(X)
    assert fit.rank == 2
    beta = fit.solve(y)[:, 0]
    # a least squares solution (the fitted values are unique), nothing on the zero column
    np.testing.assert_allclose(X @ beta, X @ np.linalg.lstsq(X, y, rcond=None)[0],
                               atol=1e-12)
    assert beta[3] == 0.0
    # minimum norm in the unit-norm column scaling: no component along the null space
    scale = np.linalg.norm(X, axis=0)[:3]
    null = scale * np.array([1.0, 1.0, -1.0])  # (X[:, :3] / scale) @ null == 0
    assert abs((beta[:3] * scale) @ null) < 1e-12 * np.abs(beta[:3] * scale).sum()


@pytest.mark.parametrize("n", [0, 1, 3, 7, 100, 2500])
def test_blocked_triangular_factor_equals_lapack_qr(n):
    rng = np.random.default_rng(n)
    X = rng.standard_normal((n, 5)) * [1, 10, 100, 1e3, 1e4]
    R = triangular_factor(X, block=64)  # many blocks, and a partial last one
    assert R.shape == (min(n, 5), 5)
    if n:
        # R is unique up to the signs of its rows
        R0 = np.linalg.qr(X, mode="r")
        np.testing.assert_allclose(np.abs(R), np.abs(R0), rtol=1e-10,
                                   atol=1e-12 * np.abs(R0).max())
        np.testing.assert_allclose(R.T @ R, X.T @ X, rtol=1e-9, atol=1e-9 * np.abs(X.T @ X).max())


def mixed_design(n, seed):
    """An intercept, an income-like column and a 5-category predictor with an empty
    category (a zero dummy column: rank deficient)."""
    rng = np.random.default_rng(seed)
    codes = rng.choice([0, 1, 2, 4], n)
    design = Design([Constant(n), Columns.centred(rng.gamma(2.0, 2e4, n)),
                     Indicators(codes, 4)])
    return design, design.toarray()


def test_a_design_gives_the_same_fit_as_its_matrix():
    design, X = mixed_design(3000, 13)
    Y = np.random.default_rng(14).standard_normal((3000, 3)) * 1e3 + X[:, 1:2] * 0.2
    on_design, on_array = LeastSquares(design), LeastSquares(X)
    assert on_design.rank == on_array.rank == 5  # 6 columns, one dummy always 0
    B = on_design.solve(Y)
    assert_same(B, on_array.solve(Y))
    assert B[4].tolist() == [0.0, 0.0, 0.0]  # minimum norm: nothing on the empty dummy
    assert_same(on_design.residuals(Y), on_array.residuals(Y))
    R = Y - X @ B
    assert_same(on_design.residual_products(Y, B), R.T @ R)


def test_blockwise_products_by_hand():
    design, X = mixed_design(10_000, 15)  # several blocks
    rng = np.random.default_rng(16)
    Y, M = rng.standard_normal((10_000, 2)), rng.standard_normal((6, 2))
    assert_same(cross(design, Y), X.T @ Y)
    assert_same(product(design, M), X @ M)
    acc = Y.copy()
    assert product(design, M, out=acc, add=True) is acc
    assert_same(acc, Y + X @ M)
    XR, RR = residual_products(design, Y, M)
    assert_same(XR, X.T @ (Y - X @ M))
    assert_same(RR, (Y - X @ M).T @ (Y - X @ M))
    T = rng.standard_normal((2, 2))
    assert_same(transform_rows(Y.copy(), T), Y @ T)
    assert_same(triangular_factor(design).T @ triangular_factor(design), X.T @ X)
