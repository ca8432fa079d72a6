"""Sample frequencies ``fk`` and weighted frequencies ``Fk`` of key combinations, with
missing values that match any value (Torra, "Data privacy: supervised approaches for
disclosure risk assessment", 2016, k-anonymity, and Templ, "Advanced Survey Statistics:
Disclosure Control", 2019, "frequency counts with missing values").

Definition (sdcMicro's ``freqCalc``, R/freqCalc.r, with its ``alpha``): record *j*
counts for record *i* when their key values agree wherever both are non-missing. A
record with the same key combination as *i* counts 1; another matching record counts
1 if its key has no missing value and ``alpha`` if it has one. So ``alpha = 1`` is the
conservative convention (a missing value stands for every category) and ``alpha = 0``
ignores records with missing keys when counting others.

One deliberate difference from sdcMicro 5.8.1: there, records whose keys are *all* missing
get ``fk = n`` but are not added to complete keys; here they match every record like any
other missing value (the convention above: a missing value matches any value). The two agree
whenever no record has all its keys missing.
"""

from __future__ import annotations

import math

import numpy as np

from ..jit import njit

_MAX_KEY = 1 << 62


def row_ids(codes: np.ndarray, extra: np.ndarray | None = None
            ) -> tuple[np.ndarray, np.ndarray]:
    """Dense ids of the distinct rows of an integer matrix (values >= -1), in
    lexicographic row order, and the index of one row per id (its last row); with
    ``extra`` (n x s), of the rows of ``codes`` and ``extra`` side by side (without
    copying them into one).

    Columns are folded into one int64 key (mixed radix), compacting with a sort only when
    the key would overflow; the keys are then ranked without a comparison sort: a table
    of the keys present when their range is small, else a least-significant-digit radix
    sort (linear in the rows; much faster than ``np.unique(axis=0)``)."""
    n = codes.shape[0]
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    extra = (np.zeros((n, 0), dtype=np.int64) if extra is None
             else np.ascontiguousarray(extra, dtype=np.int64).reshape(n, -1))
    if codes.shape[1] + extra.shape[1] == 0:
        ids = np.zeros(n, dtype=np.int64)
        return ids, np.zeros(min(n, 1), dtype=np.int64)
    # (radices of the codes + 1: 0 for a missing one)
    radices = np.concatenate([_column_max(codes), _column_max(extra)]) + 2
    span = math.prod(int(r) for r in radices)
    if span < _MAX_KEY:
        return key_ids(_fold_keys(codes, extra, radices), span)
    # (keys too wide for one integer: compacted column by column with sorts)
    codes = np.hstack([codes, extra])
    m = codes.shape[1]
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
    ids, distinct = key_ranks(key, size)
    rep = np.empty(distinct.size, dtype=np.int64)
    rep[ids] = np.arange(n)  # rows of one id are identical: any of them represents it
    return ids, rep


def key_ids(key: np.ndarray, span: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`row_ids` of one column of integer keys in ``[0, span)``: dense ids in the
    keys' increasing order and the last index of each id, without a comparison sort (a
    table of the keys present when ``span`` is small, else a radix sort). ``key``
    (int64) may be overwritten."""
    if span <= max(4 * len(key), 1 << 16):
        return _dense_ranks(key, span)
    # (wider digits, fewer passes, once the rows outnumber the buckets)
    digit = RADIX_BITS_MANY if len(key) > 1 << RADIX_BITS_MANY else RADIX_BITS
    return _radix_ranks(key, max(span - 1, 1).bit_length(), digit)


def key_ranks(key: np.ndarray, size: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each of the integer keys' rank among the distinct keys (int64), and the distinct
    keys in increasing order: ``np.unique(key, return_inverse=True)``, without a sort
    where the keys lie in ``[0, size)`` (``size`` default: the largest key + 1) and that
    range is small (at most ``max(4 n, 2**16)``: a table of the keys present)."""
    key = np.asarray(key, dtype=np.int64)
    if size is None:
        size = int(key.max(initial=-1)) + 1
    if key.size and key.min() >= 0 and size <= max(4 * key.size, 1 << 16):
        present = np.zeros(size, dtype=bool)
        present[key] = True
        return (np.cumsum(present) - 1)[key], np.flatnonzero(present)
    distinct, ids = np.unique(key, return_inverse=True)
    return ids.reshape(-1).astype(np.int64), distinct


@njit(cache=True)
def _column_max(codes):  # pragma: no cover - numba
    """The largest value of each column (-1 for no rows); refuses values below -1."""
    out = np.full(codes.shape[1], -1, dtype=np.int64)
    for i in range(codes.shape[0]):
        for j in range(codes.shape[1]):
            v = codes[i, j]
            if v < -1:
                raise ValueError("codes must be >= -1 (-1: missing)")
            out[j] = max(out[j], v)
    return out


@njit(cache=True)
def _fold_keys(codes, extra, radices):  # pragma: no cover - numba
    """Each row's mixed-radix key: its codes + 1, then its ``extra`` codes + 1, in
    ``radices`` (their product fits an int64): keys in lexicographic row order."""
    n, m = codes.shape
    s = extra.shape[1]
    key = np.empty(n, dtype=np.int64)
    for i in range(n):
        k = 0
        for j in range(m):
            k = k * radices[j] + codes[i, j] + 1
        for j in range(s):
            k = k * radices[m + j] + extra[i, j] + 1
        key[i] = k
    return key


@njit(cache=True)
def _dense_ranks(key, size):  # pragma: no cover - numba
    """:func:`row_ids` from the rows' keys, all below ``size``: the rank of each key
    among the keys present, each row's key's rank; the representative of an id is its
    last row (as ``rep[ids] = arange(n)``)."""
    n = len(key)
    rank = np.zeros(size, dtype=np.int64)
    for i in range(n):
        rank[key[i]] = 1
    count = 0
    for k in range(size):
        present = rank[k]
        rank[k] = count
        count += present
    ids = np.empty(n, dtype=np.int64)
    rep = np.empty(count, dtype=np.int64)
    for i in range(n):
        ids[i] = rank[key[i]]
        rep[ids[i]] = i
    return ids, rep


RADIX_BITS = 11  # bits of the key sorted per pass of the radix sort (2,048 buckets)
RADIX_BITS_MANY = 14  # and with more rows than 2**14 (16,384 buckets)


@njit(cache=True)
def _radix_ranks(key, bits, digit):  # pragma: no cover - numba
    """:func:`row_ids` from the rows' keys, of ``bits`` bits: the rows in the order
    of their keys by a stable least-significant-digit radix sort (``digit`` bits a
    pass), and the ids counted along that order; the representative of an id is its
    last row (the sort is stable). ``key`` is overwritten (working space)."""
    n = len(key)
    order = np.arange(n)
    other_key = np.empty(n, dtype=np.int64)
    other_order = np.empty(n, dtype=np.int64)
    buckets = 1 << digit
    mask = buckets - 1
    count = np.empty(buckets, dtype=np.int64)
    shift = 0
    while shift < bits:
        count[:] = 0
        for i in range(n):
            count[(key[i] >> shift) & mask] += 1
        at = 0
        for d in range(buckets):
            c = count[d]
            count[d] = at
            at += c
        for i in range(n):
            d = (key[i] >> shift) & mask
            p = count[d]
            count[d] = p + 1
            other_key[p] = key[i]
            other_order[p] = order[i]
        key, other_key = other_key, key
        order, other_order = other_order, order
        shift += digit
    ids = np.empty(n, dtype=np.int64)
    distinct = 0
    for i in range(n):
        if i == 0 or key[i] != key[i - 1]:
            distinct += 1
        ids[order[i]] = distinct - 1
    rep = np.empty(distinct, dtype=np.int64)
    for i in range(n):
        rep[ids[order[i]]] = order[i]
    return ids, rep


def _pair_ids(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Common integer ids of the rows of two integer matrices with equal columns (equal
    rows, equal ids) and the number of ids."""
    ids, _ = row_ids(np.concatenate([a, b], axis=0))
    return ids[:len(a)], ids[len(a):], int(ids.max(initial=-1)) + 1


def _sum_at(to_ids: np.ndarray, from_ids: np.ndarray, values: np.ndarray,
            size: int) -> np.ndarray:
    """For each row with id ``to_ids``, the sum of ``values`` over the rows with that id
    among ``from_ids``."""
    return np.bincount(from_ids, weights=values, minlength=size)[to_ids]


def frequencies(
    codes: np.ndarray, weights: np.ndarray | None = None, alpha: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """Per-record ``fk`` and ``Fk`` for integer-coded keys (``codes``: n x m, -1 = missing).

    ``Fk`` sums ``weights`` the way ``fk`` counts records (equal to ``fk`` without weights)."""
    classes, fk, Fk = class_frequencies(codes, weights, alpha)
    return fk[classes], Fk[classes]


def class_frequencies(
    codes: np.ndarray, weights: np.ndarray | None = None, alpha: float = 1.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(classes, fk, Fk)``: the key combination of each record (``classes``, n dense
    ids in lexicographic order of the combinations) and ``fk``, ``Fk`` of each combination
    (those of :func:`frequencies`: record ``i``'s are ``fk[classes[i]]``,
    ``Fk[classes[i]]``). What is computed per record from its frequencies (the individual
    risk) needs computing once per combination only."""
    codes = np.asarray(codes, dtype=np.int64)
    if codes.ndim != 2:
        raise ValueError("codes must be a 2-dimensional array")
    n = codes.shape[0]
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0)
    if codes.shape[1] == 0:
        return np.zeros(n, dtype=np.int64), np.array([float(n)]), np.array([w.sum()])
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
                # one grouping of the observed values serves both directions
                c_ids, p_ids, size = _pair_ids(combos[complete_idx][:, keep], proj)
                # complete keys gain alpha x the matching keys with this missing pattern
                fk[complete_idx] += alpha * _sum_at(c_ids, p_ids, counts[members], size)
                Fk[complete_idx] += alpha * _sum_at(c_ids, p_ids, wsum[members], size)
                # keys with missing values gain every matching complete key, weight 1
                fk[members] += _sum_at(p_ids, c_ids, counts[complete_idx], size)
                Fk[members] += _sum_at(p_ids, c_ids, wsum[complete_idx], size)
            for q, others in enumerate(groups):
                if q == p:  # same pattern, same observed values: same combination
                    continue
                both = keep & ~patterns[q]
                m_ids, o_ids, size = _pair_ids(combos[members][:, both],
                                               combos[others][:, both])
                fk[members] += alpha * _sum_at(m_ids, o_ids, counts[others], size)
                Fk[members] += alpha * _sum_at(m_ids, o_ids, wsum[others], size)
    return inverse, fk, Fk

