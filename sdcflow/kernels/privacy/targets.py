"""The privacy targets of the lattice search (:func:`sdcflow.kernels.privacy.lattice.search`):
what a node's classes are (:class:`Partition`), what a target says of them
(:class:`Target`), and k-anonymity, l-diversity, t-closeness and the average
re-identification risk as targets. NumPy only (the models' kernels compiled)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..risk.t_closeness import class_emd_of, smallest_close_class
from .models import distinct_l_diversity, entropy_l_diversity, recursive_l_diversity

__all__ = ["Partition", "Target", "average_risk", "k_anonymity", "l_diversity_target",
           "t_closeness_target"]

@dataclass(frozen=True)
class Partition:
    """A node's equivalence classes: the number of records of each (``counts``), when
    a target reads records the class of each record (``record_class``), the generalised
    key codes of each class (``keys``, one row per class) and the node.

    The search passes records grouped: ``record_class`` then holds the class of each
    *group* of records with equal keys and equal values of the targets' sensitive
    variables, ``weights`` the records of each group and ``rows`` one record of each
    (so a target reads its per-record values as ``values[rows]``); both None: one
    group per record."""

    counts: np.ndarray
    record_class: np.ndarray | None = None
    keys: np.ndarray | None = None
    node: tuple | None = None
    weights: np.ndarray | None = None
    rows: np.ndarray | None = None

    def values_of(self, values: np.ndarray) -> np.ndarray:
        """Per-record ``values`` as one value per entry of ``record_class``."""
        return values if self.rows is None else values[self.rows]


@dataclass(frozen=True)
class Target:
    """A privacy target. ``classes_ok(partition)`` says for each class whether it meets
    the target (a release target: one value for the whole release, computed on the
    classes kept, ``kept``); ``monotone(suppressing)``: whether generalising a node that
    meets it keeps it met (with or without suppression); ``needs_records``: whether it
    reads ``partition.record_class``; ``node_ok(partition)`` (optional): a condition of
    the node that no suppression can meet (delta-presence: a class of the population
    without a record of the data), checked after ``classes_ok``;
    ``suppresses_at_least(partition)`` (optional): a lower bound of the records the
    target suppresses at the node, one that never grows under generalisation (a node
    whose bound exceeds the suppression limit fails, and so does every node below it:
    a monotone condition for predictive tagging); ``counts_rule`` (optional): what the
    target asks in terms of class sizes alone, for the checks on joint tables of
    :mod:`sdcflow.kernels.privacy.joint_tables` (see its ``rules_of``)."""

    name: str
    classes_ok: Callable[..., np.ndarray]
    monotone_without_suppression: bool = True
    monotone_with_suppression: bool = False
    needs_records: bool = False
    release: bool = False
    node_ok: Callable[[Partition], bool] | None = None
    values: np.ndarray | None = None
    relaxed: Target | None = None
    suppresses_at_least: Callable[[Partition], float] | None = None
    counts_rule: tuple | None = None

    def monotone(self, suppressing: bool) -> bool:
        return (self.monotone_with_suppression if suppressing
                else self.monotone_without_suppression)


def k_anonymity(k: int) -> Target:
    """Every class holds at least k records (Samarati & Sweeney 1998)."""
    return Target(f"k_anonymity({k})", lambda p: p.counts >= k,
                  monotone_with_suppression=True, counts_rule=("k", k))


def l_diversity_target(sensitive: np.ndarray, l_value: float, kind: str = "distinct",
                       c: float | None = None) -> Target:
    """Every class holds at least ``l`` distinct values of the sensitive variable
    (``distinct``), has an entropy of at least ``log l`` (``entropy``) or is recursive
    (c, l)-diverse, ``r_1 < c (r_l + ... + r_m)`` for its value counts sorted descending
    (``recursive``) (Machanavajjhala et al., "l-Diversity: Privacy beyond k-anonymity",
    2007), on integer codes (-1 missing): distinct and entropy by
    :func:`sdcflow.kernels.risk.risk.l_diversity`, recursive by
    :func:`sdcflow.kernels.privacy.models.recursive_l_diversity`.

    Monotonicity: the three are monotone under generalisation without suppression (the
    paper's section 5: merging two l-diverse classes gives an l-diverse class). With
    suppression only distinct l-diversity stays monotone; for entropy and recursive
    l-diversity a failing class merged with a meeting one may still fail, so more
    records may be suppressed above a node meeting the targets (ARX treats them so)."""
    sensitive = np.asarray(sensitive)
    if sensitive.ndim != 1 or (sensitive.size and not np.issubdtype(sensitive.dtype,
                                                                      np.integer)):
        raise ValueError("sensitive must be integer codes, one per record")
    # (validated once here: the checks of each node take the codes as they are)
    sensitive = sensitive.astype(np.int64, copy=False)
    if kind not in ("distinct", "entropy", "recursive"):
        raise ValueError(f"kind must be 'distinct', 'entropy' or 'recursive', not {kind!r}")
    if kind == "recursive":
        if c is None or not c > 0:
            raise ValueError("recursive l-diversity needs c > 0")
        if int(l_value) != l_value or l_value < 1:
            raise ValueError("recursive l-diversity needs an integer l >= 1")

        def recursive_ok(p: Partition) -> np.ndarray:
            ratio = recursive_l_diversity(p.record_class, p.values_of(sensitive),
                                          int(l_value), weights=p.weights,
                                          n_classes=len(p.counts), check_input=False)
            return ratio < c

        # a recursive (c, l)-diverse class holds at least l distinct values
        return Target(f"recursive_l_diversity({c:g}, {l_value:g})", recursive_ok,
                      needs_records=True, values=sensitive,
                      relaxed=l_diversity_target(sensitive, l_value))

    def ok(p: Partition) -> np.ndarray:
        values = p.values_of(sensitive)
        if kind == "distinct":
            per_class = distinct_l_diversity(p.record_class, values, n_classes=len(p.counts),
                                             check_input=False)
        else:
            per_class = entropy_l_diversity(p.record_class, values, weights=p.weights,
                                            n_classes=len(p.counts), check_input=False)
        return per_class >= l_value - 1e-9

    # an entropy l-diverse class holds at least exp(H) >= l distinct values
    return Target(f"{kind}_l_diversity({l_value:g})", ok,
                  monotone_with_suppression=(kind == "distinct"), needs_records=True,
                  values=sensitive,
                  relaxed=None if kind == "distinct" else l_diversity_target(sensitive,
                                                                             l_value))


def t_closeness_target(sensitive: np.ndarray, t: float, distance: str = "equal",
                       hierarchy: np.ndarray | None = None) -> Target:
    """The Earth Mover's Distance between each class's distribution of the sensitive
    variable and the whole input's is at most t (Li, Li & Venkatasubramanian,
    "t-Closeness: privacy beyond k-anonymity and l-diversity", 2007), computed by
    :func:`sdcflow.kernels.risk.t_closeness.t_closeness`; for the ``hierarchical``
    distance ``hierarchy`` is the ancestor matrix of
    :func:`sdcflow.kernels.risk.t_closeness.class_emd`.

    Monotone without suppression (the paper's theorem: the distribution of a merged
    class is a mixture of the two, whose EMD to the whole is at most the larger of
    theirs); not with suppression, where a failing class merged into a meeting one may
    make it fail. (The distances of :func:`sdcflow.kernels.risk.t_closeness.class_emd`,
    on the records' classes weighted by how many records each group stands for.)"""
    if distance == "hierarchical" and hierarchy is None:
        raise ValueError("the hierarchical distance needs the sensitive hierarchy")
    tree = hierarchy if distance == "hierarchical" else None  # (others ignore it)
    emd_of = class_emd_of(sensitive, distance, tree)  # (levels and whole table once)

    high = t + 1e-9
    last: dict = {}  # the partition last seen -> its classes' EMD

    def emd(p: Partition) -> np.ndarray:
        if last.get("partition") is not p:
            last.update(partition=p, emd=emd_of(p.record_class, p.values_of(sensitive),
                                                p.weights, len(p.counts)))
        return last["emd"]

    def ok(p: Partition) -> np.ndarray:
        return emd(p) <= high

    # a class too small to be t-close whatever its values fails: the records of such
    # classes are suppressed, a monotone k-anonymity for predictive tagging
    smallest = smallest_close_class(sensitive, t, distance, tree)
    relaxed = k_anonymity(smallest) if smallest > 1 else None
    # and at least E / (D - t) records are suppressed (see _emd_excess_bound)
    bound = _emd_excess_bound(sensitive, emd_of, emd, high)
    if bound is not None:
        floor = max(smallest, 1)
        relaxed = Target(f"t_closeness({t:g}, {distance}): the monotone part",
                         lambda p: p.counts >= floor, monotone_with_suppression=True,
                         needs_records=True, values=sensitive, suppresses_at_least=bound,
                         relaxed=relaxed)
    return Target(f"t_closeness({t:g}, {distance})", ok, needs_records=True,
                  values=sensitive, relaxed=relaxed)


def _emd_excess_bound(sensitive: np.ndarray, emd_of: Callable, emd: Callable,
                      high: float) -> Callable[[Partition], float] | None:
    """A lower bound of the records t-closeness suppresses at a node that never grows
    under generalisation: the excess ``E = sum over classes of s * max(0, EMD - t)``
    (``s`` the class's records) over ``D - t``, ``D`` the largest EMD any class can
    have (that of a class of one value alone; None when ``D <= t`` or values are
    missing).

    Why: the EMD to the whole table's distribution is convex in a class's distribution
    (a transport plan of a mixture is the mixture of the plans), so ``s * EMD`` is
    convex and homogeneous of degree 1 in the class's counts, hence subadditive: a
    class one level up, the union of classes below, has ``s * (EMD - t)`` at most the
    sum of theirs, and ``max(0, a + b) <= max(0, a) + max(0, b)``. A failing class has
    ``s * (EMD - t) <= s * (D - t)`` and loses its ``s`` records; a meeting one adds 0."""
    values = np.asarray(sensitive)
    if values.size == 0 or (values < 0).any():
        return None
    seen = np.unique(values)
    top = float(emd_of(np.arange(len(seen)), seen, None, len(seen)).max())
    if not top - high > 1e-6:
        return None

    def suppressed_at_least(p: Partition) -> float:
        return float((p.counts * np.maximum(emd(p) - high, 0.0)).sum()) / (top - high)

    return suppressed_at_least


def average_risk(threshold: float) -> Target:
    """The average re-identification risk of the released records, the mean over them
    of 1 / (size of their class) = classes / records, is at most ``threshold``."""

    def ok(p: Partition, kept: np.ndarray) -> np.ndarray:
        records = p.counts[kept].sum()
        return np.array(records == 0 or kept.sum() / records <= threshold + 1e-12)

    return Target(f"average_risk({threshold:g})", ok, release=True)
