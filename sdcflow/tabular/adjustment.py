"""Controlled tabular adjustment (CTA): publish every cell, sensitive ones included, but
with values changed so that each sensitive cell lies outside its protection interval
``(a - lpl, a + upl)`` and every subtotal and total is still the sum of its parts, with
the least weighted change ``sum_j w_j |y_j - a_j|``.

R. A. Dandekar and L. H. Cox, "Synthetic tabular data: an alternative to complementary
cell suppression", manuscript, Energy Information Administration, 2002; the mixed
integer formulation of J. Castro, "Minimum-distance controlled perturbation methods for
large-scale tabular data protection", *European Journal of Operational Research* 171(1),
39-52, 2006: deviations ``z = z+ - z-`` (both non-negative), for each sensitive cell a
binary ``d_i`` (1: it moves up, 0: down) with

    z+_i >= upl_i d_i,   z+_i <= u_i d_i,   z-_i >= lpl_i (1 - d_i),   z-_i <= l_i (1 - d_i),

``M z = 0`` (the relations), ``l_j``/``u_j`` the room of each cell below and above (the
published values stay within ``lower``/``upper``: by default non-negative cells stay
non-negative), minimum ``sum w_j (z+_j + z-_j)``. Solved with HiGHS
(``scipy.optimize.milp``); the directions found are then fixed and the deviations solved
again as a linear program, so that the protection holds to the LP's precision whatever
the MILP's integrality tolerance. An unbounded room (no upper bound) is capped at the
table's scale, the sum of its absolute values and protection levels: no cell moves by
more than that.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, milp

from .relations import checked_relations

__all__ = ["AdjustmentResult", "NoAdjustment", "controlled_adjustment"]


class NoAdjustment(ValueError):
    """No adjustment protects every sensitive cell within the bounds (or none was found
    within the time limit)."""


@dataclass
class AdjustmentResult:
    """The adjusted values, the direction each sensitive cell moved (+1 up, -1 down, 0
    for the other cells), the weighted change ``distance``, the plain change
    ``sum |y - a|`` and whether HiGHS proved the distance the least."""

    values: np.ndarray
    direction: np.ndarray
    distance: float
    change: float
    optimal: bool


def _levels(sensitive: np.ndarray, upl, lpl, n: int) -> tuple[np.ndarray, np.ndarray]:
    upl = np.broadcast_to(np.asarray(upl, dtype=float), (n,)).copy()
    lpl = np.broadcast_to(np.asarray(lpl, dtype=float), (n,)).copy()
    if np.any(upl[sensitive] < 0) or np.any(lpl[sensitive] < 0):
        raise ValueError("protection levels must not be negative")
    # a one-sided interval: just below it would tell the value, so both sides get it
    upl = np.where(upl > 0, upl, lpl)
    lpl = np.where(lpl > 0, lpl, upl)
    none = sensitive & (upl <= 0)
    if none.any():
        raise ValueError(f"{int(none.sum())} sensitive cells have no protection level "
                         f"(e.g. cell {int(np.flatnonzero(none)[0])}): give them one")
    return np.where(sensitive, upl, 0.0), np.where(sensitive, lpl, 0.0)


def controlled_adjustment(values: np.ndarray, relations: sp.spmatrix, sensitive: np.ndarray,
                          upl, lpl, *, weights: np.ndarray | None = None,
                          lower: np.ndarray | None = None, upper: np.ndarray | None = None,
                          fixed: np.ndarray | None = None, integer: bool = False,
                          time_limit: float | None = None) -> AdjustmentResult:
    """The least weighted adjustment of ``values`` (``relations @ values == 0``) moving
    every ``sensitive`` cell at least ``upl`` up or ``lpl`` down (per-cell arrays or
    scalars; a zero level takes the other side's), see the module docstring.

    ``weights``: per-cell costs of a unit of change (default 1; 0 for cells that are
    never published, as in the cover table of linked tables); ``lower``/``upper``:
    bounds on the published values (default: 0 below for non-negative cells, none
    above); ``fixed``: cells that must keep their value; ``integer``: whole-number
    changes (frequency tables; the levels are rounded up). Raises :class:`NoAdjustment`
    when no adjustment exists."""
    a = np.asarray(values, dtype=float)
    n = len(a)
    mat = checked_relations(a, relations)
    sens = np.asarray(sensitive, dtype=bool)
    upl, lpl = _levels(sens, upl, lpl, n)
    if integer:
        upl, lpl = np.ceil(upl - 1e-9), np.ceil(lpl - 1e-9)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != (n,) or np.any(~np.isfinite(w)) or np.any(w < 0):
        raise ValueError("weights must be non-negative and finite, one per cell")
    lb = np.where(a >= 0, 0.0, -np.inf) if lower is None else np.asarray(lower, dtype=float)
    ub = np.full(n, np.inf) if upper is None else np.asarray(upper, dtype=float)
    up_room = np.maximum(ub - a, 0.0)
    down_room = np.maximum(a - lb, 0.0)
    if fixed is not None:
        keep = np.asarray(fixed, dtype=bool) & ~sens
        up_room[keep] = down_room[keep] = 0.0
    big = float(np.abs(a).sum() + upl.sum() + lpl.sum() + 1.0)
    up_cap, down_cap = np.minimum(up_room, big), np.minimum(down_room, big)
    idx = np.flatnonzero(sens)
    can_up, can_down = upl[idx] <= up_room[idx], lpl[idx] <= down_room[idx]
    stuck = ~can_up & ~can_down
    if stuck.any():
        raise NoAdjustment(f"{int(stuck.sum())} sensitive cells can move neither up nor "
                           "down by their protection level within the bounds (e.g. cell "
                           f"{int(idx[stuck][0])})")
    k = len(idx)
    # variables: z+ (n), z- (n), d (k)
    cost = np.r_[w, w, np.zeros(k)]
    lo = np.r_[np.zeros(2 * n), np.where(can_down, 0.0, 1.0)]
    hi = np.r_[up_cap, down_cap, np.where(can_up, 1.0, 0.0)]
    eye = sp.identity(n, format="csr")
    constraints = []
    if mat.shape[0]:
        constraints.append(LinearConstraint(sp.hstack([mat, -mat, sp.csr_matrix((
            mat.shape[0], k))]).tocsr(), 0.0, 0.0))
    if k:
        pick = eye[idx]
        gate = sp.csr_matrix((k, 2 * n))
        rows = sp.vstack([
            sp.hstack([pick, gate[:, n:], -sp.diags(up_cap[idx])]),     # z+ <= u d
            sp.hstack([pick, gate[:, n:], -sp.diags(upl[idx])]),        # z+ >= upl d
            sp.hstack([gate[:, :n], pick, sp.diags(down_cap[idx])]),    # z- <= l (1 - d)
            sp.hstack([gate[:, :n], pick, sp.diags(lpl[idx])]),         # z- >= lpl (1 - d)
        ]).tocsr()
        lo_rows = np.r_[np.full(k, -np.inf), np.zeros(k), np.full(k, -np.inf), lpl[idx]]
        hi_rows = np.r_[np.zeros(k), np.full(k, np.inf), down_cap[idx], np.full(k, np.inf)]
        constraints.append(LinearConstraint(rows, lo_rows, hi_rows))
    integrality = np.r_[np.full(2 * n, 1 if integer else 0), np.ones(k)]
    options: dict = {"disp": False, "mip_rel_gap": 1e-9}
    if time_limit is not None:
        options["time_limit"] = float(time_limit)
    res = milp(cost, integrality=integrality, bounds=Bounds(lo, hi), constraints=constraints,
               options=options)
    if res.x is None:
        if res.status == 2:
            raise NoAdjustment("no adjustment moves every sensitive cell out of its "
                               "protection interval while keeping the totals additive "
                               "within the bounds")
        raise NoAdjustment(f"no adjustment found ({res.message.strip()}): give more time")
    up = res.x[2 * n:] > 0.5
    # the directions fixed, the deviations again (exact protection, see the docstring)
    lo[2 * n:] = hi[2 * n:] = up.astype(float)
    again = milp(cost, integrality=integrality, bounds=Bounds(lo, hi),
                 constraints=constraints, options={"disp": False, "mip_rel_gap": 1e-9})
    x = again.x if again.x is not None else res.x
    z = x[:n] - x[n:2 * n]
    if integer:
        z = np.rint(z)
    adjusted = a + z
    direction = np.zeros(n, dtype=np.int8)
    direction[idx] = np.where(up, 1, -1)
    return AdjustmentResult(adjusted, direction, float((w * np.abs(z)).sum()),
                            float(np.abs(z).sum()), bool(res.status == 0))
