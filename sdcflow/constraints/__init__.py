"""Edit constraints: a safe expression language (no eval), checks on any dataset."""

from .columns import evaluate
from .constraint import Constraint, classify, column_values
from .expr import Expr, ExprError, parse

__all__ = ["Constraint", "Expr", "ExprError", "classify", "column_values", "evaluate", "parse"]
