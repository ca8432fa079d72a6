"""Rounding (Torra, "Masking methods", 2013, "Rounding"): every value is replaced by the
rounding point whose set of attraction contains it.

Torra (2013) takes the points ``p_i = b i`` and the attraction set of ``p_i`` as the half-open
interval ``[p_i - b/2, p_i + b/2)``: a value is replaced by the nearest point, and a value
exactly half-way between two points goes to the upper one (towards +infinity, also for
negative values). With an explicit rounding set ``p_1 < ... < p_r`` the same rule holds
(the nearest point, ties upwards); values below ``p_1`` go to ``p_1`` and above ``p_r`` to
``p_r``, as Torra's (2013) first and last attraction sets ``[0, p_1 + b/2)`` and
``[p_r - b/2, V_max]``.
"""

from __future__ import annotations

from decimal import Decimal

import numpy as np

# A value less than this many bases (plus the rounding error of x / b) below a half-way
# point counts as half-way: in binary floating point 0.35 / 0.1 is 3.4999999999999996,
# and 0.35 is meant to be a tie.
_TIE_TOL = 1e-9
_EPS = np.finfo(float).eps


def decimals(number: float) -> int:
    """Decimal places of ``number`` as written (0.25 -> 2, 5 -> 0, 1e-3 -> 3)."""
    exponent = Decimal(repr(float(number))).normalize().as_tuple().exponent
    return max(0, -int(exponent))


def round_to_base(x: np.ndarray, base: float) -> np.ndarray:
    """Each value replaced by the nearest multiple of ``base`` (> 0), ties upwards.

    The multiples are all of ``b i`` for integer ``i`` (zero and negative ones included),
    and the result is ``b i`` rounded to the decimals of ``b`` so that ``3 x 0.1`` is
    ``0.3``, not ``0.30000000000000004``. Missing values stay missing."""
    if not base > 0:
        raise ValueError(f"the rounding base must be positive, not {base!r}")
    x = np.asarray(x, dtype=float)
    q = x / base
    i = np.floor(q + 0.5 + (_TIE_TOL + 16 * _EPS * np.abs(q)))
    return np.round(i * base, decimals(base))


def round_to_points(x: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Each value replaced by the nearest of ``points`` (strictly increasing), a value
    half-way between two points by the upper one. Missing values stay missing."""
    points = np.asarray(points, dtype=float)
    if points.ndim != 1 or len(points) == 0 or np.any(np.diff(points) <= 0):
        raise ValueError("the rounding points must be a non-empty, strictly increasing list")
    x = np.asarray(x, dtype=float)
    if len(points) == 1:
        out = np.full(x.shape, points[0])
    else:
        # points[upper - 1] <= x < points[upper], clipped to the first and last interval
        upper = np.clip(np.searchsorted(points, x, side="right"), 1, len(points) - 1)
        lo, hi = points[upper - 1], points[upper]
        with np.errstate(invalid="ignore"):
            out = np.where(x >= (lo + hi) / 2, hi, lo)
    out[np.isnan(x)] = np.nan
    return out


# rows of a block of the multivariate search: the block's distances to the points stay
# at about 4 million doubles
_CELLS = 1 << 22


def round_to_vectors(x: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Multivariate rounding: each record (a row of ``x``, ``n x p``) replaced by the
    nearest of the rounding points (rows of ``points``, ``r x p``) in Euclidean distance,
    i.e. by the point whose set of attraction (its Voronoi cell) contains it
    (Willenborg & de Waal, "Elements of Statistical Disclosure Control", 2001, rounding
    of several variables at once). A tie goes to the first point in ``points``. A record
    with missing values is rounded on its observed variables (the distance over them) and
    keeps its missing values; a record with none observed is left as it is."""
    x = np.asarray(x, dtype=float)
    points = np.asarray(points, dtype=float)
    if points.ndim != 2 or len(points) == 0 or points.shape[1] != x.shape[1]:
        raise ValueError("the rounding points must be a non-empty list of vectors with one "
                         "value per variable")
    out = x.copy()
    observed = ~np.isnan(x)
    # distances in units of the largest magnitude: squares of values near the float limit
    # would overflow, and the nearest point does not depend on the unit
    scale = max(float(np.abs(points).max()),
                float(np.abs(x[observed]).max()) if observed.any() else 0.0) or 1.0
    step = max(1, _CELLS // points.size)
    for start in range(0, len(x), step):
        block = x[start:start + step] / scale
        seen = observed[start:start + step]
        diff = np.where(seen[:, None, :], block[:, None, :] - points[None, :, :] / scale,
                        0.0)
        nearest = np.argmin(np.einsum("irp,irp->ir", diff, diff), axis=1)
        rounded = points[nearest]
        out[start:start + step] = np.where(seen, rounded, np.nan)
    return out
