"""Aggregates over a column in edit constraints: ``mean``, ``sum``, ``median``, ``count``,
``min`` and ``max`` of one column, as in the edit constraint "IF age < 17 THEN gross
income < mean income" (EC-GV2 in V. Torra's classification of edit constraints, after
N. Shlomo & T. de Waal, "Protection of micro-data subject to edit constraints against
statistical disclosure", Journal of Official Statistics 24(2), 2008).

An aggregate is one number per data set: it is computed over every record of the data
the constraint is checked on whose value of the column is present (not only over the
records an ``if`` selects, nor only over the records checked), before the expression is
evaluated record by record. Its value is exact where it can be:

* integer columns: ``sum``, ``min``, ``max`` and ``count`` are exact integers (a sum
  beyond 64 bits is refused where it meets column arithmetic); ``mean`` and ``median``
  are exact fractions (``mean`` of 1, 2, 2 is 5/3);
* decimal columns: ``sum`` is the correctly rounded sum of the values (``math.fsum``,
  Shewchuk's algorithm: no error accumulates over millions of records), ``mean`` that
  sum divided exactly by the count, ``median`` the middle value or the exact midpoint of
  the two middle values, ``min`` and ``max`` the values themselves.

Where an aggregate meets a decimal column, or is a fraction compared with an integer
column, it is used as the nearest 64-bit float, and the comparison allows the
constraint's ``tolerance`` plus the float tolerance ``rtol`` (relative, 1e-9) of
:mod:`sdcflow.constraints.columns`: ``x == mean(x)`` holds for a value equal to the mean
up to rounding. Between integers (``n <= count(n)``, ``x <= max(x)`` on an integer
column) comparisons are exact. A column with no value present, or of text, has no
aggregate: the constraint cannot be checked and says why.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Mapping
from fractions import Fraction

import numpy as np
import pandas as pd

from .exact import Number, Unrepresentable, shown
from .expr import Expr, ExprError, aggregate_nodes, dotted_name, shorten

__all__ = ["aggregate", "aggregate_values", "check_aggregates", "exact_int_sum"]


def check_aggregates(expr: Expr) -> None:
    """Refuse aggregates of anything but one column (``mean(a + b)``): constraints
    aggregate columns, records by records are not combined first."""
    for node in aggregate_nodes(expr.tree.body):
        if dotted_name(node.args[0]) is None:
            raise ExprError(f"{shorten(ast.unparse(node))}: {node.func.id}() takes the name "
                            f"of one column, e.g. {node.func.id}(income)", node.col_offset)


def aggregate_values(expr: Expr, frame: pd.DataFrame) -> dict[ast.AST, Number]:
    """The value of every aggregate of ``expr`` over the columns of ``frame`` (keyed by
    node, as the folded constants); :class:`ExprError` when one has none."""
    check_aggregates(expr)
    out: dict[ast.AST, Number] = {}
    for node in aggregate_nodes(expr.tree.body):
        name = dotted_name(node.args[0])
        try:
            out[node] = aggregate(node.func.id, frame[name])
        except Unrepresentable as exc:
            raise ExprError(f"{shorten(ast.unparse(node))}: {exc}", node.col_offset) from None
    return out


def aggregate(function: str, column: pd.Series) -> Number:
    """``function`` (mean, sum, median, count, min, max) of the values present in
    ``column``, exactly as described in the module documentation."""
    present = column.dropna()
    if function == "count":
        return len(present)
    if not (pd.api.types.is_numeric_dtype(present) or pd.api.types.is_bool_dtype(present)):
        raise Unrepresentable(f"'{column.name}' is text, not a number")
    if len(present) == 0:
        raise Unrepresentable(f"'{column.name}' has no values (every value is missing)")
    integral = pd.api.types.is_integer_dtype(present) or pd.api.types.is_bool_dtype(present)
    if integral:
        try:
            values = present.to_numpy(dtype=np.int64)
        except (TypeError, ValueError, OverflowError):  # uint64 beyond int64
            values, integral = present.to_numpy(dtype=np.float64), False
    if not integral:
        values = present.to_numpy(dtype=np.float64)
        if not np.isfinite(values).all():
            raise Unrepresentable(f"'{column.name}' has infinite values")
    if function in ("min", "max"):
        value = values.min() if function == "min" else values.max()
        return int(value) if integral else Fraction(float(value))
    if function == "median":
        ordered = np.sort(values)
        half = len(ordered) // 2
        lower, upper = ordered[(len(ordered) - 1) // 2], ordered[half]
        if integral:
            middle = Fraction(int(lower) + int(upper), 2)
            return int(middle) if middle.denominator == 1 else middle
        return (Fraction(float(lower)) + Fraction(float(upper))) / 2
    if integral:
        total: Number = exact_int_sum(values)
    else:
        try:
            total = Fraction(math.fsum(values))
        except OverflowError:
            raise Unrepresentable(f"the sum of '{column.name}' is too large for a 64-bit "
                                  "floating-point number") from None
    if function == "sum":
        return total
    if function == "mean":
        mean = Fraction(total, len(values))
        return int(mean) if integral and mean.denominator == 1 else mean
    raise Unrepresentable(f"unknown aggregate '{function}'")  # unreachable after parse


def exact_int_sum(values: np.ndarray) -> int:
    """The exact sum of int64 values, at NumPy speed: the high and low 32 bits are summed
    separately (neither partial sum can overflow below 2**31 values)."""
    values = np.asarray(values, dtype=np.int64)
    total = 0
    for start in range(0, len(values), 2 ** 31 - 1):
        chunk = values[start:start + 2 ** 31 - 1]
        low = int((chunk & 0xFFFFFFFF).sum(dtype=np.int64))
        high = int((chunk >> 32).sum(dtype=np.int64))
        total += (high << 32) + low
    return total


def describe(values: Mapping[ast.AST, Number]) -> dict[str, str]:
    """The aggregates' values as reports show them (``mean(income)`` -> ``'1234.5'``)."""
    return {ast.unparse(node): shown(value) for node, value in values.items()}
