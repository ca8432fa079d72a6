"""Audit of a suppression pattern: the interval an intruder can derive for every suppressed
cell from the published cells and the table's linear relations, compared with the
required protection (Torra, "Masking methods", 2013, "Protection for tabular data":
primary and secondary suppression, "problem solved using optimization techniques";
the attacker problem of Fischetti & Salazar-Gonzalez 2001, "Solving the cell suppression
problem on tabular data with linear constraints", *Management Science* 47(7), and
Hundepool et al. 2012, *Statistical Disclosure Control*, Wiley, section 4.3.1).

The intruder knows every published value, the relations ``M y = 0`` and a priori bounds
``lb <= y <= ub`` (default: non-negative values, no upper bound). For a suppressed cell
``i`` the interval is ``[min y_i, max y_i]`` over that polytope: two linear programs,
solved with ``scipy.optimize.linprog(method="highs")`` in deviations ``z = y - a`` from
the true values ``a`` (so the right-hand sides are zero and published cells drop out).

Speed: relations in which only one suppressed cell is still free force it (it is
recomputable, ``z = 0``), repeatedly; the remaining free cells split into connected
components (cells sharing a relation), and each LP only involves the component of its
cell, whose constraint matrix is built once and reused for all its cells. For large
patterns (``mode="certify"``), joint LPs find feasible values that reach the required
levels of many cells at once (a feasible value proves protection); only the cells they
do not certify get their two exact LPs (which then prove or disprove it).

A primary cell with value ``a`` and protection levels ``upl``, ``lpl``, ``spl`` is
protected when ``max y >= a + upl``, ``min y <= a - lpl`` and
``max y - min y >= max(spl, min_width)`` (levels capped by the a priori bounds: no
pattern can push the intruder beyond what he knows already).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.optimize import linprog
from scipy.sparse.csgraph import connected_components

from ..data.strata import stratum_members
from .table import Table

__all__ = ["AttackerModel", "AuditResult", "LPSolution", "audit", "intruder_bounds", "requirements"]

#: default minimal interval width of a primary cell: it must not be exactly recomputable
MIN_WIDTH = 1e-3


def intruder_bounds(table: Table, lower: float | np.ndarray | None = None,
                    upper: float | np.ndarray | None = None,
                    percent: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A priori bounds of the intruder on every cell value.

    Default: 0 below for non-negative cells (``-inf`` for negative ones), ``+inf`` above.
    ``lower``/``upper`` (scalars or per-cell arrays) replace them; ``percent`` narrows
    them to ``value -/+ percent %`` of the value (the intruder knows every cell within
    that margin, Fischetti & Salazar-Gonzalez 2001's external bounds)."""
    a = table.values
    lb = np.where(a >= 0, 0.0, -np.inf) if lower is None else np.broadcast_to(
        np.asarray(lower, dtype=float), a.shape).copy()
    ub = np.full(a.shape, np.inf) if upper is None else np.broadcast_to(
        np.asarray(upper, dtype=float), a.shape).copy()
    if percent is not None:
        lb = np.maximum(lb, a - percent / 100.0 * np.abs(a))
        ub = np.minimum(ub, a + percent / 100.0 * np.abs(a))
    tol = 1e-9 * np.maximum(1.0, np.abs(a))
    if np.any(lb > a + tol) or np.any(ub < a - tol):
        raise ValueError("the a priori bounds must contain the cell values")
    return lb, ub


def requirements(table: Table, lb: np.ndarray, ub: np.ndarray,
                 min_width: float = MIN_WIDTH) -> tuple[np.ndarray, ...]:
    """Effective protection levels ``(upl, lpl, spl, capped)`` of every cell (0 for
    non-primary cells): the table's ``upl``/``lpl``/``spl`` columns capped by the a priori
    bounds (``upl <= ub - a``, ``lpl <= a - lb``), the sliding level at least
    ``min_width`` for primary cells; ``capped`` marks the cells whose levels were cut."""
    a = table.values
    n = table.n_cells
    primary = table.status == "primary"
    cols = {c: (table.cells[c].to_numpy(dtype=float) if c in table.cells else np.zeros(n))
            for c in ("upl", "lpl", "spl")}
    upl = np.where(primary, cols["upl"], 0.0)
    lpl = np.where(primary, cols["lpl"], 0.0)
    spl = np.where(primary, np.maximum(cols["spl"], min_width), 0.0)
    up_room = ub - a
    down_room = a - lb
    upl_c = np.minimum(upl, up_room)
    lpl_c = np.minimum(lpl, down_room)
    spl_c = np.minimum(spl, up_room + down_room)
    capped = (upl_c < upl) | (lpl_c < lpl) | (spl_c < spl)
    return upl_c, lpl_c, spl_c, capped


class LPSolution(NamedTuple):
    value: float
    duals: np.ndarray | None = None  # of the relations ``rows`` at the optimum
    rows: np.ndarray | None = None


@dataclass
class _Component:
    cells: np.ndarray  # cell ids (sorted)
    rows: np.ndarray  # relation ids (sorted)
    a_eq: sp.csr_matrix
    lo: np.ndarray
    hi: np.ndarray
    local: dict = field(default_factory=dict)


class AttackerModel:
    """The intruder's LPs for one suppression pattern (deviation form, see the module
    docstring). ``presolve`` fixes the cells that singleton relations force; switch it
    off when the LP duals must describe the full pattern (cut generation)."""

    def __init__(self, relations: sp.csr_matrix, values: np.ndarray, lb: np.ndarray,
                 ub: np.ndarray, suppressed: np.ndarray, presolve: bool = True):
        self.relations = relations
        self.values = values
        self.lb = lb
        self.ub = ub
        self.suppressed = np.asarray(suppressed, dtype=bool)
        self.n_lp = 0
        n = len(values)
        free = self.suppressed & (ub > lb)
        absm = abs(relations).tocsr()
        absm.data[:] = 1.0
        if presolve:
            while True:
                count = absm @ free.astype(float)
                single = np.flatnonzero(np.rint(count) == 1)
                if len(single) == 0:
                    break
                sub = absm[single]
                hit = np.zeros(n, dtype=bool)
                hit[sub.indices[free[sub.indices]]] = True
                free &= ~hit
        self.free = free
        self.forced = self.suppressed & ~free
        self._comp_of = np.full(n, -1, dtype=np.int64)
        self._components: list[_Component] = []
        free_idx = np.flatnonzero(free)
        if len(free_idx) == 0:
            return
        sub = absm[:, free_idx].tocsr()
        touched = np.flatnonzero(np.diff(sub.indptr) > 0)
        sub = sub[touched]
        r = sub.shape[0]
        graph = sp.bmat([[None, sub], [sub.T, None]], format="csr")
        ncomp, labels = connected_components(graph, directed=False)
        # every component holds a free cell (each touched relation has one), and
        # members come in increasing position: cells and rows stay sorted
        cells = stratum_members(labels[r:], ncomp)
        rows = stratum_members(labels[:r], ncomp)
        self._components = [_Component(free_idx[c], touched[rw], None, None, None)
                            for c, rw in zip(cells, rows, strict=True)]
        self._comp_of[free_idx] = labels[r:]

    def component_rows(self, j: int) -> np.ndarray:
        """Relations touching the component of cell ``j`` (those through ``j`` if fixed)."""
        c = self._comp_of[j]
        if c >= 0:
            return self._components[c].rows
        col = self.relations.tocsc()[:, [j]]
        return np.sort(col.indices)

    @property
    def n_components(self) -> int:
        return len(self._components)

    @property
    def largest_component(self) -> int:
        return max((len(c.cells) for c in self._components), default=0)

    def _prepare(self, comp: _Component) -> None:
        if comp.a_eq is not None:
            return
        comp.a_eq = self.relations[comp.rows][:, comp.cells].tocsr()
        a = self.values[comp.cells]
        comp.lo = self.lb[comp.cells] - a
        comp.hi = self.ub[comp.cells] - a
        comp.local = {int(c): k for k, c in enumerate(comp.cells)}

    def solve(self, j: int, sense: int) -> LPSolution:
        """``max sense * z_j`` over the intruder's polytope: the optimal deviation (``inf``
        when unbounded), the LP duals of the component's relations with those relations'
        ids, and an optimal point (deviations of the component's cells); the fields
        other than ``value`` are None when no LP ran."""
        if not self.suppressed[j] or self.forced[j]:
            return LPSolution(0.0)
        c = self._comp_of[j]
        comp = self._components[c]
        self._prepare(comp)
        if len(comp.rows) == 0:
            return LPSolution(float((comp.hi if sense > 0 else -comp.lo)[comp.local[j]]))
        obj = np.zeros(len(comp.cells))
        obj[comp.local[j]] = -float(sense)
        self.n_lp += 1
        res = linprog(obj, A_eq=comp.a_eq, b_eq=np.zeros(len(comp.rows)),
                      bounds=np.column_stack([comp.lo, comp.hi]), method="highs")
        if res.status == 3:  # unbounded
            return LPSolution(np.inf)
        if res.status != 0:
            raise RuntimeError(f"attacker LP failed for cell {j}: {res.message}")
        return LPSolution(-float(res.fun), np.asarray(res.eqlin.marginals, dtype=float),
                          comp.rows)

    def certify(self, targets: np.ndarray, up: np.ndarray, down: np.ndarray,
                max_rounds: int = 25) -> tuple[np.ndarray, np.ndarray]:
        """Feasible changes that reach the required levels, many cells per LP.

        For the ``targets`` of each component, solve ``max sum_j t_j`` subject to the
        intruder's polytope, ``t_j <= z_j`` and ``t_j <= up_j`` (then the same downwards):
        in the optimal point every ``t_j = min(z_j, up_j)``, and the cells reaching their
        level are certified; the LP is solved again for the others while it certifies
        new cells. Every point is feasible, so ``max z_j`` is at least the largest ``z_j``
        seen: the returned ``(best_up, best_down)`` (per cell, >= 0) are inner bounds of
        the intruder's deviations (exact where they reach the level, which is all a
        protection check needs)."""
        n = len(self.values)
        best_up = np.zeros(n)
        best_down = np.zeros(n)
        targets = np.asarray(targets, dtype=np.int64)
        targets = targets[self._comp_of[targets] >= 0]
        by_comp: dict[int, list[int]] = {}
        for j in targets:
            by_comp.setdefault(int(self._comp_of[j]), []).append(int(j))
        for c, cells in by_comp.items():
            comp = self._components[c]
            self._prepare(comp)
            local = np.array([comp.local[j] for j in cells], dtype=np.int64)
            for sense, level, best in ((+1, up, best_up), (-1, down, best_down)):
                goal = level[comp.cells[local]]
                todo = np.flatnonzero(goal > 0)
                if len(comp.rows) == 0:
                    room = comp.hi if sense > 0 else -comp.lo
                    best[comp.cells] = np.maximum(best[comp.cells], room)
                    continue
                for _ in range(max_rounds):
                    if len(todo) == 0:
                        break
                    point = self._joint(comp, local[todo], goal[todo], sense)
                    gain = sense * point
                    cur = best[comp.cells]
                    best[comp.cells] = np.maximum(cur, gain)
                    reached = best[comp.cells[local[todo]]] >= goal[todo] * (1 - 1e-9)
                    if not reached.any():
                        break
                    todo = todo[~reached]
        return best_up, best_down

    def _joint(self, comp: _Component, local: np.ndarray, goal: np.ndarray,
               sense: int) -> np.ndarray:
        n, r, q = len(comp.cells), len(comp.rows), len(local)
        a_eq = sp.hstack([comp.a_eq, sp.csr_matrix((r, q))], format="csr")
        pick = sp.csr_matrix((np.full(q, -float(sense)), (np.arange(q), local)), shape=(q, n))
        a_ub = sp.hstack([pick, sp.eye(q, format="csr")], format="csr")
        obj = np.r_[np.zeros(n), -np.ones(q)]
        bounds = np.vstack([np.column_stack([comp.lo, comp.hi]),
                            np.column_stack([np.full(q, -np.inf), goal])])
        self.n_lp += 1
        res = linprog(obj, A_ub=a_ub, b_ub=np.zeros(q), A_eq=a_eq, b_eq=np.zeros(r),
                      bounds=bounds, method="highs")
        if res.status != 0:
            raise RuntimeError(f"joint attacker LP failed: {res.message}")
        return np.asarray(res.x[:n], dtype=float)

    def interval(self, j: int) -> tuple[float, float]:
        """``(min y_j, max y_j)`` the intruder can derive."""
        a = self.values[j]
        up = self.solve(j, +1).value
        down = self.solve(j, -1).value
        return a - down, a + up


@dataclass
class AuditResult:
    """Per suppressed cell: ``lower``/``upper`` (the intruder's interval), the required
    ``upl``/``lpl``/``spl`` (effective), ``protected`` (primary cells: interval wide
    enough; other cells: True), ``recomputable`` (interval of width 0, up to rounding: the
    intruder computes the value exactly).
    ``passed`` is True when every primary cell is protected."""

    report: pd.DataFrame
    passed: bool
    n_lp: int
    seconds: float
    info: dict

    @property
    def unprotected(self) -> pd.DataFrame:
        return self.report[~self.report["protected"]]


def check_cell(value: float, lo: float, hi: float, upl: float, lpl: float,
               spl: float, rtol: float = 1e-6) -> bool:
    """Whether the interval ``[lo, hi]`` of a cell with true ``value`` meets the levels."""
    scale = rtol * max(1.0, abs(value), upl, lpl, spl)
    return bool(hi >= value + upl - scale and lo <= value - lpl + scale
                and hi - lo >= spl - scale)


def audit(table: Table, *, lower: float | np.ndarray | None = None,
          upper: float | np.ndarray | None = None, percent: float | None = None,
          min_width: float = MIN_WIDTH, which: str = "suppressed", mode: str = "auto",
          exact_limit: int = 3000, rtol: float = 1e-6) -> AuditResult:
    """Audit the table's suppression pattern (cells with status ``primary`` or
    ``secondary``): for every suppressed cell (``which="primary"``: primary cells only)
    the interval an intruder derives by linear programming from the published cells,
    the relations and the a priori bounds (:func:`intruder_bounds` with ``lower``,
    ``upper``, ``percent``), and whether each primary cell is protected
    (:func:`requirements`).

    ``mode="exact"``: two LPs per audited cell, the report's ``lower``/``upper`` are the
    exact interval. ``mode="certify"`` (for large patterns): joint LPs first find
    feasible values reaching every requirement (:meth:`AttackerModel.certify`); only the
    cells they do not certify get their two exact LPs. The verdicts are exact either
    way (a feasible value proves protection, an exact LP disproves it), but the interval
    of a certified cell is an inner bound of the true one (``exact`` column False: the
    intruder's interval is at least that wide). ``"auto"``: exact up to ``exact_limit``
    audited cells."""
    if which not in ("suppressed", "primary"):
        raise ValueError("which must be 'suppressed' or 'primary'")
    if mode not in ("auto", "exact", "certify"):
        raise ValueError("mode must be 'auto', 'exact' or 'certify'")
    start = time.perf_counter()
    lb, ub = intruder_bounds(table, lower, upper, percent)
    upl, lpl, spl, capped = requirements(table, lb, ub, min_width)
    status = table.status
    suppressed = table.suppressed
    a = table.values
    model = AttackerModel(table.relations, a, lb, ub, suppressed)
    # (the cells of a cover table that no linked table holds are unknown to the intruder
    # but need no protection of their own)
    hidden = suppressed & (status != "unpublished")
    targets = np.flatnonzero(hidden if which == "suppressed" else status == "primary")
    if mode == "auto":
        mode = "exact" if len(targets) <= exact_limit else "certify"
    is_exact = np.ones(len(targets), dtype=bool)
    lo = np.empty(len(targets))
    hi = np.empty(len(targets))
    if mode == "exact":
        for k, j in enumerate(targets):
            lo[k], hi[k] = model.interval(int(j))
    else:
        # secondary cells: certify that they are not recomputable (width >= min_width)
        goal_up = np.where(status == "primary", np.maximum(upl, spl - lpl),
                           np.minimum(min_width, ub - a))
        goal_down = np.where(status == "primary", lpl, 0.0)
        best_up, best_down = model.certify(targets, goal_up, goal_down)
        for k, j in enumerate(targets):
            j = int(j)
            lo[k], hi[k] = a[j] - best_down[j], a[j] + best_up[j]
            if model.forced[j]:
                continue
            ok = (check_cell(a[j], lo[k], hi[k], upl[j], lpl[j], spl[j], rtol)
                  if status[j] == "primary" else hi[k] - lo[k] >= min_width)
            if ok:
                is_exact[k] = False
            else:
                lo[k], hi[k] = model.interval(j)
    prim = status[targets] == "primary"
    protected = np.ones(len(targets), dtype=bool)
    for k in np.flatnonzero(prim):
        j = targets[k]
        protected[k] = check_cell(a[j], lo[k], hi[k], upl[j], lpl[j], spl[j], rtol)
    width = hi - lo
    report = table.cells.iloc[targets][table.dims + ["status", "value"]].reset_index()
    report = report.rename(columns={"index": "cell"})
    report["lower"] = lo
    report["upper"] = hi
    report["width"] = width
    report["exact"] = is_exact
    report["upl"] = upl[targets]
    report["lpl"] = lpl[targets]
    report["spl"] = spl[targets]
    report["capped"] = capped[targets]
    report["protected"] = protected
    zero = width <= rtol * np.maximum(1.0, np.abs(a[targets]))
    report["recomputable"] = zero
    seconds = time.perf_counter() - start
    info = {"mode": mode, "suppressed": int(hidden.sum()),
            "primary": int((status == "primary").sum()),
            "audited": len(targets), "unprotected": int((~protected).sum()),
            "recomputable": int(zero.sum()), "lp_solved": model.n_lp,
            "components": model.n_components, "largest_component": model.largest_component,
            "seconds": round(seconds, 3)}
    return AuditResult(report, bool(protected.all()), model.n_lp, seconds, info)
