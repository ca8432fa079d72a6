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
coming back to Python for each node to check (:mod:`sdcflow.kernels.privacy.flash`; the
targets are in :mod:`sdcflow.kernels.privacy.targets`, re-exported here). With ``practical_monotonicity`` (ARX's
option) every target is taken as monotone; the node chosen is checked in full, and the
exact search runs if it fails.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..jit import njit
from .class_tables import History
from .flash import _classify, _Lattice, _least_loss_first, _path_preference, _walk, _Worth
from .joint_tables import JointNode, joint_checks
from .loss import LossContext
from .targets import (
    Partition,
    Target,
    average_risk,
    k_anonymity,
    l_diversity_target,
    t_closeness_target,
)

__all__ = ["MAX_NODES", "Partition", "SearchResult", "Target", "average_risk", "generalise",
           "k_anonymity", "l_diversity_target", "lattice_size", "search",
           "t_closeness_target"]

MAX_NODES = 1_000_000  # nodes of a lattice the search may visit


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
