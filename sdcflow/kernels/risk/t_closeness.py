"""t-closeness: the Earth Mover's Distance between the distribution of a sensitive
variable within each equivalence class and its distribution over the whole table (Li, Li
& Venkatasubramanian (2007), "t-Closeness: Privacy Beyond k-Anonymity and l-Diversity",
ICDE 2007, section 4.2). NumPy only.

The paper's three ground distances are offered, over the ``m`` distinct values of the
sensitive variable in the table (``p``: the class's distribution, ``q``: the table's,
``r_i = p_i - q_i``):

* ``ordered`` (numerical and ordinal values, ordered distance ``|i - j| / (m - 1)``
  between the i-th and j-th smallest values):
  ``EMD = 1/(m - 1) * sum_{i=1}^{m} |r_1 + ... + r_i|``;
* ``equal`` (categorical values, every two distinct values at distance 1):
  ``EMD = 1/2 * sum_i |p_i - q_i|``;
* ``hierarchical`` (categorical values that are the leaves of a generalisation hierarchy
  of height H, two values at distance ``level(v_i, v_j) / H``, the height of their lowest
  common ancestor over H): ``EMD = sum_N height(N)/H * min(pos_extra(N), neg_extra(N))``
  over the inner nodes N, where ``extra(N)`` is the sum of ``r_i`` over the leaves below N
  and ``pos_extra``/``neg_extra`` sum the positive/negative extras of N's children. Since
  ``min(pos, neg) = (pos + neg - |extra(N)|) / 2``, the sum telescopes to
  ``EMD = 1/(2H) * sum_{j=0}^{H-1} sum_{N at level j} |P(N) - Q(N)|``: the mean over the
  levels below the root of the equal-distance EMD between the distributions of the
  values generalised to that level. That is how it is computed here.

All lie in [0, 1]. The computation is sparse: per class it visits only the values the
class holds, so a numeric sensitive variable with as many values as records costs
O(n log n), never classes x values.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..jit import njit
from .frequencies import key_ranks, row_ids

DISTANCES = ("ordered", "equal", "hierarchical")


def t_closeness(classes: np.ndarray, sensitive: np.ndarray, distance: str = "ordered",
                hierarchy: np.ndarray | None = None, weights: np.ndarray | None = None
                ) -> np.ndarray:
    """The EMD of each record's equivalence class to the whole table.

    ``classes``: integer ids of the equivalence classes (n); ``sensitive``: integer codes
    of the sensitive values (n), numbered in the order of the values for ``ordered``,
    -1 for missing; ``hierarchy`` and ``weights`` as for :func:`class_emd`. Missing
    sensitive values are left out of both distributions; a class without an observed
    sensitive value gets 0 (it tells nothing), as does every class when the table holds
    fewer than two distinct values."""
    classes = np.asarray(classes, dtype=np.int64)
    sensitive = np.asarray(sensitive, dtype=np.int64)
    if classes.shape != sensitive.shape or classes.ndim != 1:
        raise ValueError("classes and sensitive must be 1-dimensional arrays of the same length")
    if classes.size == 0:
        if distance not in DISTANCES:
            raise ValueError(f"distance must be one of {DISTANCES}, not {distance!r}")
        return np.zeros(0)
    cls, _ = row_ids(classes[:, None])
    return class_emd(cls, sensitive, distance, hierarchy=hierarchy, weights=weights)[cls]


def class_emd(classes: np.ndarray, sensitive: np.ndarray, distance: str = "ordered",
              hierarchy: np.ndarray | None = None, weights: np.ndarray | None = None,
              n_classes: int | None = None) -> np.ndarray:
    """The EMD of each equivalence class (ids ``0..C-1``; ``-1``: a suppressed record, in
    no class) to the whole table (every record with an observed sensitive value,
    suppressed ones included), one value per class.

    ``hierarchy`` (for ``hierarchical``): an integer matrix with one row per sensitive
    code and one column per level above the leaves, bottom up, holding the id of the
    value's ancestor at that level; a last column with one id is the root, otherwise a
    root is added above it. Each level must group the one below (a tree). ``weights``
    (optional) count each record that many times."""
    if distance not in DISTANCES:
        raise ValueError(f"distance must be one of {DISTANCES}, not {distance!r}")
    classes = np.asarray(classes, dtype=np.int64)
    sensitive = np.asarray(sensitive, dtype=np.int64)
    if classes.shape != sensitive.shape or classes.ndim != 1:
        raise ValueError("classes and sensitive must be 1-dimensional arrays of the same length")
    w = np.ones(classes.size) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != classes.shape or not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("weights must be finite, non-negative, one per record")
    size = int(classes.max(initial=-1)) + 1 if n_classes is None else int(n_classes)
    if distance == "hierarchical":
        levels = _levels(hierarchy, sensitive)
        out = np.zeros(size)
        for codes in levels:
            out += _emd(classes, codes, w, size, "equal")
        return np.clip(out / len(levels), 0.0, 1.0)
    if hierarchy is not None:
        raise ValueError("a hierarchy is used only with the hierarchical distance")
    return _emd(classes, sensitive, w, size, distance)


def _levels(hierarchy: np.ndarray | None, sensitive: np.ndarray) -> list[np.ndarray]:
    """The sensitive codes generalised to each level 0..H-1 of the hierarchy (level 0:
    the values themselves; the root, level H, is left out: every class is equal there)."""
    if hierarchy is None:
        raise ValueError("the hierarchical distance needs a hierarchy")
    h = np.asarray(hierarchy)
    if h.ndim != 2 or h.shape[1] == 0 or not np.issubdtype(h.dtype, np.integer):
        raise ValueError("hierarchy must be an integer matrix: one row per sensitive code, "
                         "one column per level")
    h = h.astype(np.int64)
    if (h < 0).any():
        raise ValueError("hierarchy ids must be >= 0")
    seen = sensitive >= 0
    if seen.any() and sensitive.max() >= h.shape[0]:
        raise ValueError(f"sensitive code {int(sensitive.max())} has no row in the hierarchy "
                         f"({h.shape[0]} rows)")
    for j in range(h.shape[1] - 1):
        groups, rep = row_ids(h[:, [j]])
        parent_of = h[rep, j + 1]
        if (parent_of[groups] != h[:, j + 1]).any():
            raise ValueError(f"hierarchy level {j + 2} does not group level {j + 1}: a node "
                             "has two parents")
    if np.unique(h[:, -1]).size == 1:
        h = h[:, :-1]  # the root given: no level to compare at
    out = [sensitive]
    for j in range(h.shape[1]):
        codes = np.full(sensitive.size, -1, dtype=np.int64)
        codes[seen] = h[sensitive[seen], j]
        out.append(codes)
    return out


def _emd(classes: np.ndarray, sensitive: np.ndarray, w: np.ndarray, n_classes: int,
         distance: str) -> np.ndarray:
    """Per class EMD with the ordered or equal ground distance."""
    out = np.zeros(n_classes)
    seen = (sensitive >= 0) & (w > 0)  # (a record of weight 0 is not there)
    total_w = w[seen].sum()
    if not seen.any() or total_w <= 0:
        return out
    # the observed values renumbered 0..m-1 in their order
    # (the lattice search computes this for thousands of nodes: no sort where it can)
    code_all, values = key_ranks(sensitive[seen])
    m = values.size
    if m < 2:
        return out
    q = np.bincount(code_all, weights=w[seen], minlength=m) / total_w
    inside = classes[seen] >= 0
    if not inside.any():
        return out
    c_seen = classes[seen][inside]
    code = code_all[inside]
    # distinct (class, value) pairs, sorted by class then value (row_ids' order)
    pair, rep = row_ids(np.column_stack([c_seen, code]))
    count = np.bincount(pair, weights=w[seen][inside])
    pair_class = c_seen[rep]
    pair_value = code[rep]
    total = np.bincount(pair_class, weights=count, minlength=n_classes)
    has = total > 0
    p = np.zeros(count.size)
    ok = has[pair_class]
    p[ok] = count[ok] / total[pair_class][ok]
    if distance == "equal":
        # sum |p - q| over the values the class holds, plus q over those it lacks
        held = np.bincount(pair_class, weights=np.abs(p - q[pair_value]), minlength=n_classes)
        q_held = np.bincount(pair_class, weights=q[pair_value], minlength=n_classes)
        out[has] = 0.5 * (held[has] + np.clip(1.0 - q_held[has], 0.0, None))
    else:
        out[has] = _ordered_emd(pair_class, pair_value, p, q, n_classes)[has]
    return np.clip(out, 0.0, 1.0)


def _ordered_emd(pair_class: np.ndarray, pair_value: np.ndarray, p: np.ndarray,
                 q: np.ndarray, n_classes: int) -> np.ndarray:
    """``1/(m-1) sum_{i<m-1} |P_i - Q_i|`` per class, with P and Q the cumulative
    distributions (the last term is 0). P is constant between consecutive values of the
    class, Q increases: on a run [a, b) where P = c the sum of |c - Q_i| splits where Q
    crosses c, and is read off prefix sums of Q."""
    m = q.size
    Q = np.cumsum(q)[:-1]  # Q_0 .. Q_{m-2}
    Q = np.minimum(Q, 1.0)
    S = np.concatenate([[0.0], np.cumsum(Q)])  # S[k] = Q_0 + ... + Q_{k-1}
    # cumulative P within each class (pairs are sorted by class, then value)
    P = np.cumsum(p)
    first = np.ones(p.size, dtype=bool)
    first[1:] = pair_class[1:] != pair_class[:-1]
    start = np.flatnonzero(first)
    offset = np.repeat(np.concatenate([[0.0], P[start[1:] - 1]]),
                       np.diff(np.append(start, p.size)))
    P = P - offset
    # runs: [0, first value) with P = 0, then [value_j, next value or m-1) with P_j
    last = np.ones(p.size, dtype=bool)
    last[:-1] = pair_class[1:] != pair_class[:-1]
    nxt = np.empty(p.size, dtype=np.int64)
    nxt[:-1] = pair_value[1:]
    nxt[last] = m - 1
    run_a = np.concatenate([np.zeros(start.size, dtype=np.int64), pair_value])
    run_b = np.concatenate([pair_value[start], np.maximum(nxt, pair_value)])
    run_c = np.concatenate([np.zeros(start.size), P])
    run_class = np.concatenate([pair_class[start], pair_class])
    run_b = np.minimum(run_b, m - 1)
    run_a = np.minimum(run_a, run_b)
    k = np.clip(np.searchsorted(Q, run_c, side="left"), run_a, run_b)
    below = run_c * (k - run_a) - (S[k] - S[run_a])
    above = (S[run_b] - S[k]) - run_c * (run_b - k)
    total = np.bincount(run_class, weights=below + above, minlength=n_classes)
    return total / (m - 1)


MAX_DENSE_CELLS = 1 << 22  # classes x values of the dense counts of :func:`class_emd_of`


def class_emd_of(sensitive: np.ndarray, distance: str = "equal",
                 hierarchy: np.ndarray | None = None
                 ) -> Callable[[np.ndarray, np.ndarray, np.ndarray | None, int], np.ndarray]:
    """:func:`class_emd` for many partitions of the same records (a lattice search):
    ``emd(classes, values, weights, n_classes)`` where ``values`` are the
    ``sensitive`` codes of the entries of ``classes`` (the records, or groups of them
    of ``weights`` records) and every record of ``sensitive`` is in some entry (the
    whole table's distribution is that of ``sensitive``).

    The whole table's distribution (at each level of the hierarchy; cumulative for the
    ordered distance) is found once, and each call is one compiled pass over dense
    counts of the classes' values; the values are those of :func:`class_emd` to the
    last bit (the same sums in the same order: counts are whole numbers of records
    when ``weights`` are). When the dense counts would be large, or weights are not
    whole, it calls :func:`class_emd`."""
    sensitive = np.asarray(sensitive, dtype=np.int64)
    tree = hierarchy if distance == "hierarchical" else None

    def general(classes, values, weights, n_classes):
        return class_emd(classes, values, distance, hierarchy=tree, weights=weights,
                         n_classes=n_classes)

    if distance not in DISTANCES or sensitive.size == 0:
        return general
    size = int(sensitive.max(initial=-1)) + 1
    if distance == "ordered":
        seen = sensitive[sensitive >= 0]
        present = np.bincount(seen, minlength=size)
        rank = np.cumsum(present > 0) - 1  # each observed code's rank among them
        m = int((present > 0).sum())
        q = present[present > 0] / float(present.sum())
        below = np.minimum(np.cumsum(q)[:-1], 1.0)  # as _ordered_emd: Q, its sums S
        sums = np.concatenate([[0.0], np.cumsum(below)])

        def ordered(classes, values, weights, n_classes):
            dense = _dense_inputs(classes, values, weights, n_classes, size)
            if m < 2 or dense is None:
                return general(classes, values, weights, n_classes)
            return _dense_ordered_emd(*dense, rank, m, below, sums)

        return ordered
    table, q, groups = _level_distributions(sensitive, distance, hierarchy)

    def emd(classes, values, weights, n_classes):
        dense = _dense_inputs(classes, values, weights, n_classes, size)
        if dense is None:
            return general(classes, values, weights, n_classes)
        return _dense_emd(*dense, table, q, groups)

    return emd


def _dense_inputs(classes, values, weights, n_classes: int, size: int) -> tuple | None:
    """The arguments of the dense kernels (classes, values, whole weights, classes,
    codes), or None when the dense counts would be large or a weight is not whole."""
    if n_classes * max(size, 1) > MAX_DENSE_CELLS:
        return None
    if weights is not None:
        weights = np.asarray(weights)
        # (integer weights are whole: only floats need the look)
        if weights.dtype.kind not in "iub" and (weights != np.round(weights)).any():
            return None
    w = (np.ones(len(classes), dtype=np.int64) if weights is None
         else np.asarray(weights, dtype=np.int64))
    return (np.asarray(classes, dtype=np.int64), np.asarray(values, dtype=np.int64), w,
            int(n_classes), size)


def _level_distributions(sensitive: np.ndarray, distance: str,
                         hierarchy: np.ndarray | None
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For the equal (one level: the values) and hierarchical distances: each sensitive
    code's group at each level (levels x codes), the whole table's distribution of the
    groups at each level (levels x groups) and how many groups each level holds."""
    size = int(sensitive.max(initial=-1)) + 1
    codes = np.arange(size, dtype=np.int64)
    levels = _levels(hierarchy, codes) if distance == "hierarchical" else [codes]
    seen = sensitive[sensitive >= 0]
    table = np.array(levels, dtype=np.int64).reshape(len(levels), size)  # level x value
    width = int(table.max(initial=-1)) + 1
    q = np.zeros((len(levels), max(width, 1)))
    groups = np.zeros(len(levels), dtype=np.int64)
    for i, level in enumerate(levels):
        count = np.bincount(level[seen], minlength=width).astype(float)
        q[i, :width] = count / count.sum() if seen.size else count
        groups[i] = int((count > 0).sum())
    return table, q, groups


MAX_SMALLEST = 200  # the largest class size smallest_close_class looks at


def smallest_close_class(sensitive: np.ndarray, t: float, distance: str = "equal",
                         hierarchy: np.ndarray | None = None) -> int:
    """A number of records below which no class of the table ``sensitive`` is t-close
    (1 when some sensitive value is missing: a class without an observed value is
    t-close): the least class size whose lower bound of the EMD below is at most t, at
    most :data:`MAX_SMALLEST` + 1.

    Equal and hierarchical distances: a class of s records holds at most s groups of
    each level, and its equal-distance EMD at a level, ``0.5 sum |p - q|``, is at least
    ``1 - Q`` for Q the whole table's share of the groups it holds, so at least ``1 -
    (the s largest shares)``; the hierarchical EMD is the mean of these over the
    levels. Ordered distance: the EMD is the 1-Wasserstein distance between the
    distributions over the values' ranks, divided by m - 1, and a class of s records
    is s atoms of weight 1/s: their distance to the table is at least the least
    distance of any s such atoms, the sum over the slices ``[k/s, (k+1)/s]`` of the
    table's quantile function of its least mean absolute deviation from one rank.

    A class smaller than the returned size exceeds t whatever its values: every node
    where such classes hold more records than may be suppressed fails t-closeness (a
    k-anonymity with that k, monotone, which predictive tagging can use)."""
    sensitive = np.asarray(sensitive, dtype=np.int64)
    if (distance not in DISTANCES or sensitive.size == 0 or (sensitive < 0).any()):
        return 1
    if distance == "ordered":
        _, counts = np.unique(sensitive, return_counts=True)
        q = counts / counts.sum()
        if q.size < 2:
            return 1
        edges = np.concatenate([[0.0], np.cumsum(q)])
        edges[-1] = 1.0
        ranks = np.arange(q.size)
        apart = np.abs(ranks[:, None] - ranks[None, :]).astype(float)  # rank x rank
        for size in range(1, MAX_SMALLEST + 1):
            low = np.arange(size)[:, None] / size
            high = np.arange(1, size + 1)[:, None] / size
            # each slice's overlap with each rank's quantile interval (slice x rank)
            overlap = np.clip(np.minimum(edges[None, 1:], high)
                              - np.maximum(edges[None, :-1], low), 0.0, None)
            bound = (overlap @ apart).min(axis=1).sum() / (q.size - 1)
            if bound <= t + 1e-6:  # (a margin for the rounding of the computed EMD)
                return size
        return MAX_SMALLEST + 1
    _, q, _ = _level_distributions(sensitive, distance, hierarchy)
    top = np.cumsum(-np.sort(-q, axis=1), axis=1)  # the s largest shares, s = 1, 2, ...
    for size in range(1, q.shape[1] + 1):
        bound = np.clip(1.0 - top[:, size - 1], 0.0, 1.0).mean()
        if bound <= t + 1e-6:
            return size
    return q.shape[1] + 1


@njit(cache=True)
def _dense_emd(classes, values, weights, n_classes, size, table, q,
               groups):  # pragma: no cover - numba
    """Per class the mean over the levels of the equal-distance EMD of its values
    generalised to the level (``table[level, value]``: the value's group there; ``q``:
    the whole table's distribution of the groups; ``groups``: how many it holds), each
    level's EMD ``0.5 (sum of |p - q| over the groups the class holds + the q of those
    it lacks)``, clipped to [0, 1] as :func:`_emd` computes it."""
    counts, totals = _class_counts(classes, values, weights, n_classes, size)
    n_levels, width = q.shape
    out = np.zeros(n_classes)
    group = np.zeros(width, dtype=np.int64)
    for c in range(n_classes):
        total = totals[c]
        if total == 0:
            continue
        acc = 0.0
        for lv in range(n_levels):
            if groups[lv] < 2:
                continue
            group[:] = 0
            for v in range(size):
                group[table[lv, v]] += counts[c, v]
            held = 0.0
            q_held = 0.0
            for g in range(width):
                if group[g] > 0:
                    held += abs(float(group[g]) / float(total) - q[lv, g])
                    q_held += q[lv, g]
            value = 0.5 * (held + max(1.0 - q_held, 0.0))
            acc += min(max(value, 0.0), 1.0)
        out[c] = acc
    if n_levels > 1:
        for c in range(n_classes):
            out[c] = min(max(out[c] / n_levels, 0.0), 1.0)
    return out


@njit(cache=True)
def _dense_ordered_emd(classes, values, weights, n_classes, size, rank, m, below,
                       sums):  # pragma: no cover - numba
    """:func:`_ordered_emd` of the classes from dense counts of their values, with the
    same sums in the same order (``rank``: each code's rank among the m observed
    values; ``below``, ``sums``: the table's cumulative distribution Q and its prefix
    sums S): the (class, value) pairs in class then value order, P a running sum over
    every pair less the sum before the class's first pair, and per class a run of P = 0
    up to its first value, then one run per value."""
    counts, totals = _class_counts(classes, values, weights, n_classes, size)
    out = np.zeros(n_classes)
    running = 0.0  # the cumulative sum of p over every pair so far (np.cumsum)
    for c in range(n_classes):
        total = totals[c]
        if total == 0:
            continue
        offset = running
        acc = 0.0
        first = True
        previous_value = -1
        previous_p = 0.0
        for v in range(size + 1):
            if v < size and counts[c, v] == 0:
                continue
            value = rank[v] if v < size else m - 1
            if first:
                # the run [0, first value) with P = 0
                acc += _run(0, min(value, m - 1), 0.0, below, sums)
                first = False
            else:
                # the previous value's run [its value, this value or m - 1)
                b = min(max(value, previous_value), m - 1)
                a = min(previous_value, b)
                acc += _run(a, b, previous_p, below, sums)
            if v < size:
                running += float(counts[c, v]) / float(total)
                previous_value = value
                previous_p = running - offset
        out[c] = min(max(acc / (m - 1), 0.0), 1.0)
    return out


@njit(cache=True)
def _run(a, b, level, below, sums):  # pragma: no cover - numba
    """``sum_{a <= i < b} |level - Q_i|`` read off the prefix sums, as
    :func:`_ordered_emd`: split where Q crosses the level (``np.searchsorted``, left)."""
    k = min(max(np.searchsorted(below, level), a), b)
    return (level * (k - a) - (sums[k] - sums[a])) + ((sums[b] - sums[k]) - level * (b - k))


@njit(cache=True)
def _class_counts(classes, values, weights, n_classes, size):  # pragma: no cover - numba
    """The records of each (class, code) (dense, classes x codes) and of each class,
    of the entries in a class with an observed code and a positive weight."""
    counts = np.zeros((n_classes, size), dtype=np.int64)
    totals = np.zeros(n_classes, dtype=np.int64)
    for i in range(classes.size):
        c, v = classes[i], values[i]
        if c >= 0 and v >= 0 and weights[i] > 0:
            counts[c, v] += weights[i]
            totals[c] += weights[i]
    return counts, totals
