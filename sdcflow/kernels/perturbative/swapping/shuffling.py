"""Data shuffling (Muralidhar & Sarathy, "Data shuffling - a new masking approach for
numerical data", Management Science 52(5), 2006; Templ, "Advanced Survey Statistics:
Disclosure Control", 2019, "Shuffling": "regression model: continuous key variables as a
response, other variables for predictors; swap values based on ranks of expected values and
ranks of original values; rank correlations are preserved").

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

from ...synthetic.design import Design, as_columns
from ...synthetic.ipso import normal_errors
from ...synthetic.least_squares import LeastSquares, TooFewRecords, product


def _sorted_average_ranks(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(order, ranks)``: the sorting permutation of the 1-d ``x`` and the average ranks
    of ``x[order]`` (tied values share their mean rank)."""
    n = len(x)
    order = np.argsort(x)
    xs = x[order]
    first = np.ones(n, dtype=bool)  # the first of a run of equal sorted values
    np.not_equal(xs[1:], xs[:-1], out=first[1:])
    del xs
    if first.all():  # no ties: the ranks are 1..n
        return order, np.arange(1.0, n + 1.0)
    starts = np.flatnonzero(first)
    sizes = np.diff(np.r_[starts, n])
    return order, np.repeat(starts + (sizes + 1) / 2.0, sizes)


def average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n of the values of the 1-d ``x``, tied values sharing their mean rank
    (``scipy.stats.rankdata(x, "average")``, without its stable sort)."""
    x = np.asarray(x, dtype=float)
    order, ranks = _sorted_average_ranks(x)
    out = np.empty(len(x))
    out[order] = ranks
    return out


def normal_scores(x: np.ndarray) -> np.ndarray:
    """Phi^-1((r - 1/2) / n) with r the ranks of ``x`` (ties: average rank), column by
    column for a 2-d array (Muralidhar & Sarathy 2006, Section 3)."""
    x = np.asarray(x, dtype=float)
    out = np.empty(x.shape)
    n = len(x)
    columns, o = as_columns(x), as_columns(out)  # 2-d views: writes fill ``out``
    for j in range(columns.shape[1]):
        order, scores = _sorted_average_ranks(columns[:, j])
        scores -= 0.5  # in place: one n-vector per column beside the sort order
        scores /= n
        o[order, j] = ndtri(scores, out=scores)
    return out


def reverse_map(original: np.ndarray, perturbed: np.ndarray,
                overwrite: bool = False) -> np.ndarray:
    """The values of ``original`` reordered to the ranks of ``perturbed`` (column by
    column): the record with the r-th smallest perturbed value gets the r-th smallest
    original value (ties in ``perturbed``, which has continuous values, are broken by
    the sort: deterministically, in no particular order). ``overwrite``: the result
    replaces ``perturbed`` (a float array of the same shape), which saves a copy."""
    original = np.asarray(original, dtype=float)
    out = perturbed if overwrite else np.empty_like(original)
    # 2-d views of 1-d arrays: writes to the view fill ``out``
    x, p, o = as_columns(original), as_columns(perturbed), as_columns(out)
    for j in range(x.shape[1]):
        o[np.argsort(p[:, j]), j] = np.sort(x[:, j])
    return out


def shuffle(X: np.ndarray | Design, Y: np.ndarray, rng: np.random.Generator, *,
            scores: bool = True, intercept: bool = True) -> np.ndarray:
    """Data shuffling of the confidential ``Y`` (n x m, no missing values) given the
    predictors ``X`` (n x q numbers; categories as dummy columns, already transformed as
    wanted, e.g. by :func:`normal_scores`; or a :class:`~sdcflow.kernels.synthetic.design.Design`).

    ``scores``: regress the normal scores of Y (True, the paper's method) or Y itself.
    The perturbed values are Y* = X B_hat + E, E ~ N(0, S / (n - rank X)) with S the
    residual sum of squares and products; returned is :func:`reverse_map` of Y to Y*.
    Raises :class:`~sdcflow.kernels.synthetic.least_squares.TooFewRecords` when n <= rank of X."""
    Y = np.asarray(Y, dtype=float)
    squeeze = Y.ndim == 1
    Y = as_columns(Y)
    n = len(Y)
    design = Design.of(X, intercept)
    fit = LeastSquares(design)
    if n <= fit.rank:
        raise TooFewRecords(f"{n} records cannot support a regression on {fit.rank} "
                            "parameters")
    response = normal_scores(Y) if scores else Y
    B = fit.solve(response)
    sigma = fit.residual_products(response, B) / (n - fit.rank)
    del response
    perturbed = normal_errors(n, sigma, rng)
    product(design, B, out=perturbed, add=True)
    out = reverse_map(Y, perturbed, overwrite=True)
    return out[:, 0] if squeeze else out
