"""Privacy models evaluated per equivalence class. NumPy and numba only.

Every function takes ``classes``: the equivalence class id of each record, ``0..C-1``
(``-1``: a suppressed record, which belongs to no class), and returns one value per class
(an array of length ``C``, ``C = n_classes`` or ``classes.max() + 1``), so that a search
can test "every class satisfies" with one comparison. ``sensitive`` holds integer codes
of a sensitive variable (``-1``: missing, left out everywhere); ``weights`` (optional)
count each record that many times in the distributions of sensitive values.

The distribution of the whole table, against which t-closeness and beta-likeness compare
a class, is taken over *every* record with an observed sensitive value, suppressed ones
included: suppression removes the key values of a record, not its sensitive value, which
stays in the release.

* l-diversity (Machanavajjhala, Kifer, Gehrke & Venkitasubramaniam (2007), "l-Diversity:
  Privacy Beyond k-Anonymity", ACM TKDD 1(1)): distinct l (the number of distinct
  sensitive values in the class), entropy l (``exp(H)``, definition 4.1) and recursive
  (c, l)-diversity (definition 4.2: with the counts of the class's values sorted
  descending ``r_1 >= r_2 >= ... >= r_m``, the class is (c, l)-diverse when
  ``r_1 < c (r_l + r_{l+1} + ... + r_m)``);
* t-closeness (Li, Li & Venkatasubramanian (2007), "t-Closeness: Privacy Beyond
  k-Anonymity and l-Diversity", ICDE): :func:`sdcflow.kernels.risk.t_closeness.class_emd`;
* delta-presence (Nergiz, Atzori & Clifton (2007), "Hiding the Presence of Individuals
  from Shared Databases", SIGMOD): the share of a class's population records that are in
  the research sample, ``delta_min <= p <= delta_max``;
* basic beta-likeness (Cao & Karras (2012), "Publishing Microdata with a Robust Privacy
  Guarantee", PVLDB 5(11), definition 2): for every sensitive value with overall
  frequency ``p`` and class frequency ``q > p``, ``(q - p) / p <= beta``;
* re-identification risk of the prosecutor model as ARX reports it (Prasser, Kohlmayer et
  al., "ARX - A Comprehensive Tool for Anonymizing Biomedical Data", AMIA 2014): a record
  of a class of ``f`` records is re-identified with probability ``1 / f``; the average over
  the records is the number of classes over the number of records.
"""

from __future__ import annotations

import numpy as np

from ..jit import njit
from ..risk.frequencies import row_ids
from ..risk.t_closeness import class_emd

__all__ = [
    "average_reidentification_risk", "beta_likeness", "class_emd", "class_sizes",
    "delta_presence", "distinct_l_diversity", "entropy_l_diversity",
    "recursive_l_diversity", "reidentification_risk", "t_closeness",
]


def _classes(classes: np.ndarray, n_classes: int | None) -> tuple[np.ndarray, int]:
    classes = np.asarray(classes)
    if classes.ndim != 1 or (classes.size and not np.issubdtype(classes.dtype, np.integer)):
        raise ValueError("classes must be a 1-dimensional array of integer class ids")
    classes = classes.astype(np.int64)
    if classes.size and classes.min() < -1:
        raise ValueError("class ids must be >= 0 (or -1 for a suppressed record)")
    top = int(classes.max(initial=-1)) + 1
    if n_classes is None:
        n_classes = top
    elif n_classes < top:
        raise ValueError(f"n_classes is {n_classes} but a class id is {top - 1}")
    return classes, int(n_classes)


def _codes(sensitive: np.ndarray, n: int) -> np.ndarray:
    sensitive = np.asarray(sensitive)
    if sensitive.shape != (n,) or (n and not np.issubdtype(sensitive.dtype, np.integer)):
        raise ValueError("sensitive must be integer codes, one per record")
    return sensitive.astype(np.int64)


def _weights(weights: np.ndarray | None, n: int) -> np.ndarray:
    if weights is None:
        return np.ones(n)
    weights = np.asarray(weights, dtype=float)
    if weights.shape != (n,) or not np.isfinite(weights).all() or (weights < 0).any():
        raise ValueError("weights must be finite, non-negative, one per record")
    return weights


def _pairs(classes: np.ndarray, sensitive: np.ndarray, weights: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (class, value) pairs of the records in a class with an observed value,
    sorted by class then value: their class, value and (weighted) count, the weights of
    each pair summed in record order.

    Records already in that order (a search's class tables are: rows by class, then by
    value) are merged in one compiled pass; others are grouped by :func:`row_ids`. The
    two give the same pairs and the same sums (added in the same order)."""
    pair_class, pair_value, count, in_order = _sorted_pairs(
        classes, sensitive, np.asarray(weights, dtype=np.float64))
    if in_order:
        return pair_class, pair_value, count
    keep = (classes >= 0) & (sensitive >= 0)
    if not keep.any():
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0)
    c, s = classes[keep], sensitive[keep]
    pair, rep = row_ids(np.column_stack([c, s]))
    count = np.bincount(pair, weights=weights[keep])
    return c[rep], s[rep], count


@njit(cache=True)
def _sorted_pairs(classes, sensitive, weights):  # pragma: no cover - numba
    """:func:`_pairs` of records whose observed (class, value) pairs come in order (not
    decreasing), equal pairs one after another: the runs of equal pairs, their class,
    value and summed weights (from 0.0, in record order, as ``np.bincount`` sums), and
    True; empty arrays and False as soon as a pair comes out of order."""
    n = len(classes)
    pair_class = np.empty(n, dtype=np.int64)
    pair_value = np.empty(n, dtype=np.int64)
    count = np.empty(n, dtype=np.float64)
    k = 0
    last_class = -1
    last_value = -1
    for i in range(n):
        c = classes[i]
        v = sensitive[i]
        if c < 0 or v < 0:
            continue
        if k and c == last_class and v == last_value:
            count[k - 1] += weights[i]
            continue
        if k and (c < last_class or (c == last_class and v < last_value)):
            return pair_class[:0], pair_value[:0], count[:0], False
        pair_class[k] = c
        pair_value[k] = v
        count[k] = 0.0 + weights[i]
        last_class = c
        last_value = v
        k += 1
    return pair_class[:k].copy(), pair_value[:k].copy(), count[:k].copy(), True


def class_sizes(classes: np.ndarray, n_classes: int | None = None) -> np.ndarray:
    """The number of records of each class (suppressed records are in none)."""
    classes, size = _classes(classes, n_classes)
    return np.bincount(classes[classes >= 0], minlength=size)


def _inputs(classes: np.ndarray, sensitive: np.ndarray, weights: np.ndarray | None,
            n_classes: int | None, check_input: bool
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(classes, sensitive codes, weights, number of classes), validated unless
    ``check_input`` is False (a caller's own arrays: int64 classes and codes, weights
    None or one per entry, ``n_classes`` given)."""
    if not check_input:
        w = np.ones(len(classes)) if weights is None else weights
        return classes, sensitive, w, int(n_classes)
    classes, size = _classes(classes, n_classes)
    return classes, _codes(sensitive, classes.size), _weights(weights, classes.size), size


def distinct_l_diversity(classes: np.ndarray, sensitive: np.ndarray,
                         n_classes: int | None = None, *,
                         check_input: bool = True) -> np.ndarray:
    """The number of distinct observed sensitive values of each class (0 when none).
    ``check_input=False``: the arrays are taken as valid (as scikit-learn's trees
    offer; for a search that made them)."""
    classes, codes, _, size = _inputs(classes, sensitive, None, n_classes, check_input)
    pair_class, _, _ = _pairs(classes, codes, np.ones(classes.size))
    return np.bincount(pair_class, minlength=size)


def entropy_l_diversity(classes: np.ndarray, sensitive: np.ndarray,
                        weights: np.ndarray | None = None,
                        n_classes: int | None = None, *,
                        check_input: bool = True) -> np.ndarray:
    """``exp(H)`` of each class, ``H = -sum_s p_s log p_s`` (natural log) over the
    distribution of its observed sensitive values (0 when it has none); the class is
    entropy l-diverse when this is at least l. ``check_input``: as
    :func:`distinct_l_diversity`."""
    classes, codes, w, size = _inputs(classes, sensitive, weights, n_classes, check_input)
    pair_class, _, count = _pairs(classes, codes, w)
    out = np.zeros(size)
    positive = count > 0
    pair_class, count = pair_class[positive], count[positive]
    distinct = np.bincount(pair_class, minlength=size)
    total = np.bincount(pair_class, weights=count, minlength=size)
    sum_c_log_c = np.bincount(pair_class, weights=count * np.log(count), minlength=size)
    has = total > 0
    # H = log N - (1/N) sum c log c for counts c summing to N; exp(H) lies in
    # [1, distinct]: clip the rounding error of the subtraction
    h = np.log(total[has]) - sum_c_log_c[has] / total[has]
    out[has] = np.minimum(np.maximum(np.exp(h), 1.0), distinct[has])  # (np.clip: slower)
    return out


def recursive_l_diversity(classes: np.ndarray, sensitive: np.ndarray, l: int,
                          weights: np.ndarray | None = None,
                          n_classes: int | None = None, *,
                          check_input: bool = True) -> np.ndarray:
    """``r_1 / (r_l + ... + r_m)`` of each class, its value counts sorted descending; the
    class is recursive (c, l)-diverse when this is below c. A class with fewer than l
    distinct observed values has ``inf`` (no c makes it diverse); with ``l = 1`` the
    ratio is ``r_1 / n`` of the class. ``check_input``: as :func:`distinct_l_diversity`."""
    if int(l) != l or l < 1:
        raise ValueError("l must be an integer >= 1")
    l = int(l)
    classes, codes, w, size = _inputs(classes, sensitive, weights, n_classes, check_input)
    pair_class, _, count = _pairs(classes, codes, w)
    return _recursive_ratio(pair_class, count, size, l)


SMALL_CLASS = 32  # distinct values of a class sorted by insertion (beyond: merge sort)


@njit(cache=True)
def _recursive_ratio(pair_class, count, size, l):  # pragma: no cover - numba
    """Each class's ``r_1 / (r_l + ... + r_m)`` from its (class, value) pairs in class
    order (``count``: each pair's records; pairs without any left out): its counts
    ordered descending (equal counts in pair order: a stable sort), the tail summed in
    that order; ``inf`` when the tail is empty or 0."""
    out = np.full(size, np.inf)
    n = len(pair_class)
    ranked = np.empty(n)
    start = 0
    while start < n:
        end = start
        k = 0
        while end < n and pair_class[end] == pair_class[start]:
            if count[end] > 0:
                ranked[k] = count[end]
                k += 1
            end += 1
        if k <= SMALL_CLASS:
            # (a class's few values: sorted in place, each after those at least as large)
            for i in range(1, k):
                c = ranked[i]
                p = i
                while p > 0 and ranked[p - 1] < c:
                    ranked[p] = ranked[p - 1]
                    p -= 1
                ranked[p] = c
        else:
            ranked[:k] = ranked[:k][np.argsort(-ranked[:k], kind="mergesort")]
        if k:
            tail = 0.0
            for r in range(l - 1, k):
                tail += ranked[r]
            if tail > 0:
                out[pair_class[start]] = ranked[0] / tail
        start = end
    return out


def t_closeness(classes: np.ndarray, sensitive: np.ndarray, distance: str = "equal",
                hierarchy: np.ndarray | None = None, weights: np.ndarray | None = None,
                n_classes: int | None = None) -> np.ndarray:
    """The Earth Mover's Distance of each class's distribution of the sensitive values to
    the whole table's (see :func:`sdcflow.kernels.risk.t_closeness.class_emd`); the class
    is t-close when it is at most t."""
    classes, size = _classes(classes, n_classes)
    return class_emd(classes, _codes(sensitive, classes.size), distance, hierarchy=hierarchy,
                     weights=weights, n_classes=size)


def beta_likeness(classes: np.ndarray, sensitive: np.ndarray,
                  weights: np.ndarray | None = None,
                  n_classes: int | None = None) -> np.ndarray:
    """The largest relative gain ``(q - p) / p`` of each class over the sensitive values
    more frequent in it (``q``) than in the whole table (``p``); 0 when none is. The class
    satisfies basic beta-likeness when this is at most beta."""
    classes, size = _classes(classes, n_classes)
    codes = _codes(sensitive, classes.size)
    w = _weights(weights, classes.size)
    out = np.zeros(size)
    seen = codes >= 0
    total = w[seen].sum()
    if total <= 0:
        return out
    p = np.bincount(codes[seen], weights=w[seen]) / total
    pair_class, pair_value, count = _pairs(classes, codes, w)
    class_total = np.bincount(pair_class, weights=count, minlength=size)
    has = class_total[pair_class] > 0
    q = np.zeros(count.size)
    q[has] = count[has] / class_total[pair_class][has]
    p_pair = p[pair_value]
    gain = np.zeros(count.size)
    up = (q > p_pair) & (p_pair > 0)
    gain[up] = (q[up] - p_pair[up]) / p_pair[up]
    np.maximum.at(out, pair_class, gain)
    return out


def delta_presence(classes: np.ndarray, population_classes: np.ndarray,
                   n_classes: int | None = None,
                   population_counts: np.ndarray | None = None) -> np.ndarray:
    """For each class, the number of research-sample records (``classes``) over the number
    of population records (``population_classes``, ids in the same numbering) in it: the
    probability that a population member of the class is in the sample. Classes without
    sample records get 0 (Nergiz et al.: nothing in the release says they are present).
    The sample must be part of the population: a class with more sample than population
    records is an error. ``population_counts``: how many population records each entry
    of ``population_classes`` stands for (default one each), so that a population of
    billions is counted without a row per person."""
    classes, top = _classes(classes, None)
    population, pop_top = _classes(population_classes, None)
    size = max(top, pop_top, n_classes or 0)
    sample = np.bincount(classes[classes >= 0], minlength=size)
    if population_counts is None:
        pop = np.bincount(population[population >= 0], minlength=size)
    else:
        weights = np.asarray(population_counts, dtype=np.int64)
        pop = np.zeros(size, dtype=np.int64)
        np.add.at(pop, population[population >= 0], weights[population >= 0])
    wrong = np.flatnonzero(sample > pop)
    if wrong.size:
        raise ValueError(f"class {int(wrong[0])} holds {int(sample[wrong[0]])} sample records "
                         f"but only {int(pop[wrong[0]])} population records: the sample must "
                         "be part of the population")
    out = np.zeros(size)
    np.divide(sample, pop, out=out, where=pop > 0)
    return out


def reidentification_risk(classes: np.ndarray, n_classes: int | None = None) -> np.ndarray:
    """``1 / f`` for each class of ``f`` records (0 for an empty class id)."""
    sizes = class_sizes(classes, n_classes).astype(float)
    out = np.zeros(sizes.size)
    np.divide(1.0, sizes, out=out, where=sizes > 0)
    return out


def average_reidentification_risk(classes: np.ndarray) -> float:
    """The mean of ``1 / f`` over the records in a class (suppressed ones left out): the
    number of non-empty classes over the number of such records; 0 without records."""
    classes, _ = _classes(classes, None)
    kept = classes[classes >= 0]
    if kept.size == 0:
        return 0.0
    return float(np.unique(kept).size / kept.size)
