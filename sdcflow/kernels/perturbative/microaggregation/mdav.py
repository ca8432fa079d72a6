"""MDAV microaggregation (Maximum Distance to Average Vector; Domingo-Ferrer & Torra,
"Ordinal, continuous and heterogeneous k-anonymity through microaggregation", 2005),
exactly, fast.

The partition is the textbook one:

    while at least 3k records remain:
        c  = the centroid of the remaining records
        r  = the record farthest from c;  group r with its k-1 nearest records; remove them
        s  = the record farthest from r;  group s with its k-1 nearest records; remove them
    if at least 2k records remain:
        r  = the record farthest from the centroid; group it with its k-1 nearest; remove
    the remaining records (k .. 2k-1 of them) form the last group

so every group has k records but the last, which has k to 2k-1. Distances are squared
Euclidean on the given columns; ties are broken by the smaller record index (the first
record in file order), which makes the partition deterministic.

Speed without changing the result (near-linear in n; the equality with a plain quadratic
implementation is tested on random and heavily tied data):

* the records are renumbered in the order of the k-d tree below (built by median splits
  on a contiguous copy of the rows), so that records near in space are near in memory,
  and so is everything the loop keeps per record (ties are still broken by the position
  in the file);
* the nearest records come from a k-d tree with deletions (the ``kdtree`` module): the
  search climbs from the query record's leaf and stops as soon as the candidates'
  ball lies inside a node's cell; the boxes shrink at every deletion, and the tree is
  rebuilt on the remaining records when three quarters of them are gone;
* the farthest record (from the centroid, then from r) comes from a ranking of the
  remaining records by their distance to a reference point c_ref, in cones of
  directions (the 2d faces of the cube around c_ref, each cut into up to 16 cells): a
  record at distance rho from c_ref in a cone whose directions make at most the angle a
  with the direction away from q is at most sqrt(rho^2 + delta^2 + 2 rho delta cos a)
  from q (delta = |q - c_ref|), so a scan down each cone stops at the first record
  whose bound falls below the farthest found; narrow cones keep the scans short when q
  is far out (the ``ranking`` module). Only the top of the ranking is sorted (a
  selection finds it in linear time); the ranking is renewed at the current centroid
  when its top runs out or when the scans since the last ranking have cost as much as a
  new one, so the scans stay near-linear in total;
* the centroid is kept as a running (compensated) sum, in the same order of additions
  as a plain implementation, instead of a new mean per step.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...jit import njit
from ...watch import counter, watched
from .kdtree import LEAF_SIZE, build, farthest, nearest, remove
from .ranking import cone_geometry, farthest_ranked, rank_by_distance

TOP = 8192  # the least number of records a ranking sorts
FAR_BUDGET = 512  # records looked at down the ranking before the k-d tree takes over


@njit(cache=True)
def _neumaier_add(total, comp, row, sign):
    """total += sign * row, with Neumaier's compensation: ``comp`` collects the rounding
    errors, so that ``total + comp`` is the sum as if exact (the centroid of the records
    left is updated as records leave, over up to millions of additions)."""
    for j in range(row.shape[0]):
        v = sign * row[j]
        t = total[j] + v
        if abs(total[j]) >= abs(v):
            comp[j] += (total[j] - t) + v
        else:
            comp[j] += (v - t) + total[j]
        total[j] = t


@njit(cache=True)
def _file_sum(X):
    """The column sums of ``X`` added in file order (as a plain implementation adds
    them), with their Neumaier compensations."""
    d = X.shape[1]
    total = np.zeros(d)
    comp = np.zeros(d)
    for i in range(X.shape[0]):
        _neumaier_add(total, comp, X[i], 1.0)
    return total, comp


@njit(cache=True)
def _mdav(X, rank, k, leaf_size, least_top, grouped, m, centre, spread, total, comp, link,
          geom, leaf):
    """MDAV on the rows of ``X``, renumbered in the order of a k-d tree built on them
    (``link``, ``geom``, ``leaf``: its nodes and each row's leaf; ``rank[p]``: row p's
    place in the file, which breaks ties), so that records near in space are near in memory; ``total`` and ``comp``:
    the column sums in file order and their compensations. Returns the group of each
    row. ``grouped[0]``: the number of records grouped so far, for whoever watches
    (:mod:`sdcflow.kernels.watch`)."""
    n, d = X.shape
    labels = -np.ones(n, np.int64)
    alive = np.ones(n, np.bool_)
    n_alive = n
    # the tree the rows were ordered by: record p sits in slot p
    perm = np.arange(n)
    Xt = X
    alive_t = np.ones(n, np.bool_)
    where = np.empty((n, 2), np.int64)
    for p in range(n):
        where[p, 0] = p
        where[p, 1] = leaf[p]
    built_for = n
    stack = np.zeros(link.shape[0] + 2, np.int64)
    out_d = np.empty(max(k - 1, 1))
    out_i = np.empty(max(k - 1, 1), np.int64)
    centroid = np.empty(d)
    ranked = np.empty(n, np.int64)
    radius = np.empty(n)
    Xr = np.empty((min(n, max(least_top, n // 16)), d))
    alive_r = np.zeros(n, np.bool_)
    pos = np.empty(n, np.int64)
    c_ref = total / n
    top = Xr.shape[0]
    cones = centre.shape[0]
    starts = np.zeros(cones + 1, np.int64)
    heads = np.zeros(cones, np.int64)
    cosines = np.empty(cones)
    rest = rank_by_distance(X, alive, c_ref, top, ranked, radius, Xr, alive_r, pos, starts,
                            m)
    heads[:] = starts[:-1]
    work = 0
    group = 0
    while n_alive >= 2 * k:
        if n_alive * 4 < built_for:
            perm, Xt, alive_t, link, geom, where = build(X, np.flatnonzero(alive), leaf_size)
            built_for = n_alive
            stack = np.zeros(link.shape[0] + 2, np.int64)
        for j in range(d):
            centroid[j] = (total[j] + comp[j]) / n_alive
        two = n_alive >= 3 * k
        r = -1
        for side in range(2 if two else 1):
            if side == 1:
                # the record farthest from r: down the ranking while that is cheap, else
                # (r far out, where every record is about as far) by the k-d tree
                q = X[r].copy()
                found, far, _, certain = farthest_ranked(
                    q, c_ref, heads, starts, rest, ranked, radius, Xr, alive_r, rank, cosines,
                    centre, spread, FAR_BUDGET)
                if not certain:
                    found, far = farthest(q, found, far, perm, Xt, alive_t, link, geom, stack,
                                          rank)
            while side == 0:
                found, far, scanned, certain = farthest_ranked(
                    centroid, c_ref, heads, starts, rest, ranked, radius, Xr, alive_r, rank,
                    cosines, centre, spread, -1)
                work += scanned
                if certain and work <= n_alive + 64:
                    break
                if not certain:  # the top of the ranking ran out: rank deeper
                    top = min(n, 2 * top)
                    if Xr.shape[0] < top:
                        Xr = np.empty((top, d))
                # (else the scans since the last ranking cost as much as a new one)
                for j in range(d):
                    c_ref[j] = centroid[j]
                rest = rank_by_distance(X, alive, c_ref, top, ranked, radius, Xr, alive_r, pos,
                                        starts, m)
                heads[:] = starts[:-1]
                work = 0
                if certain:
                    break
            r = found
            got = nearest(r, k - 1, perm, Xt, alive_t, link, geom, where, stack, out_d, out_i,
                          rank)
            for t in range(-1, got):
                p = r if t < 0 else out_i[t]
                labels[p] = group
                alive[p] = False
                if pos[p] >= 0:
                    alive_r[pos[p]] = False
                remove(p, alive_t, link, geom, where, Xt)
                n_alive -= 1
                _neumaier_add(total, comp, X[p], -1.0)
            group += 1
        grouped[0] = n - n_alive
    if n_alive > 0:
        for p in range(n):
            if alive[p]:
                labels[p] = group
    return labels


def mdav(X: np.ndarray, k: int, *, least_top: int = TOP,
         progress: Callable[[float], None] | None = None) -> np.ndarray:
    """Group labels 0..g-1 of the MDAV partition of the rows of ``X`` (n x d) for group
    size ``k`` (see the module docstring for the exact algorithm and tie-breaking).
    ``least_top``: the least number of records a ranking sorts (a tuning knob; the
    tests set it small so that partial rankings run out on small data). ``progress``
    (if given) hears the fraction of the records grouped, a few times a second."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    n = X.shape[0]
    if k < 1:
        raise ValueError("k must be at least 1")
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if k == 1:
        return np.arange(n, dtype=np.int64)
    if X.shape[1] == 0:
        raise ValueError("MDAV needs at least one variable")
    total, comp = _file_sum(X)
    # renumber the records in the order of a k-d tree on them: the loop's per-record
    # state, the tree's leaves and the rows then share their memory neighbourhoods
    order, Xo, _, link, geom, where = build(X, np.arange(n, dtype=np.int64), LEAF_SIZE)
    leaf = where[order, 1]
    labels = np.empty(n, dtype=np.int64)
    grouped = counter()
    m, centre, spread = cone_geometry(X.shape[1])
    labels[order] = watched(lambda: _mdav(Xo, order, int(k), LEAF_SIZE, max(int(least_top), 1),
                                          grouped, m, centre, spread, total, comp, link, geom,
                                          leaf),
                            grouped, n, progress)
    return labels
