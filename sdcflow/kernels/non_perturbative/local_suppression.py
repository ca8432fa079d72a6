"""Local suppression to k-anonymity (Templ, "Advanced Survey Statistics: Disclosure
Control", 2019, "Local suppression"; Torra 2013, non-perturbative methods): replace as few
key values as possible by missing values so that every record shares its key combination
with at least k records, a missing value matching any value (the convention of
:mod:`sdcflow.kernels.risk.frequencies`, with sdcMicro's ``alpha``).

**Importance is lexicographic.** Variables are ranked (sdcMicro's ``importance``: 1 = most
important); a more important variable is suppressed only where suppressing less important
ones cannot reach k. The search goes down the ranks, most important first. At rank ``r``
it works on the key variables of rank ``r`` and above only, as if every less important
variable were already suppressed (the most they could ever help): the records that
cannot reach k even so get their rank-``r`` values suppressed, as few as possible. The
next rank then starts from there. With ``alpha = 1`` the rank-``r`` values are always
enough (suppressing all of them gives back the previous rank's k-anonymous data), so a
more important value is never added later; with ``alpha < 1`` a suppression can lower
other records' frequencies and a more important value is suppressed only when no
choice among the values of rank ``r`` helps. Without importance there is one rank.

**Within a rank.** The search works on groups of records alike (equal values on the
variables of the ranks so far): all records of a group are equally at risk and receive the
same suppression. Groups below k are taken fewest records first (they are the cheapest to
suppress, and a suppressed value then adds to the counts of many other groups); for each,
the value to suppress is chosen by looking one step ahead: among its values of the rank,
the cheapest whose suppression alone brings it to k; if none does, the one that raises its
frequency most per unit of cost (``costs``). Frequencies are updated exactly after each
suppression; rounds repeat until no group is below k or nothing more can be done. Then
every suppression is reconsidered, most important first: the value is restored (and, if
need be, replaced by the cheapest set of less important suppressions, the sets tried in
increasing cost) wherever every record then stays at k, until nothing changes. So in the
result no group of records could trade a suppressed value for less important ones, or
simply get it back, and keep the data k-anonymous.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from ..risk.frequencies import frequencies, row_ids

_EPS = 1e-9
# sets of less important values tried in place of a suppressed value (in increasing cost;
# 2^12 covers 12 variables whole)
_MAX_SETS = 1 << 12


@dataclass
class SuppressionResult:
    codes: np.ndarray  # n x m, -1 where missing (originally or suppressed)
    suppressed: np.ndarray  # n x m bool: values suppressed by this run
    unresolved: int  # records still violating k (e.g. fewer than k records in all)


class _Groups:
    """Groups of records with their current key vectors, record counts and exact
    frequencies (the weighted ``Fk`` of :func:`frequencies` with the counts as weights is
    each group's ``fk``)."""

    def __init__(self, vecs: np.ndarray, counts: np.ndarray, alpha: float):
        self.vecs = np.asfortranarray(vecs)  # columns contiguous: narrowed column by column
        self.counts = counts
        self.alpha = alpha
        self.complete = (vecs >= 0).all(axis=1)
        _, self.fk = frequencies(vecs, counts, alpha)

    def _compatible(self, vec: np.ndarray) -> np.ndarray:
        """The groups agreeing with ``vec`` wherever both are observed (indices)."""
        idx = None
        for j in np.flatnonzero(vec >= 0):
            col = self.vecs[:, j] if idx is None else self.vecs[idx, j]
            ok = (col == vec[j]) | (col < 0)
            idx = np.flatnonzero(ok) if idx is None else idx[ok]
        return np.arange(len(self.vecs)) if idx is None else idx

    def _given(self, vec: np.ndarray, g: int) -> np.ndarray:
        """What group ``g``'s records, with key ``vec``, add to each group's frequency."""
        idx = self._compatible(vec)
        same = np.all(self.vecs[idx] == vec, axis=1)
        out = np.zeros(len(self.vecs))
        out[idx] = self.counts[g] * np.where(same, 1.0, 1.0 if (vec >= 0).all() else self.alpha)
        out[g] = 0.0
        return out

    def fk_if(self, g: int, vec: np.ndarray) -> float:
        """Group ``g``'s frequency if its key became ``vec`` (the others unchanged)."""
        idx = self._compatible(vec)
        idx = idx[idx != g]
        full = self.complete[idx] | np.all(self.vecs[idx] == vec, axis=1)
        return float(self.counts[g] + np.dot(self.counts[idx], np.where(full, 1.0, self.alpha)))

    def after(self, g: int, vec: np.ndarray) -> np.ndarray:
        """Every group's frequency if group ``g``'s key became ``vec``."""
        fk = self.fk - self._given(self.vecs[g], g) + self._given(vec, g)
        fk[g] = self.fk_if(g, vec)
        return fk

    def change(self, g: int, vec: np.ndarray) -> None:
        self.fk = self.after(g, vec)
        self.vecs[g] = vec
        self.complete[g] = (vec >= 0).all()


def suppress_to_k(
    codes: np.ndarray, k: float, *, alpha: float = 1.0, costs: np.ndarray | None = None,
    counts: np.ndarray | None = None, importance: np.ndarray | None = None,
) -> SuppressionResult:
    """Suppress key values (set them to -1) until every record's frequency is at least k.

    ``codes``: n x m int (-1 = missing); ``importance``: per variable, its rank (1 = most
    important; equal ranks share a rank; default all equal), followed lexicographically;
    ``costs``: per variable, the price of one suppression within its rank (default 1);
    ``counts``: the number of records each row stands for (default 1): the rows of a
    table of distinct combinations with their counts get exactly the suppressions their
    records would get, since the search sees records only through their combinations and
    counts (``unresolved`` then counts records)."""
    codes = np.asarray(codes, dtype=np.int64)
    n, m = codes.shape
    if n == 0 or m == 0:
        return SuppressionResult(codes.copy(), np.zeros((n, m), dtype=bool), 0)
    costs = np.ones(m) if costs is None else np.asarray(costs, dtype=float)
    importance = (np.ones(m, dtype=np.int64) if importance is None
                  else np.asarray(importance, dtype=np.int64))
    weights = np.ones(n) if counts is None else np.asarray(counts, dtype=float)
    ids, rep = row_ids(codes)
    original = codes[rep]  # the distinct combinations (each one group at the end)
    current = original.copy()
    leaf_counts = np.bincount(ids, weights=weights, minlength=len(rep)).astype(float)
    total = float(leaf_counts.sum())
    for rank in np.unique(importance):  # most important (1) first
        cols = np.flatnonzero(importance <= rank)
        # groups alike on the ranks so far (their current values agree too: they were
        # decided together on coarser groups)
        gid, grep = row_ids(original[:, cols])
        groups = _Groups(current[grep][:, cols], np.bincount(gid, weights=leaf_counts),
                         alpha)
        search = _Search(groups, original[grep][:, cols], importance[cols], costs[cols], k,
                         total)
        search.reach_k()
        search.improve()
        current[:, cols] = groups.vecs[gid]
    out = current[ids]
    _, fk = frequencies(out, weights, alpha)
    unresolved = float(weights[fk < k - _EPS].sum())
    return SuppressionResult(out, (out < 0) & (codes >= 0), round(unresolved))


class _Search:
    """The suppressions of one rank: :meth:`reach_k` then :meth:`improve`."""

    def __init__(self, groups: _Groups, original: np.ndarray, importance: np.ndarray,
                 costs: np.ndarray, k: float, total: float):
        self.g = groups
        self.original = original
        self.k = k
        self.total = total
        ranks = np.unique(importance)
        # a variable's cost: its cost in the slot of its rank (most important first), so
        # sets compare lexicographically by rank
        self.slot = np.searchsorted(ranks, importance)
        self.costs = costs
        self.nslots = len(ranks)
        self.importance = importance

    # ---------------------------------------------------------------- costs of sets
    def _cost(self, cols) -> tuple:
        out = [0.0] * self.nslots
        for j in cols:
            out[self.slot[j]] += self.costs[j]
        return tuple(out)

    def _by_cost(self, cols) -> list[int]:
        """``cols`` cheapest first: least important rank, then lowest cost, then order."""
        return sorted(cols, key=lambda j: (-self.importance[j], self.costs[j], j))

    def _cheapest(self, base: np.ndarray, items: list[int], fits, score):
        """The cheapest set of ``items`` whose suppression in ``base`` ``fits`` (None:
        none, or none among the first ``_MAX_SETS``), trying the sets in increasing
        cost (each set once: a set's successors add the next item or move its last item
        on, which never costs less since the items are sorted by cost); among sets of the
        same cost, the one with the highest ``score``."""
        items = self._by_cost(items)
        heap = [(self._cost([]), 0, (), -1)]
        seq, tried = 1, 0
        best, best_cost = None, None
        while heap:
            cost, _, chosen, last = heapq.heappop(heap)
            if best_cost is not None and not _same_cost(cost, best_cost):
                break
            tried += 1
            if tried > _MAX_SETS:
                return None if best is None else best[1]
            vec = base.copy()
            vec[list(chosen)] = -1
            if fits(vec):
                s = score(vec)
                if best is None or s > best[0] + _EPS:
                    best, best_cost = (s, list(chosen)), cost
            nxt = last + 1
            if nxt < len(items):
                for more in (chosen + (items[nxt],),
                             chosen[:-1] + (items[nxt],) if chosen else None):
                    if more is not None:
                        heapq.heappush(heap, (self._cost(more), seq, more, nxt))
                        seq += 1
        return None if best is None else best[1]

    # ---------------------------------------------------------------- reach k
    def reach_k(self) -> None:
        """Groups below k, fewest records first, each given one more suppression
        (:meth:`_step`); rounds repeat while some group is below k and can still move.
        Groups that end below k with every value suppressed (possible only with
        ``alpha < 1``, where records with missing values count less) are joined by the
        smallest other groups, suppressed whole, until they reach k: records suppressed
        whole are alike and count fully for each other, so all of them together reach k
        at the latest."""
        g, k = self.g, self.k
        if self.total < k - _EPS:
            return  # no suppression can help
        while True:
            unsafe = np.flatnonzero(g.fk < k - _EPS)
            if not len(unsafe):
                return
            progress = False
            for c in sorted(unsafe, key=lambda c: (g.counts[c], g.fk[c], c)):
                observed = [int(j) for j in np.flatnonzero(g.vecs[c] >= 0)]
                if g.fk[c] >= k - _EPS or not observed:
                    continue
                g.change(c, self._step(c, observed))
                progress = True
            if progress:
                continue
            partly = ~(g.vecs < 0).all(axis=1)
            if not partly.any():
                return
            c = min(np.flatnonzero(partly), key=lambda c: (g.counts[c], c))
            g.change(c, np.full(g.vecs.shape[1], -1, dtype=g.vecs.dtype))

    def _step(self, c: int, observed: list[int]) -> np.ndarray:
        """Group ``c``'s key with one more value suppressed, among its values of the least
        important rank it still has: the cheapest whose suppression alone brings it to k
        (then the highest frequency); if none does, the one that raises its frequency
        most per unit of cost (then the cheapest)."""
        g = self.g
        base = g.vecs[c]
        least = max(self.importance[j] for j in observed)
        best, best_key = None, None
        for j in observed:
            if self.importance[j] != least:
                continue
            vec = base.copy()
            vec[j] = -1
            fk = g.fk_if(c, vec)
            if fk >= self.k - _EPS:
                key = (1, -self.costs[j], fk)
            else:
                key = (0, (fk - g.fk[c]) / self.costs[j], -self.costs[j])
            if best_key is None or key > best_key:
                best, best_key = vec, key
        return best

    # ---------------------------------------------------------------- improve
    def _holds_after(self, c: int, vec: np.ndarray) -> bool:
        """Whether, if group ``c``'s key became ``vec``, no group would fall below k (or
        below where it was, if it was below k already)."""
        g = self.g
        if g.fk_if(c, vec) < min(g.fk[c], self.k) - _EPS:
            return False  # (the quick test first)
        return bool((g.after(c, vec) >= np.minimum(g.fk, self.k) - _EPS).all())

    def improve(self) -> None:
        """Each suppression reconsidered, most important first: restored, with the
        cheapest set of less important suppressions in its place if need be, wherever
        every group then stays at k; until nothing changes."""
        g = self.g
        changed = True
        while changed:
            changed = False
            for c in range(len(g.vecs)):
                for j in self._by_cost(np.flatnonzero((g.vecs[c] < 0)
                                                      & (self.original[c] >= 0)))[::-1]:
                    if g.vecs[c][j] >= 0:
                        continue
                    if self._trade(c, j):
                        changed = True

    def _trade(self, c: int, j: int) -> bool:
        g = self.g
        base = g.vecs[c].copy()
        base[j] = self.original[c, j]
        less = [int(x) for x in np.flatnonzero((base >= 0)
                                               & (self.importance > self.importance[j]))]
        if g.alpha == 1.0 and less:
            # frequencies only grow with suppressions: if suppressing every less important
            # value does not hold, no choice among them does
            widest = base.copy()
            widest[less] = -1
            if not self._holds_after(c, widest):
                return False
        chosen = self._cheapest(base, less, lambda v: self._holds_after(c, v),
                                lambda v: g.fk_if(c, v))
        if chosen is None:
            return False
        vec = base.copy()
        vec[chosen] = -1
        g.change(c, vec)
        return True


def _same_cost(a: tuple, b: tuple) -> bool:
    return all(abs(x - y) <= 1e-12 * max(1.0, abs(x), abs(y)) for x, y in zip(a, b))
