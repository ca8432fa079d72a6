"""The compiled kernels of the class tables
(:mod:`sdcflow.kernels.privacy.class_tables`, :mod:`sdcflow.kernels.privacy.joint_tables`):
a table's rows generalised and grouped (by hashing, or counted densely when few rows
can be), the keys folded into one mixed-radix integer, an open-addressing hash table
of integer keys, the stored table to roll a node up from, and a merge of sorted rows.
NumPy and numba only."""

from __future__ import annotations

import numpy as np

from ..jit import njit

DENSE_ROWS = 4  # a roll-up counts rows densely when at most this many times its source's


@njit(cache=True)
def _class_keys(keys, row_class, n_classes):  # pragma: no cover - numba
    """The keys of each class (C x m) from its rows' (``keys`` R x m, each row's class
    ``row_class``, classes in runs of rows): a class's first row's."""
    m = keys.shape[1]
    out = np.empty((n_classes, m), dtype=keys.dtype)
    previous = -1
    for i in range(len(row_class)):
        c = row_class[i]
        if c != previous:
            for j in range(m):
                out[c, j] = keys[i, j]
            previous = c
    return out


@njit(cache=True)
def _fold_generalised(units, jumps, starts, radices):  # pragma: no cover - numba
    """Each unit's generalised keys (variable j's code mapped by
    ``jumps[starts[j]:]``; ``starts[j] = -1``: kept) as one mixed-radix integer
    (``radices[j]``: of variable j's codes at its level; entries beyond the units'
    columns unread), in lexicographic order."""
    n, m = units.shape
    key = np.empty(n, dtype=np.int64)
    for i in range(n):
        k = 0
        for j in range(m):
            code = units[i, j] if starts[j] < 0 else jumps[starts[j] + units[i, j]]
            k = k * radices[j] + code
        key[i] = k
    return key


@njit(cache=True)
def _key_runs(keys):  # pragma: no cover - numba
    """Each row's run of equal keys (rows R x m in order: 0 for the first run, one more
    at each row whose keys differ from the row before)."""
    n, m = keys.shape
    out = np.empty(n, dtype=np.int64)
    run = 0
    for i in range(n):
        if i:
            for j in range(m):
                if keys[i, j] != keys[i - 1, j]:
                    run += 1
                    break
        out[i] = run
    return out


@njit(cache=True)
def _roll_up(keys, values, counts, maps, starts, radices, slots, mark,
             work):  # pragma: no cover - numba
    """A table's rows (``keys`` R x m, ``values`` R x s, ``counts``) generalised by the
    variables' maps (``maps[starts[j]:]``, ``starts[j] = -1``: kept) and grouped: the
    distinct rows' keys in lexicographic order (keys, then values), the last source row
    of each, their summed counts, each one's class (distinct keys) and each source row's
    distinct row. ``radices``: of
    each key column at its new level, then of each value column (values + 1); their
    product fits an int64. A hash table finds the distinct rows in one pass; only
    those are sorted. ``slots``: the hash table (at least 2 R slots of two integers, a
    power of 2: a key and ``mark * 2**32 +`` its group, the slot filled when its mark is
    ``mark``, new for each call, so the table is never cleared); ``work``: 3 x R
    integers."""
    n, m = keys.shape
    s = values.shape[1]
    value_space = 1
    for c in range(s):
        value_space *= radices[m + c]
    whole = value_space  # every row there can be
    for j in range(m):
        whole *= radices[j]
    # each row's generalised keys, then values + 1, as one mixed-radix integer (in
    # their lexicographic order)
    key_of = _fold_generalised(keys, maps, starts, radices)
    for i in range(n):
        key = key_of[i]
        for c in range(s):
            key = key * radices[m + c] + values[i, c] + 1
        key_of[i] = key
    if whole <= DENSE_ROWS * n:
        return _dense_roll_up(keys, key_of, counts, maps, starts, whole, value_space)
    space = value_space  # how many distinct rows there can be
    for j in range(m):
        space = min(space * radices[j], n)
    bits = hash_bits(space)
    distinct, last, total, group_of = work[0], work[1], work[2], work[3]
    groups = hash_groups(key_of, n, slots, mark, bits, distinct, group_of)
    total[:groups] = 0
    for i in range(n):
        g = group_of[i]
        last[g] = i
        total[g] += counts[i]
    order = np.argsort(distinct[:groups])
    out_keys = np.empty((groups, m), dtype=np.int64)
    rep = np.empty(groups, dtype=np.int64)
    out_counts = np.empty(groups, dtype=np.int64)
    row_class = np.empty(groups, dtype=np.int64)
    previous = -1
    cls = -1
    for r in range(groups):
        g = order[r]
        i = last[g]
        rep[r] = i
        out_counts[r] = total[g]
        for j in range(m):
            out_keys[r, j] = keys[i, j] if starts[j] < 0 else maps[starts[j] + keys[i, j]]
        class_key = distinct[g] // value_space
        if class_key != previous:
            cls += 1
            previous = class_key
        row_class[r] = cls
    rank = np.empty(groups, dtype=np.int64)
    rank[order] = np.arange(groups)
    ids = np.empty(n, dtype=np.int64)
    for i in range(n):
        ids[i] = rank[group_of[i]]
    return out_keys, rep, out_counts, row_class, ids


@njit(cache=True, inline="always")
def hash_bits(space):  # pragma: no cover - numba
    """The bits of the hash table of at most ``space`` keys: its slots the least power of
    2 at least twice as many (a small table stays in the cache)."""
    size, bits = 1, 0
    while size < 2 * space:
        size *= 2
        bits += 1
    return bits


@njit(cache=True, inline="always")  # (called per row: inlined where called)
def hash_group(slots, mark, bits, key, new):  # pragma: no cover - numba
    """The group of ``key`` in an open-addressing hash table of ``2**bits`` slots of two
    integers (a key, then ``mark * 2**32 +`` its group; a slot is filled when its mark is
    ``mark``, new for each use, so the table is never cleared), entered as group ``new``
    when absent. Fibonacci hashing: the high bits of the key times 2**64 / golden
    ratio."""
    size = 1 << bits
    at = ((key * -7046029254386353131) >> (64 - bits)) & (size - 1) if bits else 0
    while (slots[2 * at + 1] >> 32) == mark and slots[2 * at] != key:
        at = (at + 1) & (size - 1)
    if (slots[2 * at + 1] >> 32) != mark:
        slots[2 * at] = key
        slots[2 * at + 1] = (mark << 32) | new
        return new
    return slots[2 * at + 1] & 0xFFFFFFFF


@njit(cache=True, inline="always")
def hash_groups(key_of, n, slots, mark, bits, distinct, group_of):  # pragma: no cover - numba
    """The groups of the first ``n`` keys of ``key_of`` by :func:`hash_group` (numbered
    as they first appear): each one's group in ``group_of`` (which may be ``key_of``
    itself: a key is read before its group is written), the distinct keys in
    ``distinct``; returns the number of groups."""
    groups = 0
    for i in range(n):
        key = key_of[i]
        g = hash_group(slots, mark, bits, key, groups)
        if g == groups:  # (a new group)
            distinct[groups] = key
            groups += 1
        group_of[i] = g
    return groups


@njit(cache=True, inline="always")
def hash_find(slots, mark, bits, key):  # pragma: no cover - numba
    """The group of ``key`` in a table of :func:`hash_group` (-1: absent)."""
    size = 1 << bits
    at = ((key * -7046029254386353131) >> (64 - bits)) & (size - 1) if bits else 0
    while (slots[2 * at + 1] >> 32) == mark and slots[2 * at] != key:
        at = (at + 1) & (size - 1)
    if (slots[2 * at + 1] >> 32) != mark:
        return -1
    return slots[2 * at + 1] & 0xFFFFFFFF


@njit(cache=True)
def _dense_roll_up(keys, key_of, counts, maps, starts, whole,
                   value_space):  # pragma: no cover - numba
    """:func:`_roll_up` when every row there can be (``whole`` of them) is few beside
    the source's rows: the rows counted at their key directly and read in the order of
    their keys, no hashing and no sort (the same arrays); ``key_of``: each row's key as
    :func:`_roll_up` computes it."""
    n, m = keys.shape
    last = np.full(whole, -1, dtype=np.int64)
    total = np.zeros(whole, dtype=np.int64)
    for i in range(n):
        key = key_of[i]
        last[key] = i
        total[key] += counts[i]
    groups = 0
    for key in range(whole):
        if last[key] >= 0:
            groups += 1
    out_keys = np.empty((groups, m), dtype=np.int64)
    rep = np.empty(groups, dtype=np.int64)
    out_counts = np.empty(groups, dtype=np.int64)
    row_class = np.empty(groups, dtype=np.int64)
    rank = last  # (each key's row, written over its last source row once read)
    previous = -1
    cls = -1
    r = 0
    for key in range(whole):
        i = last[key]
        if i < 0:
            continue
        rep[r] = i
        out_counts[r] = total[key]
        for j in range(m):
            out_keys[r, j] = keys[i, j] if starts[j] < 0 else maps[starts[j] + keys[i, j]]
        class_key = key // value_space
        if class_key != previous:
            cls += 1
            previous = class_key
        row_class[r] = cls
        rank[key] = r
        r += 1
    ids = np.empty(n, dtype=np.int64)
    for i in range(n):
        ids[i] = rank[key_of[i]]
    return out_keys, rep, out_counts, row_class, ids


@njit(cache=True)
def _count_values(row_class, values, counts, class_map, n_classes,
                  radices):  # pragma: no cover - numba
    """A table's rows (each row's class ``row_class``, ``values`` R x s, ``counts``)
    with their classes mapped to a coarser node's (``class_map``, ``n_classes``
    there), grouped by (class, values): for each distinct row in that order its last
    source row, its summed counts and its class. ``radices``: of each value column
    (values + 1); classes x their product fits in memory."""
    n, s = values.shape
    space = 1
    for c in range(s):
        space *= radices[c]
    total = np.zeros(n_classes * space, dtype=np.int64)
    last = np.full(n_classes * space, -1, dtype=np.int64)
    for i in range(n):
        key = class_map[row_class[i]]
        for c in range(s):
            key = key * radices[c] + values[i, c] + 1
        total[key] += counts[i]
        last[key] = i
    groups = 0
    for g in range(n_classes * space):
        if last[g] >= 0:
            groups += 1
    rep = np.empty(groups, dtype=np.int64)
    out_counts = np.empty(groups, dtype=np.int64)
    out_class = np.empty(groups, dtype=np.int64)
    r = 0
    for g in range(n_classes * space):
        if last[g] >= 0:
            rep[r] = last[g]
            out_counts[r] = total[g]
            out_class[r] = g // space
            r += 1
    return rep, out_counts, out_class


@njit(cache=True)
def _fewest_rows_below(levels, sizes, node):  # pragma: no cover - numba
    """The first slot of the fewest rows among those whose node (``levels``) lies at
    or below ``node`` (-1: none), as ``argmin`` over them."""
    best, fewest = -1, 0
    for slot in range(levels.shape[0]):
        below = True
        for j in range(levels.shape[1]):
            if levels[slot, j] > node[j]:
                below = False
                break
        if below and (best < 0 or sizes[slot] < fewest):
            best, fewest = slot, sizes[slot]
    return best


def sorted_positions(keys: np.ndarray, table_keys: np.ndarray) -> np.ndarray | None:
    """The row of ``table_keys`` (distinct rows in lexicographic order, as a table's
    class keys) equal to each row of ``keys`` (rows in lexicographic order too), found
    in one merge of the two; None when some row of ``keys`` is not among them (or the
    rows are not in that order)."""
    keys = np.ascontiguousarray(keys, dtype=np.int64)
    table_keys = np.ascontiguousarray(table_keys, dtype=np.int64)
    if keys.shape[1] != table_keys.shape[1]:
        return None
    at = _merge_positions(keys, table_keys)
    return at if len(at) == len(keys) else None


@njit(cache=True)
def _merge_positions(keys, table_keys):  # pragma: no cover - numba
    """Each row's position among ``table_keys`` by a merge of two lexicographically
    sorted arrays of rows; cut short (fewer positions) at the first row not found."""
    n, m = keys.shape
    rows = table_keys.shape[0]
    out = np.empty(n, dtype=np.int64)
    j = 0
    for i in range(n):
        while j < rows:
            # compare table row j with row i: -1 below, 0 equal, 1 above
            order = 0
            for c in range(m):
                if table_keys[j, c] != keys[i, c]:
                    order = -1 if table_keys[j, c] < keys[i, c] else 1
                    break
            if order < 0:
                j += 1
                continue
            if order > 0:
                return out[:i]
            break
        if j == rows:
            return out[:i]
        out[i] = j
        j += 1  # (the rows of keys are distinct and sorted: the next lies further on)
    return out
