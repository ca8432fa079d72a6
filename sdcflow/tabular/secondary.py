"""Secondary suppression: choose further cells to suppress so that no primary cell can be
recomputed or narrowed beyond its protection interval (seed 000_1eece6b9d3791e64.txt,
"Protection for tabular data", "Primary suppression (PS) and Secondary Suppression (SS)
... Problem solved using optimization techniques").

Two algorithms, both deterministic (no randomness):

``optimal`` (:func:`suppress_optimal`): the model of Fischetti & Salazar-Gonzalez (2001,
"Solving the cell suppression problem on tabular data with linear constraints",
*Management Science* 47(7), 1008-1027), solved by iterated cut generation (a Benders
decomposition, as in their branch-and-cut, but with the master solved from scratch by
HiGHS' MILP solver, ``scipy.optimize.milp``, at every round):

* master: binary ``x_j`` (cell ``j`` suppressed), ``x = 1`` on primary cells, minimum
  ``sum cost_j x_j`` subject to the capacity cuts found so far;
* attacker LPs (:mod:`sdcflow.tabular.audit`) on the master's pattern, for every primary
  cell ``i``: ``max z_i`` and ``max -z_i``;
* a violated requirement (``max z_i < upl_i``, ``max -z_i < lpl_i`` or
  ``max z_i + max -z_i < spl_i``) yields the cut ``sum_j c_j x_j >= level``, with
  ``c_j = d_j+ (ub_j - a_j) + d_j- (a_j - lb_j)`` and ``d = M' y + e_i`` from the LP duals
  ``y`` (LP duality: every dual solution bounds ``max z_i`` for *every* pattern, so the
  cut is valid, and it is tight, hence violated, at the current pattern); coefficients
  are capped at the level (valid for a covering inequality with binary variables). If
  rounding makes that cut not violated, the combinatorial cut "at least one more cell
  among the unsuppressed cells of the relations of the primary's component" is added
  instead (valid: without such a cell the primary's component cannot grow).
* Initial cuts: for every primary cell and relation through it, the same capacity cut
  for the dual that is ``+-1`` on that relation alone (the other cells of a relation
  must be able to absorb the change); and for every other cell and relation through it,
  "not suppressed alone in it" (such a cell is recomputed, so it protects nothing: a
  minimum-cost pattern never has one).
* The attacker LPs run per connected component of the pattern; joint LPs first certify
  most primary cells at once (:meth:`~sdcflow.tabular.audit.AttackerModel.certify`),
  only the others get their exact LPs, whose duals make the cuts.
* Integer costs (``unit``, ``frequency``) get a perturbation summing to 1/2 over all
  cells (smaller than any cost difference, so the optimum keeps its cost), which breaks
  the symmetry of equal-cost patterns; ``tie_break`` then runs the cut loop once more,
  minimising the sum of cell positions under ``cost <= optimum``: among minimum-cost
  patterns, cells earlier in cell order are preferred.

Guarantee: the loop stops only when every primary cell passes its attacker LPs, so the
pattern passes the audit; the master being solved to optimality (``mip_rel_gap``) over a
subset of valid cuts, the final pattern has minimum cost among all protecting patterns
(within the gap). ``info["optimal"]`` says whether every master finished in time; when
``time_limit`` cuts the loop short, the pattern is completed by the repair step below
(protected, no longer optimal). Cost: each round solves a MILP from scratch, fine for
tables of thousands of cells (two-dimensional especially); hierarchical 3-D tables of a
few hundred cells can already need tens of seconds, use ``hypercube`` or a time limit.

``hypercube`` (:func:`suppress_hypercube`), for large tables: the hypercube method of
Repsilber (GHMITER; Giessing & Repsilber 2002, "Tools and strategies to protect multiple
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
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, milp

from ..data.text import text_column
from ..kernels.jit import njit
from .audit import (
    MIN_WIDTH,
    AttackerModel,
    AuditResult,
    audit,
    check_cell,
    intruder_bounds,
    requirements,
)
from .table import Table

__all__ = ["SuppressionResult", "cell_costs", "secondary_suppression", "suppress_hypercube",
           "suppress_optimal"]


@dataclass
class SuppressionResult:
    """The protected table (``status`` ``secondary`` on the added cells), the audit of its
    pattern, and ``info`` (method, counts, cost, rounds, timings, optimality)."""

    table: Table
    audit: AuditResult
    info: dict


def cell_costs(table: Table, cost: str | np.ndarray = "unit",
               margin_cost: float = 0.0) -> np.ndarray:
    """Cost of suppressing each cell: ``"unit"`` (1: fewest suppressions),
    ``"frequency"`` (contributors + 1) or ``"value"`` (``|value| + 1``), the + 1 keeping
    empty cells from being free; or an array. ``margin_cost`` is added once per dimension
    in which the cell is a subtotal or total, so that inner cells are preferred."""
    if isinstance(cost, str):
        if cost == "unit":
            base = np.ones(table.n_cells)
        elif cost == "frequency":
            base = table.cells["freq"].to_numpy(dtype=float) + 1.0
        elif cost == "value":
            base = np.abs(table.values) + 1.0
        else:
            raise ValueError("cost must be 'unit', 'frequency', 'value' or an array")
    else:
        base = np.asarray(cost, dtype=float)
        if base.shape != (table.n_cells,) or np.any(base < 0) or np.any(~np.isfinite(base)):
            raise ValueError("a cost array needs one finite non-negative cost per cell")
    return base + margin_cost * table.margin_dims


def _setup(table: Table, cost, margin_cost: float, lower, upper, percent, min_width: float):
    """What both methods start from: the intruder's bounds ``lb``, ``ub``; the protection
    each cell needs (up, down, sliding); the room each cell gives upwards and downwards
    (infinite without a bound); the primary cells; the cell costs."""
    a = table.values
    lb, ub = intruder_bounds(table, lower, upper, percent)
    upl, lpl, spl, _ = requirements(table, lb, ub, min_width)
    primary = np.flatnonzero(table.status == "primary")
    return (lb, ub, upl, lpl, spl, ub - a, a - lb, primary,
            cell_costs(table, cost, margin_cost))


# --------------------------------------------------------------------------- cuts


def _capacity_cut(d: np.ndarray, up_room: np.ndarray, down_room: np.ndarray,
                  level: float) -> tuple[np.ndarray, np.ndarray]:
    """Coefficients ``c_j = d_j+ up_room_j + d_j- down_room_j`` (capped at ``level``) of the
    cut ``sum c_j x_j >= level``, as (cell ids, coefficients)."""
    tol = 1e-9
    pos = d > tol
    neg = d < -tol
    coef = np.zeros_like(d)
    with np.errstate(invalid="ignore"):
        coef[pos] = d[pos] * up_room[pos]
        coef[neg] = -d[neg] * down_room[neg]
    coef = np.minimum(np.nan_to_num(coef, nan=0.0, posinf=level), level)
    scale = max(level, 1.0) if np.isfinite(level) else 1.0
    keep = np.flatnonzero(coef > 1e-9 * scale)
    return keep, coef[keep]


def _sliding_cut(d_up: np.ndarray, d_down: np.ndarray, up_room: np.ndarray,
                 down_room: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """The cut on the width of a cell's interval (width = max z_i + max -z_i): the sum of
    both directions' capacity coefficients, capped at ``level``."""
    total = np.zeros(len(d_up))
    for d in (d_up, d_down):
        k, c = _capacity_cut(d, up_room, down_room, np.inf)
        total[k] += c
    total = np.minimum(total, level)
    keep = np.flatnonzero(total > 1e-9 * max(level, 1.0))
    return keep, total[keep]


def _dual_vector(relations_t: sp.csr_matrix, sol, j: int, sense: int, n: int) -> np.ndarray:
    """``d = M' y + sense e_j`` over all cells from an attacker LP's duals."""
    d = np.zeros(n)
    rows_t = relations_t[:, sol.rows]
    d += rows_t @ sol.duals
    d[j] += sense
    return d


class _Cuts:
    """A pool of covering cuts ``sum c_j x_j >= rhs`` (deduplicated)."""

    def __init__(self, n: int):
        self.n = n
        self.rows: list[tuple[np.ndarray, np.ndarray, float]] = []
        self._seen: set[bytes] = set()

    def add(self, idx: np.ndarray, coef: np.ndarray, rhs: float) -> bool:
        key = idx.tobytes() + np.round(coef / max(rhs, 1e-12), 9).tobytes()
        if key in self._seen or len(idx) == 0:
            return False
        self._seen.add(key)
        self.rows.append((idx, coef / rhs, 1.0))  # normalised: coefficients in (0, 1]
        return True

    def matrix(self) -> tuple[sp.csr_matrix, np.ndarray]:
        indptr = np.cumsum([0] + [len(r[0]) for r in self.rows])
        indices = np.concatenate([r[0] for r in self.rows]) if self.rows else np.zeros(0, int)
        data = np.concatenate([r[1] for r in self.rows]) if self.rows else np.zeros(0)
        mat = sp.csr_matrix((data, indices, indptr), shape=(len(self.rows), self.n))
        return mat, np.array([r[2] for r in self.rows])


def _no_lonely_cells(relations: sp.csr_matrix, free: np.ndarray) -> LinearConstraint:
    """``x_j <= sum of x_k over the other cells of each relation through j``, for the
    cells ``j`` the master may choose: a cell suppressed alone in a relation is recomputed
    from it, so suppressing it protects nothing; a minimum-cost pattern (positive costs)
    never has one, and with zero costs some minimum-cost pattern has none, so these
    constraints keep an optimum."""
    absm = abs(relations).tocsr()
    absm.data[:] = 1.0
    coo = absm.tocoo()
    keep = free[coo.col]
    coo = sp.coo_matrix((coo.data[keep], (coo.row[keep], coo.col[keep])), shape=coo.shape)
    gather = sp.csr_matrix((np.ones(coo.nnz), (np.arange(coo.nnz), coo.row)),
                           shape=(coo.nnz, absm.shape[0]))
    own = sp.csr_matrix((np.full(coo.nnz, 2.0), (np.arange(coo.nnz), coo.col)),
                        shape=(coo.nnz, absm.shape[1]))
    return LinearConstraint((gather @ absm - own).tocsr(), 0.0, np.inf)


def _row_cuts(table: Table, primary: np.ndarray, upl, lpl, spl, up_room, down_room,
              cuts: _Cuts) -> None:
    """Initial capacity cuts: one per primary cell, relation through it and direction."""
    rel = table.relations
    rel_c = rel.tocsc()
    for i in primary:
        rows = rel_c.indices[rel_c.indptr[i]:rel_c.indptr[i + 1]]
        sign_i = rel_c.data[rel_c.indptr[i]:rel_c.indptr[i + 1]]
        for r, m_ri in zip(rows, sign_i, strict=True):
            cols = rel.indices[rel.indptr[r]:rel.indptr[r + 1]]
            vals = rel.data[rel.indptr[r]:rel.indptr[r + 1]]
            other = cols != i
            cols, vals = cols[other], vals[other]
            # up: d = e_i - m_ri * row  -> d_j = -m_ri m_rj; down: the opposite
            d_up = -m_ri * vals
            up, down = up_room[cols], down_room[cols]
            for d, level in ((d_up, upl[i]), (-d_up, lpl[i])):
                if level > 0:
                    k, c = _capacity_cut(d, up, down, level)
                    cuts.add(cols[k], c, level)
            if spl[i] > 0:
                k, c = _sliding_cut(d_up, -d_up, up, down, spl[i])
                cuts.add(cols[k], c, spl[i])


def _violations(table: Table, pattern: np.ndarray, primary: np.ndarray, lb, ub, upl, lpl,
                spl, rtol: float = 1e-6):
    """The primary cells whose requirements the pattern does not meet, with what a cut
    needs: a list of ``(i, kind, level, d_up, d_down)`` (``kind`` in ``up``/``down``/
    ``slide``; ``d`` the dual vectors ``M' y + sense e_i`` of the exact LPs), the
    un-presolved attacker model (whose duals describe the whole pattern) and the
    number of LPs solved. Joint LPs first certify most cells at once
    (:meth:`AttackerModel.certify`); only the others get exact LPs."""
    n = table.n_cells
    a = table.values
    cert = AttackerModel(table.relations, a, lb, ub, pattern, presolve=True)
    best_up, best_down = cert.certify(primary, np.maximum(upl, spl - lpl), lpl)
    failing = [int(i) for i in primary
               if not check_cell(a[i], a[i] - best_down[i], a[i] + best_up[i], upl[i],
                                 lpl[i], spl[i], rtol)]
    model = AttackerModel(table.relations, a, lb, ub, pattern, presolve=False)
    rel_t = table.relations.T.tocsr() if failing else None
    out = []
    for i in failing:
        scale = rtol * max(1.0, abs(a[i]), upl[i], lpl[i], spl[i])
        vals, dvec = {}, {}
        for sense in (+1, -1):
            sol = model.solve(i, sense)
            vals[sense] = sol.value
            if sol.duals is not None:
                dvec[sense] = _dual_vector(rel_t, sol, i, sense, n)
            elif np.isfinite(sol.value):
                # no LP ran: the cell is fixed (bounds) or in no relation
                d = np.zeros(n)
                d[i] = sense
                dvec[sense] = d
        if vals[+1] < upl[i] - scale:
            out.append((i, "up", upl[i], dvec.get(+1), None))
        if vals[-1] < lpl[i] - scale:
            out.append((i, "down", lpl[i], dvec.get(-1), None))
        if vals[+1] + vals[-1] < spl[i] - scale:
            out.append((i, "slide", spl[i], dvec.get(+1), dvec.get(-1)))
    return out, model, cert.n_lp + model.n_lp


def _cut_from(violation, up_room, down_room, pattern, table: Table, model: AttackerModel):
    """The capacity cut of a violation as (ids, coefficients, level), falling back on the
    combinatorial cut when the dual cut is not violated by the current pattern."""
    i, kind, level, d1, d2 = violation
    if kind == "slide":
        if d1 is None or d2 is None:
            idx, coef = np.zeros(0, dtype=np.int64), np.zeros(0)
        else:
            idx, coef = _sliding_cut(d1, d2, up_room, down_room, level)
    elif d1 is None:
        idx, coef = np.zeros(0, dtype=np.int64), np.zeros(0)
    else:
        idx, coef = _capacity_cut(d1, up_room, down_room, level)
    lhs = float(coef[pattern[idx]].sum()) if len(idx) else 0.0
    if len(idx) and lhs < level * (1 - 1e-7):
        return idx, coef, level
    # combinatorial cut: one more cell among those sharing a relation with the component
    rows = model.component_rows(i)
    cells = np.unique(table.relations[rows].indices)
    cells = cells[~pattern[cells]]
    return cells, np.ones(len(cells)), 1.0


# --------------------------------------------------------------------------- optimal


def suppress_optimal(table: Table, *, cost: str | np.ndarray = "unit",
                     margin_cost: float = 0.0, lower=None, upper=None,
                     percent: float | None = None, min_width: float = MIN_WIDTH,
                     tie_break: bool = True, time_limit: float | None = None,
                     mip_rel_gap: float = 1e-6, max_rounds: int = 500) -> SuppressionResult:
    """Minimum-cost secondary suppression (Fischetti & Salazar-Gonzalez 2001 model, cut
    generation with a HiGHS MILP master; see the module docstring for the cuts and the
    guarantee). ``cost``/``margin_cost``: :func:`cell_costs`; ``lower``/``upper``/
    ``percent``: the intruder's a priori bounds (:func:`~sdcflow.tabular.audit.
    intruder_bounds`); ``time_limit`` in seconds for the whole loop (None: no limit).

    ``tie_break``: among the minimum-cost patterns, return the one with the smallest sum
    of cell positions (cells earlier in cell order preferred): a second cut loop
    minimising that sum under ``cost <= optimum`` (exact, ``mip_rel_gap`` 0). Without it,
    ties are left to HiGHS (deterministic too, but not by cell order)."""
    start = time.perf_counter()
    n = table.n_cells
    lb, ub, upl, lpl, spl, up_room, down_room, primary, costs = _setup(
        table, cost, margin_cost, lower, upper, percent, min_width)
    status = table.status
    cuts = _Cuts(n)
    _row_cuts(table, primary, upl, lpl, spl, up_room, down_room, cuts)
    fixed = np.zeros(n)
    fixed[primary] = 1.0
    # cells already marked secondary (e.g. by hand) stay suppressed
    fixed[status == "secondary"] = 1.0
    lonely = _no_lonely_cells(table.relations, fixed == 0)
    stats = {"rounds": 0, "master_seconds": 0.0, "lp_seconds": 0.0, "lp_solved": 0}
    deadline = None if time_limit is None else start + time_limit

    def loop(objective, cap, gap):
        """Cut loop: returns (pattern, finished, solved_to_optimality)."""
        pattern = fixed.astype(bool)
        exact = True
        for _ in range(max_rounds):
            stats["rounds"] += 1
            remaining = None if deadline is None else deadline - time.perf_counter()
            if remaining is not None and remaining <= 0:
                return pattern, False, False
            t0 = time.perf_counter()
            if cuts.rows or cap is not None or len(primary):
                mat, rhs = cuts.matrix()
                cons = [lonely] + ([LinearConstraint(mat, rhs, np.inf)] if cuts.rows else [])
                if cap is not None:
                    cons.append(LinearConstraint(costs[None, :], -np.inf, cap))
                opts = {"disp": False, "mip_rel_gap": gap}
                if remaining is not None:
                    opts["time_limit"] = max(remaining, 1.0)
                res = milp(objective, integrality=np.ones(n), bounds=Bounds(fixed, np.ones(n)),
                           constraints=cons, options=opts)
                if res.x is None:
                    raise RuntimeError(f"secondary suppression master failed: {res.message}")
                exact &= res.status == 0
                pattern = res.x > 0.5
            stats["master_seconds"] += time.perf_counter() - t0
            t0 = time.perf_counter()
            violations, model, lps = _violations(table, pattern, primary, lb, ub, upl, lpl,
                                                 spl)
            stats["lp_solved"] += lps
            stats["lp_seconds"] += time.perf_counter() - t0
            if not violations:
                return pattern, True, exact
            added = 0
            for v in violations:
                idx, coef, level = _cut_from(v, up_room, down_room, pattern, table, model)
                if len(idx) == 0:
                    raise RuntimeError(f"cell {v[0]} cannot be protected (requirement "
                                       f"{v[1]} {v[2]:g}): no cell can widen its interval")
                added += cuts.add(idx, coef, level)
            if added == 0:
                raise RuntimeError("cut generation stalled (no new cut)")
        return pattern, False, False

    objective = costs
    if np.all(costs == np.round(costs)) and mip_rel_gap * (costs.sum() + 1) < 0.25:
        # integer costs: a perturbation summing to 0.5 over all cells cannot change the
        # optimal cost (any two costs differ by >= 1, the MILP gap is < 0.25) but breaks
        # the symmetry of equal-cost patterns (far fewer cut rounds with unit costs) and
        # already leans towards the cell-order tie-break
        pos = np.arange(1, n + 1, dtype=float)
        objective = costs + 0.5 * pos / pos.sum()
    pattern, finished, optimal = loop(objective, None, mip_rel_gap)
    extra: dict = {}
    if finished and optimal and tie_break and len(primary):
        best = float(costs[pattern & (fixed == 0)].sum() + costs[fixed == 1].sum())
        order = np.arange(1, n + 1, dtype=float)
        second, done2, exact2 = loop(order, best * (1 + 1e-9) + 1e-9, 0.0)
        if done2 and exact2:
            pattern = second
        extra["tie_break_done"] = bool(done2 and exact2)
    if not finished:
        optimal = False
        pattern, rep = _repair(table, pattern, primary, lb, ub, upl, lpl, spl, up_room,
                               down_room, costs)
        extra.update(rep)
    stats["master_seconds"] = round(stats["master_seconds"], 3)
    stats["lp_seconds"] = round(stats["lp_seconds"], 3)
    return _finish(table, pattern, costs, "optimal", start,
                   dict(cuts=len(cuts.rows), optimal=optimal, **stats, **extra),
                   lower, upper, percent, min_width)


def _finish(table: Table, pattern: np.ndarray, costs: np.ndarray, method: str,
            start: float, extra: dict, lower, upper, percent, min_width) -> SuppressionResult:
    status = table.status
    new = np.where(pattern & (status == "safe"), "secondary", status)
    cells = table.cells.copy()
    cells["status"] = text_column(new, index=cells.index)
    out = table.with_cells(cells)
    seconds = time.perf_counter() - start
    report = audit(out, lower=lower, upper=upper, percent=percent, min_width=min_width)
    secondary = (new == "secondary") & (status != "secondary")
    info = {"method": method, "primary": int((status == "primary").sum()),
            "secondary": int(secondary.sum()),
            "suppressed": int(pattern.sum()),
            "cost": float(costs[secondary].sum()),
            "seconds": round(seconds, 3), **extra,
            "audit_passed": report.passed, "audit_seconds": round(report.seconds, 3)}
    return SuppressionResult(out, report, info)


def _repair(table: Table, pattern: np.ndarray, primary: np.ndarray, lb, ub, upl, lpl, spl,
            up_room, down_room, costs) -> tuple[np.ndarray, dict]:
    """Add cells until every primary passes its attacker LPs: for each violated
    requirement, the unsuppressed cells of its capacity cut by increasing
    ``cost / coefficient`` (ties: cell order) until the cut holds; repeat."""
    pattern = pattern.copy()
    added = 0
    n_lp = 0
    rounds = 0
    todo = [int(i) for i in primary]
    while todo:
        rounds += 1
        violations, model, lps = _violations(table, pattern, np.asarray(todo), lb, ub,
                                             upl, lpl, spl)
        n_lp += lps
        if not violations:
            break
        todo = sorted({v[0] for v in violations})
        for v in violations:
            idx, coef, level = _cut_from(v, up_room, down_room, pattern, table, model)
            have = float(coef[pattern[idx]].sum())
            if have >= level * (1 - 1e-9):
                continue  # cells added for another violation already satisfy this cut
            cand = np.flatnonzero(~pattern[idx])
            if len(cand) == 0:
                raise RuntimeError(f"cell {v[0]} cannot be protected")
            ratio = costs[idx[cand]] / coef[cand]
            for k in cand[np.lexsort((idx[cand], ratio))]:
                pattern[idx[k]] = True
                added += 1
                have += coef[k]
                if have >= level * (1 - 1e-9):
                    break
    return pattern, {"repair_rounds": rounds, "repair_added": added, "repair_lp_solved": n_lp}


# --------------------------------------------------------------------------- hypercube


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
    lb, ub, upl, lpl, spl, up_room, down_room, primary, costs = _setup(
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
    pattern, rep = _repair(table, supp, primary, lb, ub, upl, lpl, spl, up_room, down_room,
                           costs)
    repair_seconds = time.perf_counter() - t0
    return _finish(table, pattern, costs, "hypercube", start,
                   dict(hypercube_searches=n_search, hypercube_failures=failures,
                        hypercube_seconds=round(cube_seconds, 3),
                        suppressed_after_hypercubes=after_cube,
                        repair_seconds=round(repair_seconds, 3), **rep),
                   lower, upper, percent, min_width)


def secondary_suppression(table: Table, method: str = "optimal", **options) -> SuppressionResult:
    """Dispatch to :func:`suppress_optimal` (``"optimal"``) or :func:`suppress_hypercube`
    (``"hypercube"`` / ``"heuristic"``) with their keyword options."""
    if method == "optimal":
        return suppress_optimal(table, **options)
    if method in ("hypercube", "heuristic"):
        return suppress_hypercube(table, **options)
    raise ValueError("method must be 'optimal' or 'hypercube'")
