"""Resampling (Torra, "Masking methods", 2013, "Masking Methods for Microdata:
Perturbative methods", "Resampling"; after Heer, "A bootstrap procedure to preserve
statistical confidentiality in contingency tables", 1993, as applied to numerical
microdata by Domingo-Ferrer & Torra, "A quantitative comparison of disclosure control
methods for microdata", 2001):

1. take with replacement t independent samples X_1, ..., X_t of size n of the values of V;
2. rank each sample (sort it);
3. the j-th value of the masked variable is the average of the j-th ranked values of
   X_1, ..., X_t, and the record whose original value has rank j receives it.
"""

from __future__ import annotations

import numpy as np


def resample(x: np.ndarray, t: int, rng: np.random.Generator) -> np.ndarray:
    """The resampled version of ``x`` (1-d, no missing values), as in the module
    docstring. Sample k is ``sort(x[rng.integers(0, n, n)])`` (k = 1 .. t, drawn in that
    order). Records are ranked by their original value; tied records (equal values) get
    the mean of the averaged values at their ranks, so the result is a non-decreasing
    function of the original value (equal values stay equal, the rank order is kept)."""
    x = np.asarray(x, dtype=float)
    n = len(x)
    if t < 1:
        raise ValueError("t must be at least 1")
    if n == 0:
        return x.copy()
    order = np.argsort(x, kind="stable")
    xs = x[order]
    total = np.zeros(n)
    for _ in range(t):
        idx = rng.integers(0, n, n)
        # sort(x[idx]) in O(n): how often each record was drawn, laid out in value order
        counts = np.bincount(idx, minlength=n)[order]
        total += np.repeat(xs, counts)
    averaged = total / t
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])
    if len(starts) < n:
        sizes = np.diff(np.r_[starts, n])
        averaged = np.repeat(np.add.reduceat(averaged, starts) / sizes, sizes)
    out = np.empty(n)
    out[order] = averaged
    return out
