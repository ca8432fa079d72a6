"""Record linkage between a protected file and the original it was made from, for disclosure
risk (seed 003_fc14c51a27fe5611.txt, "Disclosure risk assessment": re-identification by
record linkage; seed 000_1eece6b9d3791e64.txt, "Rank swapping: Example II", DLD and PLD),
and interval disclosure. NumPy, SciPy (k-d trees) and numba; no pandas.

Records are aligned by position: protected record ``i`` was made from original record ``i``,
so a link of protected record ``i`` is *correct* when it goes to original record ``i``.

* Distance-based record linkage (DBRL): each protected record is linked to the nearest
  original record, for the squared Euclidean distance on coordinates prepared by the
  caller (:func:`standardize`, :func:`weighted`, :func:`mahalanobis_transform`).
* Probabilistic record linkage (PRL): Fellegi & Sunter (1969), "A theory for record
  linkage", JASA 64, with the m and u probabilities estimated by EM on the counts of the
  agreement patterns of all pairs (Jaro 1989, "Advances in record-linkage methodology as
  applied to matching the 1985 Census of Tampa, Florida", JASA 84; Winkler 1988), under
  conditional independence; each protected record is linked to the original(s) of highest
  weight. The pattern counts of all pairs are exact; for large files they come from the
  pairs that agree on two variables or more (few, found on unit grids) and from
  one-variable counts, so 100,000 x 100,000 pairs need no pass over every pair.

Ties are kept, not broken: a link reports how many originals share the best distance (or
weight) and whether the record's own original is one of them; its *credit* is
``1 / ties`` when it is (the expected number of correct links when ties are broken at
random) and 0 otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numba import prange
from scipy.spatial import cKDTree

from ...parallel import threads
from ..jit import njit
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
# Pairs up to which probabilistic linkage enumerates every pair (beyond: the pair scan);
# and the most variables the k-d tree route (the scan's fallback when agreements are so
# frequent that the scan would visit too many pairs) accepts: it counts 2^c subsets.
PRL_PAIRS_DIRECT = 40_000_000
PRL_MAX_DIM = 10
# Per-record pattern counts kept at most (records x 2^variables; 60M int64 = 480 MB).
PRL_MAX_CELLS = 60_000_000


@dataclass
class Links:
    """The links of the protected records: ``ties[i]`` originals share the best distance
    (weight) for protected record ``i`` (0: not linked, because of a missing value);
    ``correct[i]``: original ``i`` is one of them; ``linked[i]``: the lowest-numbered of them
    (-1 when not linked, or unknown: probabilistic linkage counts the tied originals
    without listing them)."""

    linked: np.ndarray
    ties: np.ndarray
    correct: np.ndarray
    info: dict = field(default_factory=dict)

    @property
    def credit(self) -> np.ndarray:
        """1 / ties for a correct link, else 0 (expected correctness under random
        tie-breaking)."""
        out = np.zeros(len(self.ties))
        ok = self.correct & (self.ties > 0)
        out[ok] = 1.0 / self.ties[ok]
        return out


# ----------------------------------------------------------------------------- coordinates


def standardize(original: np.ndarray, protected: np.ndarray, how: str = "original"
                ) -> tuple[np.ndarray, np.ndarray]:
    """Z-scores of both files (columns = variables; NaN stays NaN).

    ``how="original"``: both files with the original's means and standard deviations
    (sample sd, ``ddof=1``), so that a value keeps its position whatever the protected
    file's spread; ``how="each"``: each file with its own, as the ``diff_i`` of seed 003
    ("Worst-case scenario": ``((a_i - mean(a_i))/sd(a_i) - (b_i - mean(b_i))/sd(b_i))^2``).
    A standard deviation of 0 (or undefined) is taken as 1."""
    original = np.asarray(original, dtype=float)
    protected = np.asarray(protected, dtype=float)

    def moments(x):
        with np.errstate(invalid="ignore"), _quiet():
            mean = np.nanmean(x, axis=0) if len(x) else np.zeros(x.shape[1])
            sd = np.nanstd(x, axis=0, ddof=1) if len(x) > 1 else np.ones(x.shape[1])
        mean = np.where(np.isfinite(mean), mean, 0.0)
        sd = np.where(np.isfinite(sd) & (sd > 0), sd, 1.0)
        return mean, sd

    mo, so = moments(original)
    if how == "original":
        mp, sp = mo, so
    elif how == "each":
        mp, sp = moments(protected)
    else:
        raise ValueError(f"unknown standardisation {how!r}")
    return (original - mo) / so, (protected - mp) / sp


def weighted(z: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Coordinates whose squared Euclidean distance is the weighted one,
    ``sum_j w_j (a_j - b_j)^2`` (seed 003, "weighted mean distance")."""
    weights = np.asarray(weights, dtype=float)
    if np.any(weights < 0) or not np.all(np.isfinite(weights)):
        raise ValueError("weights must be finite and non-negative")
    return z * np.sqrt(weights)


def mahalanobis_transform(original: np.ndarray, protected: np.ndarray
                          ) -> tuple[np.ndarray, np.ndarray, dict]:
    """Coordinates whose squared Euclidean distance is the Mahalanobis distance
    ``(a - b)' S^+ (a - b)``, with ``S`` the pooled covariance of the two files
    (``((n-1) S_original + (m-1) S_protected) / (n + m - 2)``, each file centred on its own
    means, over its complete records) and ``S^+`` its Moore-Penrose pseudo-inverse
    (eigenvalues below ``1e-10`` times the largest count as 0, so collinear variables do
    not blow the distance up). Returns the two transformed files and ``{"rank": ...}``."""
    original = np.asarray(original, dtype=float)
    protected = np.asarray(protected, dtype=float)
    c = original.shape[1]
    scatter = np.zeros((c, c))
    dof = 0
    for x in (original, protected):
        x = x[~np.isnan(x).any(axis=1)]
        if len(x) > 1:
            xc = x - x.mean(axis=0)
            scatter += xc.T @ xc
            dof += len(x) - 1
    if dof == 0:
        return original, protected, {"rank": c}
    cov = scatter / dof
    values, vectors = np.linalg.eigh(cov)
    keep = values > 1e-10 * max(values.max(), 0.0)
    if not keep.any():
        return original * 0.0, protected * 0.0, {"rank": 0}
    transform = vectors[:, keep] / np.sqrt(values[keep])
    return original @ transform, protected @ transform, {"rank": int(keep.sum())}


# ------------------------------------------------------------------- distance-based linkage


def nearest_links(protected: np.ndarray, original: np.ndarray, algorithm: str = "auto",
                  block_elements: int = BLOCK_ELEMENTS, workers: int | None = None) -> Links:
    """Distance-based record linkage: link each protected record (row) to the original
    record(s) at the smallest squared Euclidean distance.

    Exact: the distances that decide (the minimum and the ties) are the direct sums
    ``sum_j (p_j - o_j)^2`` in float64; the k-d tree (``algorithm="kdtree"``, the default
    up to :data:`KDTREE_MAX_DIM` variables) or the blocked BLAS scan (``"blocked"``:
    ``||p||^2 - 2 p.o + ||o||^2`` on blocks of rows, argmin per row) only find the
    candidates. Records with a missing value are not linked (protected) or not candidates
    (original). Both files must have the same records (``len`` equal)."""
    original, protected = paired_files(original, protected)
    n = len(protected)
    if protected.ndim != 2 or original.shape[1:] != protected.shape[1:]:
        raise ValueError("both files need the same variables (2-d arrays)")
    c = protected.shape[1]
    linked = np.full(n, -1, dtype=np.int64)
    ties = np.zeros(n, dtype=np.int64)
    correct = np.zeros(n, dtype=bool)
    p_ok = ~np.isnan(protected).any(axis=1)
    o_ok = ~np.isnan(original).any(axis=1)
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


# ---------------------------------------------------------------- probabilistic linkage


def agreement_coordinates(original: np.ndarray, protected: np.ndarray, tolerance: float
                          ) -> tuple[np.ndarray, np.ndarray]:
    """Coordinates in which two values *agree* when they differ by at most 1.

    Variable ``j`` agrees for a pair when ``|x - x'| <= tolerance * sd_j`` (``sd_j`` the
    original's sample standard deviation): the coordinates are the values divided by the
    tolerance, and agreement is decided on them, ``|x/t - x'/t| <= 1``, by every route.
    Where the tolerance is 0 (``tolerance = 0`` or a constant variable) agreement is
    equality: the coordinates are twice the rank of the value among the distinct values
    of both files."""
    original = np.asarray(original, dtype=float)
    protected = np.asarray(protected, dtype=float)
    so = np.empty_like(original)
    sp = np.empty_like(protected)
    for j in range(original.shape[1]):
        x, y = original[:, j], protected[:, j]
        with _quiet():
            sd = np.nanstd(x, ddof=1) if np.count_nonzero(~np.isnan(x)) > 1 else 0.0
        t = tolerance * sd if np.isfinite(sd) else 0.0
        if t > 0:
            so[:, j], sp[:, j] = x / t, y / t
        else:
            both = np.concatenate([x, y])
            values = np.unique(both[~np.isnan(both)])
            for src, dst in ((x, so), (y, sp)):
                code = np.searchsorted(values, src).astype(float) * 2.0
                code[np.isnan(src)] = np.nan
                dst[:, j] = code
    return so, sp


def pattern_counts(so: np.ndarray, sp: np.ndarray, algorithm: str = "auto",
                   workers: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """For each protected record ``k`` (row of ``sp``) and each agreement pattern ``g``
    (bit ``j`` set: variable ``j`` agrees), the number of original records (rows of ``so``)
    whose pair with ``k`` has exactly pattern ``g``; and the pattern of each record's pair
    with its own original. Rows with a missing value are left out on both sides (their
    counts are 0, their own pattern -1).

    ``algorithm="direct"`` enumerates the pairs block by block; ``"kdtree"`` counts, for
    every set ``S`` of variables, the originals agreeing on at least ``S`` (a box query in
    the coordinates of :func:`agreement_coordinates`, Chebyshev radius 1) and turns these
    into exact-pattern counts by the Moebius inversion over supersets. (For large files
    :func:`probabilistic_links` uses a third route, a scan of the pairs that agree on two
    variables or more, that needs no table of 2^c counts per record.)"""
    so, sp = paired_files(so, sp)
    n, c = sp.shape
    npat = 1 << c
    p_ok, o_ok, own = _own_patterns(so, sp)
    counts = np.zeros((n, npat), dtype=np.int64)
    P, O = sp[p_ok], so[o_ok]
    if not len(P):
        return counts, own
    if algorithm == "auto":
        algorithm = "direct" if len(P) * len(O) <= PRL_PAIRS_DIRECT else "kdtree"
    if algorithm == "direct":
        counts[p_ok] = _direct_counts(P, O, 1 << np.arange(c, dtype=np.int64), npat)
    elif algorithm == "kdtree":
        if c > PRL_MAX_DIM:
            raise ValueError(f"probabilistic linkage of {len(P)} x {len(O)} records counts "
                             f"2^{c} agreement patterns per record; use at most "
                             f"{PRL_MAX_DIM} variables (or fewer records)")
        counts[p_ok] = _kdtree_counts(P, O, c, workers)
    else:
        raise ValueError(f"unknown algorithm {algorithm!r}")
    return counts, own


def _own_patterns(so, sp):
    p_ok = ~np.isnan(sp).any(axis=1)
    o_ok = ~np.isnan(so).any(axis=1)
    own = np.full(len(sp), -1, dtype=np.int64)
    both = p_ok & o_ok
    bits = 1 << np.arange(sp.shape[1], dtype=np.int64)
    own[both] = ((np.abs(so[both] - sp[both]) <= 1.0) * bits).sum(axis=1)
    return p_ok, o_ok, own


def _direct_counts(P, O, bits, npat):
    out = np.zeros((len(P), npat), dtype=np.int64)
    rows_per_block = max(1, 4_000_000 // max(len(O), 1))
    for start in range(0, len(P), rows_per_block):
        stop = min(start + rows_per_block, len(P))
        code = np.zeros((stop - start, len(O)), dtype=np.int64)
        for j, bit in enumerate(bits):
            code += (np.abs(O[None, :, j] - P[start:stop, j, None]) <= 1.0) * bit
        code += (np.arange(stop - start) * npat)[:, None]
        out[start:stop] = np.bincount(code.ravel(), minlength=(stop - start) * npat
                                      ).reshape(stop - start, npat)
    return out


def _kdtree_counts(P, O, c, workers):
    workers = threads() if workers is None else workers
    npat = 1 << c
    atleast = np.empty((len(P), npat), dtype=np.int64)
    atleast[:, 0] = len(O)
    for mask in range(1, npat):
        cols = [j for j in range(c) if mask >> j & 1]
        tree = cKDTree(O[:, cols])
        atleast[:, mask] = tree.query_ball_point(P[:, cols], 1.0, p=np.inf,
                                                 return_length=True, workers=workers)
    # Moebius inversion over supersets: exact(S) = sum_{T >= S} (-1)^{|T-S|} atleast(T)
    exact = atleast
    for j in range(c):
        bit = 1 << j
        low = np.array([m for m in range(npat) if not m & bit])
        exact[:, low] -= exact[:, low | bit]
    return exact


# The pair-scan route: the pairs agreeing on two variables or more are few (for each pair
# of variables, the originals in the 3 x 3 unit cells around the protected record), so
# they are enumerated with their exact pattern, each counted once (under the pair of its
# two lowest agreeing variables); the patterns with one agreement or none follow from the
# one-variable counts (exact binary searches) by subtraction.
_SCAN_MAX_WORK = 3e9  # estimated candidate visits beyond which the k-d tree route is used


class _PairScan:
    def __init__(self, P: np.ndarray, O: np.ndarray):
        self.P, self.O = P, O
        c = P.shape[1]
        self.sorted_cols = np.ascontiguousarray(np.sort(O, axis=0).T)
        self.atleast1 = _one_variable_counts(self.sorted_cols, np.ascontiguousarray(P.T))
        pairs = [(j, l) for j in range(c) for l in range(j + 1, c)]
        self.pairs = np.array(pairs, dtype=np.int64).reshape(-1, 2)
        m = len(O)
        # per pair of variables: the originals sorted by their unit cell, copied in that
        # order so that the scan reads them sequentially
        self.grid = np.zeros((len(pairs), m, c))
        self.cxs = np.zeros((len(pairs), m), dtype=np.int64)
        self.cys = np.zeros((len(pairs), m), dtype=np.int64)
        for q, (j, l) in enumerate(pairs):
            cx, cy = np.floor(O[:, j]).astype(np.int64), np.floor(O[:, l]).astype(np.int64)
            order = np.lexsort((cy, cx))
            self.grid[q], self.cxs[q], self.cys[q] = O[order], cx[order], cy[order]

    def feasible(self) -> bool:
        if not np.all(np.abs(self.O) < 1e15) or not np.all(np.abs(self.P) < 1e15):
            return False
        m = len(self.O)
        a = self.atleast1.astype(float)
        work = sum(float((a[:, j] * a[:, l]).sum()) for j, l in self.pairs) / max(m, 1) * 2.25
        return work <= _SCAN_MAX_WORK

    def counts(self) -> np.ndarray:
        return _scan(self.P, len(self.O), self.atleast1, self.pairs, self.grid, self.cxs,
                     self.cys)


@njit(cache=True)
def _lower(sorted_vals, y):  # pragma: no cover - numba
    """First position whose value agrees with or exceeds y: y - x <= 1 (exactly the
    predicate |x - y| <= 1 for x <= y, monotone in x)."""
    lo, hi = 0, sorted_vals.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if y - sorted_vals[mid] <= 1.0:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=True)
def _upper(sorted_vals, y):  # pragma: no cover - numba
    """First position past the values agreeing with y: x - y > 1."""
    lo, hi = 0, sorted_vals.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if sorted_vals[mid] - y > 1.0:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=True)
def _one_variable_counts(sorted_cols, PT):  # pragma: no cover - numba
    c, n = PT.shape
    out = np.empty((n, c), dtype=np.int64)
    for k in range(n):
        for j in range(c):
            y = PT[j, k]
            out[k, j] = _upper(sorted_cols[j], y) - _lower(sorted_cols[j], y)
    return out


@njit(cache=True)
def _range_eq(a, lo, hi, value):  # pragma: no cover - numba
    """[start, stop) of ``value`` in the sorted slice a[lo:hi]."""
    x, y = lo, hi
    while x < y:
        mid = (x + y) // 2
        if a[mid] < value:
            x = mid + 1
        else:
            y = mid
    start = x
    y = hi
    while x < y:
        mid = (x + y) // 2
        if a[mid] <= value:
            x = mid + 1
        else:
            y = mid
    return start, x


@njit(cache=True, parallel=True)
def _scan(P, m, atleast1, pairs, grid, cxs, cys):  # pragma: no cover - numba
    n, c = P.shape
    npat = 1 << c
    out = np.zeros((n, npat), dtype=np.int64)
    for k in prange(n):
        row = out[k]
        for q in range(pairs.shape[0]):
            j = pairs[q, 0]
            l = pairs[q, 1]
            yj = P[k, j]
            yl = P[k, l]
            sj = 1e-9 * (abs(yj) + 1.0)
            sl = 1e-9 * (abs(yl) + 1.0)
            x0 = np.int64(np.floor(yj - 1.0 - sj))
            x1 = np.int64(np.floor(yj + 1.0 + sj))
            y0 = np.int64(np.floor(yl - 1.0 - sl))
            y1 = np.int64(np.floor(yl + 1.0 + sl))
            for cx in range(x0, x1 + 1):
                a, b = _range_eq(cxs[q], 0, m, cx)
                if a == b:
                    continue
                lo, _ = _range_eq(cys[q], a, b, y0)
                _, hi = _range_eq(cys[q], a, b, y1)
                O = grid[q]
                for i in range(lo, hi):
                    if abs(O[i, j] - yj) > 1.0 or abs(O[i, l] - yl) > 1.0:
                        continue
                    # counted once: under the pair of its two lowest agreeing variables
                    g = (1 << j) | (1 << l)
                    other = False
                    for v in range(l):
                        if v != j and abs(O[i, v] - P[k, v]) <= 1.0:
                            other = True
                            break
                    if other:
                        continue
                    for v in range(l + 1, c):
                        if abs(O[i, v] - P[k, v]) <= 1.0:
                            g |= 1 << v
                    row[g] += 1
        # the one-agreement and no-agreement patterns, from the one-variable counts
        rest = m
        for g in range(npat):
            h = row[g]
            if h:
                rest -= h
                for v in range(c):
                    if g >> v & 1:
                        row[1 << v] -= h
        for v in range(c):
            row[1 << v] += atleast1[k, v]
            rest -= row[1 << v]
        row[0] = rest
    return out


def fellegi_sunter_em(counts: np.ndarray, c: int, *, p: float | None = None,
                      estimate_p: bool = False, max_iter: int = 5000, tol: float = 1e-9
                      ) -> dict:
    """EM estimates of the Fellegi-Sunter model with conditionally independent agreements
    (Jaro 1989; Winkler 1988) from the number of pairs with each agreement pattern
    (``counts[g]``, bit ``j`` of ``g``: variable ``j`` agrees).

    Returns ``m`` (P(agree | match)), ``u`` (P(agree | non-match)), ``p`` (share of
    matches among the pairs), ``iterations`` and ``converged``. Starts from ``m_j = 0.9``,
    ``u_j`` = the share of all pairs that agree on ``j``, and ``p`` (default: one match
    per record, ``sqrt(pairs) / pairs``), which stays fixed unless ``estimate_p``: here
    the number of matches is known (each protected record comes from one original), and
    a free ``p`` lets EM drift to a class of close non-matching pairs. Probabilities are
    kept within ``[1e-9, 1 - 1e-9]`` so that the weights stay finite."""
    counts = np.asarray(counts, dtype=float)
    total = counts.sum()
    patterns = np.arange(1 << c)
    gamma = ((patterns[:, None] >> np.arange(c)) & 1).astype(float)  # (npat, c)
    eps = 1e-9
    if total <= 0:
        return {"m": [0.5] * c, "u": [0.5] * c, "p": 0.0, "iterations": 0, "converged": True}
    u = np.clip(counts @ gamma / total, eps, 1 - eps)
    m = np.full(c, 0.9)
    p = p if p is not None else min(1.0, np.sqrt(total) / total)
    p = float(np.clip(p, eps, 1 - eps))
    converged = False
    it = 0
    for it in range(1, max_iter + 1):
        lm = gamma @ np.log(m) + (1 - gamma) @ np.log1p(-m) + np.log(p)
        lu = gamma @ np.log(u) + (1 - gamma) @ np.log1p(-u) + np.log1p(-p)
        g = 1.0 / (1.0 + np.exp(lu - lm))  # P(match | pattern)
        wm = counts * g
        wu = counts - wm
        sm, su = wm.sum(), wu.sum()
        new_p = float(np.clip(sm / total, eps, 1 - eps)) if estimate_p else p
        new_m = np.clip(wm @ gamma / sm, eps, 1 - eps) if sm > 0 else m
        new_u = np.clip(wu @ gamma / su, eps, 1 - eps) if su > 0 else u
        change = max(abs(new_p - p), np.abs(new_m - m).max(), np.abs(new_u - u).max())
        m, u, p = new_m, new_u, new_p
        if change < tol:
            converged = True
            break
    return {"m": m.tolist(), "u": u.tolist(), "p": p, "iterations": it,
            "converged": converged}


def pattern_weights(m, u) -> np.ndarray:
    """The Fellegi-Sunter weight of every agreement pattern ``g``:
    ``sum_j log(m_j/u_j)`` over agreeing variables plus ``log((1-m_j)/(1-u_j))`` over the
    others."""
    m = np.asarray(m, dtype=float)
    u = np.asarray(u, dtype=float)
    c = len(m)
    gamma = ((np.arange(1 << c)[:, None] >> np.arange(c)) & 1).astype(float)
    return gamma @ np.log(m / u) + (1 - gamma) @ (np.log1p(-m) - np.log1p(-u))


def probabilistic_links(original: np.ndarray, protected: np.ndarray, tolerance: float = 0.1,
                        algorithm: str = "auto", workers: int | None = None) -> Links:
    """Probabilistic record linkage (Fellegi-Sunter, EM): agreement per variable as in
    :func:`agreement_coordinates`, m and u by :func:`fellegi_sunter_em` on the pattern
    counts of all pairs of complete records (the share of matches fixed at one per
    protected record), then each protected record linked to the originals of the highest
    weight (``ties`` of them; ``correct`` when its own original is one). ``info`` holds
    the EM estimates, the pattern counts and the route.

    Routes (same results): ``direct`` (every pair, up to :data:`PRL_PAIRS_DIRECT` pairs),
    ``scan`` (the pairs agreeing on two variables or more, enumerated from unit grids; the
    default for large files unless the agreements are so frequent that this would visit
    more than 3e9 pairs) and ``kdtree`` (per record box counts of the 2^c variable subsets,
    at most :data:`PRL_MAX_DIM` variables)."""
    original, protected = paired_files(original, protected)
    n, c = protected.shape
    so, sp = agreement_coordinates(original, protected, tolerance)
    p_ok, o_ok, own = _own_patterns(so, sp)
    n_p, n_o = int(p_ok.sum()), int(o_ok.sum())
    pairs = n_p * n_o
    if n_p * (1 << c) > PRL_MAX_CELLS:
        raise ValueError(f"probabilistic linkage of {n_p} records on {c} variables counts "
                         f"2^{c} agreement patterns per record ({n_p * (1 << c):,} counts, "
                         f"at most {PRL_MAX_CELLS:,}): use fewer variables or records")
    counts = np.zeros((n, 1 << c), dtype=np.int64)
    if algorithm == "auto":
        algorithm = "direct" if pairs <= PRL_PAIRS_DIRECT else "scan"
    if n_p and n_o and algorithm == "scan":
        scan = _PairScan(sp[p_ok], so[o_ok])
        if scan.feasible():
            counts[p_ok] = scan.counts()
        else:
            algorithm = "kdtree"
    if algorithm != "scan":
        counts, own = pattern_counts(so, sp, algorithm, workers)
    totals = counts.sum(axis=0)
    em = fellegi_sunter_em(totals, c, p=(n_p / pairs if pairs else None))
    w = pattern_weights(em["m"], em["u"])
    present = counts > 0
    best = np.where(present, w[None, :], -np.inf).max(axis=1)
    at_best = present & (w[None, :] == best[:, None])
    ties = np.where(at_best, counts, 0).sum(axis=1)
    has = present.any(axis=1)
    correct = has & (own >= 0) & (w[np.maximum(own, 0)] == best)
    ties[~has] = 0
    info = {"em": em, "pattern_counts": [int(x) for x in totals], "weights": w.tolist(),
            "own_pattern": own, "best_weight": best, "algorithm": algorithm}
    return Links(np.full(n, -1, dtype=np.int64), ties, correct, info)


# ------------------------------------------------------------------- interval disclosure


def interval_disclosure(original: np.ndarray, protected: np.ndarray, p: float,
                        kind: str = "value") -> tuple[np.ndarray, np.ndarray]:
    """Which protected values lie close to their original value (seed 003, "Interval
    disclosure"; Domingo-Ferrer & Torra 2001, "A quantitative comparison of disclosure
    control methods for microdata"). Per value: ``kind="value"``: ``|x' - x| <= p/100 *
    |x|`` (an original 0 only counts an exact 0); ``kind="rank"``: the ranks of ``x'`` and
    ``x`` among the original values of the variable differ by at most ``p/100 * n / 2``
    (an interval holding p% of the ``n`` records centred on the original's rank; mid-ranks
    for ties, and a value absent from the original ranks halfway between its neighbours).

    Returns ``(disclosed, counted)`` boolean arrays of the shape of the data: ``counted``
    is False where the original is missing (nothing to disclose); a missing protected
    value is counted and not disclosed."""
    original = np.asarray(original, dtype=float)
    protected = np.asarray(protected, dtype=float)
    if original.shape != protected.shape:
        raise ValueError(f"the protected file has {len(protected)} records and the original "
                         f"{len(original)}: values are compared by position")
    counted = ~np.isnan(original)
    both = counted & ~np.isnan(protected)
    disclosed = np.zeros(original.shape, dtype=bool)
    if kind == "value":
        with np.errstate(invalid="ignore"):
            close = np.abs(protected - original) <= (p / 100.0) * np.abs(original)
        disclosed[both] = close[both]
    elif kind == "rank":
        for j in range(original.shape[1]):
            col = original[counted[:, j], j]
            s = np.sort(col)
            half = p / 100.0 * len(s) / 2.0
            ok = both[:, j]
            r0 = _midrank(s, original[ok, j])
            r1 = _midrank(s, protected[ok, j])
            disclosed[ok, j] = np.abs(r1 - r0) <= half + 1e-9
    else:
        raise ValueError(f"unknown kind {kind!r}")
    return disclosed, counted


def _midrank(sorted_values: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Mid-rank of each ``v`` among ``sorted_values`` (0-based; between the neighbours
    when absent). The queries are searched in sorted order, which keeps the binary
    searches in cache (10x faster on a million values)."""
    order = np.argsort(v)  # equal values get equal mid-ranks: no need for stability
    q = v[order]
    out = np.empty(len(v))
    out[order] = (np.searchsorted(sorted_values, q, side="left")
                  + np.searchsorted(sorted_values, q, side="right") - 1) / 2.0
    return out


class _quiet:
    """Silence numpy's warnings for all-NaN columns (their moments are replaced)."""

    def __enter__(self):
        import warnings

        self._ctx = warnings.catch_warnings()
        self._ctx.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)
        return self

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)
