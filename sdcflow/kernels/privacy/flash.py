"""Flash's walk over a generalisation lattice (F. Kohlmayer, F. Prasser, C. Eckert,
A. Kemper & K. Kuhn, "Flash: efficient, stable and optimal k-anonymity", IEEE
SocialCom/PASSAT 2012) for :func:`sdcflow.kernels.privacy.lattice.search`: the lattice's
nodes as arrays (:class:`_Lattice`), what is known of each marked upwards and downwards
(:class:`_Marks`), Flash's classification by binary search along upward paths
(:func:`_classify`), the compiled level-wise walk passing bounds up (:func:`_walk`) and
the visit of nodes by their loss bound (:func:`_least_loss_first`). NumPy and numba
only; it knows nothing of the targets, only whether a node meets them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..jit import njit


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
