"""Secondary suppression: choose further cells to suppress so that no primary cell can be
recomputed or narrowed beyond its protection interval (Torra, "Masking methods", 2013,
"Protection for tabular data", "Primary suppression (PS) and Secondary Suppression (SS)
... Problem solved using optimization techniques").

Two algorithms, both deterministic (no randomness):

``optimal`` (:func:`suppress_optimal`, :mod:`sdcflow.tabular.optimal`): the model of
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

from .hypercube import suppress_hypercube
from .optimal import suppress_optimal
from .suppression import SuppressionResult, cell_costs
from .table import Table

__all__ = ["SuppressionResult", "cell_costs", "secondary_suppression", "suppress_hypercube",
           "suppress_optimal"]

def secondary_suppression(table: Table, method: str = "optimal", **options) -> SuppressionResult:
    """Dispatch to :func:`suppress_optimal` (``"optimal"``) or :func:`suppress_hypercube`
    (``"hypercube"`` / ``"heuristic"``) with their keyword options."""
    if method == "optimal":
        return suppress_optimal(table, **options)
    if method in ("hypercube", "heuristic"):
        return suppress_hypercube(table, **options)
    raise ValueError("method must be 'optimal' or 'hypercube'")
