"""Means, variances and covariance matrices of data split into parts, combined exactly
(up to rounding) from each part's count, mean and sums of squared deviations: the
pairwise update of Chan, Golub & LeVeque ("Algorithms for computing the sample variance:
analysis and recommendations", The American Statistician, 1983), which avoids the
cancellation of sums of squares. Used by the Dask engine to fit global moments."""

from __future__ import annotations

import numpy as np


def column_part(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per column of ``x`` (n x p, NaN missing): observed count, mean, and sum of squared
    deviations from that mean."""
    x = np.asarray(x, dtype=float)
    observed = ~np.isnan(x)
    n = observed.sum(axis=0).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(n > 0, np.nansum(x, axis=0) / np.maximum(n, 1), 0.0)
    dev = np.where(observed, x - mean, 0.0)
    return n, mean, (dev * dev).sum(axis=0)


def merge_columns(parts: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The (count, mean, squared deviations) of the union of parts (in the given order)."""
    n, mean, m2 = (np.array(a, dtype=float) for a in parts[0])
    for nb, meanb, m2b in parts[1:]:
        total = n + nb
        with np.errstate(invalid="ignore", divide="ignore"):
            delta = meanb - mean
            share = np.where(total > 0, nb / np.maximum(total, 1), 0.0)
            m2 = m2 + m2b + delta * delta * n * share
            mean = mean + delta * share
        n = total
    return n, mean, m2


def column_variances_of(merged) -> np.ndarray:
    """Sample variances (divisor n - 1), 0 for a column with fewer than 2 values (as
    :func:`sdcflow.kernels.perturbative.noise.column_variances`)."""
    n, _, m2 = merged
    return np.where(n >= 2, m2 / np.maximum(n - 1, 1), 0.0)


def matrix_part(x: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Over the complete rows of ``x``: their number, mean vector and scatter matrix
    (sum of outer products of deviations)."""
    x = np.asarray(x, dtype=float)
    full = x[~np.isnan(x).any(axis=1)]
    m = float(len(full))
    p = x.shape[1]
    if not m:
        return 0.0, np.zeros(p), np.zeros((p, p))
    mean = full.mean(axis=0)
    dev = full - mean
    return m, mean, dev.T @ dev


def merge_matrices(parts: list) -> tuple[float, np.ndarray, np.ndarray]:
    m, mean, scatter = parts[0]
    mean, scatter = np.array(mean, dtype=float), np.array(scatter, dtype=float)
    for mb, meanb, scatterb in parts[1:]:
        total = m + mb
        if not mb:
            continue
        delta = meanb - mean
        scatter = scatter + scatterb + np.outer(delta, delta) * (m * mb / total)
        mean = mean + delta * (mb / total)
        m = total
    return m, mean, scatter


def covariance_of(merged) -> np.ndarray:
    """The sample covariance matrix (divisor m - 1; NaN with fewer than 2 records, as
    :func:`sdcflow.kernels.perturbative.noise.moments`)."""
    m, _, scatter = merged
    if m < 2:
        return np.full(scatter.shape, np.nan)
    return scatter / (m - 1)
