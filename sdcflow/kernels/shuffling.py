"""Data shuffling (Muralidhar & Sarathy, "Data shuffling - a new masking approach for
numerical data", Management Science 52(5), 2006; seed 004_149321b221e875f3.txt,
"Shuffling": "regression model: continuous key variables as a response, other variables
for predictors; swap values based on ranks of expected values and ranks of original
values; rank correlations are preserved").

The confidential variables Y are regressed on the non-confidential predictors X, values
Y* are drawn from the fitted model (prediction plus a normal error with the residual
covariance), and each released column is the original column reordered so that its
ranks are those of Y*: record i gets the original value whose rank equals the rank of
y*_i ("reverse mapping"). Every released column is a permutation of the original one.
As in the paper (and sdcMicro's ``shuffle(method = "ds")``) the model is fitted on
normal scores Phi^-1((rank - 1/2) / n), which makes the method rank-based: the rank
correlations between the variables and with the predictors are kept (up to sampling
error) whatever the marginal distributions.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtri

from .ipso import (
    LeastSquares,
    TooFewRecords,
    cross,
    normal_errors,
    product,
    with_intercept,
)


def average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n of the values of the 1-d ``x``, tied values sharing their mean rank
    (``scipy.stats.rankdata(x, "average")``, without its stable sort)."""
    x = np.asarray(x, dtype=float)
    n = len(x)
    order = np.argsort(x)
    xs = x[order]
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]]) if n else np.zeros(0, int)
    sizes = np.diff(np.r_[starts, n])
    ranks = np.empty(n)
    ranks[order] = np.repeat(starts + (sizes + 1) / 2.0, sizes)
    return ranks


def normal_scores(x: np.ndarray) -> np.ndarray:
    """Phi^-1((r - 1/2) / n) with r the ranks of ``x`` (ties: average rank), column by
    column for a 2-d array (Muralidhar & Sarathy 2006, Section 3)."""
    x = np.asarray(x, dtype=float)
    if len(x) == 0:
        return x.copy()
    if x.ndim == 1:
        return ndtri((average_ranks(x) - 0.5) / len(x))
    return np.column_stack([ndtri((average_ranks(col) - 0.5) / len(x)) for col in x.T])


def reverse_map(original: np.ndarray, perturbed: np.ndarray) -> np.ndarray:
    """The values of ``original`` reordered to the ranks of ``perturbed`` (column by
    column): the record with the r-th smallest perturbed value gets the r-th smallest
    original value (ties in ``perturbed``, which has continuous values, are broken by
    the sort: deterministically, in no particular order)."""
    original = np.asarray(original, dtype=float)
    out = np.empty_like(original)
    if original.ndim == 1:
        out[np.argsort(perturbed)] = np.sort(original)
        return out
    for j in range(original.shape[1]):
        out[np.argsort(perturbed[:, j]), j] = np.sort(original[:, j])
    return out


def shuffle(X: np.ndarray, Y: np.ndarray, rng: np.random.Generator, *,
            scores: bool = True, intercept: bool = True) -> np.ndarray:
    """Data shuffling of the confidential ``Y`` (n x m, no missing values) given the
    predictors ``X`` (n x q numbers; categories as dummy columns, already transformed as
    wanted, e.g. by :func:`normal_scores`).

    ``scores``: regress the normal scores of Y (True, the paper's method) or Y itself.
    The perturbed values are Y* = X B_hat + E, E ~ N(0, S / (n - rank X)) with S the
    residual sum of squares and products; returned is :func:`reverse_map` of Y to Y*.
    Raises :class:`~sdcflow.kernels.ipso.TooFewRecords` when n <= rank of X."""
    Y = np.asarray(Y, dtype=float)
    squeeze = Y.ndim == 1
    Y = Y.reshape(len(Y), -1)
    n = len(Y)
    design = with_intercept(X) if intercept else np.asarray(X, dtype=float).reshape(n, -1)
    fit = LeastSquares(design)
    if n <= fit.rank:
        raise TooFewRecords(f"{n} records cannot support a regression on {fit.rank} "
                            "parameters")
    resid = normal_scores(Y) if scores else Y.copy()
    perturbed = product(design, fit.solve(resid))  # the fitted values
    resid -= perturbed
    sigma = cross(resid, resid) / (n - fit.rank)
    del resid
    perturbed += normal_errors(n, sigma, rng)
    out = reverse_map(Y, perturbed)
    return out[:, 0] if squeeze else out
