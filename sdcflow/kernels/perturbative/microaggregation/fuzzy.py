"""Fuzzy microaggregation (Torra, "Towards knowledge intensive data privacy", 2011: "in
Fuzzy c-means for records x_1..x_N with memberships to the cluster mu_1..mu_N, define
kappa_i = mu_i^m / sum mu_k^m and then use the function C", which satisfies Proposition 1).

The records are first partitioned into groups of k .. 2k-1 (MDAV), so k-anonymity holds
as for crisp microaggregation; one fuzzy c-means prototype per group then gets the
memberships of its records relative to the ``neighbours`` nearest prototypes
(mu = 1 / sum_l (d_own / d_l)^(2/(m-1))), and is moved to the mu^m-weighted mean of its
records, for ``iterations`` rounds. The representative of a group is the weighted mean
of its records with kappa = mu^m / sum mu^m: a convex combination with the same weights
for every variable, so linear constraints and ranges are kept (Propositions 1 and 7).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree


def fuzzy_weights(X: np.ndarray, labels: np.ndarray, *, m: float = 2.0,
                  neighbours: int = 5, iterations: int = 10) -> np.ndarray:
    """The aggregation weights kappa of every record within its group (they add up to one
    in each group; equal weights in a group whose every record lies on another group's
    prototype, where the memberships are all 0)."""
    X = np.asarray(X, dtype=float)
    g = int(labels.max()) + 1
    counts = np.bincount(labels, minlength=g).astype(float)
    proto = np.stack([np.bincount(labels, weights=X[:, j], minlength=g) / counts
                      for j in range(X.shape[1])], axis=1)
    kappa = np.full(len(X), 1.0)
    L = min(neighbours, g)
    for _ in range(iterations):
        own = np.sqrt(((X - proto[labels]) ** 2).sum(axis=1))
        if L > 1:
            dist, _ = cKDTree(proto).query(X, k=L)
            dist = dist.reshape(len(X), L)
        else:
            dist = own[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = (own[:, None] / dist) ** (2.0 / (m - 1.0))
            # the own prototype is among the neighbours or is nearer than all of them
            total = ratio.sum(axis=1) + np.where((dist <= own[:, None]).any(axis=1), 0.0, 1.0)
            mu = np.where(own == 0, 1.0, 1.0 / total)
        mu = np.nan_to_num(mu, nan=1.0)
        w = mu ** m
        den = np.bincount(labels, weights=w, minlength=g)
        # A record on another group's prototype has membership 0 to its own (fuzzy
        # c-means). When that holds for every record of a group (tied data), its weights
        # are undefined: the group then takes equal weights, its plain mean.
        empty = den[labels] == 0
        kappa = np.where(empty, 1.0 / counts[labels], w / np.where(empty, 1.0, den[labels]))
        proto = np.stack([np.bincount(labels, weights=kappa * X[:, j], minlength=g)
                          for j in range(X.shape[1])], axis=1)
    return kappa
