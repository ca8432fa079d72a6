"""Secondary suppression for large tables by the hypercube method of Repsilber (GHMITER;
Giessing & Repsilber 2002, "Tools and strategies to protect multiple
tables with the GHQUAR cell suppression engine", LNCS 2316). The table is split into
non-hierarchical subtables (in every dimension one subtotal with its direct children);
for every suppressed cell and every subtable holding it, the cheapest *feasible*
hypercube is suppressed: ``2^D`` cells with the cell as one corner and one other
category of the same subtable in each dimension, on which the alternating change
``+t`` / ``-t`` keeps every relation of the subtable and stays within the a priori
bounds for ``t`` up to the required protection. Cells newly suppressed inherit the
requirement and are protected in turn in their other subtables (the higher level first).
Ties go to the first hypercube in cell order. A subtable's hypercube is not a change of
the whole hierarchical table, so the pattern is then audited (joint certifying LPs, exact
LPs for the rest) and every unprotected primary is repaired: the unsuppressed cells of
its violated capacity cut are added by increasing ``cost / coefficient`` until the cut
holds, and the LP is solved again.

Guarantee: the returned pattern passes the audit (each repair round adds at least one
cell and protection only grows with the pattern, so the repair ends with every primary
protected). No optimality: hypercubes over-suppress (typically 1.5-2 times the optimal
number of secondary cells on small tables).
"""

from __future__ import annotations

import heapq
import time

import numpy as np

from ..kernels.jit import njit
from .audit import MIN_WIDTH
from .cuts import repair
from .suppression import SuppressionResult, finish, setup
from .table import Table

__all__ = ["suppress_hypercube"]


@njit(cache=True)
def _corner(i, mask, deltas, signs, choice):
    """The cell at corner ``mask`` (bit d: the chosen other category of dimension d) of
    the hypercube through cell ``i``, and its sign (+1: moves with ``i``)."""
    cell = i
    sign = 1.0
    for d in range(deltas.shape[0]):
        if mask & (1 << d):
            cell += deltas[d, choice[d]]
            sign *= signs[d, choice[d]]
    return cell, sign


@njit(cache=True)
def _best_hypercube(i, deltas, signs, counts, up_room, down_room, cost, supp, req_up,
                    req_down, req_width, tol):
    """Cheapest feasible hypercube with cell ``i`` as a corner (see the module docstring).

    ``deltas[d, k]``: linear-index offset of the ``k``-th other category of dimension
    ``d`` (``counts[d]`` of them), ``signs[d, k]``: -1 for a sibling, +1 for the
    subtotal or a child of it. Returns the best cost (inf if none) and its choice."""
    ndim = counts.shape[0]
    best = np.inf
    best_choice = np.full(ndim, -1, dtype=np.int64)
    total = 1
    for d in range(ndim):
        total *= counts[d]
    choice = np.zeros(ndim, dtype=np.int64)
    ncorner = 1 << ndim
    for flat in range(total):
        rem = flat
        for d in range(ndim - 1, -1, -1):
            choice[d] = rem % counts[d]
            rem //= counts[d]
        c_sum = 0.0
        up = up_room[i]
        down = down_room[i]
        ok = True
        for mask in range(1, ncorner):
            cell, sign = _corner(i, mask, deltas, signs, choice)
            if not supp[cell]:
                c_sum += cost[cell]
                if c_sum >= best:
                    ok = False
                    break
            if sign > 0:
                up = min(up, up_room[cell])
                down = min(down, down_room[cell])
            else:
                up = min(up, down_room[cell])
                down = min(down, up_room[cell])
            if up < req_up - tol or down < req_down - tol:
                ok = False
                break
        if ok and up + down >= req_width - tol and c_sum < best:
            best = c_sum
            for d in range(ndim):
                best_choice[d] = choice[d]
    return best, best_choice


class _Subtables:
    """The non-hierarchical subtables of a table: in every dimension a group is one
    subtotal (or the total) with its direct children."""

    def __init__(self, table: Table):
        self.dims = table.dimensions
        self.shape = table.shape
        self.strides = np.array([int(np.prod(self.shape[d + 1:])) for d in range(len(
            self.shape))], dtype=np.int64)
        self.members: list[list[np.ndarray]] = []
        self.group_parent: list[np.ndarray] = []
        self.groups_of: list[list[tuple[int, ...]]] = []
        for dim in self.dims:
            inner = np.flatnonzero(~dim.is_leaf)
            gid = {int(p): g for g, p in enumerate(inner)}
            self.members.append([np.r_[dim.children(int(p)), p] for p in inner])
            self.group_parent.append(inner)
            groups = []
            for c in range(dim.size):
                gs = []
                if dim.parent[c] >= 0:
                    gs.append(gid[int(dim.parent[c])])
                if not dim.is_leaf[c]:
                    gs.append(gid[c])
                groups.append(tuple(gs))
            self.groups_of.append(groups)
        self.level = [np.array([dim.depth[p] for p in gp]) for dim, gp in
                      zip(self.dims, self.group_parent, strict=True)]

    def of_cell(self, codes: np.ndarray) -> list[tuple[int, ...]]:
        out: list[tuple[int, ...]] = [()]
        for d, c in enumerate(codes):
            out = [s + (g,) for s in out for g in self.groups_of[d][int(c)]]
        return out

    def rank(self, sub: tuple[int, ...]) -> int:
        """Higher-level subtables first (their subtotals are the lower ones' totals)."""
        return int(sum(self.level[d][g] for d, g in enumerate(sub)))

    def choices(self, codes: np.ndarray, sub: tuple[int, ...]):
        ndim = len(codes)
        lists, sgns = [], []
        for d in range(ndim):
            mem = self.members[d][sub[d]]
            parent = self.group_parent[d][sub[d]]
            c = int(codes[d])
            other = mem[mem != c]
            lists.append((other - c) * self.strides[d])
            sibling = (other != parent) & (c != parent)
            sgns.append(np.where(sibling, -1.0, 1.0))
        width = max(len(x) for x in lists)
        deltas = np.zeros((ndim, width), dtype=np.int64)
        signs = np.zeros((ndim, width))
        for d in range(ndim):
            deltas[d, :len(lists[d])] = lists[d]
            signs[d, :len(sgns[d])] = sgns[d]
        counts = np.array([len(x) for x in lists], dtype=np.int64)
        return deltas, signs, counts


def suppress_hypercube(table: Table, *, cost: str | np.ndarray = "unit",
                       margin_cost: float = 0.0, lower=None, upper=None,
                       percent: float | None = None,
                       min_width: float = MIN_WIDTH) -> SuppressionResult:
    """Secondary suppression by the hypercube method per subtable, then exact audit and
    repair (see the module docstring; Repsilber's GHMITER as described by Giessing &
    Repsilber 2002). Deterministic: cells are processed by subtable level (higher
    first), then in the order they were queued; ties go to the first hypercube."""
    start = time.perf_counter()
    lb, ub, upl, lpl, spl, up_room, down_room, primary, costs = setup(
        table, cost, margin_cost, lower, upper, percent, min_width)
    supp = table.suppressed.copy()
    subs = _Subtables(table)
    codes_all = table.codes
    done: dict[tuple[int, tuple], tuple[float, float, float]] = {}
    heap: list = []
    seq = 0
    for i in primary:
        for s in subs.of_cell(codes_all[i]):
            heapq.heappush(heap, (subs.rank(s), seq, int(i), s, upl[i], lpl[i], spl[i]))
            seq += 1
    n_search = 0
    failures = 0
    t_cube = time.perf_counter()
    while heap:
        _, _, i, s, ru, rd, rw = heapq.heappop(heap)
        prev = done.get((i, s))
        if prev is not None and prev[0] >= ru and prev[1] >= rd and prev[2] >= rw:
            continue
        if prev is not None:
            ru, rd, rw = max(ru, prev[0]), max(rd, prev[1]), max(rw, prev[2])
        done[(i, s)] = (ru, rd, rw)
        deltas, signs, counts = subs.choices(codes_all[i], s)
        if counts.min() == 0:
            continue
        n_search += 1
        tol = 1e-9 * max(1.0, ru, rd, rw)
        best, choice = _best_hypercube(i, deltas, signs, counts, up_room, down_room, costs,
                                       supp, ru, rd, rw, tol)
        if not np.isfinite(best):
            failures += 1
            continue
        for mask in range(1, 1 << len(counts)):
            cell, sign = _corner(i, mask, deltas, signs, choice)
            supp[cell] = True
            cu, cd = (ru, rd) if sign > 0 else (rd, ru)
            for s2 in subs.of_cell(codes_all[cell]):
                if s2 == s:
                    continue
                p = done.get((cell, s2))
                if p is not None and p[0] >= cu and p[1] >= cd and p[2] >= rw:
                    continue
                heapq.heappush(heap, (subs.rank(s2), seq, cell, s2, cu, cd, rw))
                seq += 1
    cube_seconds = time.perf_counter() - t_cube
    after_cube = int(supp.sum())
    t0 = time.perf_counter()
    pattern, rep = repair(table, supp, primary, lb, ub, upl, lpl, spl, up_room, down_room,
                           costs)
    repair_seconds = time.perf_counter() - t0
    return finish(table, pattern, costs, "hypercube", start,
                   dict(hypercube_searches=n_search, hypercube_failures=failures,
                        hypercube_seconds=round(cube_seconds, 3),
                        suppressed_after_hypercubes=after_cube,
                        repair_seconds=round(repair_seconds, 3), **rep),
                   lower, upper, percent, min_width)

