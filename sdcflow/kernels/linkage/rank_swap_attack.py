"""The transparency attack on rank swapping (RS-RL): Torra, "Data privacy: supervised
approaches for disclosure risk assessment", 2016, "Transparency: Attacking Rank Swapping"
(Nin, Herranz & Torra 2008, "Rethinking rank swapping to decrease disclosure risk", DKE 64),
and Torra, "Masking methods", 2013, "Rank swapping: Specific record linkage for rank
swapping" (Examples III-VI).

Rank swapping with parameter ``p`` swaps the value of rank ``i`` only with a value of rank
``l``, ``i < l <= i + d`` (Torra 2013: ``d = p``; Torra 2016: ``d = p * |X| / 100``). So the
protected value of a record has a rank within ``d`` of its original value's rank, and an
intruder who knows the method, ``d`` and one record ``x`` can list, for each variable
``j``, the set ``B_j(x_j)`` of protected records whose value of ``j`` could have come from
``x_j``; the protected version of ``x`` lies in the intersection of the ``B_j``. When the
intersection has one element the re-identification is certain (and the intruder knows
it); otherwise Torra (2016) applies ordinary record linkage within the intersection.

Ranks are positions in the sorted protected values of the variable (what the intruder
sees; rank swapping keeps each marginal, so they are the original's ranks too). A value
``a`` occupies the positions ``lo(a) .. hi(a)`` (several with ties; if absent, the gap
between its neighbours), and ``B_j(a)`` holds the protected records whose value occupies a
position in ``[lo(a) - d, hi(a) + d]``, that is whose value is between the sorted values at
``lo(a) - d`` and ``hi(a) + d``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import prange

from ..jit import njit
from .paired import paired_files

# Most elements (variables^2 x records) of the per-variable sorted copies of the protected
# file (50M float64 = 400 MB).
_SORTED_COPIES_MAX = 50_000_000


def rank_distance(p: float, n: int, unit: str = "percent") -> int:
    """The largest rank distance of a swap: ``floor(p * n / 100)`` for ``p`` in percent of
    the ``n`` records (Torra 2016: ``l in [i + 1, min(n, i + p*|X|/100)]``), ``p`` itself
    for ``unit="records"`` (Torra 2013: ``i < l <= i + p``, the worked example's p = 2)."""
    if unit == "percent":
        return int(np.floor(p * n / 100.0 + 1e-9))
    if unit == "records":
        return int(p)
    raise ValueError(f"unknown unit {unit!r}")


def windows(original: np.ndarray, protected: np.ndarray, distance,
            sorted_protected: list[np.ndarray] | None = None
            ) -> tuple[np.ndarray, np.ndarray]:
    """For every original record and variable, the interval ``[low, high]`` of protected
    values that rank swapping within ``distance`` ranks (one number, or one per variable)
    could have produced from the original value (the set ``B_j``). A missing original
    value constrains nothing (``-inf, inf``); an empty set is ``(inf, -inf)``.
    ``sorted_protected``: each variable's observed protected values, sorted, if known."""
    original = np.asarray(original, dtype=float)
    protected = np.asarray(protected, dtype=float)
    low = np.full(original.shape, -np.inf)
    high = np.full(original.shape, np.inf)
    dist = np.broadcast_to(np.asarray(distance, dtype=np.int64), (original.shape[1],))
    for j in range(original.shape[1]):
        distance = int(dist[j])
        if sorted_protected is None:
            s = np.sort(protected[:, j])
            s = s[~np.isnan(s)]
        else:
            s = sorted_protected[j]
        a = original[:, j]
        known = ~np.isnan(a)
        if not len(s):
            continue
        lo = np.searchsorted(s, a[known], side="left")
        hi = np.searchsorted(s, a[known], side="right") - 1  # lo - 1 when absent
        first = lo - distance
        last = hi + distance
        empty = (last < 0) | (first > len(s) - 1) | (first > last)
        first = np.clip(first, 0, len(s) - 1)
        last = np.clip(last, 0, len(s) - 1)
        lw, hg = s[first], s[last]
        lw[empty], hg[empty] = np.inf, -np.inf
        low[known, j], high[known, j] = lw, hg
    return low, high


@dataclass
class AttackResult:
    """Per original (intruder) record: ``size`` of the intersection of the ``B_j``;
    ``contains``: its own protected record is in it (False: the data were not rank swapped
    within the assumed distance); ``single``: the only member when ``size == 1`` (else -1);
    ``credit``: record linkage within the intersection (nearest on the standardised known
    variables): ``1 / ties`` when its own record is among the nearest, else 0."""

    size: np.ndarray
    contains: np.ndarray
    single: np.ndarray
    credit: np.ndarray

    @property
    def certain(self) -> np.ndarray:
        """Re-identified with certainty: the intersection is its own record alone."""
        return (self.size == 1) & (self.single == np.arange(len(self.size)))


def intersection_attack(original: np.ndarray, protected: np.ndarray, distance,
                        z_original: np.ndarray | None = None,
                        z_protected: np.ndarray | None = None) -> AttackResult:
    """The intersection attack for every original record (the intruder knows all of
    them, in the worst case): ``|cap_j B_j(x_ij)|`` and the linkage within it.
    ``distance``: the largest rank distance of a swap (one number, or one per variable).

    ``z_original``/``z_protected``: the coordinates for the linkage within the
    intersection (default: the values themselves); the squared Euclidean distance over
    the variables known in both records. A missing protected value could be anything:
    the record belongs to every ``B_j`` of that variable. Cost: for each record, the
    smallest of its ``B_j`` is scanned (about ``2 d + 1`` records)."""
    original, protected = paired_files(original, protected)
    zo = original if z_original is None else np.asarray(z_original, dtype=float)
    zp = protected if z_protected is None else np.asarray(z_protected, dtype=float)
    return window_attack(protected, lambda sorted_values: windows(
        original, protected, distance, sorted_values), zo, zp)


def window_attack(protected: np.ndarray, windows_of, zo: np.ndarray,
                  zp: np.ndarray) -> AttackResult:
    """The intersection attack when ``B_j(x_ij)`` is the set of protected records whose
    value of ``j`` lies in a window ``[low_ij, high_ij]``: ``windows_of(sorted_values)``
    returns ``(low, high)`` given each variable's observed protected values, sorted
    (``-inf, inf``: the variable constrains nothing; ``low > high``: empty). ``zo``/``zp``:
    the coordinates of the linkage within the intersection."""
    protected = np.asarray(protected, dtype=float)
    n, c = protected.shape
    order = np.empty((c, n), dtype=np.int64)
    sorted_vals = np.empty((c, n))
    n_valid = np.empty(c, dtype=np.int64)
    for j in range(c):
        col = protected[:, j]
        o = np.argsort(col, kind="stable")  # NaN last
        order[j] = o
        sorted_vals[j] = col[o]
        n_valid[j] = np.count_nonzero(~np.isnan(col))
    low, high = windows_of([sorted_vals[j, :n_valid[j]] for j in range(c)])
    # the protected records in each variable's order, so that the scan of a window reads
    # memory sequentially (3x faster on 100,000 records); skipped when too large
    if c * c * n <= _SORTED_COPIES_MAX:
        by_order = np.stack([protected[order[j]] for j in range(c)]) if c else \
            np.zeros((0, n, 0))
    else:
        by_order = np.zeros((0, 0, 0))
    size, contains, single, credit = _attack(
        np.ascontiguousarray(protected), np.ascontiguousarray(zo), np.ascontiguousarray(zp),
        low, high, order, sorted_vals, n_valid, by_order)
    return AttackResult(size, contains, single, credit)


@njit(cache=True, parallel=True)
def _attack(Y, zo, zp, low, high, order, sorted_vals, n_valid, by_order):  # pragma: no cover
    n, c = Y.shape
    sequential = by_order.shape[0] == c and c > 0
    size = np.zeros(n, dtype=np.int64)
    contains = np.zeros(n, dtype=np.bool_)
    single = np.full(n, -1, dtype=np.int64)
    credit = np.zeros(n)
    for i in prange(n):
        # scan the smallest B_j: a sorted window plus the records missing that variable
        best_j = -1
        best_a = 0
        best_b = n
        best_count = n + 1
        empty = False
        for j in range(c):
            if low[i, j] == -np.inf and high[i, j] == np.inf:
                continue  # unknown to the intruder: constrains nothing
            if low[i, j] > high[i, j]:
                a = 0
                b = 0
            else:
                a = np.searchsorted(sorted_vals[j, :n_valid[j]], low[i, j], side="left")
                b = np.searchsorted(sorted_vals[j, :n_valid[j]], high[i, j], side="right")
            count = (b - a) + (n - n_valid[j])
            if count == 0:
                empty = True
            if count < best_count:
                best_count = count
                best_j = j
                best_a = a
                best_b = b
        if empty:
            continue
        members = 0
        dmin = np.inf
        ntied = 0
        own_d = np.inf
        found = False
        last = -1
        if best_j < 0:
            total = n
        else:
            total = (best_b - best_a) + (n - n_valid[best_j])
        for t in range(total):
            if best_j < 0:
                pos = t
                k = t
            else:
                if t < best_b - best_a:
                    pos = best_a + t
                else:
                    pos = n_valid[best_j] + (t - (best_b - best_a))
                k = order[best_j, pos]
            ok = True
            for j in range(c):
                if j == best_j:
                    continue
                if sequential and best_j >= 0:
                    y = by_order[best_j, pos, j]
                else:
                    y = Y[k, j]
                if np.isnan(y):
                    continue
                if y < low[i, j] or y > high[i, j]:
                    ok = False
                    break
            if not ok:
                continue
            members += 1
            last = k
            d = 0.0
            for j in range(c):
                if low[i, j] == -np.inf and high[i, j] == np.inf:
                    continue  # unknown to the intruder
                diff = zp[k, j] - zo[i, j]
                if not np.isnan(diff):
                    d += diff * diff
            if d < dmin:
                dmin = d
                ntied = 1
            elif d == dmin:
                ntied += 1
            if k == i:
                found = True
                own_d = d
        size[i] = members
        contains[i] = found
        if members == 1:
            single[i] = last
        if found and own_d == dmin:
            credit[i] = 1.0 / ntied
    return size, contains, single, credit
