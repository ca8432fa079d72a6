"""Microaggregation of nominal values by their semantics: records grouped by MDAV on a
semantic distance, each group's values replaced by their least common subsumer or by
their semantic centroid (S. Martinez, D. Sanchez, A. Valls, "Semantic adaptive
microaggregation of categorical microdata", Computers & Security 31(5), 2012; J.
Domingo-Ferrer, J. M. Mateo-Sanz, "Practical data-oriented microaggregation for
statistical disclosure control", IEEE TKDE 14(1), 2002, for MDAV; D. Abril, G.
Navarro-Arribas, V. Torra, "Towards semantic microaggregation of categorical data for
confidential documents", MDAI 2010).

Each variable ``v`` comes as the positions ``x[v]`` of its records' values among some
candidate concepts, and the m x m matrix ``D[v]`` of semantic distances between those
candidates (scaled to [0, 1]); the distance between two records is the sum over the
variables. The centroid of a set of records is, for each variable, the candidate
concept with the least sum of distances to their values.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .taxonomy import Taxonomy


def _to_values(x: Sequence[np.ndarray], D: Sequence[np.ndarray], concepts: Sequence[int],
               rows: np.ndarray) -> np.ndarray:
    """Distance from the concepts (one position per variable) to the records ``rows``."""
    out = np.zeros(len(rows))
    for xv, Dv, c in zip(x, D, concepts, strict=True):
        out += Dv[c, xv[rows]]
    return out


def centroid(x: Sequence[np.ndarray], D: Sequence[np.ndarray], rows: np.ndarray) -> list[int]:
    """For each variable, the candidate with the least sum of distances to the values of
    ``rows`` (the first such candidate on a tie; missing values, -1, count for none)."""
    out = []
    for xv, Dv in zip(x, D, strict=True):
        values = xv[rows]
        counts = np.bincount(values[values >= 0], minlength=len(Dv)).astype(float)
        out.append(int(np.argmin(Dv @ counts)))
    return out


def _nearest(x, D, rows: np.ndarray, record: int, k: int) -> np.ndarray:
    """The ``k`` records of ``rows`` nearest to ``record`` (``record`` itself first)."""
    concepts = [int(xv[record]) for xv in x]
    d = _to_values(x, D, concepts, rows)
    d[rows == record] = -1.0
    return rows[np.argsort(d, kind="stable")[:k]]


def semantic_mdav(x: Sequence[np.ndarray], D: Sequence[np.ndarray], k: int) -> np.ndarray:
    """Group labels (0, 1, ...) of MDAV on the semantic distance: while 3k or more records
    remain, the record ``r`` farthest from the centroid and its k - 1 nearest form a
    group, then the record farthest from ``r`` among the others and its k - 1 nearest;
    with 2k .. 3k - 1 left, one group around the record farthest from the centroid and
    the rest; fewer than 2k form the last group. Every group has k .. 2k - 1 records
    (all of them, if there are fewer than k). A missing value (position -1) is at
    distance 0 from every value: it matches any, as k-anonymity counts it."""
    n = len(x[0]) if x else 0
    # missing values as an extra candidate at distance 0 from every other
    xs = [np.where(xv < 0, len(Dv), xv) for xv, Dv in zip(x, D, strict=True)]
    Ds = [np.pad(Dv, ((0, 1), (0, 1))) for Dv in D]
    labels = np.full(n, -1, dtype=np.int64)
    rest = np.arange(n)
    group = 0

    def take(members):
        nonlocal rest, group
        labels[members] = group
        group += 1
        rest = rest[labels[rest] < 0]

    def farthest_from_centroid() -> int:
        return int(rest[np.argmax(_to_values(xs, Ds, centroid(x, D, rest), rest))])

    while len(rest) >= 3 * k:
        r = farthest_from_centroid()
        take(_nearest(xs, Ds, rest, r, k))
        d = _to_values(xs, Ds, [int(xv[r]) for xv in xs], rest)
        s = int(rest[np.argmax(d)])
        take(_nearest(xs, Ds, rest, s, k))
    if len(rest) >= 2 * k:
        take(_nearest(xs, Ds, rest, farthest_from_centroid(), k))
    if len(rest):
        take(rest)
    return labels


def group_representatives(tax: Taxonomy, codes: np.ndarray, labels: np.ndarray,
                          how: str = "lcs", D: np.ndarray | None = None,
                          candidates: np.ndarray | None = None) -> np.ndarray:
    """Each record's value replaced by its group's representative concept (codes of
    ``tax``).

    ``lcs``: the least common subsumer of the group's values. ``centroid``: among the
    concepts from the values up to that subsumer, the one with the least sum of
    distances ``D`` (over ``candidates``, the concepts ``D`` is indexed by) to the
    group's values, the most general on a tie. Missing values (-1) stay missing and
    choose nothing."""
    codes = np.asarray(codes, dtype=np.int64)
    out = np.full_like(codes, -1)
    order = np.argsort(labels, kind="stable")
    bounds = np.flatnonzero(np.diff(labels[order])) + 1
    position = None
    if how == "centroid":
        position = {int(c): i for i, c in enumerate(candidates)}
    for members in np.split(order, bounds):
        members = members[codes[members] >= 0]
        if not len(members):
            continue
        values, counts = np.unique(codes[members], return_counts=True)
        top = tax.lcs_of(values)
        if how == "lcs" or len(values) == 1:
            out[members] = top
            continue
        # the minimal subtree holding the values: each value and its ancestors to `top`
        span = set()
        for v in values:
            for a in tax.ancestors(int(v)):
                span.add(a)
                if a == top:
                    break
        span = sorted(span, key=lambda c: (int(tax.depth[c]), c))  # most general first
        rows = np.array([position[c] for c in span])
        cols = np.array([position[int(v)] for v in values])
        cost = D[np.ix_(rows, cols)] @ counts
        out[members] = span[int(np.argmin(cost))]
    return out
