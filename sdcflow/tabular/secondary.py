"""Secondary suppression: choose further cells to suppress so that no primary cell can be
recomputed or narrowed beyond its protection interval (Torra, "Masking methods", 2013,
"Protection for tabular data", "Primary suppression (PS) and Secondary Suppression (SS)
... Problem solved using optimization techniques").

Two algorithms, both deterministic (no randomness):

``optimal`` (:func:`suppress_optimal`, here; the whole-table search in
:mod:`sdcflow.tabular.optimal`): the model of
Fischetti & Salazar-Gonzalez (2001, "Solving the cell suppression problem on tabular data
with linear constraints", *Management Science* 47(7), 1008-1027), minimum cost, by cut
generation (:mod:`sdcflow.tabular.cuts`) with a HiGHS MILP master; large hierarchical
tables of three or more dimensions subtable by subtable (:mod:`sdcflow.tabular.modular`,
de Wolf 2002, "HiTaS: a heuristic approach to cell suppression in hierarchical tables",
LNCS 2316: minimum cost per subtable, then audit and repair).

``hypercube`` (:func:`suppress_hypercube`, :mod:`sdcflow.tabular.hypercube`), for large
tables: the hypercube method of Repsilber (GHMITER; Giessing & Repsilber 2002, "Tools and
strategies to protect multiple tables with the GHQUAR cell suppression engine", LNCS
2316), then audit and repair.

Both return a :class:`SuppressionResult` whose pattern passes the audit
(:mod:`sdcflow.tabular.audit`).
"""

from __future__ import annotations

import time

import numpy as np

from .audit import MIN_WIDTH
from .hypercube import suppress_hypercube
from .modular import modular_pattern
from .optimal import optimal_pattern
from .suppression import SuppressionResult, cell_costs, finish, setup
from .table import Table

__all__ = ["MODULAR_CELLS", "SuppressionResult", "cell_costs", "secondary_suppression",
           "suppress_hypercube", "suppress_optimal"]

#: above this many cells, hierarchical tables of three or more dimensions are protected
#: subtable by subtable unless told otherwise (the whole-table search on a 3-D table of
#: 20,000 cells takes well over the 5 minutes a 2-D one of that size needs)
MODULAR_CELLS = 5_000


def suppress_optimal(table: Table, *, cost: str | np.ndarray = "unit",
                     margin_cost: float = 0.0, lower=None, upper=None,
                     percent: float | None = None, min_width: float = MIN_WIDTH,
                     tie_break: bool = True, time_limit: float | None = None,
                     mip_rel_gap: float = 1e-6, max_rounds: int = 500,
                     decompose: bool | None = None) -> SuppressionResult:
    """Minimum-cost secondary suppression (Fischetti & Salazar-Gonzalez 2001 model, cut
    generation with a HiGHS MILP master; see the module docstring for the cuts and the
    guarantee). ``cost``/``margin_cost``: :func:`cell_costs`; ``lower``/``upper``/
    ``percent``: the intruder's a priori bounds (:func:`~sdcflow.tabular.audit.
    intruder_bounds`); ``time_limit`` in seconds for the whole loop (None: no limit).

    ``tie_break``: among the minimum-cost patterns, return the one with the smallest sum
    of cell positions (cells earlier in cell order preferred): a second cut loop
    minimising that sum under ``cost <= optimum`` (exact, ``mip_rel_gap`` 0). Without it,
    ties are left to HiGHS (deterministic too, but not by cell order).

    ``decompose``: solve subtable by subtable (:mod:`sdcflow.tabular.modular`: fast,
    protected, not optimal over the whole table). ``None`` (default) decomposes the
    tables whose whole-table search takes too long: three or more dimensions, a
    hierarchy, more than ``MODULAR_CELLS`` cells."""
    start = time.perf_counter()
    lb, ub, upl, lpl, spl, up_room, down_room, primary, costs = setup(
        table, cost, margin_cost, lower, upper, percent, min_width)
    deadline = None if time_limit is None else start + time_limit
    options = {"tie_break": tie_break, "deadline": deadline, "mip_rel_gap": mip_rel_gap,
               "max_rounds": max_rounds}
    if decompose is None:
        decompose = (len(table.dimensions) >= 3 and table.n_cells > MODULAR_CELLS
                     and any((~d.is_leaf).sum() > 1 for d in table.dimensions)
                     and not (table.status == "unpublished").any())  # (linked tables)
    if decompose:
        pattern, extra = modular_pattern(table, costs, lb, ub, min_width, **options)
    else:
        pattern, extra = optimal_pattern(table, costs, lb, ub, upl, lpl, spl, up_room,
                                         down_room, primary, **options)
    return finish(table, pattern, costs, "optimal", start, extra, lower, upper, percent,
                  min_width)


def secondary_suppression(table: Table, method: str = "optimal", **options) -> SuppressionResult:
    """Dispatch to :func:`suppress_optimal` (``"optimal"``) or :func:`suppress_hypercube`
    (``"hypercube"`` / ``"heuristic"``) with their keyword options."""
    if method == "optimal":
        return suppress_optimal(table, **options)
    if method in ("hypercube", "heuristic"):
        return suppress_hypercube(table, **options)
    raise ValueError("method must be 'optimal' or 'hypercube'")
