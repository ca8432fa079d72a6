"""Capacity cuts of the cell suppression problem and the repair of a pattern from them
(Fischetti & Salazar-Gonzalez 2001, "Solving the cell suppression problem on tabular data
with linear constraints", *Management Science* 47(7), 1008-1027).

A pattern leaves a primary cell ``i`` too narrow an interval when the attacker LP
``max z_i`` (or ``max -z_i``, or their sum) stays below the required level. LP duality
turns the optimal duals ``y`` of that LP into the inequality ``sum_j c_j x_j >= level``
over the suppression variables ``x`` with ``c_j = d_j+ (ub_j - a_j) + d_j- (a_j - lb_j)``,
``d = M' y + e_i``: every dual solution bounds ``max z_i`` for *every* pattern, so every
protecting pattern satisfies the cut, and the current pattern violates it. The optimal
method adds these cuts to its master problem; the hypercube method's repair step adds
the cheapest cells of a violated cut until it holds."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.optimize import LinearConstraint

from .audit import AttackerModel, check_cell
from .table import Table


def capacity_cut(d: np.ndarray, up_room: np.ndarray, down_room: np.ndarray,
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


def sliding_cut(d_up: np.ndarray, d_down: np.ndarray, up_room: np.ndarray,
                down_room: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """The cut on the width of a cell's interval (width = max z_i + max -z_i): the sum of
    both directions' capacity coefficients, capped at ``level``."""
    total = np.zeros(len(d_up))
    for d in (d_up, d_down):
        k, c = capacity_cut(d, up_room, down_room, np.inf)
        total[k] += c
    total = np.minimum(total, level)
    keep = np.flatnonzero(total > 1e-9 * max(level, 1.0))
    return keep, total[keep]


def dual_vector(relations_t: sp.csr_matrix, sol, j: int, sense: int, n: int) -> np.ndarray:
    """``d = M' y + sense e_j`` over all cells from an attacker LP's duals."""
    d = np.zeros(n)
    rows_t = relations_t[:, sol.rows]
    d += rows_t @ sol.duals
    d[j] += sense
    return d


class Cuts:
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


def no_lonely_cells(relations: sp.csr_matrix, free: np.ndarray) -> LinearConstraint:
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


def row_cuts(table: Table, primary: np.ndarray, upl, lpl, spl, up_room, down_room,
             cuts: Cuts) -> None:
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
                    k, c = capacity_cut(d, up, down, level)
                    cuts.add(cols[k], c, level)
            if spl[i] > 0:
                k, c = sliding_cut(d_up, -d_up, up, down, spl[i])
                cuts.add(cols[k], c, spl[i])


def find_violations(table: Table, pattern: np.ndarray, primary: np.ndarray, lb, ub, upl,
                    lpl, spl, rtol: float = 1e-6):
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
                dvec[sense] = dual_vector(rel_t, sol, i, sense, n)
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


def cut_from(violation, up_room, down_room, pattern, table: Table, model: AttackerModel):
    """The capacity cut of a violation as (ids, coefficients, level), falling back on the
    combinatorial cut when the dual cut is not violated by the current pattern."""
    i, kind, level, d1, d2 = violation
    if kind == "slide":
        if d1 is None or d2 is None:
            idx, coef = np.zeros(0, dtype=np.int64), np.zeros(0)
        else:
            idx, coef = sliding_cut(d1, d2, up_room, down_room, level)
    elif d1 is None:
        idx, coef = np.zeros(0, dtype=np.int64), np.zeros(0)
    else:
        idx, coef = capacity_cut(d1, up_room, down_room, level)
    lhs = float(coef[pattern[idx]].sum()) if len(idx) else 0.0
    if len(idx) and lhs < level * (1 - 1e-7):
        return idx, coef, level
    # combinatorial cut: one more cell among those sharing a relation with the component
    rows = model.component_rows(i)
    cells = np.unique(table.relations[rows].indices)
    cells = cells[~pattern[cells]]
    return cells, np.ones(len(cells)), 1.0


def repair(table: Table, pattern: np.ndarray, primary: np.ndarray, lb, ub, upl, lpl, spl,
           up_room, down_room, costs, *, pool: Cuts | None = None,
           first: tuple | None = None) -> tuple[np.ndarray, dict]:
    """Add cells until every primary passes its attacker LPs: for each violated
    requirement, the unsuppressed cells of its capacity cut by increasing
    ``cost / coefficient`` (ties: cell order) until the cut holds; repeat.

    ``pool``: the cut of every violation met on the way is added to it (each is valid
    for every pattern: the optimal method's master learns them all at once). ``first``: the
    ``(violations, model)`` of ``pattern`` when already known."""
    pattern = pattern.copy()
    added = 0
    n_lp = 0
    rounds = 0
    todo = [int(i) for i in primary]
    while todo:
        rounds += 1
        if first is not None:
            (violations, model), first = first, None
        else:
            violations, model, lps = find_violations(table, pattern, np.asarray(todo), lb,
                                                     ub, upl, lpl, spl)
            n_lp += lps
        if not violations:
            break
        todo = sorted({v[0] for v in violations})
        if pool is not None:
            # the cuts of the pattern the LPs saw: once cells are added for one violation
            # the combinatorial fallback of the next would no longer be valid
            for v in violations:
                pool.add(*cut_from(v, up_room, down_room, pattern, table, model))
        for v in violations:
            idx, coef, level = cut_from(v, up_room, down_room, pattern, table, model)
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


def drop_lonely(relations: sp.csr_matrix, pattern: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """``pattern`` without the cells (outside ``keep``) suppressed alone in a relation,
    repeatedly: such a cell is recomputed from its relation, so publishing it changes no
    interval of the intruder, and a protecting pattern stays protecting, at lower cost."""
    absm = abs(relations).tocsr()
    absm.data[:] = 1.0
    pattern = pattern.copy()
    while True:
        single = np.flatnonzero(np.rint(absm @ pattern.astype(float)) == 1)
        sub = absm[single]
        hit = np.zeros(len(pattern), dtype=bool)
        hit[sub.indices[pattern[sub.indices]]] = True
        hit &= ~keep
        if not hit.any():
            return pattern
        pattern &= ~hit
