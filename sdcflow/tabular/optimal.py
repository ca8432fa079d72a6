"""Optimal secondary suppression: the model of Fischetti & Salazar-Gonzalez (2001,
"Solving the cell suppression problem on tabular data with linear constraints",
*Management Science* 47(7), 1008-1027), solved by iterated cut generation (a Benders
decomposition, as in their branch-and-cut, but with the master solved by HiGHS' MILP
solver, ``scipy.optimize.milp``, at every round):

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
``time_limit`` cuts the loop short, the pattern is completed by the repair step
(:func:`~sdcflow.tabular.cuts.repair`: protected, no longer optimal). Cost: each round solves a MILP from scratch, fine for
tables of thousands of cells (two-dimensional especially); hierarchical 3-D tables of a
few hundred cells can already need tens of seconds, use ``hypercube`` or a time limit.
"""

from __future__ import annotations

import time

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

from .audit import MIN_WIDTH
from .cuts import Cuts, cut_from, find_violations, no_lonely_cells, repair, row_cuts
from .suppression import SuppressionResult, finish, setup
from .table import Table

__all__ = ["suppress_optimal"]


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
    lb, ub, upl, lpl, spl, up_room, down_room, primary, costs = setup(
        table, cost, margin_cost, lower, upper, percent, min_width)
    status = table.status
    cuts = Cuts(n)
    row_cuts(table, primary, upl, lpl, spl, up_room, down_room, cuts)
    fixed = np.zeros(n)
    fixed[primary] = 1.0
    # cells already marked secondary (e.g. by hand) stay suppressed
    fixed[status == "secondary"] = 1.0
    lonely = no_lonely_cells(table.relations, fixed == 0)
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
            violations, model, lps = find_violations(table, pattern, primary, lb, ub, upl,
                                                      lpl, spl)
            stats["lp_solved"] += lps
            stats["lp_seconds"] += time.perf_counter() - t0
            if not violations:
                return pattern, True, exact
            added = 0
            for v in violations:
                idx, coef, level = cut_from(v, up_room, down_room, pattern, table, model)
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
        pattern, rep = repair(table, pattern, primary, lb, ub, upl, lpl, spl, up_room,
                               down_room, costs)
        extra.update(rep)
    stats["master_seconds"] = round(stats["master_seconds"], 3)
    stats["lp_seconds"] = round(stats["lp_seconds"], 3)
    return finish(table, pattern, costs, "optimal", start,
                   dict(cuts=len(cuts.rows), optimal=optimal, **stats, **extra),
                   lower, upper, percent, min_width)

