"""Privacy targets of the lattice search (:func:`sdcflow.kernels.privacy.lattice.search`)
for beta-likeness and delta-presence, built on the per-class models of
:mod:`sdcflow.kernels.privacy.models`. NumPy and the compiled tables only."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..risk.frequencies import row_ids
from .class_tables import History
from .joint_tables import PopulationTables, population_tables
from .lattice import generalise
from .models import beta_likeness, delta_presence
from .roll_up import sorted_positions
from .targets import Partition, Target

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
        return beta_likeness(p.record_class, p.values_of(sensitive), weights=p.weights,
                             n_classes=len(p.counts)) <= beta + 1e-9

    return Target(f"beta_likeness({beta:g})", ok, needs_records=True, values=sensitive)


def delta_presence_target(population: np.ndarray, maps: Sequence[np.ndarray],
                          delta_min: float, delta_max: float) -> Target:
    """delta-presence (Nergiz, Atzori & Clifton, "Hiding the presence of individuals from
    shared databases", SIGMOD 2007): in every class of the *population* the share of its
    records that are in the data, :func:`sdcflow.kernels.privacy.models.delta_presence`,
    lies in ``[delta_min, delta_max]``. ``population``: the population's level-0 key codes
    (P x m, the codes of the search), generalised at each node with the same ``maps``
    to find its classes; the data must be part of the population.

    A class of the population that holds no record of the data has a share of 0: with
    ``delta_min > 0`` it fails, and as it holds no record to suppress, no suppression can
    mend it -- the node fails (the target's ``node_ok``), as in Nergiz et al.'s definition
    (every generalised population tuple is checked) and in ARX (F. Prasser & F. Kohlmayer,
    "Putting statistical disclosure control into practice: the ARX data anonymization
    tool", 2015: "tuples from the public table that have no matching candidates in the
    private table [...] cannot be suppressed"). Classes of the data that fail are
    suppressed as with any target.

    Monotone without suppression (as ARX's ``DPresence`` declares itself): a node meets
    the target when every class of the population lies in range, and a class one level
    up is a union of classes whose share is the mediant of theirs, so within their
    range. Not with suppression: a class failing ``delta_max`` whose records were
    suppressed may, merged with a meeting class, make it fail too. Its condition that
    every class of the population holds a record of the data (``delta_min > 0``) is
    monotone either way -- an absent class splits into absent classes below. So is a
    bound on delta_max's side: the *excess* ``E = sum over classes of max(0, s - delta_max
    * P)`` (``s`` the class's records of the data, ``P`` its population) over ``1 -
    delta_max`` is at most the records suppressed (a class failing delta_max has ``s -
    delta_max * P <= s (1 - delta_max)``, as ``s <= P``, and loses its ``s`` records; a
    meeting one adds 0), and a class one level up adds its
    parts' ``s`` and ``P``, where ``max(0, a + b) <= max(0, a) + max(0, b)``: E never
    grows under generalisation, and a node whose E exceeds the suppression limit fails,
    as does every node below it. The two are the target's relaxation for predictive
    tagging, whatever delta_min."""
    population = np.asarray(population, dtype=np.int64)
    maps = [np.asarray(mp, dtype=np.int64) for mp in maps]
    low, high = delta_min * (1 - 1e-12), delta_max * (1 + 1e-12)
    last: dict = {}  # the partition last seen -> its classes' shares, absent classes
    # the population's classes at each node, rolled up as the data's are: made when first
    # needed (a search on joint tables never needs them); as packed joint tables when
    # the codes pack (their classes found by hashing), else as class tables
    packed: list[PopulationTables | None] = []
    tables: list[History] = []

    def shares(p: Partition) -> tuple[np.ndarray, int]:
        """The share of each class of the data, and the number of population classes
        without a record of the data."""
        if last.get("partition") is p:  # classes_ok and node_ok of one node
            return last["share"], last["absent"]
        size = len(p.counts)
        if not packed:
            packed.append(population_tables(population, maps))
        if packed[0] is not None and p.keys is not None and p.node is not None:
            pop_counts, groups = packed[0].records_of(p.node, p.keys)
            if (p.counts <= pop_counts).all():
                # each class of the data is one of the population's, within it: the
                # quotient directly (as delta_presence computes it)
                share = p.counts / pop_counts
                absent = groups - size
                last.update(partition=p, share=share, absent=absent)
                return share, absent
        if population.shape[1] == len(maps) and not tables:
            tables.append(History(population, maps))
        history = tables[0] if tables else None
        if history is None:  # (a population of other columns: as generalise tells)
            gen, pop_counts = generalise(population, maps, p.node), None
        else:
            table = history.table(p.node)
            gen, pop_counts = table.keys, table.counts  # one row per population class
            # the population's classes and the data's are in the order of their keys:
            # one merge finds the data's among them
            at = sorted_positions(p.keys, gen)
            if at is not None and (p.counts <= pop_counts[at]).all():
                # each class of the data is one of the population's (distinct keys
                # found at distinct places): delta_presence's quotient directly
                share = p.counts / pop_counts[at]
                absent = len(gen) - size
                last.update(partition=p, share=share, absent=absent)
                return share, absent
        both, _ = row_ids(np.vstack([p.keys, gen]))
        # the classes' ids in 'both' -> their position; population rows of other
        # combinations (no data record) belong to no class of the data
        position = np.full(int(both.max(initial=-1)) + 1, -1, dtype=np.int64)
        position[both[:size]] = np.arange(size)
        pop_class = position[both[size:]]
        sample = np.repeat(np.arange(size), p.counts)
        share = delta_presence(sample, pop_class, n_classes=size,
                               population_counts=pop_counts)
        absent = int(np.unique(both[size:][pop_class < 0]).size)
        last.update(partition=p, share=share, absent=absent)
        return share, absent

    def ok(p: Partition) -> np.ndarray:
        share, _ = shares(p)
        return (share >= low) & (share <= high)

    def every_class_present(p: Partition) -> bool:
        # a class without a record of the data has a share of 0
        return delta_min <= 0 or shares(p)[1] == 0

    def excess(p: Partition) -> float:
        # sum over classes of max(0, s - high * P) / (1 - high): for a class failing
        # delta_max (s <= P) at most its s records, for the others 0
        share = shares(p)[0]
        over = share > high
        return float((p.counts[over] * (1.0 - high / share[over])).sum()) / (1.0 - high)

    name = f"delta_presence({delta_min:g}, {delta_max:g})"
    # monotone conditions of their own, which predictive tagging can use: with
    # delta_min > 0 a population class without a record of the data fails the node
    # whatever is suppressed, and its classes split into such classes below; and the
    # excess over delta_max bounds the records suppressed from below and never grows
    # under generalisation (see delta_presence_excess)
    relaxed = Target(f"{name}: the monotone part",
                     lambda p: np.ones(len(p.counts), dtype=bool),
                     monotone_with_suppression=True,
                     node_ok=every_class_present if delta_min > 0 else None,
                     suppresses_at_least=excess if high < 1 - 1e-6 else None,
                     counts_rule=("delta_bound", population, low, high, delta_min))
    return Target(name, ok, node_ok=every_class_present, relaxed=relaxed,
                  counts_rule=("delta", population, low, high, delta_min))
