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

* the records are renumbered along a Z-order (Morton) curve, so that records near in
  space are near in memory (ties are still broken by the position in the file);
* the nearest records come from a k-d tree with deletions (:mod:`sdcflow.kernels.perturbative.microaggregation.kdtree`):
  the search climbs from the query record's leaf and stops as soon as the candidates'
  ball lies inside a node's cell; the boxes shrink at every deletion, and the tree is
  rebuilt on the remaining records when three quarters of them are gone;
* the farthest record (from the centroid, then from r) comes from a ranking of the
  remaining records by their distance to a reference point c_ref, in 2d cones of
  directions: a record at distance rho from c_ref in a cone whose directions make at
  most the angle a with the direction away from q is at most sqrt(rho^2 + delta^2 +
  2 rho delta cos a) from q (delta = |q - c_ref|), so a scan down each cone stops at the
  first record whose bound falls below the farthest found. Only the top of the ranking is
  sorted (a selection finds it in linear time); the ranking is renewed at the current
  centroid when its top runs out or when the scans since the last ranking have cost as
  much as a new one, so the scans stay near-linear in total;
* the centroid is kept as a running (compensated) sum, in the same order of additions
  as a plain implementation, instead of a new mean per step.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...jit import njit
from ...watch import counter, watched
from .kdtree import LEAF_SIZE, build, farthest, nearest, remove

TOP = 8192  # the least number of records a ranking sorts
FAR_BUDGET = 2048  # records looked at down the ranking before the k-d tree takes over


@njit(cache=True)
def spatial_order(X):
    """An order of the rows of ``X`` along a Z-order curve of their first columns
    (each quantised to 63 // columns bits): rows near in space come near in the order."""
    n, d = X.shape
    dd = min(d, 16)
    bits = 63 // dd
    scale = float((1 << bits) - 1)
    keys = np.zeros(n, np.int64)
    for j in range(dd):
        lo = np.inf
        hi = -np.inf
        for p in range(n):
            lo = min(lo, X[p, j])
            hi = max(hi, X[p, j])
        width = hi - lo if hi > lo else 1.0
        for p in range(n):
            q = np.int64((X[p, j] - lo) / width * scale)
            for b in range(bits):
                keys[p] |= ((q >> b) & 1) << (b * dd + j)
    return np.argsort(keys, kind="mergesort")


@njit(cache=True)
def _rank(X, alive, c_ref, top, ranked, radius, Xr, alive_r, pos, starts):
    """Rank the live records by decreasing distance to ``c_ref``: the ``top`` farthest
    (all if fewer) into ``ranked`` (ids), ``radius`` (distances), ``Xr`` (their rows,
    contiguous, so that scans read memory in order) and ``alive_r``, grouped by
    direction from ``c_ref`` (2 d cones: the axis of the largest coordinate and its
    sign; cone b holds places starts[b] .. starts[b+1]) and sorted by decreasing
    distance within each; ``pos`` maps an id to its place (-1: not ranked). Returns the
    largest distance among the live records left out (-1 if none)."""
    d = X.shape[1]
    rows = np.flatnonzero(alive)
    m = rows.shape[0]
    keys = np.empty(m)
    for t in range(m):
        p = rows[t]
        s = 0.0
        for j in range(d):
            v = X[p, j] - c_ref[j]
            s += v * v
        keys[t] = s
    for t in range(X.shape[0]):
        pos[t] = -1
    kept = min(top, m)
    rest = -1.0
    if kept < m:
        # the kept largest: all above the cut, then records at the cut until there are
        # exactly ``kept`` (the others at the cut bound what is left out)
        cut = np.partition(keys, m - kept)[m - kept]
        chosen = np.empty(kept, np.int64)
        c = 0
        for t in range(m):
            if keys[t] > cut:
                chosen[c] = t
                c += 1
        for t in range(m):
            if c == kept:
                break
            if keys[t] == cut:
                chosen[c] = t
                c += 1
                keys[t] = np.inf  # (marked as taken)
        for t in range(m):
            if keys[t] == np.inf:
                keys[t] = cut
            elif keys[t] <= cut:
                rest = max(rest, keys[t])
    else:
        chosen = np.arange(m)
    cone = np.empty(kept, np.int64)
    for t in range(kept):
        p = rows[chosen[t]]
        best_j = 0
        best_v = -1.0
        for j in range(d):
            v = abs(X[p, j] - c_ref[j])
            if v > best_v:
                best_v = v
                best_j = j
        cone[t] = 2 * best_j + (1 if X[p, best_j] < c_ref[best_j] else 0)
    # by cone, then by decreasing distance: sorted by distance, then placed by cone
    order = np.argsort(-keys[chosen], kind="mergesort")
    for b in range(2 * d + 1):
        starts[b] = 0
    for t in range(kept):
        starts[cone[t] + 1] += 1
    for b in range(2 * d):
        starts[b + 1] += starts[b]
    fill = starts[:-1].copy()
    for t in range(kept):
        i = chosen[order[t]]
        place = fill[cone[order[t]]]
        fill[cone[order[t]]] += 1
        p = rows[i]
        ranked[place] = p
        radius[place] = np.sqrt(keys[i])
        for j in range(d):
            Xr[place, j] = X[p, j]
        alive_r[place] = True
        pos[p] = place
    return np.sqrt(rest) if rest >= 0.0 else -1.0


@njit(cache=True)
def _cone_cos(v, b, d):
    """The largest cosine between the unit vector ``v`` and a direction of cone ``b`` (whose
    directions u have s u_j >= 1/sqrt(d), j = b // 2, s = -1 if b is odd), at least 0."""
    j = b // 2
    s = -1.0 if b % 2 else 1.0
    a = 1.0 / np.sqrt(d)
    vj = s * v[j]
    if vj >= a:
        return 1.0
    c = a * vj + np.sqrt(1.0 - a * a) * np.sqrt(max(0.0, 1.0 - vj * vj))
    return max(0.0, min(1.0, c))


@njit(cache=True)
def _farthest(q, c_ref, heads, starts, rest, ranked, radius, Xr, alive_r, rank, cosines,
              budget):
    """The live record farthest from ``q`` (ties: the smallest ``rank``), its squared
    distance, how many records were looked at, and whether the answer is certain. With
    delta = |q - c_ref|, a record x at distance rho from c_ref in cone b is at most
    sqrt(rho^2 + delta^2 + 2 rho delta cos_b) from q, cos_b the largest cosine between
    the cone and the direction opposite q: each cone is scanned by decreasing rho, the
    cone facing away from q first, until that bound falls below the farthest found. Not
    certain when the records outside the ranking (at most ``rest`` from c_ref) might be
    farther, or when ``budget`` records were looked at first (then the best so far)."""
    d = Xr.shape[1]
    delta = 0.0
    v = np.empty(d)
    for j in range(d):
        v[j] = c_ref[j] - q[j]
        delta += v[j] * v[j]
    delta = np.sqrt(delta)
    cones = 2 * d
    first = 0
    for b in range(cones):
        cosines[b] = _cone_cos(v / delta, b, d) if delta > 0.0 else 1.0
        if cosines[b] > cosines[first]:
            first = b
    best = -1
    best_d = -1.0
    scanned = 0
    for i in range(cones):
        b = first if i == 0 else (i - 1 if i - 1 < first else i)
        c = cosines[b]
        t = heads[b]
        while t < starts[b + 1] and not alive_r[t]:
            t += 1
        heads[b] = t
        while t < starts[b + 1]:
            if alive_r[t]:
                rho = radius[t]
                bound = rho * rho + delta * delta + 2.0 * rho * delta * c
                # (the margin covers rounding in the distances and their square roots)
                if bound * (1.0 + 1e-9) + 1e-300 < best_d:
                    break
                if scanned == budget:
                    return best, best_d, scanned, False
                scanned += 1
                dd = 0.0
                for j in range(d):
                    w = Xr[t, j] - q[j]
                    dd += w * w
                p = ranked[t]
                if dd > best_d or (dd == best_d and rank[p] < rank[best]):
                    best_d = dd
                    best = p
            t += 1
    if rest >= 0.0 and ((rest + delta) ** 2 * (1.0 + 1e-9) + 1e-300 >= best_d):
        return best, best_d, scanned, False
    return best, best_d, scanned, True


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
def _mdav(X, rank, k, leaf_size, least_top, grouped):
    """MDAV on the rows of ``X`` (renumbered: ``rank[p]`` is row p's place in the file,
    which breaks ties); returns the group of each row. ``grouped[0]``: the number of
    records grouped so far, for whoever watches (:mod:`sdcflow.kernels.watch`)."""
    n, d = X.shape
    labels = -np.ones(n, np.int64)
    alive = np.ones(n, np.bool_)
    n_alive = n
    total = np.zeros(d)
    comp = np.zeros(d)  # Neumaier compensation of the running sum
    in_file = np.empty(n, np.int64)
    for p in range(n):
        in_file[rank[p]] = p
    for i in range(n):  # in file order, so the sums are those of a plain implementation
        _neumaier_add(total, comp, X[in_file[i]], 1.0)
    perm, Xt, alive_t, link, geom, where = build(X, np.arange(n), leaf_size)
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
    starts = np.zeros(2 * d + 1, np.int64)
    heads = np.zeros(2 * d, np.int64)
    cosines = np.empty(2 * d)
    rest = _rank(X, alive, c_ref, top, ranked, radius, Xr, alive_r, pos, starts)
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
                found, far, _, certain = _farthest(q, c_ref, heads, starts, rest, ranked,
                                                   radius, Xr, alive_r, rank, cosines,
                                                   FAR_BUDGET)
                if not certain:
                    found, far = farthest(q, found, far, perm, Xt, alive_t, link, geom, stack,
                                          rank)
            while side == 0:
                found, far, scanned, certain = _farthest(centroid, c_ref, heads, starts, rest,
                                                         ranked, radius, Xr, alive_r, rank,
                                                         cosines, -1)
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
                rest = _rank(X, alive, c_ref, top, ranked, radius, Xr, alive_r, pos, starts)
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
    order = spatial_order(X)
    labels = np.empty(n, dtype=np.int64)
    grouped = counter()
    Xo, rank = X[order], order.astype(np.int64)
    labels[order] = watched(lambda: _mdav(Xo, rank, int(k), LEAF_SIZE, max(int(least_top), 1),
                                          grouped), grouped, n, progress)
    return labels
