"""Bounds on what one parameter may make a step allocate or compute, and on magnitudes
that keep its arithmetic finite.

A parameter such as ``width: 1e-300`` on a recode (10^300 intervals) or ``t: 10**9``
bootstrap samples would exhaust memory or time long after validation said the recipe was
fine; ``k: 1e308`` on noise makes every value infinite. Plugins compare what their
parameters imply (the count of intervals, of random draws, of array cells) with these
limits in ``check`` or ``check_data`` and refuse, at the parameter's position, with the
count and the limit; static bounds live in their JSON Schemas.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["FLOAT_MAX", "MAX_CELLS", "MAX_COMBINATIONS", "MAX_DISTANCES", "MAX_DRAWS",
           "MAX_INTERVALS", "MAX_LOOKUPS", "MAX_LOOP_STEPS", "MAX_NODE_PAIRS",
           "MAX_SEARCH_CELLS", "MAX_TABLE_CELLS", "NOISE_SIGMAS", "count", "over"]

MAX_CELLS = 50_000_000        # elements of one array a parameter sizes (400 MB of floats)
MAX_INTERVALS = 1_000_000     # intervals (categories) a recode may create
MAX_DRAWS = 1_000_000_000     # random numbers one step may draw
MAX_COMBINATIONS = 10_000     # subsets of variables one step may visit (each a full pass)
MAX_DISTANCES = 10_000_000_000  # distances between records and centres one step computes
MAX_TABLE_CELLS = 1_000_000   # cells of a table (a row each; suppression solves over them)
# cells of a table an optimal (MILP) search takes on without a time limit: beyond, HiGHS
# may search for hours (controlled adjustment of 11,000 cells did; 4,000 took a minute)
MAX_SEARCH_CELLS = 5_000
# nearest neighbours looked up one by one (a k-d tree query each, about a microsecond:
# a minute or two)
MAX_LOOKUPS = 100_000_000
# passes of a loop written in Python one step may make (about a microsecond each: a
# minute at most), as a graph method or measure estimates them from the graph's size
MAX_LOOP_STEPS = 50_000_000
# pairs of nodes whose distance a graph method computes (node by node, in NumPy)
MAX_NODE_PAIRS = 200_000_000
FLOAT_MAX = float(np.finfo(np.float64).max)
# Normal noise is never drawn beyond this many standard deviations (the largest of 10^12
# standard normal draws is about 7.3): a value plus this much noise must stay finite.
NOISE_SIGMAS = 40.0


def count(n: float) -> str:
    """A count as messages show it: 1,234,567 or 1.2e+300."""
    if math.isfinite(n) and abs(n) < 1e15:
        return f"{int(n):,}"
    return f"{n:.3g}"


def over(n: float, noun: str, limit: float) -> str:
    """``n`` things beyond ``limit``: "1e+308 intervals, more than the limit of
    1,000,000"."""
    return f"{count(n)} {noun}, more than the limit of {count(limit)}"
