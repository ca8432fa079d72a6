"""Camouflage: each confidential value hidden in an interval that contains it, and
answers to queries given as intervals that are guaranteed to contain the exact answer
(Gopal, Garfinkel & Goes, "Confidentiality via camouflage: the CVC approach to
disclosure limitation when answering queries to databases", Operations Research 50(3),
2002; the interval realisation of Garfinkel, Gopal & Rice, "New approaches to disclosure
limitation while answering queries to a database: protecting numerical confidential data
against insider threat based on data or algorithms", HICSS 2006).

The camouflage set is the set of vectors ``y`` the intruder cannot tell from the true
vector ``x``: here the box ``lo <= y <= hi`` of the released intervals, intersected with
the linear facts published besides (optionally the exact total ``sum(y) = sum(x)``). A
query ``f`` is answered by ``[min f(y), max f(y)]`` over the camouflage set; for the sum
or the mean over a subset of records ``f`` is linear and the bounds are two linear
programmes (solved with HiGHS). ``x`` lies in the set, so the answer always contains the
exact one. No probabilistic assumption is made; the information lost is the width of
the answers.

Intervals: the value ``x_i`` has an interval of width ``w_i`` in which it sits at a
uniformly random relative position ``u_i``: ``lo_i = x_i - u_i w_i``,
``hi_i = x_i + (1 - u_i) w_i`` (so the midpoint does not give the value away), with a
width that does not depend on the value (:func:`camouflage_intervals`); or, relative to
the value, ``[x_i - a_i |x_i|, x_i + b_i |x_i|]`` with ``a_i`` and ``b_i`` drawn
independently from U(0, c) (:func:`relative_intervals`, the multiplicative intervals of
Garfinkel, Gopal & Rice). A width proportional to ``|x_i|`` with a random position only
would give the value away: ``|x_i| = (hi_i - lo_i) / c``.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog

STATISTICS = ("sum", "mean")
# relative widening of a query's answer beyond the solver's optimum (query_interval)
_SLACK = 1e-9
_TOLERANCES = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


def camouflage_intervals(x: np.ndarray, widths: np.ndarray, rng: np.random.Generator
                         ) -> tuple[np.ndarray, np.ndarray]:
    """The intervals ``[lo, hi]`` of the values ``x`` (1-d; NaN stays NaN) with widths
    ``widths`` (>= 0, same shape), each value at a uniform random position ``u`` drawn
    with ``rng.random`` (module docstring): ``lo <= x <= hi`` always."""
    x = np.asarray(x, dtype=float)
    w = np.asarray(widths, dtype=float)
    u = rng.random(x.shape)
    lo = x - u * w
    hi = x + (1 - u) * w
    return lo, hi


def relative_intervals(x: np.ndarray, c: float, rng: np.random.Generator
                       ) -> tuple[np.ndarray, np.ndarray]:
    """The intervals ``[x - a |x|, x + b |x|]`` of the values ``x`` (1-d; NaN stays NaN),
    ``a`` and ``b`` drawn independently from U(0, ``c``) (``c * rng.random`` for ``a``,
    then for ``b``): on average ``c |x|`` wide, ``lo <= x <= hi`` always, and neither the
    width nor the position determines ``x``; a zero keeps the interval [0, 0]."""
    x = np.asarray(x, dtype=float)
    a = c * rng.random(x.shape)
    b = c * rng.random(x.shape)
    return x - a * np.abs(x), x + b * np.abs(x)


def interval_widths(lo: np.ndarray, hi: np.ndarray, x: np.ndarray) -> dict:
    """A measure of the intervals of the values ``x`` (records with a missing value or
    interval left out): their number, mean width, mean and median width relative to
    ``|x|`` (over ``x != 0``; ``None`` when there is none), and how many contain their
    value (all of them for camouflage)."""
    lo, hi, x = (np.asarray(a, dtype=float) for a in (lo, hi, x))
    ok = ~(np.isnan(lo) | np.isnan(hi) | np.isnan(x))
    lo, hi, x = lo[ok], hi[ok], x[ok]
    width = hi - lo
    nonzero = x != 0
    relative = width[nonzero] / np.abs(x[nonzero])
    return {"records": len(x),
            "mean_width": float(width.mean()) if len(x) else None,
            "mean_relative_width": float(relative.mean()) if len(relative) else None,
            "median_relative_width": float(np.median(relative)) if len(relative) else None,
            "contained": int(((lo <= x) & (x <= hi)).sum())}


def query_interval(lo: np.ndarray, hi: np.ndarray, selected: np.ndarray, *,
                   statistic: str = "sum", total: float | None = None
                   ) -> tuple[float, float]:
    """The answer ``[min f(y), max f(y)]`` to the query ``f`` = the ``statistic`` (sum or
    mean) of the selected records (boolean mask ``selected``) over the camouflage set
    ``{y : lo <= y <= hi}`` and, with ``total``, ``sum(y) = total`` (module docstring).
    Records whose interval is missing are left out (of the query and of the total's
    records). Solved as two linear programmes with HiGHS (``scipy.optimize.linprog``);
    the bounds are then moved outwards by ``1e-9`` of the magnitude of the answer, above
    the solver's tolerances (1e-10), so that the exact answer is always inside."""
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    known = ~(np.isnan(lo) | np.isnan(hi))
    chosen = np.asarray(selected, dtype=bool) & known
    count = int(chosen.sum())
    if statistic not in STATISTICS:
        raise ValueError(f"unknown statistic {statistic!r}: one of {', '.join(STATISTICS)}")
    if count == 0:
        raise ValueError("the query selects no record with an interval")
    # without a total the records outside the query do not constrain it: leave them out
    records = known if total is not None else chosen
    c = chosen[records].astype(float) / (count if statistic == "mean" else 1.0)
    bounds = np.column_stack([lo[records], hi[records]])
    equality = {} if total is None else {"A_eq": np.ones((1, len(c))), "b_eq": [total]}
    answers = []
    for sign in (1.0, -1.0):
        result = linprog(sign * c, bounds=bounds, method="highs", options=_TOLERANCES,
                         **equality)
        if result.status != 0:
            raise ValueError(f"the camouflage set is empty or the query unbounded: "
                             f"{result.message}")
        answers.append(sign * result.fun)
    # widened by a tiny fraction of the magnitudes involved, so that the solver's
    # tolerances cannot leave the exact answer outside
    magnitude = float(np.abs(bounds).max(axis=1) @ np.abs(c))
    if total is not None:
        magnitude = max(magnitude, abs(total) * float(np.abs(c).max()))
    slack = _SLACK * max(magnitude, np.finfo(float).tiny)
    return float(answers[0] - slack), float(answers[1] + slack)
