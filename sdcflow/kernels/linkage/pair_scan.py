"""The pair-scan route of probabilistic record linkage: exact agreement-pattern counts for
large files (100,000 x 100,000 pairs) without a pass over every pair, compiled with numba.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ..jit import njit

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
