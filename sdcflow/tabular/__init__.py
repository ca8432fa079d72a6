"""Protection of tabular data: tables with margins, sensitivity rules, secondary
suppression and its audit (seed 000_1eece6b9d3791e64.txt, "Protection for tabular
data"). Pure NumPy/pandas/SciPy; the engine's ``tables:`` section calls these."""

from .audit import AuditResult, audit, intruder_bounds, requirements
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
from .table import Dimension, Table, build_table, make_dimension, table_from_cells

__all__ = [
    "AuditResult", "Dimension", "DominanceRule", "FrequencyRule", "PPercentRule", "PQRule",
    "RuleResult", "SuppressionResult", "Table", "ZeroRule", "apply_rules", "audit",
    "build_table", "cell_costs", "intruder_bounds", "make_dimension", "mark_primary",
    "parse_rule", "requirements", "secondary_suppression", "set_protection",
    "suppress_hypercube", "suppress_optimal", "table_from_cells",
]
