"""Privacy targets of the lattice search (:func:`sdcflow.kernels.privacy.lattice.search`)
for beta-likeness and delta-presence, built on the per-class models of
:mod:`sdcflow.kernels.privacy.models`. NumPy only."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..risk.frequencies import row_ids
from .lattice import Partition, Target, generalise
from .models import beta_likeness, delta_presence

__all__ = ["beta_likeness_target", "delta_presence_target"]


def beta_likeness_target(sensitive: np.ndarray, beta: float) -> Target:
    """Basic beta-likeness (Cao & Karras, "Publishing microdata with a robust privacy
    guarantee", PVLDB 2012): in every class, each sensitive value more frequent there
    (``q``) than in the whole input (``p``) has ``(q - p) / p <= beta``; by
    :func:`sdcflow.kernels.privacy.models.beta_likeness`.

    Monotone without suppression: for each value the condition ``q <= (1 + beta) p`` is
    linear in the class's distribution, and a merged class's distribution is a mixture
    of the two; not with suppression (as t-closeness)."""
    if not beta >= 0:
        raise ValueError("beta must be >= 0")

    def ok(p: Partition) -> np.ndarray:
        return beta_likeness(p.record_class, sensitive, n_classes=len(p.counts)) <= beta + 1e-9

    return Target(f"beta_likeness({beta:g})", ok, needs_records=True)


def delta_presence_target(population: np.ndarray, maps: Sequence[np.ndarray],
                          delta_min: float, delta_max: float) -> Target:
    """delta-presence (Nergiz, Atzori & Clifton, "Hiding the presence of individuals from
    shared databases", SIGMOD 2007): in every class the share of its population records
    that are in the data, :func:`sdcflow.kernels.privacy.models.delta_presence`, lies
    in ``[delta_min, delta_max]``. ``population``: the population's level-0 key codes
    (P x m, the codes of the search), generalised at each node with the same ``maps``
    to find its classes; the data must be part of the population.

    Not monotone, with or without suppression: generalising merges a class of the data
    with population records that are in no class of the data (a combination the sample
    lacks), so its share falls and may fall below ``delta_min``; and a class's share is
    the mediant of its parts', so a class failing ``delta_max`` may be lowered into
    range by such a merge -- a node above one that meets the target may fail it, and one
    above a failing node may meet it. The search then checks every node."""
    population = np.asarray(population, dtype=np.int64)
    maps = [np.asarray(mp, dtype=np.int64) for mp in maps]

    def ok(p: Partition) -> np.ndarray:
        size = len(p.counts)
        gen = generalise(population, maps, p.node)
        both, _ = row_ids(np.vstack([p.keys, gen]))
        # the classes' ids in 'both' -> their position; population rows of other
        # combinations (no data record) belong to no class of the data
        position = np.full(int(both.max(initial=-1)) + 1, -1, dtype=np.int64)
        position[both[:size]] = np.arange(size)
        pop_class = position[both[size:]]
        sample = np.repeat(np.arange(size), p.counts)
        share = delta_presence(sample, pop_class, n_classes=size)
        return (share >= delta_min * (1 - 1e-12)) & (share <= delta_max * (1 + 1e-12))

    return Target(f"delta_presence({delta_min:g}, {delta_max:g})", ok,
                  monotone_without_suppression=False)
