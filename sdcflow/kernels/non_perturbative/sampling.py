"""Sampling as a non-perturbative method (Torra 2013, "Sampling": publish a
sample S of the original records): simple and stratified random samples without replacement,
with the design weights adjusted by the inverse sampling fraction of each stratum."""

from __future__ import annotations

import numpy as np


def allocate(sizes: np.ndarray, *, fraction: float | None = None,
             total: int | None = None) -> np.ndarray:
    """Sample size per stratum: ``fraction`` of each (rounded, at least 1 where the
    stratum is not empty), or ``total`` records allocated proportionally to the stratum
    sizes by the largest-remainder method."""
    sizes = np.asarray(sizes, dtype=np.int64)
    if fraction is not None:
        n = np.floor(sizes * fraction + 0.5).astype(np.int64)
        return np.where(sizes > 0, np.clip(n, 1, sizes), 0)
    share = sizes * (total / sizes.sum())
    n = np.floor(share).astype(np.int64)
    rest = total - n.sum()
    if rest > 0:
        # ties broken by stratum order, so the allocation is deterministic
        order = np.lexsort((np.arange(len(sizes)), -(share - n)))
        n[order[:rest]] += 1
    return np.minimum(n, sizes)


def stratified_sample(groups: np.ndarray, n_per_group: np.ndarray,
                      rng: np.random.Generator) -> np.ndarray:
    """Sorted indices of a simple random sample without replacement of ``n_per_group[g]``
    records from each group ``g`` (``groups``: the group of each record, 0..G-1)."""
    keys = rng.random(len(groups))
    # within each group, the records with the smallest random keys are drawn
    order = np.lexsort((keys, groups))
    sorted_groups = groups[order]
    starts = np.searchsorted(sorted_groups, np.arange(len(n_per_group)))
    rank = np.arange(len(groups)) - starts[sorted_groups]
    chosen = order[rank < n_per_group[sorted_groups]]
    return np.sort(chosen)
