"""Generic information loss measures for categorical data (Torra, "Masking methods", 2013,
V. Torra, "Masking Methods", section 4 "Information loss measures"): the direct distance
(Domingo-Ferrer & Torra 2001), the contingency-table based CTBIL, the entropy-based EBIL
and the per-record PRIL, with the probabilities ``P(V = i | V' = j)`` these two need.
"""

from __future__ import annotations

import itertools

import numpy as np


def direct_distance(f: np.ndarray, g: np.ndarray, ranks: np.ndarray | None = None,
                    domain_size: int | None = None) -> np.ndarray:
    """Per-record distance between original codes ``f`` and protected codes ``g`` (shared
    code numbering): the direct distance of Domingo-Ferrer & Torra ("Disclosure control
    methods and information loss for microdata", 2001). Nominal (``ranks`` None): 0 if
    equal, else 1. Ordinal: ``|rank(c) - rank(c')| / (|D(V)| - 1)`` with ``ranks[code]``
    the position of each category in the variable's domain D(V) of ``domain_size``
    categories (its declared order: categories not observed count too), or -1 for a
    value outside it (a missing value, an undeclared category), which is at distance 1
    from any other value. Always within [0, 1].

    Torra (2013) writes the ordinal distance as the number of categories between c and c'
    *inclusive* over |D(V)|, which gives 1/|D(V)| for c = c' and breaks its own requirement
    divergence(X, X) = 0; the rank difference over |D(V)| - 1 is 0 for equal values, 1 for
    the two extremes."""
    f = np.asarray(f)
    g = np.asarray(g)
    d = (f != g).astype(float)
    if ranks is not None:
        if domain_size is None:
            raise ValueError("the ordinal distance needs the size of the domain D(V)")
        ranks = np.asarray(ranks)
        if ranks.size and ranks.max() >= domain_size:
            raise ValueError(f"rank {int(ranks.max())} is outside a domain of {domain_size} "
                             "categories")
        rf, rg = ranks[f], ranks[g]
        inside = (rf >= 0) & (rg >= 0)
        if domain_size > 1:
            d[inside] = np.abs(rf[inside] - rg[inside]) / (domain_size - 1)
    return d


def _combine(keys: np.ndarray, codes: np.ndarray, card: int, bound: int) -> tuple[np.ndarray, int]:
    """Mixed-radix combination of two code columns, renumbered densely when the number of
    possible cells would overflow int64."""
    if bound * card >= 2 ** 62:
        uniq, keys = np.unique(keys, return_inverse=True)
        bound = len(uniq)
    return keys * card + codes, bound * card


def contingency_difference(f: np.ndarray, g: np.ndarray, cards: list[int]) -> int:
    """``sum_cells |x^F - x^G|`` for the contingency table of the code columns of ``f``
    (n_f x t) and ``g`` (n_g x t); ``cards[k]`` is the number of codes of column k."""
    both = np.concatenate([f, g])
    keys = both[:, 0].astype(np.int64)
    bound = cards[0]
    for k in range(1, both.shape[1]):
        keys, bound = _combine(keys, both[:, k].astype(np.int64), cards[k], bound)
    nf = len(f)
    if bound > 4 * len(both) + 1024:
        _, keys = np.unique(keys, return_inverse=True)
        bound = int(keys.max()) + 1 if keys.size else 0
    cf = np.bincount(keys[:nf], minlength=bound)
    cg = np.bincount(keys[nf:], minlength=bound)
    return int(np.abs(cf - cg).sum())


def ctbil(f: np.ndarray, g: np.ndarray, cards: list[int], max_order: int) -> dict:
    """CTBIL(F, G; W, K) (Torra 2013, "Comparison of contingency tables"): the sum, over every
    set of at most K of the variables, of the absolute differences between the cells of
    the contingency tables of F and G. ``f``, ``g``: code columns (shared numbering per
    variable, n_f x p and n_g x p). Returns the total, the total by table order and by
    table (keyed by variable index tuples)."""
    p = f.shape[1]
    tables = {}
    for t in range(1, min(max_order, p) + 1):
        for subset in itertools.combinations(range(p), t):
            cols = list(subset)
            tables[subset] = contingency_difference(f[:, cols], g[:, cols],
                                                    [cards[c] for c in cols])
    by_order = {t: sum(v for s, v in tables.items() if len(s) == t)
                for t in range(1, min(max_order, p) + 1)}
    return {"total": int(sum(tables.values())), "by_order": by_order, "tables": tables}


def posterior_from_data(f: np.ndarray, g: np.ndarray, k: int) -> np.ndarray:
    """``P(V = i | V' = j)`` estimated from the cross-tabulation of original (``f``) and
    protected (``g``) codes: ``n_ij / n_.j`` (a k x k array, rows i; columns of categories
    never published are 0)."""
    table = np.bincount(np.asarray(f, np.int64) * k + g, minlength=k * k).reshape(k, k)
    table = table.astype(float)
    col = table.sum(axis=0)
    return np.divide(table, col, out=np.zeros_like(table), where=col > 0)


def posterior_from_matrix(transition: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """``P(V = i | V' = j) = pi_i p_ij / sum_k pi_k p_kj`` (Bayes) from the PRAM matrix
    ``p_ij = P(V' = j | V = i)`` and the original category shares ``pi``."""
    joint = np.asarray(prior, float)[:, None] * np.asarray(transition, float)
    col = joint.sum(axis=0)
    return np.divide(joint, col, out=np.zeros_like(joint), where=col > 0)


def entropy_losses(f: np.ndarray, g: np.ndarray, posterior: np.ndarray) -> tuple[
        np.ndarray, np.ndarray]:
    """Per record, Torra's (2013) EBIL term ``H(V | V' = j_r) = -sum_i P(i|j_r) log P(i|j_r)``
    and PRIL ``-log P(V = i_r | V' = j_r)`` (natural logarithms, nats). A record whose
    change has probability 0 under ``posterior`` gets an infinite PRIL."""
    with np.errstate(divide="ignore", invalid="ignore"):
        logp = np.where(posterior > 0, np.log(np.where(posterior > 0, posterior, 1.0)), 0.0)
        h = -(posterior * logp).sum(axis=0)
        p = posterior[f, g]
        pril = np.where(p > 0, -np.log(np.where(p > 0, p, 1.0)), np.inf)
    return h[g], pril
