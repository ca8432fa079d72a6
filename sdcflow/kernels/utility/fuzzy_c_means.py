"""Fuzzy c-means (Bezdek (1981), "Pattern Recognition with Fuzzy Objective Function
Algorithms") and the cluster-specific information loss built on it (Ladra & Torra (2008),
"On the comparison of generic information loss measures and cluster-specific ones",
IJUFKS 16(1)): the fuzzy partitions of the original and the protected data compared by
their cluster centres, their memberships and their objective functions. NumPy and SciPy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

from .kmeans import kmeans_plus_plus


@dataclass
class FuzzyPartition:
    """A fuzzy c-means solution: ``centres`` (c x p), ``membership`` (n x c, rows sum to
    1), the ``objective`` ``J = sum_ij u_ij^m ||x_j - v_i||^2`` and the ``iterations``."""

    centres: np.ndarray
    membership: np.ndarray
    objective: float
    iterations: int


def fuzzy_c_means(x: np.ndarray, centres: np.ndarray, m: float = 2.0, max_iter: int = 300,
                  tol: float = 1e-7) -> FuzzyPartition:
    """Bezdek's alternating optimisation of ``J_m`` from the initial ``centres``:
    ``u_ij = 1 / sum_k (d_ij / d_kj)^(2/(m-1))`` (a record on a centre belongs to it
    alone, shared equally between coinciding centres) and ``v_i = sum_j u_ij^m x_j /
    sum_j u_ij^m``, until no centre moves by more than ``tol`` (relative to the data's
    scale) or ``max_iter`` iterations."""
    x = np.asarray(x, dtype=float)
    v = np.array(centres, dtype=float)
    if m <= 1:
        raise ValueError("the fuzzifier m must be above 1")
    scale = max(float(np.abs(x).max(initial=0.0)), 1.0)
    iterations = 0
    u = memberships(_sq_distances(x, v), m)
    for iterations in range(1, max_iter + 1):
        w = u ** m
        totals = w.sum(axis=0)
        new = np.where(totals[:, None] > 0, (w.T @ x) / np.where(totals > 0, totals, 1.0)[:, None],
                       v)
        moved = float(np.abs(new - v).max(initial=0.0))
        v = new
        u = memberships(_sq_distances(x, v), m)
        if moved <= tol * scale:
            break
    objective = float(((u ** m) * _sq_distances(x, v)).sum())
    return FuzzyPartition(v, u, objective, iterations)


def _sq_distances(x: np.ndarray, v: np.ndarray) -> np.ndarray:
    d = np.einsum("ij,ij->i", x, x)[:, None] - 2.0 * x @ v.T + np.einsum("ij,ij->i", v, v)
    return np.maximum(d, 0.0)


def memberships(d2: np.ndarray, m: float) -> np.ndarray:
    """Bezdek's fuzzy c-means memberships ``u_ij = 1 / sum_k (d_ij / d_kj)^(2/(m-1))``
    from squared distances (n x c; rows add up to one; a record on one or more centres
    belongs to them in equal shares)."""
    zero = d2 <= 1e-300
    out = np.empty_like(d2)
    on_centre = zero.any(axis=1)
    if on_centre.any():
        z = zero[on_centre].astype(float)
        out[on_centre] = z / z.sum(axis=1, keepdims=True)
    rest = ~on_centre
    if rest.any():
        # (d_ij / d_kj)^(2/(m-1)) = (d2_ij / d2_kj)^(1/(m-1)); scaled by the row minimum
        d = d2[rest]
        ratio = (d.min(axis=1, keepdims=True) / d) ** (1.0 / (m - 1.0))
        out[rest] = ratio / ratio.sum(axis=1, keepdims=True)
    return out


@dataclass
class FuzzyClusteringLoss:
    """The comparison of the original's and the protected data's fuzzy partitions:
    ``centre_distance`` (d1), ``membership_distance`` (d2), ``per_record`` (each record's
    Euclidean distance between its two membership vectors), the objectives, and the
    partitions (the protected one's clusters renumbered to match the original's)."""

    centre_distance: float
    membership_distance: float
    per_record: np.ndarray
    objective_original: float
    objective_protected: float
    original: FuzzyPartition
    protected: FuzzyPartition


def fuzzy_clustering_loss(x: np.ndarray, y: np.ndarray, c: int, rng: np.random.Generator,
                          m: float = 2.0, restarts: int = 3, max_iter: int = 300
                          ) -> FuzzyClusteringLoss:
    """Ladra & Torra's cluster-specific information loss with fuzzy c-means: both data
    sets (``x`` original, ``y`` protected, records paired by position) are partitioned
    into ``c`` fuzzy clusters; ``restarts`` k-means++ seedings of the original are run
    and the solution of least objective kept; the protected data start from the same
    seeding, so that identical data give identical partitions (Ladra & Torra's runs
    started independently, and their table shows the differences that different local
    optima alone make). The protected clusters are matched one-to-one to the original
    ones by the least total distance between centres (Hungarian algorithm), then

    * ``d1 = sqrt(sum_i ||v_i - v'_i||^2)``, the Frobenius distance between the centres;
    * ``d2 = sqrt(sum_ij (u_ij - u'_ij)^2)``, the Frobenius distance between the
      membership matrices;
    * the objective function of each partition."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape:
        raise ValueError("the original and the protected data must have the same shape")
    if not 2 <= c <= len(x):
        raise ValueError(f"{c} clusters for {len(x)} records")
    best, best_start = None, None
    for _ in range(restarts):
        start = kmeans_plus_plus(x, c, rng)
        run = fuzzy_c_means(x, start, m, max_iter)
        if best is None or run.objective < best.objective:
            best, best_start = run, start
    protected = fuzzy_c_means(y, best_start, m, max_iter)
    cost = np.sqrt(_sq_distances(best.centres, protected.centres))
    rows, cols = linear_sum_assignment(cost)
    order = cols[np.argsort(rows)]
    protected = FuzzyPartition(protected.centres[order], protected.membership[:, order],
                               protected.objective, protected.iterations)
    diff_u = best.membership - protected.membership
    per_record = np.sqrt(np.einsum("ij,ij->i", diff_u, diff_u))
    return FuzzyClusteringLoss(
        float(np.sqrt(((best.centres - protected.centres) ** 2).sum())),
        float(np.sqrt((per_record ** 2).sum())), per_record, best.objective,
        protected.objective, best, protected)
