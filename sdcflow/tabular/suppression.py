"""What the two secondary suppression methods (:mod:`sdcflow.tabular.optimal`,
:mod:`sdcflow.tabular.hypercube`) share: the cost of suppressing a cell, the intruder's
bounds and the protection each cell needs, and the result with its final audit."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..data.text import text_column
from .audit import AuditResult, audit, intruder_bounds, requirements
from .table import Table

__all__ = ["SuppressionResult", "cell_costs"]


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


def setup(table: Table, cost, margin_cost: float, lower, upper, percent, min_width: float):
    """What both methods start from: the intruder's bounds ``lb``, ``ub``; the protection
    each cell needs (up, down, sliding); the room each cell gives upwards and downwards
    (infinite without a bound); the primary cells; the cell costs."""
    a = table.values
    lb, ub = intruder_bounds(table, lower, upper, percent)
    upl, lpl, spl, _ = requirements(table, lb, ub, min_width)
    primary = np.flatnonzero(table.status == "primary")
    return (lb, ub, upl, lpl, spl, ub - a, a - lb, primary,
            cell_costs(table, cost, margin_cost))


def finish(table: Table, pattern: np.ndarray, costs: np.ndarray, method: str,
           start: float, extra: dict, lower, upper, percent, min_width) -> SuppressionResult:
    """The table with the pattern's new cells marked ``secondary``, its audit (with the
    same a priori bounds) and the method's ``info`` with the counts and the cost."""
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
            "suppressed": int((pattern & (status != "unpublished")).sum()),
            "cost": float(costs[secondary].sum()),
            "seconds": round(seconds, 3), **extra,
            "audit_passed": report.passed, "audit_seconds": round(report.seconds, 3)}
    return SuppressionResult(out, report, info)

