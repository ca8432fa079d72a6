"""The propensity score utility of Woo, Reiter, Oganian & Karr (2009),
the pMSE of Snoke et al. (2018): the design of the
model (main effects, interactions, squares) and the score of the stacked original and
protected records.
"""

from __future__ import annotations

import math

import numpy as np

from ..risk.frequencies import row_ids
from .logistic_regression import logistic_fit


def product_terms(groups: np.ndarray, numeric: np.ndarray | None = None, *,
                  interactions: bool = False, squares: bool = False) -> list[tuple[int, int]]:
    """The second-order terms of the model, as pairs of main-effect columns: with
    ``interactions`` every pair of columns of different variables (``groups[k]``: the
    variable of column k; the indicators of one variable have zero products), with
    ``squares`` every numeric column (``numeric[k]``) with itself."""
    q = len(groups)
    numeric = np.ones(q, dtype=bool) if numeric is None else np.asarray(numeric, dtype=bool)
    pairs = []
    for i in range(q):
        if squares and numeric[i]:
            pairs.append((i, i))
        if interactions:
            pairs.extend((i, j) for j in range(i + 1, q) if groups[i] != groups[j])
    return pairs


def main_effects(num: np.ndarray, codes: np.ndarray, cards) -> np.ndarray:
    """The numeric columns, then for each categorical column the indicators of its
    categories but the first (codes 1 .. card-1; code 0 is the baseline)."""
    q = num.shape[1]
    out = np.zeros((len(num), q + sum(c - 1 for c in cards)))
    out[:, :q] = num
    offset = q
    for j, c in enumerate(cards):
        rows = np.flatnonzero(codes[:, j] > 0)
        out[rows, offset + codes[rows, j] - 1] = 1.0
        offset += c - 1
    return out


def _design(main: np.ndarray, pairs: list[tuple[int, int]]) -> np.ndarray:
    """Intercept, the main effects and the products ``pairs`` of them."""
    cols = [np.ones((len(main), 1)), main]
    if pairs:
        i, j = np.array(pairs).T
        cols.append(main[:, i] * main[:, j])
    return np.hstack(cols)


def propensity_utility(x: np.ndarray, y: np.ndarray, x_codes: np.ndarray | None = None,
                       y_codes: np.ndarray | None = None, cards=(), *,
                       interactions: bool = False, squares: bool = False) -> tuple[
                           dict, np.ndarray]:
    """The propensity score utility of Woo, Reiter, Oganian & Karr (2009):
    stack the original records (numeric columns ``x``, categorical codes
    ``x_codes``; T = 0) and the protected ones (``y``, ``y_codes``; T = 1), fit a logistic
    regression of T on the variables (:func:`main_effects`: numeric columns and category
    indicators, ``cards[j]`` categories for code column j; ``interactions`` and ``squares``
    add the products of :func:`product_terms`), and report ``U = (1/N) sum_i (p_i - c)^2``
    over the N stacked records, ``c`` the share of protected records. U is the pMSE of
    Snoke, Raab, Nowok, Dibben & Slavkovic (2018), the same quantity; with equal numbers of
    records, c = 1/2 and U is Woo et al.'s measure. U = 0 when the model cannot tell the data
    sets apart; its maximum is ``c (1 - c)`` (1/4 for equal sizes), reached when it
    separates them fully.

    Also the null expectation of Snoke et al. for a model with k parameters,
    ``E[pMSE] = (k - 1) (1 - c)^2 c / N`` with standard deviation
    ``sqrt(2 (k - 1)) (1 - c)^2 c / N``, the ratio U / E and the standardised
    ``(U - E) / sd`` (Snoke et al.'s standardised pMSE): derived for data drawn
    independently from the same distribution (the synthetic-data case), so for masked data
    (each protected record paired with its original) they are a yardstick, not a test.

    A main effects model only sees differences of means: for equal numbers of records, the
    intercept-only fit solves its score equations whenever every column has the same mean
    in both data sets, so U = 0 for any mean-preserving masking (microaggregation, rank
    swapping); ``squares`` sees variances, ``interactions`` covariances.

    Numeric columns are standardised on the stacked data first (the fitted probabilities do
    not change: the model has an intercept and all main effects); constant ones are dropped.
    With categorical variables only, records with the same codes are merged (binomial
    counts). Returns the summary and the propensity scores (original records first)."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    if len(x) == 0 or len(y) == 0:
        raise ValueError("the propensity model needs records in both data sets")
    cards = [int(c) for c in cards]
    m = len(cards)
    if m:
        codes = np.vstack([np.asarray(x_codes), np.asarray(y_codes)])
    else:
        codes = np.empty((len(x) + len(y), 0), dtype=np.int64)
    num = np.vstack([x, y])
    n = len(num)
    t = np.concatenate([np.zeros(len(x)), np.ones(len(y))])
    num -= num.mean(axis=0)
    sd = np.sqrt(np.einsum("ij,ij->j", num, num) / n)  # no n x q temporary, unlike std()
    keep = sd > 0  # a constant column carries no information (it duplicates the intercept)
    if not keep.all():
        num, sd = num[:, keep], sd[keep]
    num /= sd
    q = num.shape[1]
    groups = np.concatenate([np.arange(q)] + [np.full(c - 1, q + j) for j, c in enumerate(cards)])
    numeric = np.arange(len(groups)) < q
    pairs = product_terms(groups, numeric, interactions=interactions, squares=squares)
    k = 1 + len(groups) + len(pairs)
    if q == 0 and m:
        # records with the same categories share a score: fit on the distinct patterns
        inverse, first = row_ids(codes)
        pattern_codes = codes[first]
        totals = np.bincount(inverse, minlength=len(first)).astype(float)
        ones = np.bincount(inverse, weights=t, minlength=len(first))
        probs, fit = logistic_fit(
            lambda a, b: _design(main_effects(np.empty((b - a, 0)), pattern_codes[a:b], cards),
                                 pairs),
            len(first), k, ones, totals)
        probs = probs[inverse]
    else:
        probs, fit = logistic_fit(
            lambda a, b: _design(main_effects(num[a:b], codes[a:b], cards), pairs), n, k, t)
    c = float(t.mean())
    u = float(np.mean((probs - c) ** 2))
    expected = (k - 1) * (1 - c) ** 2 * c / n
    sd_null = math.sqrt(2 * (k - 1)) * (1 - c) ** 2 * c / n
    return {
        "U": u,
        "pmse": u,
        "c": c,
        "records": n,
        "maximum": c * (1 - c),
        "null_expected": expected,
        "ratio": u / expected if expected > 0 else None,
        "standardised": (u - expected) / sd_null if sd_null > 0 else None,
        **fit,
    }, probs
