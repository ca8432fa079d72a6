"""A static k-d tree over the rows of a matrix, with deletions, for MDAV's exact
nearest- and farthest-record queries (compiled with numba: the queries are loops that NumPy cannot
express without scanning every record).

Nodes cover contiguous ranges of the tree order (``perm``, the record ids; ``Xt``, their
rows copied in that order, so that a leaf is read from contiguous memory). Each node
keeps the bounding box of its live records, shrunk at every deletion (an empty node's
box is empty: lo = inf, hi = -inf, so every query skips it), and its cell: the region of
space that holds its records and no other, open where no split bounds it. What a query
reads of a node is packed together (``link``: range, children, parent; ``geom``: box and
cell), so that a node costs one or two cache misses: at millions of records the
queries wait on memory, not on arithmetic.

Distances are squared Euclidean, summed over the columns in order, and ties are broken
by a given rank of the records (MDAV: their place in the file), so that every query
returns exactly what a plain scan over the live records returns. Built by median splits
found with quickselect (linear time per level): O(n log n).
"""

from __future__ import annotations

import numpy as np

from ...jit import njit

LEAF_SIZE = 32
# link columns
START, END, LEFT, RIGHT, PARENT = 0, 1, 2, 3, 4
# geom rows: live bounding box (LO, HI) and cell (CELL_LO, CELL_HI)
LO, HI, CELL_LO, CELL_HI = 0, 1, 2, 3


@njit(cache=True)
def _select(W, ids, lo_t, hi_t, kth, dim):
    """Reorder the rows W[lo_t..hi_t] (and their ids) so that row kth holds the row of
    rank kth by column ``dim``, smaller or equal ones before it and larger or equal ones
    after (Hoare's quickselect with a median-of-three pivot: linear time in practice,
    deterministic). The rows themselves move, so the scans read memory in order."""
    d = W.shape[1]
    while hi_t > lo_t:
        mid = (lo_t + hi_t) // 2
        a, b, c = W[lo_t, dim], W[mid, dim], W[hi_t, dim]
        if a > b:
            a, b = b, a
        if b > c:
            b = max(c, a)
        pivot = b
        i, j = lo_t, hi_t
        while i <= j:
            while W[i, dim] < pivot:
                i += 1
            while W[j, dim] > pivot:
                j -= 1
            if i <= j:
                for col in range(d):
                    W[i, col], W[j, col] = W[j, col], W[i, col]
                ids[i], ids[j] = ids[j], ids[i]
                i += 1
                j -= 1
        if kth <= j:
            hi_t = j
        elif kth >= i:
            lo_t = i
        else:
            return


@njit(cache=True)
def build(X, rows, leaf_size):
    """Build a tree over ``rows`` of ``X``. Returns (perm, Xt, alive_t, link, geom,
    where): the record ids in tree order, their rows and live flags in that order; per
    node its range, children (-1 for leaves) and parent (``link``), its live bounding box
    and its cell (``geom``); per record id its slot in the tree order and its leaf
    (``where``; -1 when not in the tree)."""
    n = rows.shape[0]
    d = X.shape[1]
    max_nodes = 2 * (n // max(leaf_size // 2, 1) + 1) + 1
    perm = rows.copy()
    Xt = np.empty((n, d))
    for t in range(n):
        for j in range(d):
            Xt[t, j] = X[perm[t], j]
    link = -np.ones((max_nodes, 5), np.int64)
    geom = np.empty((max_nodes, 4, d))
    where = -np.ones((X.shape[0], 2), np.int64)
    stack = np.zeros(max_nodes, np.int64)
    for j in range(d):
        geom[0, CELL_LO, j] = -np.inf
        geom[0, CELL_HI, j] = np.inf
    nodes = 1
    link[0, START], link[0, END] = 0, n
    top = 1
    stack[0] = 0
    while top > 0:
        top -= 1
        node = stack[top]
        s, e = link[node, START], link[node, END]
        for j in range(d):
            geom[node, LO, j] = np.inf
            geom[node, HI, j] = -np.inf
        for t in range(s, e):
            for j in range(d):
                v = Xt[t, j]
                geom[node, LO, j] = min(geom[node, LO, j], v)
                geom[node, HI, j] = max(geom[node, HI, j], v)
        if e - s <= leaf_size:
            for t in range(s, e):
                where[perm[t], 1] = node
            continue
        dim = 0
        spread = -1.0
        for j in range(d):
            if geom[node, HI, j] - geom[node, LO, j] > spread:
                spread = geom[node, HI, j] - geom[node, LO, j]
                dim = j
        mid = (s + e) // 2
        _select(Xt, perm, s, e - 1, mid, dim)
        a, b = nodes, nodes + 1
        nodes += 2
        for j in range(d):
            geom[a, CELL_LO, j] = geom[b, CELL_LO, j] = geom[node, CELL_LO, j]
            geom[a, CELL_HI, j] = geom[b, CELL_HI, j] = geom[node, CELL_HI, j]
        split = Xt[mid, dim]  # left: values <= the median, right: >=
        geom[a, CELL_HI, dim] = split
        geom[b, CELL_LO, dim] = split
        link[a, START], link[a, END], link[b, START], link[b, END] = s, mid, mid, e
        link[a, PARENT] = link[b, PARENT] = node
        link[node, LEFT], link[node, RIGHT] = a, b
        stack[top] = a
        stack[top + 1] = b
        top += 2
    for t in range(n):
        where[perm[t], 0] = t
    alive_t = np.ones(n, np.bool_)
    return perm, Xt, alive_t, link[:nodes].copy(), geom[:nodes].copy(), where


@njit(cache=True)
def _min_box(q, geom, node):
    s = 0.0
    for j in range(q.shape[0]):
        lo = geom[node, LO, j]
        hi = geom[node, HI, j]
        if q[j] < lo:
            t = lo - q[j]
        elif q[j] > hi:
            t = q[j] - hi
        else:
            t = 0.0
        s += t * t
    return s


@njit(cache=True)
def _max_box(q, geom, node):
    s = 0.0
    for j in range(q.shape[0]):
        t = max(abs(q[j] - geom[node, LO, j]), abs(q[j] - geom[node, HI, j]))
        s += t * t
    return s


@njit(cache=True)
def farthest(q, best, best_d, perm, Xt, alive_t, link, geom, stack, rank):
    """The live record farthest from point ``q`` (ties: the smallest ``rank``), starting
    from a candidate ``best`` at squared distance ``best_d`` (-1 and -1.0: none), which
    lets boxes that cannot hold a farther record be skipped from the start. Returns the
    record and its squared distance."""
    d = Xt.shape[1]
    top = 1
    stack[0] = 0
    while top > 0:
        top -= 1
        node = stack[top]
        if geom[node, LO, 0] > geom[node, HI, 0] or _max_box(q, geom, node) < best_d:
            continue
        if link[node, LEFT] < 0:
            for t in range(link[node, START], link[node, END]):
                if alive_t[t]:
                    dd = 0.0
                    for j in range(d):
                        v = Xt[t, j] - q[j]
                        dd += v * v
                    p = perm[t]
                    if dd > best_d or (dd == best_d and rank[p] < rank[best]):
                        best_d = dd
                        best = p
            continue
        a, b = link[node, LEFT], link[node, RIGHT]
        if _max_box(q, geom, a) > _max_box(q, geom, b):
            a, b = b, a
        stack[top] = a  # the child that may hold the farthest record is taken first
        stack[top + 1] = b
        top += 2
    return best, best_d


@njit(cache=True)
def _scan_leaf(q, node, m, exclude, perm, Xt, alive_t, link, out_d, out_i, filled, rank):
    """Offer the live records of leaf ``node`` to the sorted candidate list (ties by
    ``rank[id]``)."""
    d = Xt.shape[1]
    for t in range(link[node, START], link[node, END]):
        if not alive_t[t]:
            continue
        p = perm[t]
        if p == exclude:
            continue
        dd = 0.0
        for j in range(d):
            v = Xt[t, j] - q[j]
            dd += v * v
        if filled == m and (dd > out_d[m - 1] or (dd == out_d[m - 1] and
                                                  rank[p] > rank[out_i[m - 1]])):
            continue
        # insertion into the sorted candidate list
        pos = filled if filled < m else m - 1
        while pos > 0 and (out_d[pos - 1] > dd or (out_d[pos - 1] == dd
                                                    and rank[out_i[pos - 1]] > rank[p])):
            if pos < m:
                out_d[pos] = out_d[pos - 1]
                out_i[pos] = out_i[pos - 1]
            pos -= 1
        out_d[pos] = dd
        out_i[pos] = p
        if filled < m:
            filled += 1
    return filled


@njit(cache=True)
def _search(root, q, m, exclude, perm, Xt, alive_t, link, geom, stack, out_d, out_i, filled,
            rank):
    """Offer the live records of the subtree at ``root`` (nearer child first, subtrees
    that cannot hold a better candidate skipped)."""
    top = 1
    stack[0] = root
    while top > 0:
        top -= 1
        node = stack[top]
        if geom[node, LO, 0] > geom[node, HI, 0]:  # no live record left
            continue
        if filled == m and _min_box(q, geom, node) > out_d[m - 1]:
            continue
        if link[node, LEFT] < 0:
            filled = _scan_leaf(q, node, m, exclude, perm, Xt, alive_t, link, out_d, out_i,
                                filled, rank)
            continue
        a, b = link[node, LEFT], link[node, RIGHT]
        if _min_box(q, geom, a) < _min_box(q, geom, b):
            a, b = b, a
        stack[top] = a  # the nearer child is taken first
        stack[top + 1] = b
        top += 2
    return filled


@njit(cache=True)
def _ball_inside(q, r2, geom, node):
    """Whether the ball of squared radius ``r2`` around ``q`` lies strictly inside the
    cell of ``node`` (then no record outside the node can be as near)."""
    for j in range(q.shape[0]):
        a = q[j] - geom[node, CELL_LO, j]
        b = geom[node, CELL_HI, j] - q[j]
        if a <= 0.0 or b <= 0.0 or a * a <= r2 or b * b <= r2:
            return False
    return True


@njit(cache=True)
def nearest(p0, m, perm, Xt, alive_t, link, geom, where, stack, out_d, out_i, rank):
    """The ``m`` live records nearest to record ``p0`` (itself excluded), ordered by
    (distance, ``rank[id]``: the order that breaks ties); written into out_d/out_i,
    returns how many were found.

    The search starts at the leaf of ``p0`` and climbs: at each ancestor the other child
    is searched (pruned by its bounding box), and the climb stops as soon as the ball of
    the m-th candidate lies inside the node's cell."""
    q = Xt[where[p0, 0]].copy()
    node = where[p0, 1]
    filled = _scan_leaf(q, node, m, p0, perm, Xt, alive_t, link, out_d, out_i, 0, rank)
    while link[node, PARENT] >= 0:
        if filled == m and _ball_inside(q, out_d[m - 1] * (1.0 + 1e-12), geom, node):
            break
        up = link[node, PARENT]
        other = link[up, LEFT] if link[up, RIGHT] == node else link[up, RIGHT]
        filled = _search(other, q, m, p0, perm, Xt, alive_t, link, geom, stack, out_d, out_i,
                         filled, rank)
        node = up
    return filled


@njit(cache=True)
def remove(p, alive_t, link, geom, where, Xt):
    """Delete record ``p``: shrink the bounding box of its leaf to the live records, and
    those of its ancestors as far up as a box changes."""
    alive_t[where[p, 0]] = False
    d = Xt.shape[1]
    node = where[p, 1]
    changed = False
    for j in range(d):
        lo_j = np.inf
        hi_j = -np.inf
        for t in range(link[node, START], link[node, END]):
            if alive_t[t]:
                lo_j = min(lo_j, Xt[t, j])
                hi_j = max(hi_j, Xt[t, j])
        if lo_j != geom[node, LO, j] or hi_j != geom[node, HI, j]:
            changed = True
            geom[node, LO, j] = lo_j
            geom[node, HI, j] = hi_j
    node = link[node, PARENT]
    while changed and node >= 0:
        changed = False
        a, b = link[node, LEFT], link[node, RIGHT]
        for j in range(d):
            lo_j = min(geom[a, LO, j], geom[b, LO, j])
            hi_j = max(geom[a, HI, j], geom[b, HI, j])
            if lo_j != geom[node, LO, j] or hi_j != geom[node, HI, j]:
                changed = True
                geom[node, LO, j] = lo_j
                geom[node, HI, j] = hi_j
        node = link[node, PARENT]
