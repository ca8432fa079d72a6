"""SUDA scores: minimal sample uniques (MSUs) and the per-record SUDA score, with the
attribute contributions (Manning, Haglin & Keane 2008, "A recursive search algorithm for
statistical disclosure assessment", Data Mining and Knowledge Discovery 16(2); R
sdcMicro's ``suda2``, whose default ``original_scores = TRUE`` scoring is the one below).

Definitions, for integer-coded keys ``codes`` (n x m, -1 = missing):

* a record is *unique* on a set S of key variables when no other record matches it on S.
  Missing values follow the project's convention (:mod:`sdcflow.kernels.risk.frequencies`
  with ``alpha = 1``): a missing value matches any value, so uniqueness on S means
  ``frequencies(codes[:, S])[0] == 1``;
* S is a *minimal sample unique* of a record when the record is unique on S and on none
  of its non-empty proper subsets. Uniqueness is monotone (a record unique on S is unique
  on every superset: fewer records match on more variables, missing values included), so
  it is enough to check the subsets S minus one variable;
* with ``M = max_size`` (default m), an MSU of size k contributes
  ``prod_{i=k}^{M-1} (m - i)`` to its record's score (``(m - k)!`` when M = m); MSUs
  larger than M are ignored, and a record without an MSU scores 0;
* the *contribution* of a variable is the sum of the contributions of the MSUs that
  contain it (each MSU counts in full for each of its variables), as a percentage of the
  total score, so contributions add up to more than 100 when MSUs have several variables.

The search is level-wise over the subsets (itertools.combinations), each level
vectorised over the records: O(n x sum_{k<=M} C(m, k)) time. Manning et al.'s recursive
SUDA2 search is faster for many keys; for the handful of keys of a usual SDC scenario the
level-wise scan is simpler and fast (benchmarks/bench_suda.py: 100,000 records x 6 keys in
about 0.1 s, or 1 s with 1% missing values, whose matching is costlier).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from .frequencies import frequencies, row_ids


@dataclass
class SudaResult:
    """What :func:`suda_scores` returns.

    ``score`` (float64) and ``msu_count`` (int64) have one entry per record;
    ``msu_by_size[k]`` is the number of MSUs of size k over all records (k = 1..M);
    ``contribution`` has one percentage per key variable (column order of ``codes``)."""

    score: np.ndarray
    msu_count: np.ndarray
    msu_by_size: dict[int, int]
    contribution: np.ndarray
    max_size: int


def msu_weight(size: int, m: int, max_size: int) -> int:
    """Score contribution of one MSU of ``size`` variables among ``m`` keys, MSUs of at
    most ``max_size`` variables: ``prod_{i=size}^{max_size-1} (m - i)``."""
    return math.prod(m - i for i in range(size, max_size))


def suda_scores(codes: np.ndarray, max_size: int | None = None) -> SudaResult:
    """SUDA scores of the records of ``codes`` (n x m integer codes, -1 = missing), with
    MSUs of at most ``max_size`` variables (default: all m); see the module docstring."""
    codes = np.asarray(codes)
    if codes.ndim != 2:
        raise ValueError("codes must be a 2-dimensional array")
    codes = codes.astype(np.int64, copy=False)
    n, m = codes.shape
    size_limit = m if max_size is None else int(max_size)
    if m and not 1 <= size_limit <= m:
        raise ValueError(f"max_size must be between 1 and the number of variables ({m})")
    size_limit = min(size_limit, m)
    score = np.zeros(n)
    msu_count = np.zeros(n, dtype=np.int64)
    by_size = {k: 0 for k in range(1, size_limit + 1)}
    per_var = np.zeros(m)
    if n == 0 or m == 0:
        return SudaResult(score, msu_count, by_size, per_var, size_limit)

    # Records with the same values on every key are never unique on any subset, and are
    # interchangeable as matches: work on the distinct rows, each weighted by how many
    # records it stands for.
    inverse, first = row_ids(codes)
    rows = codes[first]
    counts = np.bincount(inverse, minlength=len(rows)).astype(np.int64)
    has_missing = bool((rows < 0).any())
    weights = counts.astype(float)

    def unique_on(subset: tuple[int, ...]) -> np.ndarray:
        cols = rows[:, list(subset)]
        if has_missing:
            # alpha = 1: the weighted count of compatible distinct rows is the number of
            # compatible records
            _, matches = frequencies(cols, weights, alpha=1.0)
            return matches == 1
        ids, _ = row_ids(cols)
        return np.bincount(ids, weights=counts)[ids] == 1

    # By monotonicity, only rows unique on all m keys can be unique on any subset.
    candidates = counts == 1
    if has_missing:
        candidates &= unique_on(tuple(range(m)))
    u = len(rows)
    row_score = np.zeros(u)
    row_msus = np.zeros(u, dtype=np.int64)
    previous: dict[tuple[int, ...], np.ndarray] = {}
    for k in range(1, size_limit + 1):
        weight = msu_weight(k, m, size_limit)
        current: dict[tuple[int, ...], np.ndarray] = {}
        for subset in combinations(range(m), k):
            covered = np.zeros(u, dtype=bool)
            if k > 1:
                for j in range(k):
                    covered |= previous[subset[:j] + subset[j + 1:]]
            if (candidates & ~covered).any():
                unique = unique_on(subset) & candidates
            else:
                # every candidate is unique on a proper subset, hence on this one: no MSU
                # here, and no frequency count needed
                unique = candidates.copy()
            current[subset] = unique
            msu = unique & ~covered
            found = int(counts[msu].sum())  # counts are 1 on candidate rows
            if found:
                row_score[msu] += weight
                row_msus[msu] += 1
                by_size[k] += found
                per_var[list(subset)] += weight * found
        previous = current
        if k < size_limit and all(v.sum() == candidates.sum() for v in current.values()):
            break  # every candidate is unique on every k-subset: no larger MSU exists
    score = row_score[inverse]
    msu_count = row_msus[inverse]
    total = score.sum()
    contribution = 100.0 * per_var / total if total > 0 else per_var
    return SudaResult(score, msu_count, by_size, contribution, size_limit)


def dis_suda_scores(score: np.ndarray, codes: np.ndarray, dis_fraction: float = 0.01
                    ) -> np.ndarray:
    """The DIS-SUDA score of each record from its SUDA ``score`` (Elliot, Manning & Ford
    (2002), "A computational algorithm for handling the special uniques problem", IJUFKS
    10(5); Elliot, Skinner & Dale (1998) for DIS, the probability that a sample unique
    is a population unique; R sdcMicro's ``suda2`` ``disScore``, as in its C++ code):

    * ``U`` records unique on all m keys, ``P`` records in key combinations shared by
      exactly two records, and the sampling fraction ``f = dis_fraction``:
      ``DIS = U f / (U f + P (1 - f))``;
    * ``Q = 1 + (8 - m) / 20`` and ``A = sum over records with a score > 0 of score**-Q``;
    * a record with score ``s > 0`` gets ``1 / (1 + (U / DIS - U) / (s**Q A))``, the
      others 0.

    So the scores of the records with MSUs share the expected number ``U / DIS - U`` of
    false uniques in proportion to ``s**-Q``. Uniqueness and pairs follow the project's
    missing-value convention (a missing value matches any value, ``fk`` with alpha = 1);
    sdcMicro compares a missing code as a value. sdcMicro evaluates DIS and Q in single
    precision: its scores agree with these to about 1e-7."""
    score = np.asarray(score, dtype=float)
    codes = np.asarray(codes, dtype=np.int64)
    n, m = codes.shape
    out = np.zeros(n)
    positive = score > 0
    if not positive.any():
        return out
    uniques = float((frequencies(codes)[0] == 1).sum())
    dis = dis_probability(codes, dis_fraction)
    q = 1.0 + (8.0 - m) / 20.0
    powered = score[positive] ** q
    adjust = float((1.0 / powered).sum())
    out[positive] = 1.0 / (1.0 + (uniques / dis - uniques) / (powered * adjust))
    return out


def dis_probability(codes: np.ndarray, dis_fraction: float = 0.01) -> float:
    """DIS, the estimated probability that a sample unique is a population unique, from
    the ``U`` records unique on all keys and the ``P`` records in combinations shared by
    exactly two (Skinner & Elliot (2002), "A measure of disclosure risk for microdata",
    JRSS B 64(4); sdcMicro's ``suda2``): ``U f / (U f + P (1 - f))``, 0 without a sample
    unique."""
    codes = np.asarray(codes, dtype=np.int64)
    if codes.shape[0] == 0:
        return 0.0
    fk, _ = frequencies(codes)
    u, p = float((fk == 1).sum()), float((fk == 2).sum())
    return u * dis_fraction / (u * dis_fraction + p * (1.0 - dis_fraction)) if u else 0.0
