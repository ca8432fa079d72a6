"""Semantic distances between the concepts of a taxonomy (:mod:`.taxonomy`).

* path: the number of edges on the shortest path between two concepts (R. Rada, H. Mili,
  E. Bicknell, M. Blettner, "Development and application of a metric on semantic nets",
  IEEE Transactions on Systems, Man and Cybernetics 19(1), 1989);
* Wu-Palmer: ``1 - 2 N3 / (N1 + N2 + 2 N3)`` (Z. Wu, M. Palmer, "Verb semantics and
  lexical selection", ACL 1994), N3 the depth of the least common subsumer and N1, N2
  the edges from each concept up to it; depths count nodes, the root being at depth 1
  (as NLTK's WordNet reader), so that ``2 N3 / (N1 + N2 + 2 N3)`` is
  ``2 depth(lcs) / (depth(a) + depth(b))``;
* information content: ``IC(c) = -log p(c)``, ``p(c)`` the relative frequency of ``c``
  and every concept it subsumes (P. Resnik, "Using information content to evaluate
  semantic similarity in a taxonomy", IJCAI 1995), here counted in the data; Resnik's
  similarity ``IC(lcs)``; Lin's ``2 IC(lcs) / (IC(a) + IC(b))`` (D. Lin, "An
  information-theoretic definition of similarity", ICML 1998), as a distance one minus
  it; Jiang-Conrath's distance ``IC(a) + IC(b) - 2 IC(lcs)`` (J. Jiang, D. Conrath,
  "Semantic similarity based on corpus statistics and lexical taxonomy", ROCLING 1997).
"""

from __future__ import annotations

import numpy as np

from .taxonomy import Taxonomy

DISTANCES = ("path", "wu_palmer", "lin", "jiang_conrath")
NEEDS_IC = ("lin", "jiang_conrath")


def ancestor_table(tax: Taxonomy, codes: np.ndarray) -> np.ndarray:
    """``A[i, d]``: the ancestor at depth ``d`` (edges from the root) of ``codes[i]``, -1
    below its own depth."""
    codes = np.asarray(codes, dtype=np.int64)
    top = int(tax.depth[codes].max(initial=0))
    out = np.full((len(codes), top + 1), -1, dtype=np.int64)
    current = codes.copy()
    for d in range(top, -1, -1):
        here = tax.depth[current] == d
        out[here, d] = current[here]
        current = np.where(here & (tax.parent[current] >= 0), tax.parent[current], current)
    return out


def lcs_matrix(tax: Taxonomy, codes: np.ndarray) -> np.ndarray:
    """The least common subsumer of every pair of ``codes`` (an m x m matrix of codes)."""
    A = ancestor_table(tax, codes)
    # common ancestors form a prefix (root .. lcs): count them level by level (m x m at a
    # time, not an m x m x depth cube: a deep taxonomy would not fit in memory)
    depth = np.full((len(codes), len(codes)), -1, dtype=np.int64)
    for d in range(A.shape[1]):
        level = A[:, d]
        depth += (level[:, None] == level[None, :]) & (level >= 0)[:, None]
    return A[np.arange(len(codes))[:, None], depth]


def information_content(tax: Taxonomy, counts: np.ndarray) -> np.ndarray:
    """``-log p(c)`` for every concept, ``p(c)`` the share of ``counts`` (occurrences of
    each concept) on ``c`` and the concepts it subsumes; ``inf`` for a concept that
    subsumes no occurrence."""
    freq = tax.subsumed_counts(counts)
    total = freq[tax.root]
    if not total > 0:
        raise ValueError("information content needs at least one occurrence")
    out = np.full(len(freq), np.inf)
    seen = freq > 0
    out[seen] = -np.log(freq[seen] / total)
    return np.maximum(out, 0.0)  # (the root: -log 1 is -0.0)


def resnik_similarity(tax: Taxonomy, codes: np.ndarray, ic: np.ndarray) -> np.ndarray:
    """Resnik's similarity of every pair of ``codes``: the information content of their
    least common subsumer."""
    return ic[lcs_matrix(tax, codes)]


def semantic_distances(tax: Taxonomy, codes: np.ndarray, measure: str,
                       ic: np.ndarray | None = None) -> np.ndarray:
    """The m x m matrix of ``measure`` (one of :data:`DISTANCES`) between ``codes``.

    ``lin`` and ``jiang_conrath`` need ``ic`` (:func:`information_content`), finite on
    every concept of ``codes``."""
    codes = np.asarray(codes, dtype=np.int64)
    lcs = lcs_matrix(tax, codes)
    if measure == "path":
        d = tax.depth[codes]
        return (d[:, None] + d[None, :] - 2 * tax.depth[lcs]).astype(float)
    if measure == "wu_palmer":
        d = tax.depth[codes] + 1.0
        return 1.0 - 2.0 * (tax.depth[lcs] + 1.0) / (d[:, None] + d[None, :])
    if measure not in NEEDS_IC:
        raise ValueError(f"unknown semantic distance '{measure}'; known: {', '.join(DISTANCES)}")
    if ic is None or not np.isfinite(ic[codes]).all():
        raise ValueError(f"{measure} needs a finite information content of every concept")
    a, common = ic[codes], ic[lcs]
    total = a[:, None] + a[None, :]
    if measure == "jiang_conrath":
        return np.maximum(total - 2.0 * common, 0.0)
    # Lin: two concepts without information (both as frequent as the root) are alike
    sim = np.ones_like(total)
    np.divide(2.0 * common, total, out=sim, where=total > 0)
    return 1.0 - sim
