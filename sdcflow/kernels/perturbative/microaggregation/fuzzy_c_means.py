"""Fuzzy microaggregation for the transparency principle (V. Torra, "Fuzzy
microaggregation for the transparency principle", Journal of Applied Logic 23, 2017;
V. Torra, "Data Privacy: Foundations, New Developments and the Big Data Challenge",
Springer 2017, fuzzy microaggregation): a fuzzy clustering gives every record a
membership ``u_ir`` to several clusters, and the record is replaced by the centre of one
cluster drawn at random with probabilities ``u_i``. Records of one crisp group may so
get different clusters' centres, and an intruder who knows the method cannot rebuild
the groups from the published values: the cluster a record went to depends on a draw,
not only on its values.

The clustering is fuzzy c-means (J. C. Bezdek, "Pattern Recognition with Fuzzy
Objective Function Algorithms", 1981) with ``c = n // k`` clusters started from the MDAV
groups' centroids: ``u_ir = 1 / sum_l (d_ir / d_il)^(2 / (m - 1))`` and centres
``v_r = sum_i u_ir^m x_i / sum_i u_ir^m``. Each record's memberships are taken over its
``neighbours`` nearest centres (all ``c`` when ``neighbours >= c``: plain fuzzy c-means),
which keeps memory linear in the records. A centre is a weighted mean of records with the
same weights for every variable, so linear edit constraints holding for every record
hold for every centre.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from ...utility.fuzzy_c_means import memberships

ITERATIONS = 20  # rounds of fuzzy c-means (centres, then memberships)


def fuzzy_c_means(Z: np.ndarray, labels: np.ndarray, *, m: float = 2.0,
                  neighbours: int = 5, iterations: int = ITERATIONS
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Fuzzy c-means on the rows of ``Z`` started from the centroids of the groups
    ``labels`` (0 .. c-1). Returns, for every record, the clusters of its ``neighbours``
    nearest centres (``n x L`` indices) and its memberships to them (rows add up to one).
    A cluster no record weighs on keeps its centre."""
    Z = np.asarray(Z, dtype=float)
    c = int(labels.max()) + 1
    counts = np.bincount(labels, minlength=c).astype(float)
    centres = np.stack([np.bincount(labels, weights=Z[:, j], minlength=c) / counts
                        for j in range(Z.shape[1])], axis=1)
    L = min(neighbours, c)
    idx = np.zeros((len(Z), 1), dtype=np.int64)
    u = np.ones((len(Z), 1))
    for _ in range(iterations):
        dist, idx = cKDTree(centres).query(Z, k=L)
        dist, idx = dist.reshape(len(Z), L), idx.reshape(len(Z), L)
        u = memberships(dist ** 2, m)
        w = u ** m
        den = np.bincount(idx.ravel(), weights=w.ravel(), minlength=c)
        moved = den > 0
        for j in range(Z.shape[1]):
            num = np.bincount(idx.ravel(), weights=(w * Z[:, j, None]).ravel(), minlength=c)
            centres[moved, j] = num[moved] / den[moved]
    if L == 1:
        # one centre each: a crisp assignment to the nearest centre
        idx = cKDTree(centres).query(Z, k=1)[1].reshape(len(Z), 1)
    return idx, u


def fuzzy_centres(x: np.ndarray, idx: np.ndarray, u: np.ndarray, m: float,
                  c: int) -> np.ndarray:
    """The centre of every cluster on the values ``x``: ``sum_i u_ir^m x_i / sum_i
    u_ir^m`` (NaN for a cluster no record weighs on)."""
    w = (u ** m).ravel()
    den = np.bincount(idx.ravel(), weights=w, minlength=c)
    num = np.bincount(idx.ravel(), weights=w * np.repeat(np.asarray(x, dtype=float),
                                                         idx.shape[1]), minlength=c)
    out = np.full(c, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def random_assignment(idx: np.ndarray, u: np.ndarray, rng: np.random.Generator,
                      m: float = 2.0) -> np.ndarray:
    """For every record, a cluster drawn among its ``idx`` with probabilities ``u``
    (a membership whose ``u^m`` vanishes in floating point is not drawn: that cluster's
    centre may not weigh on the record at all)."""
    p = np.where(u ** m > 0, u, 0.0)
    cum = np.cumsum(p, axis=1)
    r = (1.0 - rng.random(len(u))) * cum[:, -1]  # in (0, total]
    pick = (cum < r[:, None]).sum(axis=1)
    return idx[np.arange(len(u)), np.minimum(pick, u.shape[1] - 1)]
