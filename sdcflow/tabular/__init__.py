"""Protection of tabular data: tables with margins, sensitivity rules, secondary
suppression and its audit (Torra, "Masking methods", 2013, "Protection for tabular
data"). Pure NumPy/pandas/SciPy (and numba kernels); the engine's ``tables:`` section
calls these. Tables from partitioned data: :func:`build_partial` per partition,
:func:`combine`, :func:`finish_table` (:mod:`sdcflow.tabular.build`)."""

from .audit import AuditResult, audit, intruder_bounds, requirements
from .build import (
    PartialTable,
    Tabulation,
    build_partial,
    build_table,
    combine,
    finish_table,
)
from .hierarchy import Dimension, make_dimension
from .linked import face, link
from .rules import (
    DominanceRule,
    FrequencyRule,
    PPercentRule,
    PQRule,
    RuleResult,
    ZeroRule,
    apply_rules,
    mark_primary,
    parse_rule,
    set_protection,
)
from .secondary import (
    SuppressionResult,
    cell_costs,
    secondary_suppression,
    suppress_hypercube,
    suppress_optimal,
)
from .table import Table, table_from_cells

__all__ = [
    "AuditResult", "Dimension", "DominanceRule", "FrequencyRule", "PPercentRule", "PQRule",
    "PartialTable", "RuleResult", "SuppressionResult", "Table", "Tabulation", "ZeroRule",
    "apply_rules", "audit", "build_partial", "build_table", "cell_costs", "combine",
    "face", "finish_table", "intruder_bounds", "link", "make_dimension", "mark_primary",
    "parse_rule", "requirements", "secondary_suppression", "set_protection", "suppress_hypercube",
    "suppress_optimal", "table_from_cells",
]
