"""MDAV microaggregation (Maximum Distance to Average Vector; seed 000_1eece6b9d3791e64.txt,
"MDAV microaggregation"; Domingo-Ferrer & Torra 2005), exactly, fast.

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

Speed without changing the result: a k-d tree with deletions answers the nearest and
farthest queries exactly (:mod:`sdcflow.kernels.kdtree`); its bounding boxes shrink to
the remaining records at every deletion, it is rebuilt on the remaining records whenever
half of them are gone (to stay balanced), and the centroid is kept as a running
(compensated) sum instead of a new mean per step.
"""

from __future__ import annotations

import numpy as np

from .jit import njit
from .kdtree import LEAF_SIZE, build, dist2, farthest, nearest, remove


@njit(cache=True)
def _refresh(X, alive, c, top_size, top_idx, top_key):
    """Rank the live records by |x|^2 - 2 x.c (their squared distance to ``c`` less
    |c|^2): the ``top_size`` largest into top_idx/top_key (descending); returns the number
    kept, the largest key among the others (the floor) and the largest |x|."""
    n = X.shape[0]
    d = X.shape[1]
    keys = np.empty(n)
    rows = np.empty(n, np.int64)
    m = 0
    r2 = 0.0
    for p in range(n):
        if alive[p]:
            norm = 0.0
            dot = 0.0
            for j in range(d):
                norm += X[p, j] * X[p, j]
                dot += X[p, j] * c[j]
            keys[m] = norm - 2.0 * dot
            rows[m] = p
            r2 = max(r2, norm)
            m += 1
    keys = keys[:m]
    rows = rows[:m]
    kept = min(top_size, m)
    floor = -np.inf
    if kept < m:
        cut = np.partition(keys, m - kept)[m - kept]
        sel = np.flatnonzero(keys >= cut)
        rest = np.flatnonzero(keys < cut)
        if rest.shape[0] > 0:
            floor = keys[rest].max()
        kept = sel.shape[0]
        order = np.argsort(-keys[sel], kind="mergesort")
        for t in range(kept):
            top_idx[t] = rows[sel[order[t]]]
            top_key[t] = keys[sel[order[t]]]
    else:
        order = np.argsort(-keys, kind="mergesort")
        for t in range(kept):
            top_idx[t] = rows[order[t]]
            top_key[t] = keys[order[t]]
    return kept, floor, np.sqrt(r2)


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
def _mdav(X, k, leaf_size):
    n, d = X.shape
    labels = -np.ones(n, np.int64)
    alive = np.ones(n, np.bool_)
    n_alive = n
    total = np.zeros(d)
    comp = np.zeros(d)  # Neumaier compensation of the running sum
    for p in range(n):
        _neumaier_add(total, comp, X[p], 1.0)
    rows = np.arange(n)
    tree = build(X, rows, leaf_size)
    perm, start, end, left, right, parent, lo, hi, count, leaf_of = tree
    built_for = n
    stack = np.zeros(start.shape[0] + 2, np.int64)
    out_d = np.empty(max(k - 1, 1))
    out_i = np.empty(max(k - 1, 1), np.int64)
    centroid = np.empty(d)
    group = 0
    # The record farthest from the slowly moving centroid is found in a ranking by the
    # distance to a reference point c_ref: moving the centroid by delta changes every
    # squared distance by at most 2 |x| |delta| (+|c|^2 terms common to all), so only the
    # records ranked within that slack of the best need an exact distance.
    top_size = min(n, 4096)
    top_idx = np.empty(top_size, np.int64)
    top_key = np.empty(top_size)
    c_ref = np.zeros(d)
    kept, floor, radius = _refresh(X, alive, c_ref, top_size, top_idx, top_key)

    while n_alive >= 2 * k:
        if n_alive * 2 < built_for:
            rows = np.flatnonzero(alive)
            tree = build(X, rows, leaf_size)
            perm, start, end, left, right, parent, lo, hi, count, leaf_of = tree
            built_for = n_alive
            stack = np.zeros(start.shape[0] + 2, np.int64)
        for j in range(d):
            centroid[j] = (total[j] + comp[j]) / n_alive
        two = n_alive >= 3 * k
        r = -1
        while r < 0:
            shift = 0.0
            c2 = 0.0
            for j in range(d):
                shift += (centroid[j] - c_ref[j]) ** 2
                c2 += centroid[j] * centroid[j]
            slack = 2.0 * radius * np.sqrt(shift)
            margin = 1e-9 * (radius * radius + c2 + 1.0)
            best_d = -1.0
            scanned = 0
            exhausted = True
            for t in range(kept):
                p = top_idx[t]
                if not alive[p]:
                    continue
                if top_key[t] + slack + c2 + margin < best_d:
                    exhausted = False
                    break
                scanned += 1
                dd = dist2(X, p, centroid)
                if dd > best_d or (dd == best_d and p < r):
                    best_d = dd
                    r = p
            if exhausted and floor > -np.inf and floor + slack + c2 + margin >= best_d:
                r = -1  # a record outside the ranked top may be farther: re-rank
            if r < 0 or scanned > 64:
                for j in range(d):
                    c_ref[j] = centroid[j]
                kept, floor, radius = _refresh(X, alive, c_ref, top_size, top_idx, top_key)
        for side in range(2 if two else 1):
            if side == 1:
                # the second group forms around the record farthest from r
                q = X[r].copy()
                r = farthest(X, q, alive, perm, start, end, left, right, lo, hi, count, stack)
            found = nearest(X, X[r], k - 1, r, alive, perm, start, end, left, right, lo, hi,
                            count, stack, out_d, out_i)
            members = np.empty(found + 1, np.int64)
            members[0] = r
            for t in range(found):
                members[t + 1] = out_i[t]
            for p in members:
                labels[p] = group
                remove(p, alive, leaf_of, parent, count, X, perm, start, end, left, right,
                       lo, hi)
                n_alive -= 1
                _neumaier_add(total, comp, X[p], -1.0)
            group += 1
    if n_alive > 0:
        for p in range(n):
            if alive[p]:
                labels[p] = group
        group += 1
    return labels


def mdav(X: np.ndarray, k: int) -> np.ndarray:
    """Group labels 0..g-1 of the MDAV partition of the rows of ``X`` (n x d) for group
    size ``k`` (see the module docstring for the exact algorithm and tie-breaking)."""
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
    return _mdav(X, int(k), LEAF_SIZE)
