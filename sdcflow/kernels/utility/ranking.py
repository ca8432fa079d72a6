"""Ranking protected versions of a data set by their SDC score (J. Domingo-Ferrer & V.
Torra, "A quantitative comparison of disclosure control methods for microdata", 2001:
methods and parameterisations ranked by Score = (IL + DR) / 2), with the versions no other
beats on both information loss and disclosure risk (the Pareto front of the R-U map:
Duncan, Keller-McNulty & Stokes, "Disclosure risk vs. data utility: the R-U
confidentiality map", 2001). NumPy only."""

from __future__ import annotations

import numpy as np

__all__ = ["competition_ranks", "pareto_front"]


def competition_ranks(values: np.ndarray) -> np.ndarray:
    """The rank of each value, smallest first, ties sharing the best rank of their group
    ("1224" competition ranking): [3, 1, 3, 2] -> [3, 1, 3, 2], [2, 2, 5] -> [1, 1, 3].
    NaN is refused."""
    values = np.asarray(values, dtype=float)
    if np.isnan(values).any():
        raise ValueError("a value to rank is not a number")
    # rank = 1 + the number of values strictly smaller
    ordered = np.sort(values)
    return np.searchsorted(ordered, values, side="left").astype(np.int64) + 1


def pareto_front(il: np.ndarray, dr: np.ndarray) -> np.ndarray:
    """Which points are not dominated: no other point has IL <= and DR <= with one of
    them strictly smaller (lower is better on both axes). Equal points are all kept."""
    il, dr = np.asarray(il, dtype=float), np.asarray(dr, dtype=float)
    no_worse = (il[None, :] <= il[:, None]) & (dr[None, :] <= dr[:, None])
    better = (il[None, :] < il[:, None]) | (dr[None, :] < dr[:, None])
    return ~(no_worse & better).any(axis=1)
