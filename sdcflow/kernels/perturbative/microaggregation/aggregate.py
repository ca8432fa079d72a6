"""Cluster representatives (Torra, "Towards knowledge intensive data privacy", 2011,
"Microaggregation and the edit constraints"): which aggregation keeps which edit constraint.

* arithmetic mean (Proposition 3): keeps linear constraints (``net + tax == gross``),
  inequalities between variables aggregated together and ranges (internality);
* weighted mean with weights kappa >= 0 summing to one (Propositions 1 and 7), e.g. from
  fuzzy memberships: the same guarantees;
* geometric mean (Propositions 4-6 and 8): keeps multiplicative constraints
  (``price * (1 + vat) == retail``), applied to each factor (here ``1 + vat``);
* an order statistic such as the (lower) median: keeps "values exist in the original
  domain" (the representative is one of the group's values), ranges, and increasing
  relations between two variables (``x <= y``: order statistics are monotone and commute
  with increasing maps), but not sums (``net + tax == gross``);
* plurality (most frequent category) for categorical variables.

Which representative each variable gets under the recipe's constraints is decided in
:mod:`sdcflow.constraints.representatives`. Every function takes the values and the group label of each record and returns the
representative of each record's group, record by record.
"""

from __future__ import annotations

import numpy as np


def group_mean(x: np.ndarray, labels: np.ndarray, weights: np.ndarray | None = None
               ) -> np.ndarray:
    """(Weighted) arithmetic mean of each group."""
    w = np.ones(len(x)) if weights is None else np.asarray(weights, dtype=float)
    g = int(labels.max()) + 1 if len(labels) else 0
    num = np.bincount(labels, weights=w * x, minlength=g)
    den = np.bincount(labels, weights=w, minlength=g)
    return (num / den)[labels]


def group_geometric_mean(x: np.ndarray, labels: np.ndarray, offset: float = 0.0,
                         weights: np.ndarray | None = None) -> np.ndarray:
    """(Weighted) geometric mean of ``x + offset`` per group, minus ``offset``; the values
    ``x + offset`` must be positive."""
    shifted = np.asarray(x, dtype=float) + offset
    if np.any(shifted <= 0):
        raise ValueError("the geometric mean needs positive values")
    return np.exp(group_mean(np.log(shifted), labels, weights)) - offset


def group_lower_median(x: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The lower median of each group: an order statistic, always one of its values."""
    order = np.lexsort((x, labels))
    sorted_labels = labels[order]
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_labels)) + 1]
    sizes = np.diff(np.r_[starts, len(x)])
    pick = order[starts + (sizes - 1) // 2]
    out = np.empty(int(labels.max()) + 1 if len(labels) else 0)
    out[sorted_labels[starts]] = np.asarray(x, dtype=float)[pick]
    return out[labels]


def group_plurality(codes: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The most frequent code of each group (ties: the smallest code); codes are
    non-negative integers, -1 (missing) never wins unless the group has nothing else."""
    g = int(labels.max()) + 1 if len(labels) else 0
    c = int(codes.max()) + 2 if len(codes) else 1
    counts = np.bincount(labels * c + (codes + 1), minlength=g * c).reshape(g, c)
    counts[:, 0] = np.where(counts[:, 1:].sum(axis=1) > 0, -1, counts[:, 0])
    return (counts.argmax(axis=1) - 1)[labels]


def _sorted_groups(x: np.ndarray, labels: np.ndarray):
    """The values sorted within their group: the order, each value's position in its
    group, and each record's group size."""
    order = np.lexsort((x, labels))
    sorted_labels = labels[order]
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_labels)) + 1]
    sizes = np.diff(np.r_[starts, len(x)])
    position = np.arange(len(x)) - np.repeat(starts, sizes)
    return order, position, np.repeat(sizes, sizes)


def group_median(x: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The median of each group (the mean of the two middle values of an even group, as
    R's ``median``), record by record."""
    x = np.asarray(x, dtype=float)
    g = int(labels.max()) + 1 if len(labels) else 0
    order, position, size = _sorted_groups(x, labels)
    middle = (position == (size - 1) // 2) | (position == size // 2)
    num = np.bincount(labels[order], weights=np.where(middle, x[order], 0.0), minlength=g)
    den = np.bincount(labels[order], weights=middle.astype(float), minlength=g)
    return (num / np.maximum(den, 1.0))[labels]


def group_trimmed_mean(x: np.ndarray, labels: np.ndarray, trim: float) -> np.ndarray:
    """The trimmed mean of each group as R's ``mean(x, trim = trim)`` (sdcMicro's
    ``measure = "trim"``): ``floor(n * trim)`` values dropped at each end of a group of
    ``n`` (``0 <= trim < 0.5``, so at least one value stays)."""
    if not 0 <= trim < 0.5:
        raise ValueError("trim must be in [0, 0.5)")
    x = np.asarray(x, dtype=float)
    g = int(labels.max()) + 1 if len(labels) else 0
    order, position, size = _sorted_groups(x, labels)
    cut = np.floor(size * trim + 1e-12)
    keep = (position >= cut) & (position < size - cut)
    num = np.bincount(labels[order], weights=np.where(keep, x[order], 0.0), minlength=g)
    den = np.bincount(labels[order], weights=keep.astype(float), minlength=g)
    return (num / np.maximum(den, 1.0))[labels]


def group_onestep(x: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """sdcMicro's ``measure = "onestep"`` (a one-step Huber-type M-estimate of location):
    the values of a group are clipped to ``median +- 3 / 1.486 * mad`` (``mad`` = 1.4826
    times the median absolute deviation, R's ``mad``), then averaged."""
    x = np.asarray(x, dtype=float)
    med = group_median(x, labels)
    mad = 1.4826 * group_median(np.abs(x - med), labels)
    limit = 3.0 / 1.486 * mad
    return group_mean(np.clip(x, med - limit, med + limit), labels)
