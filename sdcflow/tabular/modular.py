"""Optimal secondary suppression subtable by subtable, for large hierarchical tables: the
modular approach of de Wolf (2002, "HiTaS: a heuristic approach to cell suppression in
hierarchical tables", *Inference Control in Statistical Databases*, LNCS 2316,
Springer), as tau-Argus' "Modular" method does it.

A hierarchical table is covered by non-hierarchical subtables (in every dimension one
subtotal, or the total, with its direct children). They are protected one after the
other, the higher levels first (their subtotals are the totals of the lower ones), each
by the minimum-cost search of :mod:`sdcflow.tabular.optimal` on its own cells and
relations. A cell suppressed in a subtable stays suppressed in the later ones that hold
it, as a primary cell that must not be recomputable there (otherwise the lower subtable
would give away what the higher one hid). A lower subtable may also suppress its own
total, a cell of a higher subtable already done (HiTaS then goes back to that subtable);
here the final audit and repair of the whole table take care of it. Each search
is small (a subtable of a 20,000-cell 3-D table has a few thousand cells at most), so
large tables take minutes instead of hours.

Each subtable's search is given at most :data:`SUBTABLE_SECONDS` (and its share of a
time limit); one cut short contributes the cheapest protecting pattern it met
(``info["subtables_optimal"]`` counts those searched to the end). The subtables'
patterns are not a minimum-cost pattern of the whole table, and a subtable's
protection is not the whole table's: the union is audited on the whole
table and every primary cell still unprotected is repaired with its capacity cuts
(:func:`~sdcflow.tabular.cuts.repair`), so the result passes the audit.
"""

from __future__ import annotations

import time

import numpy as np

from ..data.text import text_column
from .audit import requirements
from .cuts import drop_lonely, repair
from .hierarchy import Dimension, relations
from .optimal import optimal_pattern
from .table import Table

__all__ = ["SUBTABLE_SECONDS", "modular_pattern", "subtables"]

#: the longest search of one subtable (seconds); a 3-D subtable of 13 x 13 x 13 cells
#: usually needs 5 to 20, but the cut loop can creep for many minutes when cheap empty
#: cells (which can only move upwards) keep offering patterns that do not protect
SUBTABLE_SECONDS = 30.0


def _group(dim: Dimension, parent: int) -> tuple[np.ndarray, Dimension]:
    """The codes of one group of ``dim`` (the children of ``parent``, then ``parent``)
    and the two-level dimension they make."""
    members = np.r_[dim.children(parent), parent].astype(np.int64)
    k = len(members)
    sub = Dimension(dim.name, tuple(dim.codes[m] for m in members),
                    np.r_[np.full(k - 1, k - 1), -1].astype(np.int64),
                    np.r_[np.ones(k - 1), 0].astype(np.int64),
                    np.r_[np.zeros(k - 1), 1].astype(np.int64))
    return members, sub


def subtables(table: Table) -> list[tuple[np.ndarray, tuple[Dimension, ...]]]:
    """Every non-hierarchical subtable of ``table``: its cells (ids in the table, in the
    subtable's own C order) and its dimensions, higher levels first (then in the order
    of the groups)."""
    groups = []
    for dim in table.dimensions:
        inner = np.flatnonzero(~dim.is_leaf)
        groups.append([(int(dim.depth[p]), *_group(dim, int(p))) for p in inner])
    out = []
    for combo in np.ndindex(*[len(g) for g in groups]):
        parts = [groups[d][k] for d, k in enumerate(combo)]
        level = sum(p[0] for p in parts)
        grid = np.meshgrid(*[p[1] for p in parts], indexing="ij")
        ids = np.ravel_multi_index([g.ravel() for g in grid], table.shape)
        out.append((level, combo, ids, tuple(p[2] for p in parts)))
    out.sort(key=lambda s: (s[0], s[1]))
    return [(ids, dims) for _, _, ids, dims in out]


def _subtable(table: Table, ids: np.ndarray, dims: tuple[Dimension, ...],
              pattern: np.ndarray) -> Table:
    """The subtable of cells ``ids``: the table's primary cells keep their levels; cells
    already suppressed (by a higher subtable) are primary with no level but the minimal
    width: they must not be recomputable here."""
    cells = table.cells.iloc[ids].reset_index(drop=True)
    status = table.status[ids]
    inherited = pattern[ids] & (status != "primary")
    for col in ("upl", "lpl", "spl"):
        vals = cells[col].to_numpy(dtype=float) if col in cells else np.zeros(len(ids))
        cells[col] = np.where(inherited, 0.0, vals)
    cells["status"] = text_column(np.where(inherited, "primary", status), index=cells.index)
    return Table(cells, relations(dims), dims, table.top, table.response, table.weight)


def modular_pattern(table: Table, costs: np.ndarray, lb: np.ndarray, ub: np.ndarray,
                    min_width: float, *, tie_break: bool = True,
                    deadline: float | None = None, mip_rel_gap: float = 1e-6,
                    max_rounds: int = 500) -> tuple[np.ndarray, dict]:
    """The pattern of the modular approach (see the module docstring) and its ``info``
    (``optimal`` False: minimum cost per subtable, not over the whole table)."""
    pattern = table.suppressed.copy()
    subs = subtables(table)
    # subtables with primary cells now (those suppressed above may add a few later)
    todo = sum(bool((table.status[ids] == "primary").any()) for ids, _ in subs)
    solved = searched_optimal = 0
    t0 = time.perf_counter()
    for ids, dims in subs:
        sub = _subtable(table, ids, dims, pattern)
        primary = np.flatnonzero(sub.status == "primary")
        if len(primary) == 0:
            continue
        # each search gets its share of the time left, at most SUBTABLE_SECONDS: a
        # subtable whose cut loop converges slowly keeps its cheapest protecting pattern
        now = time.perf_counter()
        share = SUBTABLE_SECONDS
        if deadline is not None:
            share = min(share, max(deadline - now, 0.0) / max(todo - solved, 1))
        s_lb, s_ub = lb[ids], ub[ids]
        upl, lpl, spl, _ = requirements(sub, s_lb, s_ub, min_width)
        a = sub.values
        got, info = optimal_pattern(sub, costs[ids], s_lb, s_ub, upl, lpl, spl, s_ub - a,
                                    a - s_lb, primary, tie_break=tie_break,
                                    deadline=now + share, mip_rel_gap=mip_rel_gap,
                                    max_rounds=max_rounds)
        pattern[ids] |= got
        solved += 1
        searched_optimal += bool(info["optimal"])
    subtable_seconds = time.perf_counter() - t0
    # the whole table: audit the union, repair what the subtables left unprotected
    t0 = time.perf_counter()
    prim = np.flatnonzero(table.status == "primary")
    upl, lpl, spl, _ = requirements(table, lb, ub, min_width)
    a = table.values
    pattern, rep = repair(table, pattern, prim, lb, ub, upl, lpl, spl, ub - a, a - lb, costs)
    pattern = drop_lonely(table.relations, pattern, table.suppressed)
    return pattern, {"optimal": False, "decomposed": True, "subtables": len(subs),
                     "subtables_searched": solved,
                     "subtables_optimal": searched_optimal,
                     "subtable_seconds": round(subtable_seconds, 3),
                     "repair_seconds": round(time.perf_counter() - t0, 3), **rep}
