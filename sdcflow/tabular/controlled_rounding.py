"""Controlled rounding of a table: every cell replaced by one of the two multiples of a
base ``b`` next to it (a cell that already is a multiple stays: *zero-restricted*), so
that every additive relation of the table (each subtotal and total the sum of its
parts) still holds, with the least total change ``sum |y - a|``.

Solved exactly as a 0-1 program, as in J.-J. Salazar-González, P. Lowthian, C. Young,
G. Merola, S. Bond and D. Brown, "Getting the best results in controlled rounding with
the least effort", *Privacy in Statistical Databases*, LNCS 3050, 2004, and
J.-J. Salazar-González, C. Bycroft and A. T. Staggemeier, "Controlled rounding
implementation", Joint UNECE/Eurostat work session on statistical data confidentiality,
Geneva, 2005 (tau-Argus' rounder). Writing each value
``a_j = b q_j + r_j`` (``0 <= r_j < b``), the rounded value is ``y_j = b (q_j + x_j)``
with ``x_j`` binary (1: rounded up) for the cells with ``r_j > 0`` and ``y_j = a_j`` for
the multiples; the relations ``M y = 0`` become ``M x = -M q`` (integers), and the
change is ``sum_j r_j + (b - 2 r_j) x_j``. HiGHS (``scipy.optimize.milp``) solves it.

Two-dimensional tables without subtotals always have a zero-restricted controlled
rounding (Bacharach 1966, "Matrix rounding problems", *Management Science* 12(9); Cox &
Ernst 1982, "Controlled rounding", *INFOR* 20(4), 423-432); tables of three or more
dimensions may have none (Causey, Cox & Ernst 1985, "Applications of transportation
theory to statistical problems", *Journal of the American Statistical Association*
80(392)), and so may two-dimensional tables with subtotals in both dimensions (a
4 x 4 example is in the tests), which :class:`NoControlledRounding` reports.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, milp

from .relations import checked_relations

__all__ = ["NoControlledRounding", "RoundingResult", "controlled_rounding", "rounding_base"]


class NoControlledRounding(ValueError):
    """The table has no zero-restricted controlled rounding to the base (or none was
    found within the time limit)."""


@dataclass
class RoundingResult:
    """The rounded values, which cells went up (``up``) or down (``down``), the total
    change ``distance = sum |y - a|`` and whether HiGHS proved it the least."""

    values: np.ndarray
    up: np.ndarray
    down: np.ndarray
    distance: float
    optimal: bool


def rounding_base(values: np.ndarray, base: float) -> tuple[np.ndarray, np.ndarray]:
    """Each value's multiple of ``base`` below it (``q``, in units of the base) and
    whether it lies strictly between two multiples (``free``). Values within a relative
    1e-9 of a multiple count as that multiple (sums of decimal values are not exact)."""
    ratio = np.asarray(values, dtype=float) / base
    near = np.rint(ratio)
    on = np.abs(ratio - near) <= 1e-9 * np.maximum(1.0, np.abs(ratio))
    q = np.where(on, near, np.floor(ratio))
    return q, ~on


def controlled_rounding(values: np.ndarray, relations: sp.spmatrix, base: float, *,
                        exempt: np.ndarray | None = None,
                        time_limit: float | None = None) -> RoundingResult:
    """The zero-restricted controlled rounding of the cells ``values`` (satisfying
    ``relations @ values == 0``) to multiples of ``base`` with the least total change
    (see the module docstring). Raises :class:`NoControlledRounding` when there is none
    (possible with three or more dimensions or with subtotals) or none was found in
    ``time_limit`` seconds.

    ``exempt``: cells that are never published (the cover table of linked tables,
    :mod:`sdcflow.tabular.linked`): any non-negative value (any value for negative
    cells) that keeps the relations, not counted in the change, not in ``up``/``down``."""
    a = np.asarray(values, dtype=float)
    n = len(a)
    if not (isinstance(base, (int, float)) and math.isfinite(base) and base > 0):
        raise ValueError("the rounding base must be a positive number")
    mat = checked_relations(a, relations)
    exempt = np.zeros(n, dtype=bool) if exempt is None else np.asarray(exempt, dtype=bool)
    q, free = rounding_base(a, base)
    free &= ~exempt
    residue = np.where(free, a - base * q, 0.0)
    # in units of the base: y = q + x (free cells), q (multiples), u (exempt cells)
    whole = np.rint(-(mat @ np.where(exempt, 0.0, q)))
    idx, ex = np.flatnonzero(free), np.flatnonzero(exempt)
    sub = sp.hstack([mat[:, idx], mat[:, ex]]).tocsr()
    touched = np.diff(sub.indptr) > 0
    # relations among multiples only hold already (the table adds up); the others bind
    if np.any(~touched & (whole != 0)):
        raise ValueError("the table's cells do not add up to its totals")
    up = np.zeros(n, dtype=bool)
    level = np.where(exempt, a / base, 0.0)
    optimal = True
    if len(idx) or len(ex):
        cost = np.r_[base - 2.0 * residue[idx], np.zeros(len(ex))]
        options: dict = {"disp": False, "mip_rel_gap": 0.0}
        if time_limit is not None:
            options["time_limit"] = float(time_limit)
        constraints = []
        if touched.any():
            rows = sub[touched]
            constraints.append(LinearConstraint(rows, whole[touched], whole[touched]))
        low = np.r_[np.zeros(len(idx)), np.where(a[ex] >= 0, 0.0, -np.inf)]
        high = np.r_[np.ones(len(idx)), np.full(len(ex), np.inf)]
        res = milp(cost, integrality=np.r_[np.ones(len(idx)), np.zeros(len(ex))],
                   bounds=Bounds(low, high), constraints=constraints, options=options)
        if res.x is None:
            if res.status == 2:
                raise NoControlledRounding(
                    f"the table has no controlled rounding to base {base:g}: no choice of "
                    "rounding every cell up or down keeps all its totals additive (possible "
                    "in tables of three or more dimensions or with subtotals); try another "
                    "base")
            raise NoControlledRounding(f"no controlled rounding to base {base:g} found "
                                       f"({res.message.strip()}): give more time")
        up[idx] = res.x[:len(idx)] > 0.5
        level[ex] = res.x[len(idx):]
        optimal = res.status == 0
    rounded = np.where(exempt, base * level, base * (q + up))
    down = free & ~up
    change = np.abs(rounded - a)[~exempt].sum()
    return RoundingResult(rounded, up, down, float(change), optimal)
