"""Microaggregation of mixed data with a Gower distance, as sdcMicro's
``microaggrGower`` (M. Templ, A. Kowarik and B. Meindl, "Statistical disclosure control
for micro-data using the R package sdcMicro", Journal of Statistical Software 67(4),
2015; the distance of J. C. Gower, "A general coefficient of similarity and some of its
properties", Biometrics 27, 1971).

The distance between two records is the weighted mean over the distance variables of
``|x_j - y_j| / range_j`` for numeric (and ordinal, by rank) variables and of ``0`` (same
category) or ``1`` for categorical ones. As in sdcMicro, the groups are neighbourhoods,
not a partition: every record is replaced by the aggregate of itself and its ``k - 1``
nearest records (ties: the record first in the file), numeric variables by their mean
(or median), categories by the category of one of those ``k`` records drawn at random,
i.e. a category drawn with probability its frequency among them (sdcMicro's default
``catFun = sampleCat``)."""

from __future__ import annotations

import numpy as np

_CHUNK_CELLS = 4_000_000  # distances held at once (32 MB)


def gower_neighbours(numeric: np.ndarray, categorical: np.ndarray, k: int,
                     weights: np.ndarray | None = None) -> np.ndarray:
    """For every record, itself and its ``k - 1`` nearest records by the Gower distance
    (``n x k`` row numbers, nearest first). ``numeric``: ``n x p`` values (ordinal
    variables as ranks), each scaled by its range (a constant variable adds nothing);
    ``categorical``: ``n x q`` integer codes; ``weights``: one per column, numeric first
    (default: equal). No missing values."""
    numeric = np.asarray(numeric, dtype=float).reshape(len(numeric), -1)
    n = len(numeric)
    categorical = np.asarray(categorical, dtype=np.int64).reshape(n, -1)
    p, q = numeric.shape[1], categorical.shape[1]
    w = np.ones(p + q) if weights is None else np.asarray(weights, dtype=float)
    if len(w) != p + q or (w < 0).any() or w.sum() <= 0:
        raise ValueError("one non-negative weight per distance variable, not all zero")
    span = numeric.max(axis=0) - numeric.min(axis=0) if n else np.zeros(p)
    scaled = numeric / np.where(span > 0, span, 1.0)
    k = min(k, n)
    out = np.empty((n, k), dtype=np.int64)
    step = max(1, _CHUNK_CELLS // max(n, 1))
    for start in range(0, n, step):
        rows = np.arange(start, min(n, start + step))
        d = np.zeros((len(rows), n))
        for j in range(p):
            d += w[j] * np.abs(scaled[rows, j, None] - scaled[None, :, j])
        for j in range(q):
            d += w[p + j] * (categorical[rows, j, None] != categorical[None, :, j])
        d[np.arange(len(rows)), rows] = -1.0  # the record itself comes first
        # stable sort: among equal distances the record first in the file
        out[rows] = np.argsort(d, axis=1, kind="stable")[:, :k]
    return out


def neighbourhood_mean(x: np.ndarray, neighbours: np.ndarray) -> np.ndarray:
    """The mean of ``x`` over each record's neighbourhood."""
    return np.asarray(x, dtype=float)[neighbours].mean(axis=1)


def neighbourhood_median(x: np.ndarray, neighbours: np.ndarray) -> np.ndarray:
    """The median of ``x`` over each record's neighbourhood (R's ``median``)."""
    return np.median(np.asarray(x, dtype=float)[neighbours], axis=1)


def neighbourhood_sample(codes: np.ndarray, neighbours: np.ndarray,
                         rng: np.random.Generator) -> np.ndarray:
    """For every record, the code of one record of its neighbourhood drawn uniformly: a
    category drawn with probability its frequency in the neighbourhood."""
    pick = rng.integers(0, neighbours.shape[1], size=len(neighbours))
    return np.asarray(codes)[neighbours[np.arange(len(neighbours)), pick]]
