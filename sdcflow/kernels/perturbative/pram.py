"""PRAM, the post-randomisation method (Torra, "Masking methods", 2013, "PRAM: The
Post-Randomization Method"; Templ, "Advanced Survey Statistics: Disclosure Control", 2019,
"PRAM" and "PRAM Example"; Gouweleeuw, Kooiman, Willenborg & de Wolf, "Post randomisation
for statistical disclosure control: theory and implementation", J. Official Statistics 14
(1998) 463-478; sdcMicro's ``pram``).

Each value of category i becomes category j with probability ``P[i, j]`` (a Markov
matrix: non-negative, rows summing to 1), independently of the other records.

*Invariant PRAM* (Gouweleeuw et al. 1998, section 3; sdcMicro's ``pram``): with ``t``
the category frequencies and ``P`` any Markov matrix, the backward matrix
``Q[k, j] = P[j, k] t_j / sum_l t_l P[l, k]`` (the probability that a value published as
k was j) gives ``P* = P Q``, for which ``t P* = t``: the expected frequencies after PRAM
are the original ones. sdcMicro mixes with the identity, ``alpha P Q + (1 - alpha) I``,
which is still invariant and changes fewer values.

Built matrices: :func:`default_matrix` keeps every category with one fixed probability;
:func:`sdcmicro_matrix` draws each category's retention from U(pd, 1), as sdcMicro does.
"""

from __future__ import annotations

import numpy as np


def default_matrix(size: int, retention: float, freq: np.ndarray | None = None) -> np.ndarray:
    """The Markov matrix that keeps every category with the same probability ``retention``
    and otherwise moves it to another category: uniformly over the other ``size - 1``
    categories (``freq`` None), or in proportion to the other categories' frequencies
    ``freq`` (a row whose other categories all have frequency 0 falls back to the uniform
    spread). (sdcMicro's ``pram`` draws a different retention for each category:
    :func:`sdcmicro_matrix`.)"""
    if size == 1:
        return np.ones((1, 1))
    if freq is None:
        return uniform_spread(np.full(size, float(retention)))
    freq = np.asarray(freq, dtype=float)
    others = freq.sum() - freq  # the frequency of "any other category", per row
    P = np.empty((size, size))
    for i in range(size):
        if others[i] > 0:
            P[i] = (1.0 - retention) * freq / others[i]
        else:
            P[i] = (1.0 - retention) / (size - 1)
    np.fill_diagonal(P, retention)
    return P


def uniform_spread(diagonal: np.ndarray) -> np.ndarray:
    """The Markov matrix with ``P[i, i] = diagonal[i]`` and the rest of row i,
    ``1 - diagonal[i]``, spread evenly over the other ``L - 1`` categories."""
    d = np.asarray(diagonal, dtype=float)
    size = len(d)
    if size == 1:
        return np.ones((1, 1))
    P = np.repeat(((1.0 - d) / (size - 1))[:, None], size, axis=1)
    np.fill_diagonal(P, d)
    return P


def sdcmicro_matrix(size: int, pd: float, rng: np.random.Generator
                    ) -> tuple[np.ndarray, np.ndarray]:
    """sdcMicro's ``pram`` matrix before invariance (sdcMicro 5.8.1, ``R/pram.R``): for
    each of the ``size`` categories a retention ``P[i, i] ~ U(pd, 1)``, drawn
    independently (here from ``rng``, in category order), the rest of the row spread
    evenly over the other categories. Returns the matrix and the drawn diagonal.
    sdcMicro then always makes it invariant, ``alpha P Q + (1 - alpha) I``
    (:func:`invariant_matrix`), and draws anew for every stratum."""
    diagonal = rng.uniform(pd, 1.0, size)
    return uniform_spread(diagonal), diagonal


def invariant_matrix(P: np.ndarray, t: np.ndarray, alpha: float = 1.0) -> np.ndarray:
    """Invariant PRAM matrix ``alpha P Q + (1 - alpha) I`` with Gouweleeuw et al.'s
    backward matrix ``Q[k, j] = P[j, k] t_j / sum_l t_l P[l, k]`` (module docstring), so
    that ``t P* = t`` and the rows of ``P*`` sum to 1.

    Written with plain arithmetic so that it also runs on object arrays of
    :class:`fractions.Fraction` (exact). A category that no value can reach
    (``sum_l t_l P[l, k] = 0``) gets ``Q[k] = e_k``: that row of Q is never used."""
    P = np.asarray(P)
    t = np.asarray(t)
    size = P.shape[0]
    reach = t @ P  # expected frequency of each category after P
    Q = np.empty_like(P)
    for k in range(size):
        if reach[k] == 0:
            Q[k] = P[k] * 0
            Q[k, k] = P[k, k] * 0 + 1
        else:
            Q[k] = P[:, k] * t / reach[k]
    eye = np.zeros_like(P)
    for k in range(size):
        eye[k, k] = eye[k, k] + 1
    return alpha * (P @ Q) + (1 - alpha) * eye


def matrix_problems(P: np.ndarray, tol: float = 1e-9) -> list[tuple[int, str]]:
    """What makes ``P`` not a Markov matrix: ``(row, message)`` for negative entries and
    rows whose sum differs from 1 by more than ``tol``."""
    out = []
    P = np.asarray(P, dtype=float)
    for i, row in enumerate(P):
        if not np.all(np.isfinite(row)):
            out.append((i, "has a value that is not a finite number"))
        elif (row < 0).any():
            out.append((i, f"has a negative probability ({row.min():g})"))
        elif abs(row.sum() - 1.0) > tol:
            out.append((i, f"sums to {row.sum():.12g}, not 1"))
    return out


def pram(codes: np.ndarray, P: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Post-randomise category codes (0 .. L-1; negative = missing, kept): each code ``i``
    becomes ``j`` with probability ``P[i, j]``. One uniform per record, drawn in record
    order; the values of each category are mapped through the inverse of their row's
    cumulative distribution (a zero probability is never drawn). Returns the new codes
    in the dtype of ``codes``."""
    codes = np.asarray(codes)
    out = codes.copy()
    if len(codes) == 0:
        return out
    P = np.asarray(P, dtype=float)
    size = P.shape[0]
    u = rng.random(len(codes))
    cum = np.cumsum(P, axis=1)
    # group the records by category with a counting sort (stable: record order kept)
    order = np.argsort(codes, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(np.maximum(codes + 1, 0),
                                                        minlength=size + 1))])
    for i in range(size):
        idx = order[bounds[i + 1]:bounds[i + 2]]
        if len(idx) == 0:
            continue
        # the last category with a positive probability absorbs the rounding of cumsum
        last = int(np.flatnonzero(P[i] > 0)[-1])
        out[idx] = np.minimum(np.searchsorted(cum[i], u[idx], side="right"), last)
    return out


def expected_changes(P: np.ndarray, t: np.ndarray) -> tuple[float, float]:
    """Expected number of changed values and its variance: ``sum_i t_i (1 - P_ii)`` and
    ``sum_i t_i P_ii (1 - P_ii)`` (independent Bernoulli trials)."""
    d = np.diag(np.asarray(P, dtype=float))
    t = np.asarray(t, dtype=float)
    return float((t * (1 - d)).sum()), float((t * d * (1 - d)).sum())
