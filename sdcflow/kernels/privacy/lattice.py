"""The optimal full-domain generalisation: a search of the generalisation lattice for the
node of least information loss that meets privacy targets, records of the classes that
fail them suppressed up to a limit (as ARX does: F. Kohlmayer, F. Prasser, C. Eckert, A.
Kemper & K. Kuhn, "Flash: efficient, stable and optimal k-anonymity", IEEE SocialCom/
PASSAT 2012; F. Prasser & F. Kohlmayer, "Putting statistical disclosure control into
practice: the ARX data anonymization tool", 2015).

A node gives each key variable a level of its hierarchy (0: the original values); node
``a`` lies below ``b`` when every level of ``a`` is at most that of ``b``. At a node, the
records fall into equivalence classes (equal generalised keys). Each *target* says which
classes meet it; the records of classes failing some target are suppressed, and the node
*meets the targets* when at most ``floor(limit * n)`` records are suppressed and every
*release* target (a condition on the whole release) holds.

When every target is monotone (a node above one that meets them meets them too), the
search first classifies the nodes as Flash does: from each node not yet classified, taken
bottom-up, it follows a path of unclassified nodes upwards and binary-searches it for its
lowest node meeting the targets; a node that meets them marks every node above it as
meeting them, one that fails marks every node below it as failing. Without suppression
k-anonymity, distinct, entropy and recursive l-diversity, t-closeness (every distance),
beta-likeness, delta-presence (see
:func:`sdcflow.kernels.privacy.model_targets.delta_presence_target`) and the average
re-identification risk are monotone; with suppression k-anonymity and distinct
l-diversity stay monotone (a failing class merged with a meeting one meets them, so the
suppressed records only shrink), the others are not (as ARX treats them).
When some target is not monotone, the monotone ones among them (and the monotone
relaxation some give: distinct l-diversity, met by every entropy or recursive l-diverse
class; for t-closeness the k-anonymity of the smallest class that can be t-close,
:func:`sdcflow.kernels.risk.t_closeness.smallest_close_class`, and its excess over t,
a lower bound of the records it suppresses that never grows under generalisation; for
delta-presence its excess over delta_max, a bound of the same kind, and with delta_min
> 0 every population class holding a record of the data) are classified alone, and
only their failures are kept: a node failing them fails every target, as ARX's
predictive tagging does. A bound that reads records (t-closeness's) is given up for
its cheap relaxation when it seldom fails where that passes. With release targets
alone (the average risk) no class fails, nothing is suppressed, and the search is that
of no suppression limit.

Each node has a lower bound of its loss (see :mod:`sdcflow.kernels.privacy.loss`: the
loss of its generalisation alone, which grows with generalisation). For precision and
non-uniform entropy it is known from the levels: with monotone targets and a node's
loss its bound when it meets them (no suppression, or suppression not charged), Flash
starts no path from a node whose bound cannot beat the best node found so far; with a
target that is not monotone the nodes are visited by their bound and the search stops
at the first node that cannot beat the best (as ARX prunes with a monotone loss); a
node found to meet the monotone part while tagging is checked whole then, and no
tagging path starts from a node whose bound is above the least loss so found. For the
other losses the search
visits the nodes level-wise from the bottom (by their sum of levels, then in
lexicographic order), each passing its bound to the nodes above. Either way the result
is the first node in that order of least loss among those meeting the targets, and the
search is exact: a node is skipped only when it is known to fail or when its bound
shows it cannot be better. A node known to meet the targets whose loss is its bound (no
suppression, or suppression not charged) is never checked.

A node's classes are rolled up from the stored class table of a checked node below it
(:class:`sdcflow.kernels.privacy.class_tables.History`, ARX's history of snapshots):
first the class sizes alone, then, when the cheap targets pass, the classes with the
counts of the sensitive values the targets on records read (once most nodes have needed
both, the class sizes come from the latter at once: :class:`_TableChoice`); targets are
checked cheap first, and a node fails as soon as its failing classes hold more records
than allowed.
When every target reads class sizes alone (k-anonymity, delta-presence), the classes
come from joint tables of the data and its population, checked in one compiled pass
(:mod:`sdcflow.kernels.privacy.joint_tables`), with the same decisions.

Flash's paths go on to the successor that keeps fewest distinct values; the nodes are
arrays (by sum of levels, then lexicographically) and the level-wise walk is compiled,
coming back to Python for each node to check. With ``practical_monotonicity`` (ARX's
option) every target is taken as monotone; the node chosen is checked in full, and the
exact search runs if it fails.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..jit import njit
from ..risk.t_closeness import class_emd_of, smallest_close_class
from .class_tables import History
from .joint_tables import JointNode, joint_checks
from .loss import LossContext
from .models import distinct_l_diversity, entropy_l_diversity, recursive_l_diversity

MAX_NODES = 1_000_000  # nodes of a lattice the search may visit


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


@dataclass
class SearchResult:
    """The chosen node (None when no node meets the targets), its loss, each record's
    class id there and whether it is suppressed, with the lattice's size and the number
    of nodes whose classes were computed."""

    node: tuple[int, ...] | None
    loss: float | None
    record_class: np.ndarray | None
    suppressed: np.ndarray | None
    lattice_size: int
    checked: int


def generalise(codes: np.ndarray, maps: Sequence[np.ndarray], node: Sequence[int]
               ) -> np.ndarray:
    """The level-0 codes (u x m) at the node's levels."""
    out = np.empty_like(codes)
    for j, level in enumerate(node):
        out[:, j] = maps[j][level][codes[:, j]]
    return out


def lattice_size(maps: Sequence[np.ndarray]) -> int:
    size = 1
    for m in maps:
        size *= len(m)
    return size


def search(codes: np.ndarray, maps: Sequence[np.ndarray], targets: Sequence[Target],
           loss: str = "precision", *, suppression_limit: float = 0.0,
           weights: Sequence[float] | None = None, k: int = 1,
           suppression_loss: str = "full",
           practical_monotonicity: bool = False) -> SearchResult:
    """The least-loss node of the lattice meeting ``targets``.

    ``codes``: the records' key codes (n x m, integers 0 .. d_j - 1); ``maps[j]``: a
    (levels x d_j) integer array, row l giving each level-0 code its code at level l
    (row 0 the identity; each level a function of the level below); ``loss``: one of
    :data:`sdcflow.kernels.privacy.loss.LOSSES`; ``weights``: per variable (default 1);
    ``k``: the k of the normalized average class size; ``suppression_loss``: how a
    suppressed record is charged, one of
    :data:`sdcflow.kernels.privacy.loss.SUPPRESSION_LOSSES`.

    ``practical_monotonicity``: search as if every target were monotone, as ARX's
    option of that name does (``ARXConfiguration.setPracticalMonotonicity``): Flash
    classifies the nodes on all the targets, and a node above one meeting them is taken
    to meet them unchecked. Faster where the targets are not monotone, but the optimum
    may be missed. The node chosen is then checked in full; should it fail the targets
    after all, or should no node be found, the exact search runs instead, so the result
    always meets them and "no node" is always true (the exact search is spared when the
    top node fails the targets' monotone part: then every node fails it)."""
    codes = np.asarray(codes, dtype=np.int64)
    n, m = codes.shape
    maps = [np.asarray(mp, dtype=np.int64) for mp in maps]
    if len(maps) != m:
        raise ValueError("one hierarchy per key variable")
    for mp in maps:
        if mp.ndim != 2 or not _is_hierarchy(mp):
            _steps(mp)  # (says what is wrong)
    size = lattice_size(maps)
    if size > MAX_NODES:
        raise ValueError(f"the lattice has {size} nodes, more than {MAX_NODES}")
    by_records = any(t.needs_records for t in targets)
    values, per_record = _target_values(targets, n) if by_records else (None, False)
    # the classes' sizes from a history of the keys alone (few rows), what targets on
    # records read from one of the keys and their values
    with_values = History(codes, maps, values) if by_records else None
    history = History(codes, maps) if with_values is None else with_values.by_keys(codes)
    units, counts, ids = history.bottom.keys, history.bottom.counts, history.record_row
    w = np.ones(m) if weights is None else np.asarray(weights, dtype=float)
    ctx = LossContext(loss, units, counts, maps, w, k=k, suppression=suppression_loss)
    allowed = int(np.floor(suppression_limit * n + 1e-9))
    if all(t.release for t in targets):
        # only release targets (the average risk): no class fails, nothing is ever
        # suppressed, and the targets stay as monotone as without suppression
        allowed = 0
    suppressing = allowed > 0
    monotone = all(t.monotone(suppressing) for t in targets)
    # (assumed monotone: the node chosen is checked in full at the end)
    assumed = practical_monotonicity and not monotone
    monotone = monotone or assumed
    targets = sorted(targets, key=_cost)  # cheap checks first (a node may fail early)
    shape = tuple(len(mp) for mp in maps)
    lattice = _Lattice(shape)
    flat = lattice.order  # the nodes by their sum of levels, then lexicographically
    # each node's bound from its levels (in that order), found once
    statics = np.asarray(ctx.static_bounds(lattice.grid[flat]), dtype=float)
    # (Flash's paths go on to the successor keeping fewest distinct values)
    prefer = _path_preference(maps, shape)
    bound = np.zeros(size)
    known_ok = np.zeros(size, dtype=np.bool_)
    status = np.zeros(size, dtype=np.int8)  # 1 / -1: known to meet / to fail the targets

    choice = _TableChoice()

    def slow_partition(node: tuple) -> Callable[[bool], Partition]:
        return _Partitions(node, history, with_values, per_record, n, choice)

    # targets on class sizes alone with delta-presence: the data's and the population's
    # classes rolled up together and checked in one compiled pass (the same decisions)
    joint = None if by_records else joint_checks(
        targets, codes, history.generalisation, (history.bottom.keys, history.bottom.counts))
    partition = slow_partition if joint is None else joint

    def meets(some: Sequence[Target]) -> Callable[[tuple], bool]:
        return lambda node: _check(partition(node), some, allowed, False)[1]

    # the loss of a node known to meet the targets is its generalisation's alone (no
    # suppression, or suppression not charged): no classes needed
    static = loss in ("precision", "non_uniform_entropy") and (
        allowed == 0 or suppression_loss == "arx_monotonic")
    # the targets that stay monotone when the others are not (k-anonymity, distinct
    # l-diversity), and the monotone relaxations of the others: a node failing them
    # alone fails all the targets (its suppressed records only grow with more
    # targets), and so does every node below it (ARX's predictive tagging)
    monotone_part = [
        t if t.monotone(suppressing) else t.relaxed for t in targets
        if (t.monotone(suppressing) and not t.release and t.node_ok is None)
        or (not t.monotone(suppressing) and t.relaxed is not None)]
    mono = [] if monotone else monotone_part
    tag = _Tagging(partition, mono, allowed) if mono else None

    def value(node: tuple, parts: Callable[[bool], Partition], ok: np.ndarray) -> float:
        suppressed = None
        if (loss == "non_uniform_entropy" and suppression_loss != "arx_monotonic"
                and not ok.all()):
            suppressed = (parts.suppressed_units(units, ok) if isinstance(parts, JointNode)
                          else ~ok[history.generalisation.unit_class(units, node)])
        return ctx.value(node, parts(False).counts, ok, suppressed)

    best: tuple[float, tuple, np.ndarray | None] | None = None
    if not monotone and loss in ("precision", "non_uniform_entropy"):

        def evaluate(node: tuple) -> tuple[int, tuple | None]:
            part = partition(node)
            if mono:
                # every node evaluated met the monotone part (the targets on class
                # sizes among it), which seldom fails alone now: the classes with the
                # values the targets read at once, their sizes from them (one roll-up
                # rather than two)
                part(True)
            ok, passed = _check(part, targets, allowed, False)
            return 0, (value(node, part, ok), ok) if passed else None

        lower = statics
        # a node meeting the monotone part is checked whole at once (its classes are
        # at hand): the least loss found so far spares classifying the nodes whose
        # bound is above it, which the search by bound never reaches
        bound_at = np.empty(size)
        bound_at[flat] = lower
        least, found = [np.inf], {}

        def tag_and_check(node: tuple) -> bool:
            if not tag(node):
                return False
            found[node] = evaluate(node)
            if found[node][1] is not None:
                least[0] = min(least[0], found[node][1][0])
            return True

        checked = _classify(lattice, status, tag_and_check,
                            _Worth(bound_at, None, least), prefer) if mono else 0
        status[status > 0] = 0  # (meeting the monotone part tells nothing)
        best, more = _least_loss_first(
            lattice, lower, lambda node: found.pop(node, None) or evaluate(node), status)
        checked += more
    else:
        # Flash's classification of monotone targets, or bounds known from classes only
        # (discernibility, class sizes): nodes visited level-wise, bounds passed up
        checked = 0
        if monotone and static:
            # the loss of a node meeting the targets is known from its levels: a node
            # (and every node above it) whose loss cannot beat the least found so far,
            # or equal it and come first, need not be classified (ARX's pruning with a
            # monotone loss)
            lower = np.empty(size)
            lower[flat] = statics
            least = [np.inf, size]

            def meets_all(node: tuple) -> bool:
                if not meets(targets)(node):
                    return False
                at = lattice.flat(node)
                least[:] = min(least, [float(lower[at]), int(lattice.position[at])])
                return True

            checked = _classify(lattice, status, meets_all,
                                _Worth(lower, lattice.position, least), prefer)
        elif monotone:
            checked = _classify(lattice, status, meets(targets), prefer=prefer)
        elif mono:
            tags = np.zeros(size, dtype=np.int8)
            checked = _classify(lattice, tags, tag, prefer=prefer)
            status[tags < 0] = -1
        # the level-wise walk, compiled (_walk), back here for each node to check
        best_value = np.array([np.inf])
        best_position = np.array([-1], dtype=np.int64)
        i, resume = 0, False
        while True:
            i = _walk(i, resume, flat, lattice.stride_array, lattice.grid,
                      lattice.shape_array, bound, known_ok, status, statics, static,
                      best_value, best_position)
            if best_position[0] >= 0:  # a node known to meet the targets, at its bound
                best = (float(best_value[0]), lattice.node(int(flat[best_position[0]])),
                        None)
                best_position[0] = -1
            if i >= size:
                break
            at = int(flat[i])
            node = lattice.node(at)
            part = partition(node)
            checked += 1
            bound[at] = max(bound[at], ctx.bound(node, part(False).counts))
            # (a node whose own bound is no better than the best cannot beat it)
            ok, passed = None, False
            if bound[at] < best_value[0]:
                ok, passed = _check(part, targets, allowed,
                                    bool(known_ok[at]) or status[at] == 1)
            if passed:
                loss_value = value(node, part, ok)
                if monotone:
                    known_ok[at] = True
                if loss_value < best_value[0]:
                    best = (loss_value, node, ok)
                    best_value[0] = loss_value
            resume = True  # (then what is known of it is passed on above)
    if assumed:
        # the monotonicity was assumed: the node chosen must meet the targets as checked
        # in full, else (or when none was found) the exact search decides
        passed = False
        if best is not None:
            passed = _check(slow_partition(best[1]), targets, allowed, False)[1]
            checked += 1
        # (no node found: when the top node fails the monotone part of the targets, so
        # does every node, and the exact search would find none either)
        if best is None and monotone_part and not _check(
                partition(tuple(v - 1 for v in shape)), monotone_part, allowed, False)[1]:
            return SearchResult(None, None, None, None, size, checked + 1)
        if not passed:
            exact = search(codes, maps, targets, loss, suppression_limit=suppression_limit,
                           weights=weights, k=k, suppression_loss=suppression_loss)
            exact.checked += checked
            return exact
        best = (best[0], best[1], None)  # (its classes found again below)
    if best is None:
        return SearchResult(None, None, None, None, size, checked)
    least, node, ok = best
    record_class = history.generalisation.unit_class(units, node)[ids]
    if joint is not None:  # (classes in the joint table's order: found again in order)
        ok = None
    if ok is None:  # known to meet the targets, classes not computed
        if allowed == 0:
            return SearchResult(node, least, record_class, np.zeros(n, dtype=bool), size,
                                checked)
        ok = _check(slow_partition(node), targets, allowed, True)[0]
    return SearchResult(node, least, record_class, ~ok[record_class], size, checked)


class _Tagging:
    """Whether a node meets the monotone part of the targets (``mono``), for predictive
    tagging. A bound of suppressed records that reads records (t-closeness's excess)
    costs a roll-up of the classes with their values; it is given up, for the cheap
    conditions it relaxes (``relaxed``: on class sizes alone), once it has failed fewer
    than one in :data:`TAG_YIELD` of :data:`TAG_TRIAL` nodes the cheap ones passed. Any
    of the two is a monotone condition every node meeting the targets meets, so a node
    failing either fails the targets, and so does every node below it; which one tags
    a node changes what is checked, never the result (and the order is fixed, so the
    search stays deterministic)."""

    def __init__(self, partition: Callable, mono: Sequence[Target], allowed: int) -> None:
        self.partition, self.mono, self.allowed = partition, mono, allowed
        self.cheap = [t.relaxed if _costly_bound(t) else t for t in mono]
        self.cheap = [t for t in self.cheap if t is not None]
        self.trying = any(_costly_bound(t) for t in mono)
        self.tried = self.failed = 0

    def __call__(self, node: tuple) -> bool:
        part = self.partition(node)
        if self.cheap and not _check(part, self.cheap, self.allowed, False)[1]:
            return False
        if not self.trying:
            return True
        passed = _check(part, self.mono, self.allowed, False)[1]
        self.tried += 1
        self.failed += not passed
        if self.tried >= TAG_TRIAL and self.failed * TAG_YIELD < self.tried:
            self.trying = False
        return passed


TAG_TRIAL, TAG_YIELD = 64, 8


def _costly_bound(target: Target) -> bool:
    return target.suppresses_at_least is not None and target.needs_records


def _cost(target: Target) -> int:
    """The order in which targets are checked: on class sizes, on the population
    (delta-presence), on records."""
    return 2 if target.needs_records else 1 if target.node_ok is not None else 0


def _target_values(targets: Sequence[Target], n: int) -> tuple[np.ndarray, bool]:
    """The per-record values the targets read (n x s; one column per distinct array),
    and whether some target reads records without saying which values (then each
    record is a group of its own, in record order)."""
    columns: list[np.ndarray] = []
    per_record = False
    for t in targets:
        if not t.needs_records:
            continue
        if t.values is None:
            per_record = True
            continue
        values = np.asarray(t.values)
        if values.shape != (n,):
            raise ValueError(f"{t.name}: one value per record needed")
        if not any(values is c or np.array_equal(values, c) for c in columns):
            columns.append(values)
    if per_record:
        columns.append(np.arange(n))
    return np.column_stack(columns).astype(np.int64), per_record


class _TableChoice:
    """Which table a search's nodes take their class sizes from when targets read
    records too: the keys' table (few rows, enough when the targets on class sizes
    fail the node) until :data:`CHOICE_TRIAL` nodes have had one, then the table with
    the values (its classes are the keys' table's, one roll-up for both) when at least
    half of them needed that table too. The choice changes what is computed, never
    the result, and depends on the search alone (it stays deterministic)."""

    def __init__(self) -> None:
        self.keys_first = 0  # nodes whose keys' table was made first
        self.needed = 0  # and the values' table then too

    def values_first(self) -> bool:
        return self.keys_first >= CHOICE_TRIAL and 2 * self.needed >= self.keys_first


CHOICE_TRIAL = 16


class _Partitions:
    """A node's partition, computed when asked for: ``(False)`` from the keys alone
    (class sizes and keys), ``(True)`` with what targets on records read (the same
    classes, in the same order; ``choice``: whether class sizes are taken from that
    table at once, :class:`_TableChoice`)."""

    def __init__(self, node: tuple, keys: History, with_values: History | None,
                 per_record: bool, n: int, choice: _TableChoice | None = None) -> None:
        self.node, self.keys, self.with_values = node, keys, with_values
        self.per_record, self.n = per_record, n
        self.choice = _TableChoice() if choice is None else choice
        self._made: dict[bool, Partition] = {}

    def __call__(self, records: bool) -> Partition:
        records = records and self.with_values is not None
        if not records and self.with_values is not None and self.choice.values_first():
            records = True  # (the classes with their values, class sizes from them)
        if not records and True in self._made:  # (its class sizes and keys)
            return self._made[True]
        if records and False in self._made:
            self.choice.needed += 1  # (the keys' table went before: both were made)
        elif not records:
            self.choice.keys_first += 1
        if records not in self._made:
            history = self.with_values if records else self.keys
            self._made[records] = _partition(history.table(self.node), records,
                                             self.per_record, self.n)
        return self._made[records]


def _partition(table, by_records: bool, per_record: bool, n: int) -> Partition:
    """A node's partition from its table (:class:`class_tables.Table`)."""
    if not by_records:
        return Partition(table.counts, None, table.keys, table.node)
    counts, keys = table.class_counts(), table.class_keys()
    if per_record:  # one row per record: each record's class, in record order
        record_class = np.empty(n, dtype=np.int64)
        record_class[table.rows] = table.row_class
        return Partition(counts, record_class, keys, table.node)
    return Partition(counts, table.row_class, keys, table.node, table.counts, table.rows)


class _Lattice:
    """A lattice's nodes: each one's levels (``grid``, one row per node in the order of
    their flat index, lexicographic), the flat indices in the search's order (by sum of
    levels, then lexicographically: ``order``) and each node's position there."""

    def __init__(self, shape: tuple) -> None:
        self.shape = shape
        m = len(shape)
        self.shape_array = np.array(shape, dtype=np.int64)
        self.stride_array = np.ones(m, dtype=np.int64)
        for j in range(m - 2, -1, -1):
            self.stride_array[j] = self.stride_array[j + 1] * shape[j + 1]
        self.stride = self.stride_array.tolist()
        self.grid, self.order, self.position = _lattice_arrays(self.shape_array)

    def node(self, at: int) -> tuple:
        """The levels of the node of flat index ``at``."""
        return tuple(self.grid[at].tolist())

    def flat(self, node: Sequence[int]) -> int:
        """The flat index of a node."""
        return sum(level * step for level, step in zip(node, self.stride, strict=True))


@njit(cache=True)
def _lattice_arrays(shape):  # pragma: no cover - numba
    """A lattice's nodes (``shape``: each variable's levels): each node's levels (one
    row per flat index, in lexicographic order), the flat indices ordered by sum of
    levels, then by flat index (a stable counting sort by the sums), and each node's
    position in that order."""
    m = len(shape)
    size = 1
    for j in range(m):
        size *= shape[j]
    grid = np.empty((size, m), dtype=np.int64)
    sums = np.empty(size, dtype=np.int64)
    levels = np.zeros(m, dtype=np.int64)
    total = 0
    for at in range(size):
        for j in range(m):
            grid[at, j] = levels[j]
        sums[at] = total
        j = m - 1  # (the next node: the last variable counts fastest)
        while j >= 0:
            levels[j] += 1
            total += 1
            if levels[j] < shape[j]:
                break
            total -= levels[j]
            levels[j] = 0
            j -= 1
    top = 0
    for j in range(m):
        top += shape[j] - 1
    start = np.zeros(top + 2, dtype=np.int64)
    for at in range(size):
        start[sums[at] + 1] += 1
    for v in range(1, top + 2):
        start[v] += start[v - 1]
    order = np.empty(size, dtype=np.int64)
    position = np.empty(size, dtype=np.int64)
    for at in range(size):
        p = start[sums[at]]
        start[sums[at]] = p + 1
        order[p] = at
        position[at] = p
    return grid, order, position


class _Marks:
    """What is known of each node of a lattice (``status``: 1 / -1 known to meet / to
    fail the targets), marked on a node and every node above or below it."""

    def __init__(self, lattice: _Lattice | tuple, status: np.ndarray | None = None) -> None:
        if not isinstance(lattice, _Lattice):
            lattice = _Lattice(tuple(lattice))
        self.grid = lattice.grid
        self.status = np.zeros(len(self.grid), dtype=np.int8) if status is None else status
        # (a view of the status: reading numpy's scalars one by one costs more)
        self.view = memoryview(self.status)
        # the compiled walk's arguments, made once
        self._args = (lattice.shape_array, lattice.stride_array, self.grid,
                      np.empty(len(self.grid), dtype=np.int64))

    def mark(self, start: int, value: int) -> None:
        """Mark the node and every node above it (value 1) or below it (-1)."""
        _mark(self.status, start, value, *self._args)


@njit(cache=True)
def _mark(status, start, value, shape, stride, grid, stack):  # pragma: no cover - numba
    """Set ``status`` to ``value`` at the node ``start`` (flat index) and at every node
    reachable from it upwards (value 1) or downwards (-1) through nodes not already
    marked so: a node so marked has every node on that side marked already. ``grid``:
    each node's levels; ``stack``: room for every node (each is pushed once, marked
    when pushed)."""
    if status[start] == value:
        return
    status[start] = value
    stack[0] = start
    top = 1
    m = len(shape)
    while top:
        top -= 1
        at = stack[top]
        for j in range(m):
            if value > 0:
                if grid[at, j] + 1 >= shape[j]:
                    continue
                nb = at + stride[j]
            else:
                if grid[at, j] == 0:
                    continue
                nb = at - stride[j]
            if status[nb] != value:
                status[nb] = value
                stack[top] = nb
                top += 1


def _path_preference(maps: Sequence[np.ndarray], shape: tuple) -> list[float]:
    """For each node (by flat index), the sum over variables of the share of its
    level-0 values its level keeps distinct: a path goes on to the successor that keeps
    fewest (whose classes, and class tables, shrink most)."""
    total = np.zeros(shape)
    for j, mp in enumerate(maps):
        distinct = np.array([np.count_nonzero(np.bincount(level)) for level in mp],
                            dtype=float)
        share = distinct / max(distinct[0], 1.0)
        total += share.reshape([-1 if i == j else 1 for i in range(len(shape))])
    return total.ravel().tolist()


@dataclass(frozen=True)
class _Worth:
    """Which nodes can still matter to a search (:func:`_classify`): those whose
    ``bound`` (by flat index) is below ``least[0]``, the least loss found so far, or
    equal to it with a ``position`` (by flat index) before ``least[1]``; with
    ``position`` None, those whose bound is at most ``least[0]``. ``least`` is updated
    by the search as it finds nodes."""

    bound: np.ndarray
    position: np.ndarray | None
    least: list


def _classify(lattice: _Lattice, status: np.ndarray,
              meets: Callable[[tuple], bool],
              worth: _Worth | None = None,
              prefer: Sequence[float] | None = None) -> int:
    """Flash's idea for monotone targets (Kohlmayer et al. 2012): from each node not yet
    classified, bottom-up, a path of unclassified nodes upwards, binary-searched for its
    lowest node meeting the targets; a node that meets them marks every node above it,
    one that fails every node below (``status`` 1 / -1). ``worth``: which nodes (and so
    every node above them) can still matter; no path starts from others.
    ``prefer[flat index]``: which successor a path goes on to (the least; default the
    first variable that can be generalised). Returns the nodes checked."""
    marks = _Marks(lattice, status)
    shape_array, stride, grid = marks._args[:3]
    rank = (np.zeros(len(grid)) if prefer is None
            else np.asarray(prefer, dtype=float))  # (ties: the first variable)
    mode = 0 if worth is None else 2 if worth.position is None else 1
    bound = np.zeros(0) if worth is None else np.asarray(worth.bound, dtype=float)
    position = (np.zeros(0, dtype=np.int64) if worth is None or worth.position is None
                else worth.position)
    least = [np.inf, 0] if worth is None else worth.least
    order = lattice.order
    checked, i = 0, 0
    while True:
        # (the next node to start a path from, found by a compiled scan)
        i = _next_start(i, order, status, mode, bound, position, float(least[0]),
                        int(least[1]) if mode == 1 else 0)
        if i >= len(order):
            return checked
        path = _path(int(order[i]), shape_array, stride, grid, status, rank).tolist()
        i += 1
        lo, hi = 0, len(path) - 1
        while lo <= hi:
            mid = (lo + hi) // 2
            checked += 1
            if meets(lattice.node(path[mid])):
                marks.mark(path[mid], 1)
                hi = mid - 1
            else:
                marks.mark(path[mid], -1)
                lo = mid + 1


@njit(cache=True)
def _next_start(i, order, status, mode, bound, position, least_value,
                least_position):  # pragma: no cover - numba
    """The first position from ``i`` of ``order`` whose node is not yet classified
    (``status`` 0) and can still matter: any (``mode`` 0), its ``bound`` below
    ``least_value`` or equal with a ``position`` before ``least_position`` (1), its
    bound at most ``least_value`` (2); ``len(order)`` when none is left."""
    n = len(order)
    while i < n:
        at = order[i]
        if status[at] == 0:
            if mode == 0:
                return i
            b = bound[at]
            if mode == 1:
                if b < least_value or (b == least_value and position[at] < least_position):
                    return i
            elif b <= least_value:
                return i
        i += 1
    return n


@njit(cache=True)
def _walk(i, resume, order, stride, grid, shape, bound, known_ok, status, statics, static,
          best_value, best_position):  # pragma: no cover - numba
    """The level-wise walk of the nodes in ``order`` from its i-th: each node's bound is
    at least its bound from its levels (``statics[i]``); a node known to meet the targets
    (``status`` 1) whose loss is that bound (``static``) becomes the best when it beats
    ``best_value`` (``best_position``: its position); then what is known of it (its
    bound, ``known_ok``) is passed to the nodes one level above. Returns the position of
    the first node to check (not known to fail, its bound below the best; ``resume``:
    the walk goes on from it once checked, passing on what was found), or the number of
    nodes when none is left."""
    size = len(order)
    m = len(shape)
    while i < size:
        at = order[i]
        if not resume:
            bound[at] = max(bound[at], statics[i])
            if status[at] == 1 and static:
                if bound[at] < best_value[0]:
                    best_value[0] = statics[i]
                    best_position[0] = i
            elif status[at] >= 0 and bound[at] < best_value[0]:
                return i
        resume = False
        for j in range(m):  # pass what is known to the nodes one level above
            if grid[at, j] + 1 < shape[j]:
                above = at + stride[j]
                bound[above] = max(bound[above], bound[at])
                if known_ok[at]:
                    known_ok[above] = True
        i += 1
    return size


@njit(cache=True)
def _path(start, shape, stride, grid, status, rank):  # pragma: no cover - numba
    """Flash's path from the node ``start`` (flat index): upwards through nodes not yet
    classified (``status`` 0), each time on to the successor of least ``rank`` (the
    first variable among equals), until none is left."""
    m = len(shape)
    path = np.empty(int(shape.sum()) + 1, dtype=np.int64)
    path[0] = start
    length = 1
    at = start
    while True:
        best = -1
        for j in range(m):
            if grid[at, j] + 1 < shape[j]:
                nb = at + stride[j]
                if status[nb] == 0 and (best < 0 or rank[nb] < rank[best]):
                    best = nb
        if best < 0:
            break
        path[length] = best
        length += 1
        at = best
    return path[:length]


def _least_loss_first(lattice: _Lattice, lower: np.ndarray,
                      evaluate: Callable[[tuple], tuple[int, tuple | None]],
                      status: np.ndarray) -> tuple[tuple | None, int]:
    """The first of the lattice's nodes (in the search's order; ``lower[i]`` the bound
    of the i-th) of least loss among those meeting the
    targets, visiting them by their loss bound ``lower`` (the loss of the generalisation
    alone, known from the levels: precision, non-uniform entropy), as ARX does with a
    monotone loss: no node of a bound above the least loss found can beat it, and the
    search stops there. For targets that are not monotone, where every node below the
    optimum's bound must be checked.

    ``evaluate(node)`` checks a node and returns (-1 to mark every node below as failing
    the targets, else 0; (loss, classes meeting the targets) when the node meets them,
    else None); ``status``: -1 for the nodes known to fail. Returns ((loss, node,
    classes meeting the targets), nodes checked)."""
    marks = _Marks(lattice, status)
    order = np.lexsort((np.arange(len(lower)), lower))  # by bound, then in order
    best: tuple | None = None  # (loss, position in the order, node, classes meeting)
    checked = 0
    flat = lattice.order.tolist()
    lower_list = lower.tolist()
    view = marks.view
    for i in order.tolist():
        if best is not None and (lower_list[i], i) >= (best[0], best[1]):
            break  # no node left can have less loss, or as little and come first
        at = flat[i]
        if view[at] < 0:
            continue
        node = lattice.node(at)
        checked += 1
        tag, found = evaluate(node)
        if tag:
            marks.mark(at, tag)
        if found is not None and (best is None or (found[0], i) < (best[0], best[1])):
            best = (found[0], i, node, found[1])
    return (None if best is None else (best[0], best[2], best[3])), checked


def _check(parts: Callable[[bool], Partition], targets: Sequence[Target], allowed: int,
           known: bool) -> tuple[np.ndarray | None, bool]:
    """(classes meeting every class target, whether the node meets the targets);
    ``parts(records)``: the node's partition (:class:`_Partitions`). Unless the node is
    known to meet the targets, it fails as soon as the classes failing the targets
    checked so far hold more than ``allowed`` records (the later targets can only add
    to them). A node's joint table (:class:`JointNode`) decides the same in one
    compiled pass."""
    if isinstance(parts, JointNode):
        return parts.check(parts.rules(targets), allowed, known)
    # (when every target reads records, their partition gives the class sizes too)
    partition = parts(all(t.needs_records for t in targets if not t.release))
    ok = np.ones(len(partition.counts), dtype=bool)
    for t in targets:
        if not t.release:
            ok &= t.classes_ok(parts(t.needs_records))
            if not known and partition.counts[~ok].sum() > allowed:
                return ok, False
    if known:  # above a node that met monotone targets: the suppressions as computed
        return ok, True
    # (a margin far above the rounding of the bounds' sums of floats)
    if any(t.suppresses_at_least(parts(t.needs_records)) > allowed + 1e-6 for t in targets
           if t.suppresses_at_least is not None):
        return ok, False
    if not all(t.node_ok(partition) for t in targets if t.node_ok is not None):
        return ok, False
    return ok, all(bool(t.classes_ok(partition, ok)) for t in targets if t.release)


@njit(cache=True)
def _is_hierarchy(maps):  # pragma: no cover - numba
    """Whether each level of ``maps`` (levels x codes, codes >= 0) is a function of the
    level below: codes equal at one level are equal at the next."""
    size = 0
    for v in maps.ravel():
        if v < 0:
            return False
        size = max(size, v + 1)
    step = np.empty(size, dtype=np.int64)
    for lo in range(maps.shape[0] - 1):
        step[:] = -1
        for c in range(maps.shape[1]):
            low, high = maps[lo, c], maps[lo + 1, c]
            if step[low] < 0:
                step[low] = high
            elif step[low] != high:
                return False
    return True


def _steps(maps: np.ndarray) -> list[np.ndarray]:
    """For each level l, the code at level l + 1 of each code at level l."""
    out = []
    for lo, hi in itertools.pairwise(maps):
        step = np.full(int(lo.max(initial=-1)) + 1, -1, dtype=np.int64)
        step[lo] = hi
        if (step[lo] != hi).any():
            raise ValueError("a hierarchy level is not a function of the level below")
        out.append(step)
    return out
