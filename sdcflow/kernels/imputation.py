"""Synthetic values by multiple imputation, variable by variable with randomised normal
regressions (seed 000_1eece6b9d3791e64.txt, "Multiple imputation": "a way to perform
multiple imputation is on a variable-by-variable basis (using a randomized regression -
with normal errors)"; Rubin, "Discussion: statistical disclosure limitation", J. Official
Statistics 9, 1993; Raghunathan, Reiter & Rubin, "Multiple imputation for statistical
disclosure limitation", J. Official Statistics 19, 2003; the sequential regression of
Raghunathan et al., Survey Methodology 27, 2001).

For the variables y_1, ..., y_m in order, y_j is regressed (OLS) on the design
D_j = [1, X, y_1, ..., y_{j-1}] of the *original* data; the parameters are drawn from their
posterior under the flat prior p(beta, sigma^2) ~ 1/sigma^2:

    sigma*^2 = SSR_j / chi^2_{n - r},      beta* ~ N(beta_hat, sigma*^2 (D_j'D_j)^+)

(r the rank of D_j), and the synthetic y_j = D*_j beta* + N(0, sigma*^2) where D*_j holds
the predictors and the *synthetic* y_1 .. y_{j-1}: the synthetic data are a draw from the
posterior predictive distribution of the joint sequential model, so y*_j depends on the
predictors and on the earlier synthetic variables as y_j does on the original ones.
"""

from __future__ import annotations

import numpy as np

from .ipso import LeastSquares, TooFewRecords, centred, product, triangular_factor


def sequential_regression(X: np.ndarray, Y: np.ndarray, rng: np.random.Generator, *,
                          intercept: bool = True) -> np.ndarray:
    """Synthetic ``Y`` (n x m, no missing values), column by column in order, from the
    predictors ``X`` (n x q numbers; categories as dummy columns) as described in the
    module docstring. ``intercept``: add a column of ones to the design. Raises
    :class:`~sdcflow.kernels.ipso.TooFewRecords` when a regression has no residual
    degree of freedom (n <= rank of its design)."""
    Y = np.asarray(Y, dtype=float)
    squeeze = Y.ndim == 1
    Y = Y.reshape(len(Y), -1)
    n, m = Y.shape
    X = np.asarray(X, dtype=float).reshape(n, -1)
    p = X.shape[1] + int(intercept)
    # the fitting design [X, y_1 .. y_{m-1}] (with the intercept first if asked),
    # column-major: its first p + j columns are a contiguous view; the synthetic design
    # [X, y*_1 .. y*_{j-1}] is never built
    design = np.empty((n, p + m - 1), order="F")
    if intercept:
        design[:, 0] = 1.0
        design[:, 1:p] = centred(X) if n else X
    else:
        design[:, :p] = X
    X = design[:, :p]
    # earlier variables enter centred by their original means (the same shift in both
    # designs): a reparametrisation when the design has a constant column, which keeps
    # the design well conditioned
    constant = n > 0 and bool(np.any((np.ptp(X, axis=0) == 0) & (X[0] != 0)))
    centre = Y.mean(axis=0) if constant else np.zeros(m)
    for j in range(m - 1):
        design[:, p + j] = centred(Y[:, j], centre[j])
    # the factor of the nested designs [X, y_1 .. y_{j-1}]: leading columns of one factor
    R = triangular_factor(design)
    out = np.empty_like(Y)
    for j in range(m):
        fit_design = design[:, :p + j]
        fit = LeastSquares(fit_design, R[:, :p + j])
        df = n - fit.rank
        if df < 1:
            raise TooFewRecords(f"{n} records cannot support a regression on {fit.rank} "
                                "parameters")
        beta = fit.solve(Y[:, j])[:, 0]
        resid = Y[:, j] - product(fit_design, beta)
        sigma = np.sqrt(float(np.einsum("i,i->", resid, resid)) / rng.chisquare(df))
        root = fit.coefficient_root()
        beta = beta + sigma * (root @ rng.standard_normal(root.shape[1]))
        value = product(X, beta[:p])
        if j:
            value += product(out[:, :j], beta[p:]) - centre[:j] @ beta[p:]
        out[:, j] = value + sigma * rng.standard_normal(n)
    return out[:, 0] if squeeze else out
