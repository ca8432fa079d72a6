"""Projected microaggregation (Torra, "Masking methods", 2013, "Projected
Microaggregation"): project the records on a direction (by default the first principal
component), sort them by the projection, and cut the sorted sequence optimally into
groups of k .. 2k-1 consecutive records, the cost of a group being its within-group sum
of squares in the *original* variables (Torra's (2013) variant of the univariate shortest
path), O(n k d)."""

from __future__ import annotations

import numpy as np

from .univariate import path_labels, shortest_path


def first_component(X: np.ndarray) -> np.ndarray:
    """The first principal axis of the (centred) rows of ``X``, signed so that its
    largest coordinate is positive (a deterministic choice)."""
    centred = X - X.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    v = vt[0]
    return v if v[np.argmax(np.abs(v))] > 0 else -v


def projected(X: np.ndarray, k: int, direction: np.ndarray | None = None) -> np.ndarray:
    """Group labels of projected microaggregation of the rows of ``X`` (n x d)."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    n = X.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if n < k:
        raise ValueError(f"{n} records cannot form a group of k = {k}")
    v = first_component(X) if direction is None else np.asarray(direction, dtype=float)
    z = X @ v
    order = np.argsort(z, kind="stable")
    _, back = shortest_path(np.ascontiguousarray(X[order]), int(k))
    return path_labels(back, order)
