"""Distance-based record linkage (DBRL; Torra, "Data privacy: supervised approaches for
disclosure risk assessment", 2016, "Disclosure risk assessment"; Torra, "Masking methods",
2013, "Rank swapping: Example II", DLD): each protected record is linked to the nearest
original record, for the squared Euclidean distance on coordinates prepared by the caller
(:mod:`.coordinates`: standardised, weighted, Mahalanobis). The k-d tree (SciPy) or a
blocked BLAS scan with a numba minimum finds the candidates; the direct sums alone decide
the minimum and the ties.
"""

from __future__ import annotations

import numpy as np
from numba import prange
from scipy.spatial import cKDTree

from ..jit import njit
from ..parallel import threads
from .links import Links
from .paired import paired_files

# Relative margin under which two distances computed by different routes (k-d tree,
# expanded BLAS form, direct sum) may be the same number: candidates within it are
# recomputed exactly by the direct sum, which alone decides ties.
_REL = 1e-9
# Up to this many linkage variables the k-d tree is used (it is exact and, in few
# dimensions, much faster than the blocked BLAS scan: 0.9 s against 33 s for 100,000 x
# 100,000 records on 5 variables); beyond, the blocked scan.
KDTREE_MAX_DIM = 10
# Elements of one block of inner products in the blocked scan (384 MB of float64): large
# blocks, because every BLAS call repacks the whole original file (100,000 x 100,000 on 5
# variables: 33 s with 48M-element blocks, 50 s with 16M, 144 s with 4M, on a loaded
# 2-core machine).
BLOCK_ELEMENTS = 48_000_000


def nearest_links(protected: np.ndarray, original: np.ndarray, algorithm: str = "auto",
                  block_elements: int = BLOCK_ELEMENTS, workers: int | None = None) -> Links:
    """Distance-based record linkage: link each protected record (row) to the original
    record(s) at the smallest squared Euclidean distance.

    Exact: the distances that decide (the minimum and the ties) are the direct sums
    ``sum_j (p_j - o_j)^2`` in float64; the k-d tree (``algorithm="kdtree"``, the default
    up to :data:`KDTREE_MAX_DIM` variables) or the blocked BLAS scan (``"blocked"``:
    ``||p||^2 - 2 p.o + ||o||^2`` on blocks of rows, argmin per row) only find the
    candidates. Records with a missing value (or an infinite coordinate) are not linked
    (protected) or not candidates (original). Both files must have the same records (``len`` equal)."""
    original, protected = paired_files(original, protected)
    n = len(protected)
    if protected.ndim != 2 or original.shape[1:] != protected.shape[1:]:
        raise ValueError("both files need the same variables (2-d arrays)")
    c = protected.shape[1]
    linked = np.full(n, -1, dtype=np.int64)
    ties = np.zeros(n, dtype=np.int64)
    correct = np.zeros(n, dtype=bool)
    # (a coordinate beyond the float range, a z-score of 1e300 over a tiny spread, is
    # as far from every record as a missing one: not linked, not a candidate)
    p_ok = np.isfinite(protected).all(axis=1)
    o_ok = np.isfinite(original).all(axis=1)
    cand = np.flatnonzero(o_ok)  # original row of each candidate
    if c == 0 or not p_ok.any() or not len(cand):
        if c == 0:  # nothing known: every complete original is equally near
            ties[p_ok] = len(cand)
            correct[p_ok] = o_ok[p_ok]
            linked[p_ok] = cand[0] if len(cand) else -1
        return Links(linked, ties, correct)
    if algorithm == "auto":
        algorithm = "kdtree" if c <= KDTREE_MAX_DIM else "blocked"
    rows = np.flatnonzero(p_ok)
    P = np.ascontiguousarray(protected[rows])
    O = np.ascontiguousarray(original[cand])
    # position of each record's own original among the candidates (-1: not a candidate)
    own = np.full(n, -1, dtype=np.int64)
    own[cand] = np.arange(len(cand))
    own = own[rows]
    d_own = np.full(len(rows), np.inf)
    has_own = own >= 0
    d_own[has_own] = _sqdist(P[has_own], O[own[has_own]])
    # Identical originals are equally near any record: the search runs over the distinct
    # rows, each standing for its copies (how many, and the first of them in the file).
    O, first_copy, inverse, copies = np.unique(O, axis=0, return_index=True,
                                               return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    own = np.where(has_own, inverse[np.maximum(own, 0)], -1)
    cand = cand[first_copy]  # each distinct row's first original in the file
    if algorithm == "kdtree":
        first, exact_rows, groups = _kdtree_candidates(P, O, own, d_own, workers)
    elif algorithm == "blocked":
        first, exact_rows, groups = _blocked_candidates(P, O, own, d_own, block_elements)
    else:
        raise ValueError(f"unknown algorithm {algorithm!r}")
    # default: a unique nearest distinct row that is not the record's own original's
    linked[rows] = cand[first]
    ties[rows] = copies[first]
    correct[rows] = first == own
    if len(exact_rows):
        _decide_exactly(P, O, rows, exact_rows, groups, own, cand, copies, linked, ties,
                        correct)
    return Links(linked, ties, correct, {"algorithm": algorithm})


def _decide_exactly(P, O, rows, exact_rows, groups, own, cand, copies, linked, ties,
                    correct):
    """Link the rows whose nearest set must be decided exactly, by the direct distances
    to their candidates (``groups``: positions and lengths, each row's candidate distinct
    rows one after the other; ``copies``: how many originals each stands for): the links
    go to the smallest original index among the records at the minimum."""
    flat, lengths = groups
    which = np.repeat(np.arange(len(lengths)), lengths)
    d = _sqdist(P[exact_rows[which]], O[flat])
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    low = np.minimum.reduceat(d, starts)
    at_min = d == low[which]
    n_tied = np.bincount(which, weights=at_min * copies[flat],
                         minlength=len(lengths)).astype(np.int64)
    first = np.full(len(lengths), np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first, which[at_min], cand[flat[at_min]])
    mine = own[exact_rows]
    own_tied = np.zeros(len(lengths), dtype=bool)
    own_tied[which[at_min & (flat == mine[which])]] = True
    target = rows[exact_rows]
    linked[target] = first
    ties[target] = n_tied
    correct[target] = (mine >= 0) & own_tied


def _sqdist(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise squared distances, the one formula every tie decision uses."""
    diff = a - b
    return np.einsum("ij,ij->i", diff, diff)


def _kdtree_candidates(P, O, own, d_own, workers):
    """Nearest candidate per row, and the rows whose nearest set must be decided exactly
    (possible ties, or own original possibly at the minimum) with their candidates (a
    ``(positions, lengths)`` pair: each row's candidates, one after the other)."""
    tree = cKDTree(O)
    workers = threads() if workers is None else workers
    k = 2 if len(O) > 1 else 1
    dist, idx = tree.query(P, k=k, workers=workers)
    if k == 1:
        dist, idx = dist[:, None], idx[:, None]
    d0 = dist[:, 0]
    reach = d0 * (1 + _REL)
    close = np.sqrt(d_own) <= reach
    unsure = close & (idx[:, 0] != own)
    if k == 2:
        unsure |= dist[:, 1] <= reach
    exact_rows = np.flatnonzero(unsure)
    return idx[:, 0].astype(np.int64), exact_rows, \
        _within(tree, P[exact_rows], reach[exact_rows] * (1 + _REL), workers)


def _within(tree, points, radius, workers, k: int = 16):
    """The candidates within ``radius`` of each point, as (positions, lengths): from the
    k nearest when the k-th is beyond the radius (almost always), else from a ball
    query."""
    if not len(points):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    k = min(k, tree.n)
    dist, idx = tree.query(points, k=k, workers=workers)
    dist, idx = dist.reshape(len(points), k), idx.reshape(len(points), k)
    inside = dist <= radius[:, None]
    lengths = inside.sum(axis=1)
    positions = idx[inside]
    full = np.flatnonzero(inside[:, -1]) if k < tree.n else np.zeros(0, np.int64)
    if len(full):  # more than k at the minimum: ask for the whole ball
        balls = tree.query_ball_point(points[full], radius[full], workers=workers)
        parts = np.split(positions, np.cumsum(lengths)[:-1])
        for row, ball in zip(full, balls, strict=True):
            parts[row] = np.asarray(ball, dtype=np.int64)
        lengths = np.array([len(p) for p in parts], dtype=np.int64)
        positions = np.concatenate(parts) if parts else positions
    return positions.astype(np.int64), lengths


def _blocked_candidates(P, O, own, d_own, block_elements):
    """As :func:`_kdtree_candidates`, by scanning the expanded squared distances
    ``||p||^2 - 2 p.o + ||o||^2`` block of rows by block of rows: one BLAS product per
    block, then one compiled pass per row for the minimum and the near-ties (``||p||^2``
    is the same along a row, so it is left out of the comparison)."""
    oo = np.einsum("ij,ij->i", O, O)
    pp = np.einsum("ij,ij->i", P, P)
    scale = oo.max(initial=0.0)
    rows_per_block = max(1, block_elements // max(len(O), 1))
    first = np.empty(len(P), dtype=np.int64)
    exact_rows: list[int] = []
    groups: list[np.ndarray] = []
    for start in range(0, len(P), rows_per_block):
        stop = min(start + rows_per_block, len(P))
        G = P[start:stop] @ O.T
        # the expanded form errs by a few ulps of ||p||^2 + ||o||^2
        slack = 1e-10 * (pp[start:stop] + scale) + 1e-300
        best, dmin, count = _block_minima(G, oo, slack)
        first[start:stop] = best
        mine = own[start:stop]
        own_close = (mine >= 0) & (d_own[start:stop] - pp[start:stop] <= dmin + 2 * slack)
        for r in np.flatnonzero((count > 1) | (own_close & (best != mine))):
            exact_rows.append(start + r)
            groups.append(np.flatnonzero(oo - 2.0 * G[r] <= dmin[r] + 2 * slack[r]))
        del G  # before the next block's product is allocated
    lengths = np.array([len(g) for g in groups], dtype=np.int64)
    flat = np.concatenate(groups) if groups else np.zeros(0, np.int64)
    return first, np.asarray(exact_rows, dtype=np.int64), (flat.astype(np.int64), lengths)


@njit(cache=True, parallel=True)
def _block_minima(G, oo, slack):  # pragma: no cover - numba
    """Per row of ``G`` (inner products): the first argmin of ``oo - 2 G``, its value, and
    how many values are within ``slack`` of it."""
    b, m = G.shape
    best = np.zeros(b, dtype=np.int64)
    dmin = np.empty(b)
    count = np.zeros(b, dtype=np.int64)
    for r in prange(b):
        lo = np.inf
        arg = 0
        for k in range(m):
            v = oo[k] - 2.0 * G[r, k]
            if v < lo:
                lo = v
                arg = k
        limit = lo + slack[r]
        cnt = 0
        for k in range(m):
            if oo[k] - 2.0 * G[r, k] <= limit:
                cnt += 1
        best[r] = arg
        dmin[r] = lo
        count[r] = cnt
    return best, dmin, count
