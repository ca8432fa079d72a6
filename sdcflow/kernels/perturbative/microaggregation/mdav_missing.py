"""MDAV on records with missing values, with sdcMicro's convention (its ``mdav``, after
Domingo-Ferrer & Mateo-Sanz, "Practical data-oriented microaggregation for statistical
disclosure control", IEEE TKDE 14(1), 2002, as implemented in sdcMicro's Mdav.cpp): in
the squared Euclidean distance a variable where exactly one of the two points is missing
adds the squared range of that variable's observed values, one where both are missing
adds nothing; a centroid is the mean of the observed values of each variable (missing
when none is).

A plain quadratic implementation (each step scans the records still ungrouped), used only
when the data have missing values: on complete data it gives the same groups as
:func:`sdcflow.kernels.perturbative.microaggregation.mdav.mdav` (ties: the record first
in the file), which stays the kernel for them."""

from __future__ import annotations

import numpy as np


def _centroid(Z: np.ndarray) -> np.ndarray:
    """Column means of the observed values (NaN for a column with none), warning-free."""
    observed = ~np.isnan(Z)
    total = np.where(observed, Z, 0.0).sum(axis=0)
    count = observed.sum(axis=0)
    out = np.full(Z.shape[1], np.nan)
    np.divide(total, count, out=out, where=count > 0)
    return out


def _distances(Z: np.ndarray, q: np.ndarray, penalty: np.ndarray) -> np.ndarray:
    """Squared distances of the rows of ``Z`` to ``q`` with sdcMicro's rule for missing
    values (``penalty``: each variable's squared observed range)."""
    zm, qm = np.isnan(Z), np.isnan(q)
    diff = np.where(zm | qm, 0.0, Z - np.where(qm, 0.0, q))
    one_missing = zm ^ qm
    return (diff ** 2 + one_missing * penalty).sum(axis=1)


def mdav_missing(Z: np.ndarray, k: int) -> np.ndarray:
    """MDAV group labels (0 .. g-1) of the rows of ``Z`` (missing values as NaN)."""
    Z = np.asarray(Z, dtype=float)
    n = len(Z)
    labels = np.full(n, -1, dtype=np.int64)
    alive = np.ones(n, dtype=bool)
    observed = ~np.isnan(Z)
    lo = np.where(observed, Z, np.inf).min(axis=0, initial=np.inf)
    hi = np.where(observed, Z, -np.inf).max(axis=0, initial=-np.inf)
    penalty = np.where(observed.any(axis=0), (hi - lo) ** 2, 0.0)
    group = 0

    def farthest(q):
        idx = np.flatnonzero(alive)
        return idx[np.argmax(_distances(Z[idx], q, penalty))]  # ties: the first

    def group_around(r):
        nonlocal group
        idx = np.flatnonzero(alive & (np.arange(n) != r))
        order = np.lexsort((idx, _distances(Z[idx], Z[r], penalty)))
        members = np.r_[r, idx[order[:k - 1]]]
        labels[members] = group
        alive[members] = False
        group += 1

    while alive.sum() >= 3 * k:
        r = farthest(_centroid(Z[alive]))
        group_around(r)
        group_around(farthest(Z[r]))
    if alive.sum() >= 2 * k:
        group_around(farthest(_centroid(Z[alive])))
    if alive.any():
        labels[alive] = group
    return labels
