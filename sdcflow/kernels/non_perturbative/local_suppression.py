"""Local suppression to k-anonymity (Templ, "Advanced Survey Statistics: Disclosure
Control", 2019, "Local suppression"; Torra 2013, non-perturbative methods): replace as few
key values as possible by missing values so that every record shares its key combination
with at least k records, a missing value matching any value (the convention of
:mod:`sdcflow.kernels.risk.frequencies`, with sdcMicro's ``alpha``).

The search works on the distinct key combinations, not on records: all records of a
combination are equally at risk and receive the same suppression. Combinations are taken
one at a time, fewest records first (they are the cheapest to suppress, and a suppressed
value then adds to the counts of many other combinations); for each, the variable to
suppress is chosen by looking one step ahead: among the variables whose suppression alone
brings the combination to k, the cheapest (the least important); if none does, the one
that raises its count most per unit of cost. Counts are updated incrementally after each
suppression, so the frequencies are exact at every step. Rounds repeat until no
combination violates k (with ``alpha < 1`` a suppression can lower other counts) or
nothing more can be suppressed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..risk.frequencies import frequencies, row_ids


@dataclass
class SuppressionResult:
    codes: np.ndarray  # n x m, -1 where missing (originally or suppressed)
    suppressed: np.ndarray  # n x m bool: values suppressed by this run
    unresolved: int  # records still violating k (e.g. fewer than k records in all)


class _Combos:
    """Distinct key combinations with their record counts and current frequencies."""

    def __init__(self, codes: np.ndarray, alpha: float, counts: np.ndarray | None = None):
        self.ids, rep = row_ids(codes)
        self.codes = codes[rep].copy()
        self.counts = np.bincount(self.ids, weights=counts, minlength=len(rep)).astype(float)
        self.alpha = alpha
        self.alive = np.ones(len(rep), dtype=bool)
        self.parent = np.arange(len(rep))
        self.hasmiss = (self.codes < 0).any(axis=1)
        self.index = {self.codes[c].tobytes(): c for c in range(len(rep))}
        # with the counts as weights, the weighted frequency of a combination is the fk
        # of each of its records
        _, self.fk = frequencies(self.codes, self.counts, alpha)

    def compatible(self, vec: np.ndarray) -> np.ndarray:
        """Live combinations agreeing with ``vec`` wherever both are observed."""
        observed = vec >= 0
        sub = self.codes[:, observed]
        return np.all((sub == vec[observed]) | (sub < 0), axis=1) & self.alive

    def fk_if(self, c: int, vec: np.ndarray) -> float:
        """The frequency of combination ``c``'s records if their key became ``vec``."""
        comp = self.compatible(vec)
        comp[c] = False
        same = self.index.get(vec.tobytes())
        weight = np.where(self.hasmiss, self.alpha, 1.0)
        if same is not None and same != c:
            weight[same] = 1.0  # the same combination always counts fully
        return self.counts[c] + float(np.dot(self.counts[comp], weight[comp]))

    def suppress(self, c: int, j: int) -> int:
        """Suppress variable ``j`` in combination ``c``; returns its (possibly merged) id."""
        old = self.codes[c].copy()
        new = old.copy()
        new[j] = -1
        comp_old = self.compatible(old)
        comp_new = self.compatible(new)
        comp_old[c] = comp_new[c] = False
        w_old = self.alpha if self.hasmiss[c] else 1.0
        fk_c = self.fk_if(c, new)
        n_c = self.counts[c]
        same = self.index.get(new.tobytes())
        delta = n_c * (comp_new * self.alpha - comp_old * w_old)
        if same is not None:
            delta[same] = 0.0
        self.fk += delta
        del self.index[old.tobytes()]
        if same is not None:
            self.counts[same] += n_c
            self.counts[c] = 0
            self.alive[c] = False
            self.parent[c] = same
            self.fk[same] = fk_c
            return same
        self.codes[c] = new
        self.hasmiss[c] = True
        self.index[new.tobytes()] = c
        self.fk[c] = fk_c
        return c

    def final_codes(self) -> np.ndarray:
        root = self.parent.copy()
        while True:
            nxt = root[root]
            if np.array_equal(nxt, root):
                break
            root = nxt
        return self.codes[root[self.ids]]


def suppress_to_k(
    codes: np.ndarray, k: float, *, alpha: float = 1.0, costs: np.ndarray | None = None,
    counts: np.ndarray | None = None,
) -> SuppressionResult:
    """Suppress key values (set them to -1) until every record's frequency is at least k.

    ``codes``: n x m int (-1 = missing); ``costs``: per variable, the price of one
    suppression (default 1; lower = suppressed first); ``counts``: the number of records
    each row stands for (default 1): the rows of a table of distinct combinations with
    their counts get exactly the suppressions their records would get, since the search
    sees records only through their combinations and counts (``unresolved`` then counts
    records)."""
    codes = np.asarray(codes, dtype=np.int64)
    n, m = codes.shape
    costs = np.ones(m) if costs is None else np.asarray(costs, dtype=float)
    if n == 0 or m == 0:
        return SuppressionResult(codes.copy(), np.zeros((n, m), dtype=bool), 0)
    state = _Combos(codes, alpha, counts)
    eps = 1e-9
    stuck: set[int] = set()
    while True:
        unsafe = np.flatnonzero(state.alive & (state.fk < k - eps))
        unsafe = [c for c in unsafe if c not in stuck]
        if not unsafe:
            break
        order = sorted(unsafe, key=lambda c: (state.counts[c], state.fk[c], c))
        progress = False
        for c in order:
            if not state.alive[c] or state.fk[c] >= k - eps:
                continue
            j = _choose(state, c, k, costs, eps)
            if j is None:
                stuck.add(c)
                continue
            state.suppress(c, j)
            progress = True
        if not progress:
            break
    out = state.final_codes()
    if counts is None:
        fk, _ = frequencies(out, alpha=alpha)
        unresolved = int((fk < k - eps).sum())
    else:
        _, fk = frequencies(out, np.asarray(counts, dtype=float), alpha=alpha)
        unresolved = int(np.asarray(counts)[fk < k - eps].sum())
    return SuppressionResult(out, (out < 0) & (codes >= 0), unresolved)


def _choose(state: _Combos, c: int, k: float, costs, eps) -> int | None:
    current = state.codes[c]
    best, best_key = None, None
    for j in np.flatnonzero(current >= 0):
        vec = current.copy()
        vec[j] = -1
        score = state.fk_if(c, vec)
        if score >= k - eps:
            key = (1, -costs[j], score)  # solves it: the cheapest, then the highest count
        else:
            key = (0, (score - state.fk[c]) / costs[j], -costs[j])
        if best_key is None or key > best_key:
            best, best_key = int(j), key
    return best
