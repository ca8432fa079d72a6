"""Agreement-pattern counts for probabilistic record linkage: for each protected record and
each agreement pattern (the set of variables on which a pair agrees), the number of
original records whose pair with it has exactly that pattern, by enumerating the pairs
block by block or from box counts on k-d trees (SciPy) turned into exact patterns by a
Moebius inversion.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from ..parallel import threads
from .paired import paired_files

# Pairs up to which probabilistic linkage enumerates every pair (beyond: the pair scan);
# and the most variables the k-d tree route (the scan's fallback when agreements are so
# frequent that the scan would visit too many pairs) accepts: it counts 2^c subsets.
PRL_PAIRS_DIRECT = 40_000_000
PRL_MAX_DIM = 10


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
