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
* Every round, the master's pattern is also repaired into a protecting one
  (:func:`~sdcflow.tabular.cuts.repair`): the cut of every violation the repair meets on
  its way goes to the master too (a master learns in one round what it would otherwise
  learn in several), and the repaired pattern, cleared of the cells suppressed alone in
  a relation (recomputed, so they protect nothing), is an upper bound. The master's
  dual bound is a lower bound (it relaxes the problem): when the cheapest repaired
  pattern meets it, that pattern is optimal and the loop stops.
* Integer costs (``unit``, ``frequency``) get a perturbation summing to 1/2 over all
  cells (smaller than any cost difference, so the optimum keeps its cost), which breaks
  the symmetry of equal-cost patterns; ``tie_break`` then runs the cut loop once more,
  minimising the sum of cell positions under ``cost <= optimum``: among minimum-cost
  patterns, cells earlier in cell order are preferred.

Guarantee: the loop stops only when every primary cell passes its attacker LPs, so the
pattern passes the audit; the master being solved to optimality (``mip_rel_gap``) over a
subset of valid cuts, the final pattern has minimum cost among all protecting patterns
(within the gap). ``info["optimal"]`` says whether every master finished in time; when
``time_limit`` cuts the loop short, the cheapest protecting pattern met is returned
(the last master's pattern repaired if none), with ``info["gap"]``, its relative
distance to ``info["lower_bound"]`` (the optimum lies in between). Cost: each round
solves a MILP from scratch: two-dimensional tables of 20,000 cells take a minute or two
on one core, but hierarchical 3-D tables of that size need more rounds of much harder
masters (well over half an hour, ``benchmarks/bench_tables_scale.py``). Those, above
:data:`~sdcflow.tabular.secondary.MODULAR_CELLS` cells, are protected subtable by subtable
(:mod:`sdcflow.tabular.modular`: minutes, protected, minimum cost per subtable but not
proven over the whole table) unless ``decompose=False`` (then give a time limit).
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, linprog, milp

from .cuts import (
    Cuts,
    cut_from,
    drop_lonely,
    find_violations,
    no_lonely_cells,
    repair,
    row_cuts,
)
from .table import Table

__all__ = ["optimal_pattern"]



def _reduced_cost_fixing(objective: np.ndarray, lonely: LinearConstraint, cuts: Cuts,
                         lower: np.ndarray, upper: np.ndarray, limit: float) -> np.ndarray:
    """The free cells that no pattern of objective at most ``limit`` can suppress.

    The master's LP relaxation (``z`` its optimum, ``r_j`` the reduced cost of a cell at
    0) bounds every pattern with ``x_j = 1`` by ``z + r_j`` (Nemhauser & Wolsey 1988,
    *Integer and Combinatorial Optimization*, Wiley, section II.5.1, reduced-cost
    fixing); later masters only add cuts, so the bound holds for the rest of the
    search. ``limit`` is the cost of a protecting pattern (plus the perturbation of
    integer costs): a cell fixed here is in no pattern at most as costly, so neither in
    any minimum-cost pattern nor in the tie-break among them."""
    mat, rhs = cuts.matrix()
    a_ub = sp.vstack([-lonely.A, -mat]).tocsr()
    b_ub = np.r_[np.zeros(lonely.A.shape[0]), -rhs]
    res = linprog(objective, A_ub=a_ub, b_ub=b_ub, bounds=np.column_stack([lower, upper]),
                  method="highs")
    if res.status != 0:
        return np.zeros(len(objective), dtype=bool)
    reduced = np.asarray(res.lower.marginals, dtype=float)
    margin = 1e-6 * max(1.0, abs(limit))  # the LP's own tolerances
    return (lower == 0) & (upper > 0) & (res.fun + reduced > limit + margin)


def optimal_pattern(table: Table, costs: np.ndarray, lb, ub, upl, lpl, spl, up_room,
                    down_room, primary: np.ndarray, *, tie_break: bool = True,
                    deadline: float | None = None, mip_rel_gap: float = 1e-6,
                    max_rounds: int = 500) -> tuple[np.ndarray, dict]:
    """The cut loop of :func:`~sdcflow.tabular.secondary.suppress_optimal` on the whole table (bounds, levels and
    costs as from :func:`~sdcflow.tabular.suppression.setup`): the pattern and the
    search's ``info`` (rounds, cuts, timings, ``optimal``, ``gap``, ``lower_bound``)."""
    n = table.n_cells
    status = table.status
    cuts = Cuts(n)
    row_cuts(table, primary, upl, lpl, spl, up_room, down_room, cuts)
    fixed = np.zeros(n)
    fixed[primary] = 1.0
    # cells already marked secondary (e.g. by hand) stay suppressed, and the cells of a
    # cover table that no linked table publishes are never published
    fixed[(status == "secondary") | (status == "unpublished")] = 1.0
    lonely = no_lonely_cells(table.relations, fixed == 0)
    stats = {"rounds": 0, "master_seconds": 0.0, "lp_seconds": 0.0, "lp_solved": 0,
             "fixing_seconds": 0.0}
    objective = costs
    slack = 0.0  # how much the objective may exceed the cost
    if np.all(costs == np.round(costs)) and mip_rel_gap * (costs.sum() + 1) < 0.25:
        # integer costs: a perturbation summing to 0.5 over all cells cannot change the
        # optimal cost (any two costs differ by >= 1, the MILP gap is < 0.25) but breaks
        # the symmetry of equal-cost patterns (far fewer cut rounds with unit costs) and
        # already leans towards the cell-order tie-break
        pos = np.arange(1, n + 1, dtype=float)
        objective = costs + 0.5 * pos / pos.sum()
        slack = 0.5
    # the cheapest protecting pattern met (each master's pattern, repaired) and the
    # largest lower bound on the optimal cost (the masters' dual bounds)
    best = {"pattern": None, "cost": np.inf, "bound": 0.0}
    # cells that no pattern as cheap as the best one can contain (reduced-cost fixing)
    allowed = np.ones(n)  # upper bound of x: 0 once a cell is fixed out

    def cost_of(pattern: np.ndarray) -> float:
        return float(costs[pattern & (fixed == 0)].sum())

    def lower_bound() -> float:
        bound = best["bound"]
        if slack:  # integer costs: the optimum is a whole number >= bound
            bound = float(np.ceil(bound - 1e-6 * max(1.0, abs(bound))))
        return bound

    def proven(value: float) -> bool:
        """Whether a protecting pattern of cost ``value`` is known to be optimal."""
        bound = lower_bound()
        return value <= bound + mip_rel_gap * max(abs(bound), 1.0)

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
                res = milp(objective, integrality=np.ones(n), bounds=Bounds(fixed, allowed),
                           constraints=cons, options=opts)
                if res.x is None and res.status == 1:  # out of time before any solution
                    return pattern, False, False
                if res.x is None:
                    raise RuntimeError(f"secondary suppression master failed: {res.message}")
                exact &= res.status == 0
                pattern = res.x > 0.5
                if cap is None and res.mip_dual_bound is not None:
                    # the master relaxes the problem: its bound bounds the optimal cost
                    fixed_cost = float(costs[fixed == 1].sum())
                    best["bound"] = max(best["bound"],
                                        float(res.mip_dual_bound) - slack - fixed_cost)
            stats["master_seconds"] += time.perf_counter() - t0
            t0 = time.perf_counter()
            violations, model, lps = find_violations(table, pattern, primary, lb, ub, upl,
                                                      lpl, spl)
            stats["lp_solved"] += lps
            if not violations:
                stats["lp_seconds"] += time.perf_counter() - t0
                if cap is None and cost_of(pattern) < best["cost"]:
                    best.update(pattern=pattern, cost=cost_of(pattern))
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
            # the pattern repaired into a protecting one: every cut the repair meets is
            # valid and goes to the pool (fewer rounds), and the repaired pattern, cleared
            # of recomputed cells, bounds the optimum from above
            repaired, rep = repair(table, pattern, primary, lb, ub, upl, lpl, spl, up_room,
                                   down_room, costs, pool=cuts, first=(violations, model))
            stats["lp_solved"] += rep["repair_lp_solved"]
            stats["lp_seconds"] += time.perf_counter() - t0
            if cap is None:
                repaired = drop_lonely(table.relations, repaired, fixed == 1)
                if cost_of(repaired) < best["cost"]:
                    best.update(pattern=repaired, cost=cost_of(repaired))
                if exact and proven(best["cost"]):
                    # as cheap as the master's bound: optimal without more rounds
                    return best["pattern"], True, True
                t0 = time.perf_counter()
                allowed[_reduced_cost_fixing(objective, lonely, cuts, fixed, allowed,
                                           best["cost"] + float(costs[fixed == 1].sum())
                                           + slack)] = 0.0
                stats["fixing_seconds"] += time.perf_counter() - t0
        return pattern, False, False

    pattern, finished, optimal = loop(objective, None, mip_rel_gap)
    extra: dict = {}
    if finished and optimal and tie_break and len(primary):
        cap = cost_of(pattern) + float(costs[fixed == 1].sum())
        order = np.arange(1, n + 1, dtype=float)
        second, done2, exact2 = loop(order, cap * (1 + 1e-9) + 1e-9, 0.0)
        if done2 and exact2:
            pattern = second
        extra["tie_break_done"] = bool(done2 and exact2)
    if not finished and best["pattern"] is None:
        pattern, rep = repair(table, pattern, primary, lb, ub, upl, lpl, spl, up_room,
                              down_room, costs)
        extra.update(rep)
        best.update(pattern=pattern, cost=cost_of(pattern))
    if not optimal:
        # out of time: the cheapest protecting pattern met, which may not be the last
        # master's (a master stopped by the time limit returns whatever it had found)
        pattern = best["pattern"]
    # (an optimal pattern's cost is its own lower bound, whatever the last master said)
    bound = cost_of(pattern) if optimal else min(lower_bound(), best["cost"])
    extra["lower_bound"] = round(bound, 6)
    extra["gap"] = 0.0 if optimal else (best["cost"] - bound) / max(best["cost"], 1e-12)
    for key in ("master_seconds", "lp_seconds", "fixing_seconds"):
        stats[key] = round(stats[key], 3)
    extra["fixed_out"] = int((allowed == 0).sum())
    return pattern, dict(cuts=len(cuts.rows), optimal=optimal, **stats, **extra)
