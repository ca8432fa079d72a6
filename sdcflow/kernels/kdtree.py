"""A static k-d tree over the rows of a matrix, with deletions, for the exact nearest- and
farthest-record queries of MDAV (compiled with numba: the queries are loops that NumPy
cannot express without scanning every record).

Nodes cover contiguous ranges of a permutation of the records; each keeps the bounding
box of all its records (a valid bound as records are deleted) and a count of the records
still alive, so empty subtrees are skipped. Distances are squared Euclidean, summed over
the columns in order, and ties are broken by the smaller record index, so that every
query returns exactly what a plain scan over the live records returns.
"""

from __future__ import annotations

import numpy as np

from .jit import njit

LEAF_SIZE = 16


@njit(cache=True)
def build(X, rows, leaf_size):
    """Build a tree over ``rows`` of ``X``. Returns (perm, start, end, left, right, parent,
    lo, hi, count, leaf_of): per node its range in ``perm``, children (-1 for leaves),
    parent, bounding box and live count; per record the leaf that holds it."""
    n = rows.shape[0]
    d = X.shape[1]
    max_nodes = 2 * (n // max(leaf_size // 2, 1) + 1) + 1
    perm = rows.copy()
    start = np.zeros(max_nodes, np.int64)
    end = np.zeros(max_nodes, np.int64)
    left = -np.ones(max_nodes, np.int64)
    right = -np.ones(max_nodes, np.int64)
    parent = -np.ones(max_nodes, np.int64)
    lo = np.zeros((max_nodes, d))
    hi = np.zeros((max_nodes, d))
    count = np.zeros(max_nodes, np.int64)
    leaf_of = -np.ones(X.shape[0], np.int64)
    stack = np.zeros(max_nodes, np.int64)
    nodes = 1
    start[0], end[0] = 0, n
    top = 1
    stack[0] = 0
    while top > 0:
        top -= 1
        node = stack[top]
        s, e = start[node], end[node]
        count[node] = e - s
        for j in range(d):
            lo[node, j] = np.inf
            hi[node, j] = -np.inf
        for t in range(s, e):
            p = perm[t]
            for j in range(d):
                v = X[p, j]
                lo[node, j] = min(lo[node, j], v)
                hi[node, j] = max(hi[node, j], v)
        if e - s <= leaf_size:
            for t in range(s, e):
                leaf_of[perm[t]] = node
            continue
        dim = 0
        spread = -1.0
        for j in range(d):
            if hi[node, j] - lo[node, j] > spread:
                spread = hi[node, j] - lo[node, j]
                dim = j
        keys = np.empty(e - s)
        for t in range(s, e):
            keys[t - s] = X[perm[t], dim]
        order = np.argsort(keys, kind="mergesort")
        chunk = perm[s:e].copy()
        for t in range(e - s):
            perm[s + t] = chunk[order[t]]
        mid = (s + e) // 2
        a, b = nodes, nodes + 1
        nodes += 2
        start[a], end[a], start[b], end[b] = s, mid, mid, e
        parent[a] = node
        parent[b] = node
        left[node], right[node] = a, b
        stack[top] = a
        stack[top + 1] = b
        top += 2
    return (perm, start[:nodes], end[:nodes], left[:nodes], right[:nodes], parent[:nodes],
            lo[:nodes], hi[:nodes], count[:nodes], leaf_of)


@njit(cache=True)
def dist2(X, p, q):
    s = 0.0
    for j in range(X.shape[1]):
        t = X[p, j] - q[j]
        s += t * t
    return s


@njit(cache=True)
def _max_box(q, lo, hi, node):
    s = 0.0
    for j in range(q.shape[0]):
        a = abs(q[j] - lo[node, j])
        b = abs(q[j] - hi[node, j])
        t = max(b, a)
        s += t * t
    return s


@njit(cache=True)
def _min_box(q, lo, hi, node):
    s = 0.0
    for j in range(q.shape[0]):
        if q[j] < lo[node, j]:
            t = lo[node, j] - q[j]
        elif q[j] > hi[node, j]:
            t = q[j] - hi[node, j]
        else:
            t = 0.0
        s += t * t
    return s


@njit(cache=True)
def farthest(X, q, alive, perm, start, end, left, right, lo, hi, count, stack):
    """The live record farthest from point ``q`` (smallest index among ties)."""
    best_d = -1.0
    best = -1
    top = 1
    stack[0] = 0
    while top > 0:
        top -= 1
        node = stack[top]
        if count[node] == 0 or _max_box(q, lo, hi, node) < best_d:
            continue
        if left[node] < 0:
            for t in range(start[node], end[node]):
                p = perm[t]
                if alive[p]:
                    dd = dist2(X, p, q)
                    if dd > best_d or (dd == best_d and p < best):
                        best_d = dd
                        best = p
            continue
        a, b = left[node], right[node]
        if _max_box(q, lo, hi, a) > _max_box(q, lo, hi, b):
            a, b = b, a
        stack[top] = a  # the child that may hold the farthest record is taken first
        stack[top + 1] = b
        top += 2
    return best


@njit(cache=True)
def nearest(X, q, m, exclude, alive, perm, start, end, left, right, lo, hi, count, stack,
            out_d, out_i):
    """The ``m`` live records nearest to point ``q`` other than ``exclude``, ordered by
    (distance, index); written into out_d/out_i, returns how many were found."""
    filled = 0
    top = 1
    stack[0] = 0
    while top > 0:
        top -= 1
        node = stack[top]
        if count[node] == 0:
            continue
        if filled == m and _min_box(q, lo, hi, node) > out_d[m - 1]:
            continue
        if left[node] < 0:
            for t in range(start[node], end[node]):
                p = perm[t]
                if not alive[p] or p == exclude:
                    continue
                dd = dist2(X, p, q)
                if filled == m and (dd > out_d[m - 1] or (dd == out_d[m - 1]
                                                          and p > out_i[m - 1])):
                    continue
                # insertion into the sorted candidate list
                pos = filled if filled < m else m - 1
                while pos > 0 and (out_d[pos - 1] > dd or (out_d[pos - 1] == dd
                                                            and out_i[pos - 1] > p)):
                    if pos < m:
                        out_d[pos] = out_d[pos - 1]
                        out_i[pos] = out_i[pos - 1]
                    pos -= 1
                out_d[pos] = dd
                out_i[pos] = p
                if filled < m:
                    filled += 1
            continue
        a, b = left[node], right[node]
        if _min_box(q, lo, hi, a) < _min_box(q, lo, hi, b):
            a, b = b, a
        stack[top] = a  # the nearer child is taken first
        stack[top + 1] = b
        top += 2
    return filled


@njit(cache=True)
def remove(p, alive, leaf_of, parent, count, X, perm, start, end, left, right, lo, hi):
    """Delete record ``p``: update the live counts and shrink the bounding boxes of its
    leaf and ancestors to the live records, so that the bounds stay tight."""
    alive[p] = False
    d = X.shape[1]
    node = leaf_of[p]
    count[node] -= 1
    for j in range(d):
        lo[node, j] = np.inf
        hi[node, j] = -np.inf
    for t in range(start[node], end[node]):
        q = perm[t]
        if alive[q]:
            for j in range(d):
                v = X[q, j]
                lo[node, j] = min(lo[node, j], v)
                hi[node, j] = max(hi[node, j], v)
    node = parent[node]
    while node >= 0:
        count[node] -= 1
        a, b = left[node], right[node]
        for j in range(d):
            lo_j = np.inf
            hi_j = -np.inf
            if count[a] > 0:
                lo_j = lo[a, j]
                hi_j = hi[a, j]
            if count[b] > 0:
                lo_j = min(lo_j, lo[b, j])
                hi_j = max(hi_j, hi[b, j])
            lo[node, j] = lo_j
            hi[node, j] = hi_j
        node = parent[node]
