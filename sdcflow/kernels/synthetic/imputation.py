"""Synthetic values by multiple imputation, variable by variable with randomised normal
regressions (Torra, "Masking methods", 2013, "Multiple imputation": "a way to perform
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

from .design import Columns, Design, as_columns
from .least_squares import LeastSquares, TooFewRecords, product, triangular_factor


def sequential_regression(X: np.ndarray | Design, Y: np.ndarray, rng: np.random.Generator,
                          *, intercept: bool = True) -> np.ndarray:
    """Synthetic ``Y`` (n x m, no missing values), column by column in order, from the
    predictors ``X`` (n x q numbers; categories as dummy columns; or a
    :class:`~sdcflow.kernels.synthetic.design.Design`) as described in the module docstring.
    ``intercept``: add a column of ones to the design. Raises
    :class:`~sdcflow.kernels.synthetic.least_squares.TooFewRecords` when a regression has no
    residual degree of freedom (n <= rank of its design)."""
    Y = np.asarray(Y, dtype=float)
    squeeze = Y.ndim == 1
    Y = as_columns(Y)
    n, m = Y.shape
    X = Design.of(X, intercept)
    p = X.p
    # earlier variables enter centred by their original means (the same shift in the
    # fitting and the synthetic design): a reparametrisation when the design has a
    # constant column, which keeps it well conditioned
    centre = Y.mean(axis=0) if n and X.constant_columns().any() else np.zeros(m)

    def fitting_design(j: int) -> Design:  # [X, y_1 .. y_j] of the original data
        return X.with_terms(Columns.centred(Y[:, :j], centre[:j])) if j else X

    # the factor of the nested designs [X, y_1 .. y_{j-1}]: leading columns of one factor
    R = triangular_factor(fitting_design(m - 1))
    out = np.empty(Y.shape, order="F")  # column by column: each column contiguous
    for j in range(m):
        design = fitting_design(j)
        fit = LeastSquares(design, R[:, :p + j])
        df = n - fit.rank
        if df < 1:
            raise TooFewRecords(f"{n} records cannot support a regression on {fit.rank} "
                                "parameters")
        beta = fit.solve(Y[:, j])
        ssr = float(fit.residual_products(Y[:, j], beta)[0, 0])
        sigma = np.sqrt(ssr / rng.chisquare(df))
        root = fit.coefficient_root()
        beta = beta[:, 0] + sigma * (root @ rng.standard_normal(root.shape[1]))
        # the synthetic design [X, y*_1 .. y*_{j-1}] is never built either
        value = product(X, beta[:p])
        if j:
            value += product(out[:, :j], beta[p:]) - centre[:j] @ beta[p:]
        out[:, j] = value + sigma * rng.standard_normal(n)
    return out[:, 0] if squeeze else out
