"""The transparency attack on microaggregation: the group-interval attack on individual
ranking (W. E. Winkler, "Masking and re-identification methods for public-use microdata:
overview and research problems", Privacy in Statistical Databases, LNCS 3050, 2004),
in the intersection form of J. Nin, J. Herranz and V. Torra ("On the disclosure risk of
multivariate microaggregation", Data & Knowledge Engineering 67(3), 2008).

Microaggregation publishes, for each variable, groups of records sharing one value (the
representative). With individual ranking, the groups of a variable are runs of
consecutive ranks, and their representatives are in the order of the runs. An intruder
who knows the method (the transparency principle) and the original values (the worst
case: all of them) cuts the sorted original values into consecutive runs with the sizes
of the published groups, in the order of their representatives: group ``g`` of variable
``j`` came from original values in ``[lo_g, hi_g]``. For an original record ``x``,
``B_j(x_j)`` is the set of protected records of the groups whose interval holds
``x_j`` (one group, or several when ``x_j`` is tied across a boundary); the record's
protected version lies in the intersection of the ``B_j``, and the re-identification is
certain when the intersection is that record alone.

On data microaggregated otherwise (several variables together, fuzzy or random
assignment) the same reconstruction is what the intruder can try by projecting the file
on each variable: the intervals are then guesses, and a record whose own protected
version falls outside its intersection (``contains`` False) is not re-identified.
"""

from __future__ import annotations

import numpy as np

from .paired import paired_files
from .rank_swap_attack import AttackResult, window_attack


def group_intervals(original: np.ndarray, protected: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For one variable: the published groups' representatives ``v`` (the distinct
    protected values, increasing) and the interval ``[lo, hi]`` of original values each
    came from, cutting the sorted original values into runs of the groups' sizes.
    Missing values are left out of both; if the two files do not have the same number of
    observed values the runs cannot be cut and all three arrays are empty."""
    o = np.sort(original[~np.isnan(original)])
    p = protected[~np.isnan(protected)]
    if len(o) != len(p) or not len(p):
        return np.zeros(0), np.zeros(0), np.zeros(0)
    v, sizes = np.unique(p, return_counts=True)
    ends = np.cumsum(sizes)
    return v, o[ends - sizes], o[ends - 1]


def interval_windows(original: np.ndarray, sorted_protected: list[np.ndarray]
                     ) -> tuple[np.ndarray, np.ndarray]:
    """For every original record and variable, the window ``[low, high]`` of protected
    values of the groups whose interval holds the original value (runs are consecutive,
    so these groups are consecutive in the order of their representatives). A missing
    original value, or a variable whose runs cannot be cut, constrains nothing
    (``-inf, inf``)."""
    original = np.asarray(original, dtype=float)
    low = np.full(original.shape, -np.inf)
    high = np.full(original.shape, np.inf)
    for j in range(original.shape[1]):
        v, lo, hi = group_intervals(original[:, j], sorted_protected[j])
        if not len(v):
            continue
        a = original[:, j]
        known = ~np.isnan(a)
        first = np.searchsorted(hi, a[known], side="left")  # first run with hi >= x
        last = np.searchsorted(lo, a[known], side="right") - 1  # last run with lo <= x
        # an original value always lies in a run; first > last cannot happen when the
        # values are those the runs were cut from, but is kept empty if it does
        empty = (first > last) | (first >= len(v)) | (last < 0)
        first = np.clip(first, 0, len(v) - 1)
        last = np.clip(last, 0, len(v) - 1)
        lw, hg = v[first], v[last]
        lw[empty], hg[empty] = np.inf, -np.inf
        low[known, j], high[known, j] = lw, hg
    return low, high


def interval_attack(original: np.ndarray, protected: np.ndarray,
                    z_original: np.ndarray | None = None,
                    z_protected: np.ndarray | None = None) -> AttackResult:
    """The group-interval attack for every original record (records paired by position:
    record ``i`` of ``protected`` is the protected version of record ``i``): the size of
    ``cap_j B_j(x_ij)``, whether it holds the record's own protected version, and record
    linkage within it (nearest on ``z_original``/``z_protected``, default the values;
    ``1/t`` for ``t`` tied nearest). See
    :func:`sdcflow.kernels.linkage.rank_swap_attack.intersection_attack` for the fields."""
    original, protected = paired_files(original, protected)
    zo = original if z_original is None else np.asarray(z_original, dtype=float)
    zp = protected if z_protected is None else np.asarray(z_protected, dtype=float)
    return window_attack(protected, lambda s: interval_windows(original, s), zo, zp)


def _keys(values: np.ndarray) -> list[tuple]:
    """Tuples of values rounded to 12 significant digits, so that a representative
    computed twice (by the method and by the intruder) matches despite the last bits; a
    missing value as None (NaN never equals itself)."""
    return [tuple(None if np.isnan(v) else float(f"{v:.12g}") for v in row)
            for row in np.asarray(values, dtype=float).tolist()]


def candidate_attack(protected: np.ndarray, blocks: list[list[int]],
                     representatives: list[np.ndarray], candidates: list[np.ndarray],
                     original_missing: np.ndarray | None = None) -> AttackResult:
    """The transparency attack when the intruder can rerun the method on the original
    records: for each block ``b`` of variables microaggregated together, record ``i``
    could have received one of the representatives ``representatives[b][candidates[b][i]]``
    (one for a deterministic partition such as MDAV; those of the clusters it could be
    drawn to for a random assignment; -1 pads), so ``B_b(x_i)`` holds the protected
    records whose values on the block are one of them; its protected version lies in the
    intersection over the blocks (Nin, Herranz & Torra's formalisation). A value missing
    in the original record (``original_missing``, records x variables) stays missing, as
    microaggregation leaves it. ``credit`` is ``1 / |intersection|`` when it holds the
    record (a uniform pick inside it)."""
    protected = np.asarray(protected, dtype=float)
    n = len(protected)
    if original_missing is None:
        original_missing = np.zeros(protected.shape, dtype=bool)
    size = np.zeros(n, dtype=np.int64)
    contains = np.zeros(n, dtype=bool)
    single = np.full(n, -1, dtype=np.int64)
    credit = np.zeros(n)
    where, rep_keys = [], []  # per block: protected tuple -> records; representatives
    for cols, reps in zip(blocks, representatives, strict=True):
        found: dict[tuple, list[int]] = {}
        for i, key in enumerate(_keys(protected[:, cols])):
            found.setdefault(key, []).append(i)
        where.append({key: np.asarray(rows, dtype=np.int64) for key, rows in found.items()})
        rep_keys.append(_keys(np.asarray(reps, dtype=float).reshape(len(reps), len(cols))))
    empty = np.zeros(0, dtype=np.int64)
    for i in range(n):
        inter = None
        for b, cols in enumerate(blocks):
            mask = original_missing[i, cols]
            parts = []
            for r in np.atleast_1d(candidates[b][i]):
                if r < 0:
                    continue
                key = tuple(None if m else v for v, m in zip(rep_keys[b][r], mask,
                                                            strict=True))
                parts.append(where[b].get(key, empty))
            members = np.unique(np.concatenate(parts)) if parts else empty
            inter = members if inter is None else np.intersect1d(inter, members,
                                                                 assume_unique=True)
        if inter is None:
            inter = np.arange(n)
        size[i] = len(inter)
        contains[i] = bool(np.isin(i, inter))
        if len(inter) == 1:
            single[i] = int(inter[0])
        if contains[i]:
            credit[i] = 1.0 / len(inter)
    return AttackResult(size, contains, single, credit)
