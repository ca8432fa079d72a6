"""User k-anonymity of a query log by microaggregation of the users' query profiles (G.
Navarro-Arribas, V. Torra, A. Erola, J. Castella-Roca, "User k-anonymity for privacy
preserving data mining of query logs", Information Processing & Management 48(3), 2012;
A. Erola, J. Castella-Roca, G. Navarro-Arribas, V. Torra, "Semantic microaggregation for
the anonymization of query logs", PSD 2010, LNCS 6344).

A log is a list of (user, query). Each query is first *classified*: mapped to a concept
of a taxonomy, as Erola et al. classify each query's terms in the Open Directory Project
(:func:`classify_queries`). A user's *profile* is the multiset of the concepts of their
queries, held as a row of counts over the log's concepts. Users are grouped by MDAV
(J. Domingo-Ferrer, J. M. Mateo-Sanz, "Practical data-oriented microaggregation for
statistical disclosure control", IEEE TKDE 14(1), 2002) on a distance between profiles
(:func:`profile_distances`), in groups of k .. 2k - 1 users, and each user's profile is
replaced by the aggregated profile of the group (:func:`aggregate_profile`): every
released profile is then shared by at least k users (user k-anonymity).

The distance between profiles is the modified Hausdorff distance (M.-P. Dubuisson, A. K.
Jain, "A modified Hausdorff distance for object matching", ICPR 1994) over a semantic
distance between concepts, each query weighted by its share of the profile: from ``A`` to
``B`` the mean, over A's queries, of the distance to the nearest concept of ``B``; the
distance between the two the larger of both directions. It is 0 between profiles with
the same concepts, whatever their counts (as a set distance), and at most the largest
concept distance.

The aggregated profile of a group keeps the group's query distribution: the plurality
rule of categorical microaggregation (the most frequent value) extended to multisets. It
holds ``m`` queries, ``m`` the mean number of queries of the group's users rounded half
up, allotted to the group's concepts in proportion to their pooled counts by the largest
remainder (Hamilton's) method, remainders tied broken by the larger pooled count, then
the concept listed first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from .taxonomy import Taxonomy

TERM = re.compile(r"\w+")
LONGEST_PHRASE = 3  # concept names of up to three words are matched in a query


def classify_queries(tax: Taxonomy, queries: Sequence[str],
                     index: Mapping[str, int] | None = None) -> np.ndarray:
    """The concept of each query: the whole query if it names a concept (case
    ignored), else the least common subsumer of the concepts its words and phrases
    name (a phrase's words count once: 'credit card' is not also 'card'), else the
    root (a query the taxonomy cannot place says nothing of its topic).

    ``index``: lower-cased name -> concept (default: the taxonomy's names)."""
    if index is None:
        index = {name.lower(): i for i, name in enumerate(tax.names)}
    out = np.empty(len(queries), dtype=np.int64)
    cache: dict[str, int] = {}
    for i, query in enumerate(queries):
        code = cache.get(query)
        if code is None:
            code = _classify(tax, query, index)
            cache[query] = code
        out[i] = code
    return out


def _classify(tax: Taxonomy, query: str, index: Mapping[str, int]) -> int:
    words = TERM.findall(query.lower())
    for whole in (query.strip().lower(), " ".join(words)):
        if whole in index:
            return index[whole]
    used = np.zeros(len(words), dtype=bool)
    found = []
    for size in range(min(LONGEST_PHRASE, len(words)), 0, -1):
        for i in range(len(words) - size + 1):
            if used[i:i + size].any():
                continue
            concept = index.get(" ".join(words[i:i + size]))
            if concept is not None:
                found.append(concept)
                used[i:i + size] = True
    return tax.lcs_of(found) if found else tax.root


def profiles(users: np.ndarray, concepts: np.ndarray, n_users: int,
             n_concepts: int) -> np.ndarray:
    """The n_users x n_concepts matrix of query counts: row ``u`` is user ``u``'s
    profile (``users`` and ``concepts`` are codes 0 .., one per query)."""
    out = np.zeros((n_users, n_concepts), dtype=np.int64)
    np.add.at(out, (np.asarray(users, dtype=np.int64), np.asarray(concepts, dtype=np.int64)), 1)
    return out


def _shares(counts: np.ndarray) -> np.ndarray:
    counts = np.atleast_2d(np.asarray(counts, dtype=float))
    total = counts.sum(axis=1, keepdims=True)
    return np.divide(counts, total, out=np.zeros_like(counts), where=total > 0)


def _nearest_in(counts: np.ndarray, D: np.ndarray) -> np.ndarray:
    """``M[b, c]``: the distance from concept ``c`` to the nearest concept of profile
    ``b`` (the largest distance of ``D`` for an empty profile)."""
    counts = np.atleast_2d(counts)
    top = D.max(initial=0.0)
    out = np.empty((len(counts), D.shape[0]))
    for b, row in enumerate(counts):
        support = np.flatnonzero(row)
        out[b] = D[:, support].min(axis=1) if len(support) else top
    return out


def profile_distances(A: np.ndarray, B: np.ndarray, D: np.ndarray) -> np.ndarray:
    """The modified Hausdorff distance between every profile (row of counts) of ``A``
    and every profile of ``B``: ``max(d(a -> b), d(b -> a))``, ``d(a -> b)`` the sum
    over concepts ``c`` of ``a``'s share of ``c`` times the distance ``D`` from ``c`` to
    the nearest concept of ``b``."""
    a_to_b = _shares(A) @ _nearest_in(B, D).T
    b_to_a = (_shares(B) @ _nearest_in(A, D).T).T
    return np.maximum(a_to_b, b_to_a)


def aggregate_profile(counts: np.ndarray) -> np.ndarray:
    """The aggregated profile of a group of profiles (rows of counts; see the module's
    docstring): ``m`` queries, ``m`` the mean row total rounded half up, allotted to the
    concepts by the largest remainder of ``m`` times their share of the pooled counts."""
    counts = np.atleast_2d(np.asarray(counts, dtype=np.int64))
    pooled = counts.sum(axis=0)
    total = int(pooled.sum())
    out = np.zeros(len(pooled), dtype=np.int64)
    if total == 0:
        return out
    # m = floor(total / n + 1/2), in integers (no float rounding of the half)
    m = (2 * total + len(counts)) // (2 * len(counts))
    quota = m * pooled  # (the quotas times total, exact)
    out = quota // total
    left = m - int(out.sum())
    if left:
        remainder = quota - out * total
        order = np.lexsort((np.arange(len(pooled)), -pooled, -remainder))
        out[order[:left]] += 1
    return out


def profile_mdav(counts: np.ndarray, D: np.ndarray, k: int,
                 progress: Callable[[float], None] | None = None) -> np.ndarray:
    """Group labels (0, 1, ...) of the users (rows of ``counts``) by MDAV on
    :func:`profile_distances`, the centroid of a set of users their
    :func:`aggregate_profile`: while 3k or more users remain, the user farthest from the
    centroid of the remaining ones and the k - 1 nearest to them form a group, then the
    user farthest from that first one and their k - 1 nearest; with 2k .. 3k - 1 left,
    one group around the user farthest from the centroid and the rest; fewer than 2k
    form the last group. Every group has k .. 2k - 1 users (all, if fewer than k). Ties
    go to the user listed first."""
    counts = np.asarray(counts, dtype=np.int64)
    n = len(counts)
    labels = np.full(n, -1, dtype=np.int64)
    rest = np.arange(n)
    group = 0

    def distances_to(profile: np.ndarray) -> np.ndarray:
        return profile_distances(profile[None, :], counts[rest], D)[0]

    def farthest(profile: np.ndarray) -> int:
        return int(rest[np.argmax(distances_to(profile))])

    def take(r: int) -> None:
        nonlocal rest, group
        d = distances_to(counts[r])
        d[rest == r] = -1.0  # r first, then its k - 1 nearest
        labels[rest[np.argsort(d, kind="stable")[:k]]] = group
        group += 1
        rest = rest[labels[rest] < 0]
        if progress is not None:
            progress(1.0 - len(rest) / n)

    while len(rest) >= 3 * k:
        r = farthest(aggregate_profile(counts[rest]))
        take(r)
        take(farthest(counts[r]))
    if len(rest) >= 2 * k:
        take(farthest(aggregate_profile(counts[rest])))
    if len(rest):
        labels[rest] = group
    return labels


def group_profiles(counts: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Each group's aggregated profile (one row per group label 0 ..)."""
    counts = np.asarray(counts, dtype=np.int64)
    groups = int(labels.max()) + 1 if len(labels) else 0
    return np.array([aggregate_profile(counts[labels == g]) for g in range(groups)],
                    dtype=np.int64).reshape(groups, counts.shape[1])


def linkage_candidates(original: np.ndarray, protected: np.ndarray,
                       D: np.ndarray) -> np.ndarray:
    """Distance-based record linkage of profiles (D. Pagliuca, G. Seri, "Some results
    of individual ranking method on the system of enterprise accounts annually
    surveyed by Istat", 1999, for distance-based linkage): a boolean matrix, row ``i``
    marking the protected profiles at the least :func:`profile_distances` from original
    profile ``i`` (the intruder's candidates, all equally likely)."""
    d = profile_distances(original, protected, D)
    best = d.min(axis=1, keepdims=True)
    # (equal within rounding: a distance summed in another order may differ in its
    # last bit, and must not decide between users the method made identical)
    return d <= best + 1e-12 * np.maximum(1.0, best)


def information_loss(original: np.ndarray, protected: np.ndarray,
                     D: np.ndarray) -> np.ndarray:
    """Each user's profile distance between their original and protected profiles
    (rows paired), the information loss of Navarro-Arribas et al. (2012) measured with
    the distance the profiles were grouped by."""
    a_to_b = (_shares(original) * _nearest_in(protected, D)).sum(axis=1)
    b_to_a = (_shares(protected) * _nearest_in(original, D)).sum(axis=1)
    return np.maximum(a_to_b, b_to_a)
