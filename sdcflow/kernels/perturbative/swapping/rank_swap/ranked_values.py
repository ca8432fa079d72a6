"""Rank swapping applied to the values of one variable: the rank order (by value, ties by
record position, missing values not ranked), the record each protected value comes from,
and the protected values for given swap choices (Torra's (2016) example).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .partners import swap_partners


def rank_order(keys: np.ndarray) -> np.ndarray:
    """Positions of the non-missing ``keys`` in rank order: by value, ties by position."""
    valid = np.flatnonzero(~np.isnan(keys))
    return valid[np.argsort(keys[valid], kind="stable")]


def rank_swap(keys: np.ndarray, p: float, rng: np.random.Generator,
              variant: str = "standard") -> np.ndarray:
    """Rank swapping of one variable (module docstring): returns ``source`` such that the
    protected values are ``values[source]``. ``keys`` (float, NaN = missing) define the
    ranks; missing values are not ranked, not swapped and stay where they are; ``n`` in
    ``p n / 100`` is the number of non-missing values."""
    keys = np.asarray(keys, dtype=float)
    order = rank_order(keys)
    partner = swap_partners(len(order), p, rng, variant)
    source = np.arange(len(keys), dtype=np.int64)
    source[order] = order[partner]
    return source


def apply_rank_swaps(values: Iterable[float], swaps: Iterable[tuple[int, int]],
                     max_distance: int | None = None) -> np.ndarray:
    """The protected values of Torra's (2016) rank swapping for given swap choices: the
    values of each pair of ranks ``(i, l)`` (1-based, ranks by value then position) are
    exchanged. Each rank may be in at most one pair. With ``max_distance`` (Torra's (2016)
    ``p |X| / 100`` in ranks) the pairs must be choices the algorithm can make: ``i < l
    <= i + max_distance``, and a rank left unswapped must have had no unswapped rank in
    its range when it was visited (every rank of its range is paired with a lower rank).

    Reproduces the 10-record example of Torra 2016 / Torra 2013 ("Rank swapping: Example I",
    p = 2 ranks) from the swaps its protected file shows."""
    keys = np.asarray(list(values), dtype=float)
    n = len(keys)
    partner = np.arange(n, dtype=np.int64)
    for a, b in swaps:
        i, l = min(a, b), max(a, b)
        if not (1 <= i < l <= n):
            raise ValueError(f"swap ({a}, {b}): ranks must be distinct and in 1..{n}")
        if partner[i - 1] != i - 1 or partner[l - 1] != l - 1:
            raise ValueError(f"swap ({a}, {b}): a rank can be swapped only once")
        if max_distance is not None and l - i > max_distance:
            raise ValueError(f"swap ({a}, {b}): ranks more than {max_distance} apart")
        partner[i - 1], partner[l - 1] = l - 1, i - 1
    if max_distance is not None:
        for i in np.flatnonzero(partner == np.arange(n)):
            for l in range(i + 1, min(n, i + max_distance + 1)):
                if partner[l] > i:  # l was still unswapped when rank i was visited
                    raise ValueError(f"rank {i + 1} is left unswapped although rank "
                                     f"{l + 1} was available")
    order = rank_order(keys)
    out = keys.copy()
    out[order] = keys[order[partner]]
    return out
