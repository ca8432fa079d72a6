"""Record linkage across files with different schemas (Torra, "Towards the re-identification
of individuals in data files with non-common variables", ECAI 2000; Domingo-Ferrer &
Torra, "Disclosure risk assessment in statistical microdata protection via advanced
record linkage", Statistics and Computing 13, 2003; Torra & Domingo-Ferrer, "Record
linkage methods for multidatabase data mining", 2003): the intruder's file names and
codes its variables otherwise than the release, so the variables must first be put in
correspondence (schema matching), then the records linked on the matched pairs.

Here the correspondence is proposed from the value distributions alone, which renaming
variables and codes leaves as they are:

* a categorical variable is described by its *sorted frequency profile*, the relative
  frequencies of its categories in decreasing order (the names of the categories are
  dropped); two variables are as far apart as the total variation distance of their
  profiles, ``(1/2) sum_k |p_(k) - q_(k)|`` (the shorter profile padded with zeros): 0
  when one is the other with its codes renamed;
* a numeric variable is described by its standardised values (``(x - mean) / sd``, sample
  sd): two variables are as far apart as the two-sample Kolmogorov-Smirnov statistic of
  their standardised values, ``sup_t |F(t) - G(t)|``: 0 when one is a linear rescaling of
  the other (age in years and in months, income in euros and in cents);
* a categorical and a numeric variable are never paired.

Variables are paired by the assignment of least total distance (Kuhn's Hungarian method,
as SciPy's ``linear_sum_assignment`` solves it), and a pair is kept only when its distance
is at most a threshold. The codes of a kept categorical pair are paired by frequency rank
(the most frequent with the most frequent, and so on), or, as an intruder who knows some
individuals of both files would pair them, each intruder code with the release code it
most often stands beside among those individuals.

Linkage then counts, for a pair of records, the squared differences of the standardised
values of the numeric pairs plus the number of categorical pairs that disagree, and links
each released record to the intruder's record(s) at the smallest count
(:func:`~.pairwise_links.pairwise_links`). NumPy and SciPy only.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.optimize import linear_sum_assignment

from .links import Links
from .pairwise_links import pairwise_links

# the distance of a pair of variables that may not be paired (a categorical and a numeric
# one): above any distance of the two kinds (both are at most 1)
FORBIDDEN = 2.0


def frequency_profile(codes: np.ndarray) -> np.ndarray:
    """The relative frequencies of the categories of ``codes`` (non-negative integers; -1
    is a missing value, left out), in decreasing order."""
    codes = np.asarray(codes, dtype=np.int64)
    codes = codes[codes >= 0]
    if not len(codes):
        return np.zeros(0)
    counts = np.bincount(codes)
    counts = counts[counts > 0]
    return np.sort(counts)[::-1] / len(codes)


def profile_distance(p: np.ndarray, q: np.ndarray) -> float:
    """The total variation distance of two sorted frequency profiles (the shorter padded
    with zeros): ``(1/2) sum_k |p_k - q_k|``, in [0, 1]. An empty profile (no value) is at
    distance 1 from any other."""
    if not len(p) or not len(q):
        return 1.0
    size = max(len(p), len(q))
    a = np.zeros(size)
    b = np.zeros(size)
    a[:len(p)], b[:len(q)] = p, q
    return float(0.5 * np.abs(a - b).sum())


def standardised(x: np.ndarray) -> np.ndarray:
    """``(x - mean) / sd`` over the finite values (sample sd; a constant variable: sd taken
    as 1); NaN stays NaN."""
    x = np.asarray(x, dtype=float)
    ok = np.isfinite(x)
    out = np.full(len(x), np.nan)
    if not ok.any():
        return out
    v = x[ok]
    sd = float(np.std(v, ddof=1)) if len(v) > 1 else 0.0
    sd = sd if np.isfinite(sd) and sd > 0 else 1.0
    out[ok] = (v - v.mean()) / sd
    return out


def ks_distance(x: np.ndarray, y: np.ndarray) -> float:
    """The two-sample Kolmogorov-Smirnov statistic of the standardised finite values of
    ``x`` and ``y`` (rounded to 9 decimals): the largest gap between their empirical distribution functions, in
    [0, 1]. A variable without values is at distance 1 from any other."""
    # (rounded to 9 decimals: a rescaled copy, equal up to rounding errors, is at 0)
    a = np.round(standardised(x), 9)
    b = np.round(standardised(y), 9)
    a, b = np.sort(a[np.isfinite(a)]), np.sort(b[np.isfinite(b)])
    if not len(a) or not len(b):
        return 1.0
    # both distribution functions at every observed value (right-continuous: counts <= t)
    at = np.concatenate([a, b])
    fa = np.searchsorted(a, at, side="right") / len(a)
    fb = np.searchsorted(b, at, side="right") / len(b)
    return float(np.abs(fa - fb).max())


def assign(cost: np.ndarray, max_distance: float) -> list[tuple[int, int, float]]:
    """The pairs ``(row, column, distance)`` of the assignment of least total ``cost``
    (each row and each column used at most once; Kuhn's Hungarian method) whose distance
    is at most ``max_distance``, by row."""
    cost = np.asarray(cost, dtype=float)
    if cost.size == 0:
        return []
    rows, cols = linear_sum_assignment(cost)
    return [(int(r), int(c), float(cost[r, c])) for r, c in zip(rows, cols, strict=True)
            if cost[r, c] <= max_distance and cost[r, c] < FORBIDDEN]


def codes_by_rank(release: np.ndarray, intruder: np.ndarray) -> np.ndarray:
    """For each intruder category (code ``0 .. max``), the release category of the same
    frequency rank (-1 when the release has fewer categories, or the intruder's category
    never occurs). Equal frequencies are ranked by code (the lower first)."""
    def ranked(codes):
        codes = np.asarray(codes, dtype=np.int64)
        counts = np.bincount(codes[codes >= 0], minlength=1)
        order = np.lexsort((np.arange(len(counts)), -counts))
        return order[counts[order] > 0], len(counts)

    r_order, _ = ranked(release)
    i_order, size = ranked(intruder)
    out = np.full(size, -1, dtype=np.int64)
    k = min(len(r_order), len(i_order))
    out[i_order[:k]] = r_order[:k]
    return out


def codes_by_pairs(release: np.ndarray, intruder: np.ndarray, truth: np.ndarray
                   ) -> np.ndarray:
    """For each intruder category (code ``0 .. max``), the release category it most often
    stands beside among the individuals in both files (released record ``i`` and
    intruder record ``truth[i]``, both values present; equal counts: the lower code),
    as an intruder who knows some individuals of both files learns the correspondence;
    a category no such individual has takes its frequency rank's (:func:`codes_by_rank`)."""
    release = np.asarray(release, dtype=np.int64)
    intruder = np.asarray(intruder, dtype=np.int64)
    truth = np.asarray(truth, dtype=np.int64)
    out = codes_by_rank(release, intruder)
    have = truth >= 0
    a, b = release[have], intruder[truth[have]]
    both = (a >= 0) & (b >= 0)
    if not both.any():
        return out
    table = np.zeros((len(out), int(release.max(initial=0)) + 1), dtype=np.int64)
    np.add.at(table, (b[both], a[both]), 1)
    seen = table.sum(axis=1) > 0
    out[seen] = table[seen].argmax(axis=1)  # (argmax: the first, lowest code, of ties)
    return out


def mixed_distance(n_numeric: int):
    """The distance of schema linkage on coordinates whose first ``n_numeric`` columns are
    standardised values and the others shared category codes: squared differences of
    the former plus the number of disagreeing codes."""

    def distance(P: np.ndarray, O: np.ndarray) -> np.ndarray:
        num = ((P[:, None, :n_numeric] - O[None, :, :n_numeric]) ** 2).sum(axis=-1)
        cat = (P[:, None, n_numeric:] != O[None, :, n_numeric:]).sum(axis=-1)
        return num + cat

    return distance


def schema_links(release_numeric: np.ndarray, intruder_numeric: np.ndarray,
                 release_codes: np.ndarray, intruder_codes: np.ndarray,
                 truth: np.ndarray) -> Links:
    """Link each released record to the intruder's record(s) nearest by the
    :func:`mixed_distance` (standardised numeric values, columns in the same order in both
    files; category codes shared by both files, -1 missing). ``truth[i]``: the intruder's
    record of released record ``i``'s individual (-1: not in the intruder's file). A
    record with a missing value is not linked (released) or not a candidate (intruder)."""
    def coordinates(num, codes):
        num = np.asarray(num, dtype=float)
        codes = np.asarray(codes, dtype=float)
        if num.ndim != 2 or codes.ndim != 2 or len(num) != len(codes):
            raise ValueError("the numeric values and the codes of a file need one row per "
                             "record (2-d arrays)")
        return np.hstack([num, np.where(codes < 0, np.nan, codes)])

    p = coordinates(release_numeric, release_codes)
    o = coordinates(intruder_numeric, intruder_codes)
    width = np.asarray(release_numeric).shape[1]
    return pairwise_links(p, o, truth, distance=mixed_distance(width))


def agreement(release: np.ndarray, intruder: np.ndarray, truth: np.ndarray,
              tolerance: float = 0.0) -> tuple[float | None, float | None]:
    """How often a matched pair of variables agrees: among the true pairs (released record
    ``i`` and intruder record ``truth[i]``, both values present) and by chance (a released
    and an intruder record drawn independently: ``sum_v p_v q_v`` for codes; for numeric
    values, the share of all pairs within ``tolerance``, estimated on at most 1,000 values
    of each file). Values agree when ``|a - b| <= tolerance`` (0: equal codes). ``None``
    when there is no pair to count."""
    release = np.asarray(release, dtype=float)
    intruder = np.asarray(intruder, dtype=float)
    truth = np.asarray(truth, dtype=np.int64)
    have = truth >= 0
    a, b = release[have], intruder[truth[have]]
    both = np.isfinite(a) & np.isfinite(b)
    true_rate = float(np.mean(np.abs(a[both] - b[both]) <= tolerance)) if both.any() else None
    x, y = release[np.isfinite(release)], intruder[np.isfinite(intruder)]
    if not len(x) or not len(y):
        return true_rate, None
    if tolerance == 0:
        values, inverse = np.unique(np.concatenate([x, y]), return_inverse=True)
        px = np.bincount(inverse[:len(x)], minlength=len(values)) / len(x)
        py = np.bincount(inverse[len(x):], minlength=len(values)) / len(y)
        return true_rate, float(px @ py)
    xs, ys = _spread(x), _spread(y)
    return true_rate, float(np.mean(np.abs(xs[:, None] - ys[None, :]) <= tolerance))


def _spread(x: np.ndarray, at_most: int = 1000) -> np.ndarray:
    """At most ``at_most`` values of ``x``, evenly spaced over its sorted values (a
    deterministic subsample for the chance agreement)."""
    x = np.sort(x)
    if len(x) <= at_most:
        return x
    return x[np.linspace(0, len(x) - 1, at_most).round().astype(np.int64)]


def common_depth(depths: Sequence[np.ndarray]) -> int:
    """The deepest level of a taxonomy at which every concept of the files has an
    ancestor (or is itself): the smallest depth among the concepts that occur."""
    seen = [np.asarray(d, dtype=np.int64) for d in depths if len(d)]
    return int(min(d.min() for d in seen)) if seen else 0
