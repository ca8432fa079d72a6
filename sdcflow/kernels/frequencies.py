"""Sample frequencies ``fk`` and weighted frequencies ``Fk`` of key combinations, with
missing values that match any value (seeds 003_fc14c51a27fe5611.txt, k-anonymity, and
004_149321b221e875f3.txt, "frequency counts with missing values").

Definition (sdcMicro's ``freqCalc``, R/freqCalc.r, with its ``alpha``): record *j*
counts for record *i* when their key values agree wherever both are non-missing. A
record with the same key combination as *i* counts 1; another matching record counts
1 if its key has no missing value and ``alpha`` if it has one. So ``alpha = 1`` is the
conservative convention (a missing value stands for every category) and ``alpha = 0``
ignores records with missing keys when counting others.

One deliberate difference from sdcMicro 5.8.1: there, records whose keys are *all*
missing get ``fk = n`` but are not added to complete keys; here they match every record
like any other missing value (the convention the seed states). The two agree whenever no
record has all its keys missing.
"""

from __future__ import annotations

import numpy as np

_MAX_KEY = 1 << 62


def row_ids(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dense ids of the distinct rows of an integer matrix (values >= -1), in
    lexicographic row order, and the index of one row per id.

    Columns are folded into one int64 key (mixed radix), compacting with a sort only when
    the key would overflow; much faster than ``np.unique(axis=0)``."""
    n, m = codes.shape
    if m == 0:
        ids = np.zeros(n, dtype=np.int64)
        return ids, np.zeros(min(n, 1), dtype=np.int64)
    key = np.zeros(n, dtype=np.int64)
    size = 1
    for j in range(m):
        col = codes[:, j].astype(np.int64) + 1
        radix = int(col.max(initial=0)) + 1
        if size * radix >= _MAX_KEY:
            _, key = np.unique(key, return_inverse=True)
            key = key.reshape(-1).astype(np.int64)
            size = int(key.max(initial=0)) + 1
        key = key * radix + col
        size *= radix
    if size <= max(4 * n, 1 << 16):
        # small key space: dense ids without sorting
        present = np.zeros(size, dtype=bool)
        present[key] = True
        ids = (np.cumsum(present) - 1)[key]
        count = int(present.sum())
    else:
        _, ids = np.unique(key, return_inverse=True)
        ids = ids.reshape(-1).astype(np.int64)
        count = int(ids.max(initial=-1)) + 1
    rep = np.empty(count, dtype=np.int64)
    rep[ids] = np.arange(n)  # rows of one id are identical: any of them represents it
    return ids, rep


def _group_ids(blocks: list[np.ndarray]) -> list[np.ndarray]:
    """Common integer ids for the rows of several integer matrices with equal columns."""
    stacked = np.concatenate(blocks, axis=0)
    ids, _ = row_ids(stacked)
    bounds = np.cumsum([0] + [len(b) for b in blocks])
    return [ids[bounds[i]:bounds[i + 1]] for i in range(len(blocks))]


def _match_sum(target: np.ndarray, source: np.ndarray, values: np.ndarray) -> np.ndarray:
    """For each row of ``target``, the sum of ``values`` over rows of ``source`` equal to it."""
    t_ids, s_ids = _group_ids([target, source])
    size = int(max(t_ids.max(initial=-1), s_ids.max(initial=-1))) + 1
    sums = np.bincount(s_ids, weights=values, minlength=size)
    return sums[t_ids]


def frequencies(
    codes: np.ndarray, weights: np.ndarray | None = None, alpha: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """Per-record ``fk`` and ``Fk`` for integer-coded keys (``codes``: n x m, -1 = missing).

    ``Fk`` sums ``weights`` the way ``fk`` counts records (equal to ``fk`` without weights)."""
    codes = np.asarray(codes, dtype=np.int64)
    n = codes.shape[0]
    if codes.ndim != 2:
        raise ValueError("codes must be a 2-dimensional array")
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    if n == 0:
        return np.zeros(0), np.zeros(0)
    if codes.shape[1] == 0:
        return np.full(n, float(n)), np.full(n, w.sum())
    inverse, first = row_ids(codes)
    combos = codes[first]
    counts = np.bincount(inverse, minlength=len(combos))
    wsum = np.bincount(inverse, weights=w, minlength=len(combos))
    fk = counts.astype(float)
    Fk = wsum.copy()
    missing = combos < 0
    incomplete = missing.any(axis=1)
    if incomplete.any():
        complete_idx = np.flatnonzero(~incomplete)
        patterns, pattern_of = np.unique(missing[incomplete], axis=0, return_inverse=True)
        pattern_of = pattern_of.reshape(-1)
        inc_idx = np.flatnonzero(incomplete)
        groups = [inc_idx[pattern_of == p] for p in range(len(patterns))]
        for p, members in enumerate(groups):
            keep = ~patterns[p]
            proj = combos[members][:, keep]
            if len(complete_idx):
                comp_proj = combos[complete_idx][:, keep]
                # complete keys gain alpha x the matching keys with this missing pattern
                fk[complete_idx] += alpha * _match_sum(comp_proj, proj, counts[members])
                Fk[complete_idx] += alpha * _match_sum(comp_proj, proj, wsum[members])
                # keys with missing values gain every matching complete key, weight 1
                fk[members] += _match_sum(proj, comp_proj, counts[complete_idx])
                Fk[members] += _match_sum(proj, comp_proj, wsum[complete_idx])
            for q, others in enumerate(groups):
                if q == p:  # same pattern, same observed values: same combination
                    continue
                both = keep & ~patterns[q]
                fk[members] += alpha * _match_sum(
                    combos[members][:, both], combos[others][:, both], counts[others])
                Fk[members] += alpha * _match_sum(
                    combos[members][:, both], combos[others][:, both], wsum[others])
    return fk[inverse], Fk[inverse]

