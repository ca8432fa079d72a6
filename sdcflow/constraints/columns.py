"""Expressions evaluated over the columns of a data set (edit constraints), exactly or not
at all.

Integer columns are 64-bit integer arrays and stay integers under ``+ - * // % abs`` and
non-negative powers; decimal columns, ``/``, ``sqrt``, ``log``, ``exp`` and anything
mixed with a decimal number are 64-bit floats (IEEE 754). NumPy would wrap an integer
overflow silently (``2**64`` becomes 0) and turn a float overflow or a division by zero
into ``inf``/``nan`` that later compare as false: here each operation checks its result
and refuses, with :class:`ExprError`, naming the sub-expression and the first records:

* integer results beyond ±(2**63 - 1) ("overflows 64-bit integers");
* float results beyond ±1.8e308 ("overflows 64-bit floating point");
* division (``/ // %``) by zero, ``0 ** -1``, real powers of negative numbers,
  ``sqrt`` of negative and ``log`` of non-positive numbers;
* integers (column values or constants) that a float operation cannot represent
  exactly (beyond 2**53 unless the float is exact), and constants that do not fit the
  arithmetic they meet (an integer constant beyond 64 bits).

Records in ``skip`` (those with a missing value, whose result the caller discards) are
never the reason of a refusal. Comparisons of integers are exact (an absolute
``tolerance`` still applies); comparisons involving floats allow ``tolerance`` plus
``rtol`` times the larger magnitude for the rounding of float arithmetic.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from fractions import Fraction

import numpy as np
import pandas as pd

from . import int64
from .aggregates import aggregate_values
from .exact import Unrepresentable, apply_binary, apply_function, shown, to_float
from .expr import AGGREGATES, Expr, ExprError, aggregate_nodes, dotted_name, shorten, subject

__all__ = ["RecordsRefused", "evaluate", "require_64_bit"]

_EXACT = 2 ** 53  # every integer up to this magnitude is a float64
_SHOW = 5


class RecordsRefused(ExprError):
    """An operation has no representable value in some records: ``records`` marks them
    (the caller may skip them and evaluate the rest)."""

    def __init__(self, message: str, records: np.ndarray):
        super().__init__(message)
        self.records = records


def evaluate(expr: Expr, env: Mapping[str, np.ndarray], tolerance: float = 0.0,
             rtol: float = 1e-9, *, skip: np.ndarray | None = None,
             aggregates: Mapping[ast.AST, object] | None = None):
    """Evaluate ``expr`` over the columns in ``env`` (NumPy arrays of equal length:
    int64, float64, bool or object for text). ``skip`` marks records whose result is not
    used (missing values); without it, NaN in float columns and None in text columns
    mark them. ``aggregates`` are the values of the expression's aggregates
    (:func:`sdcflow.constraints.aggregates.aggregate_values`, over the whole data set);
    without them they are computed from ``env``, NaN and None being the missing values."""
    if skip is None:
        skip = _missing(env)
    if aggregates is None:
        aggregates = _aggregates_of_env(expr, env)
    with np.errstate(all="ignore"):
        return _Columns(expr, env, tolerance, rtol, skip, aggregates).visit(expr.tree.body)


def require_64_bit(expr: Expr) -> None:
    """Refuse, at parse time, constants that 64-bit column arithmetic cannot hold: integers
    beyond ±(2**63 - 1) and numbers beyond the float range."""
    def walk(node: ast.AST) -> None:
        if node in expr.constants:
            value = expr.constants[node]
            try:
                if isinstance(value, int):
                    int64.fit(value)
                else:
                    to_float(value)
            except Unrepresentable as exc:
                raise ExprError(f"{subject(node)}{exc}", node.col_offset) from None
            return
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                walk(child)

    walk(expr.tree.body)


def _aggregates_of_env(expr: Expr, env: Mapping[str, np.ndarray]) -> dict:
    nodes = aggregate_nodes(expr.tree.body)
    if not nodes:
        return {}
    names = {dotted_name(n.args[0]) for n in nodes}
    return aggregate_values(expr, pd.DataFrame({name: pd.Series(np.asarray(env[name]))
                                                for name in names if name in env}))


def _missing(env: Mapping[str, np.ndarray]) -> np.ndarray | None:
    out = None
    for values in env.values():
        values = np.asarray(values)
        if values.dtype.kind == "f":
            miss = np.isnan(values)
        elif values.dtype == object:
            miss = pd.isna(values)
        else:
            continue
        out = miss if out is None else out | miss
    return out


def _is_text(x) -> bool:
    return isinstance(x, str) or (isinstance(x, np.ndarray) and x.dtype == object)


def _is_int(x) -> bool:
    if isinstance(x, (int, np.integer, np.bool_)):
        return True
    return isinstance(x, np.ndarray) and x.dtype.kind in "iub"


def _as_text_constant(value) -> str:
    if isinstance(value, Fraction):
        value = float(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


class _Columns:
    def __init__(self, expr: Expr, env, tolerance: float, rtol: float, skip, aggregates):
        self.constants = {**expr.constants, **aggregates}
        self.env = env
        self.tol = tolerance
        self.rtol = rtol
        self.skip = skip

    # --- refusals ---------------------------------------------------------------------
    def refuse(self, node: ast.AST, mask, what: str) -> None:
        """Raise when ``mask`` holds for a record that is not skipped."""
        mask = np.asarray(mask, dtype=bool)
        if not mask.any():
            return
        if mask.ndim == 0:
            if self.skip is not None and np.all(self.skip):
                return
            raise ExprError(f"{shorten(ast.unparse(node))}: {what}")
        if self.skip is not None:
            mask = mask & ~self.skip
        rows = np.flatnonzero(mask)
        if len(rows):
            shown_rows = ", ".join(str(r + 1) for r in rows[:_SHOW])
            more = " ..." if len(rows) > _SHOW else ""
            noun = "record" if len(rows) == 1 else "records"
            raise RecordsRefused(f"{shorten(ast.unparse(node))}: {what} in {len(rows)} "
                                 f"{noun} ({noun} {shown_rows}{more})", mask)

    def ints(self, node: ast.AST, value):
        if isinstance(value, (int, np.integer)) and not isinstance(value, np.ndarray):
            try:
                return int64.fit(int(value))
            except Unrepresentable as exc:
                raise ExprError(f"{shorten(ast.unparse(node))}: {exc}") from None
        return np.asarray(value).astype(np.int64, copy=False)

    def floats(self, node: ast.AST, value):
        """``value`` as 64-bit floats, refusing integers that a float cannot hold."""
        try:
            if isinstance(value, Fraction):
                return np.float64(to_float(value))
            if isinstance(value, int):
                if float(value) != value:
                    raise Unrepresentable(f"the integer {shown(value)} cannot be represented "
                                          "exactly as a 64-bit float")
                return np.float64(value)
        except (Unrepresentable, OverflowError) as exc:
            raise ExprError(f"{shorten(ast.unparse(node))}: {exc}") from None
        array = np.asarray(value)
        if array.dtype.kind in "iu":
            big = np.abs(array.astype(np.float64)) >= _EXACT
            if big.any():
                exact = array.astype(np.float64).astype(np.int64) == array
                self.refuse(node, big & ~exact, "integers beyond 2**53 cannot be represented "
                            "exactly as the 64-bit floats this operation needs")
        return array.astype(np.float64, copy=False)

    # --- the walk ---------------------------------------------------------------------
    def visit(self, node: ast.AST):
        if node in self.constants:
            return self.constants[node]
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, (ast.Name, ast.Attribute)):
            return self.env[dotted_name(node)]
        if isinstance(node, ast.BinOp):
            return self.binary(node, self.num(node.left), self.num(node.right))
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Not):
                return np.logical_not(self.visit(node.operand))
            value = self.num(node.operand)
            return self.negate(node, value) if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.BoolOp):
            values = [np.asarray(self.visit(v), dtype=bool) for v in node.values]
            combine = np.logical_and if isinstance(node.op, ast.And) else np.logical_or
            return combine.reduce(np.broadcast_arrays(*values))
        if isinstance(node, ast.Compare):
            return self.compare_chain(node)
        if isinstance(node, ast.Call):
            return self.call(node, node.func.id, [self.num(a) for a in node.args])
        raise ExprError(f"cannot evaluate {ast.unparse(node)!r}")  # unreachable after _check

    def num(self, node: ast.AST):
        value = self.visit(node)
        if _is_text(value):
            try:
                return np.asarray(value, dtype=float)
            except (TypeError, ValueError):
                raise ExprError(f"'{shorten(ast.unparse(node))}' is text, not a number") \
                    from None
        if isinstance(value, np.ndarray) and value.dtype == bool:
            return value.astype(np.int64)
        return value

    # --- arithmetic -------------------------------------------------------------------
    def binary(self, node: ast.BinOp, a, b):
        op = node.op
        if isinstance(a, (int, Fraction)) and isinstance(b, (int, Fraction)):
            try:
                return apply_binary(op, a, b)
            except Unrepresentable as exc:
                raise ExprError(f"{shorten(ast.unparse(node))}: {exc}") from None
        if isinstance(op, ast.Pow) and _is_int(a) and _is_int(b):
            exponent = self.ints(node, b)
            if not np.any((exponent < 0) & ~self._skipped(exponent)):
                return self.int_power(node, self.ints(node, a), exponent)
        elif _is_int(a) and _is_int(b) and not isinstance(op, ast.Div):
            return self.int_arith(node, op, self.ints(node, a), self.ints(node, b))
        return self.float_arith(node, op, self.floats(node, a), self.floats(node, b))

    def _skipped(self, mask):
        if self.skip is None or np.ndim(mask) == 0:
            return np.zeros(np.shape(mask), dtype=bool)
        return self.skip

    def int_arith(self, node, op, a, b):
        r, over, zero = int64.arithmetic(op, a, b)
        self.refuse(node, zero, "division by zero")
        self.refuse(node, over, "overflows 64-bit integers")
        return r

    def int_power(self, node, a, b):
        r, over = int64.power(a, b)
        self.refuse(node, over, "overflows 64-bit integers")
        return r

    def float_arith(self, node, op, a, b):
        if isinstance(op, (ast.Div, ast.FloorDiv, ast.Mod)):
            self.refuse(node, b == 0, "division by zero")
        if isinstance(op, ast.Pow):
            self.refuse(node, (a == 0) & (b < 0), "division by zero (0 to a negative power)")
            self.refuse(node, (a < 0) & (b != np.floor(b)),
                        "a negative number to a fractional power has no real value")
        func = {ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply,
                ast.Div: np.true_divide, ast.FloorDiv: np.floor_divide, ast.Mod: np.mod,
                ast.Pow: np.power}[type(op)]
        r = func(a, b)
        return self.finite(node, r, a, b)

    def finite(self, node, r, *inputs):
        fresh = ~np.isfinite(r)
        for x in inputs:
            fresh = fresh & np.isfinite(x)
        self.refuse(node, fresh, "overflows 64-bit floating point (the result would be "
                                 "infinite)")
        return r

    def negate(self, node, value):
        if isinstance(value, (int, Fraction)):
            return -value
        if _is_int(value):
            value = self.ints(node, value)
            self.refuse(node, value == int64.MIN, "overflows 64-bit integers")
        return -value

    def call(self, node: ast.Call, name: str, args: list):
        if all(isinstance(a, (int, Fraction)) for a in args):
            try:
                return apply_function(name, args)
            except (Unrepresentable, TypeError) as exc:
                raise ExprError(f"{shorten(ast.unparse(node))}: {exc}") from None
        if name in AGGREGATES:  # evaluated before the walk: never reached from a constraint
            raise ExprError(f"{shorten(ast.unparse(node))}: {name}() takes the name of one "
                            "column")
        if name in ("min", "max"):
            if len(args) == 1:  # the smallest / largest value of the column
                values = np.asarray(args[0])
                if self.skip is not None and values.shape == self.skip.shape:
                    values = values[~self.skip]
                if values.size == 0:
                    raise ExprError(f"{shorten(ast.unparse(node))}: no values")
                return values.min() if name == "min" else values.max()
            reduce = np.minimum if name == "min" else np.maximum
            if all(_is_int(a) for a in args):
                return reduce.reduce(np.broadcast_arrays(*(self.ints(node, a) for a in args)))
            return reduce.reduce(np.broadcast_arrays(*(self.floats(node, a) for a in args)))
        (x,) = args
        if name in ("abs", "round") and _is_int(x):
            x = self.ints(node, x)
            if name == "abs":
                self.refuse(node, x == int64.MIN, "overflows 64-bit integers")
                return np.abs(x)
            return x
        x = self.floats(node, x)
        if name == "abs":
            return np.abs(x)
        if name == "round":  # half to even
            return np.round(x)
        if name == "sqrt":
            self.refuse(node, x < 0, "the square root of a negative number is not real")
            return np.sqrt(x)
        if name == "log":
            self.refuse(node, x <= 0, "the logarithm of a number <= 0 is undefined")
            return np.log(x)
        return self.finite(node, np.exp(x), x)  # exp

    # --- comparisons ------------------------------------------------------------------
    def compare_chain(self, node: ast.Compare):
        left = self.visit(node.left)
        result = None
        for op, comp in zip(node.ops, node.comparators):
            if isinstance(op, (ast.In, ast.NotIn)):
                part = self.member(node, left, [self.constants.get(e, e.value)
                                                for e in comp.elts])
                if isinstance(op, ast.NotIn):
                    part = ~part
                right = left
            else:
                right = self.visit(comp)
                part = self.compare(node, op, left, right)
            result = part if result is None else np.logical_and(result, part)
            left = right
        return result

    def member(self, node, left, consts: list):
        if _is_text(left):
            return np.isin(np.asarray(left, dtype=object),
                           [_as_text_constant(c) for c in consts])
        numbers = [c for c in consts if not isinstance(c, str)]
        if _is_int(left) and all(isinstance(c, int) for c in numbers):
            return np.isin(self.ints(node, left), [self.ints(node, c) for c in numbers])
        return np.isin(self.floats(node, left), [self.floats(node, c) for c in numbers])

    def compare(self, node, op, left, right):
        if _is_text(left) or _is_text(right):
            return self.compare_text(op, left, right)
        if isinstance(left, (int, Fraction)) and isinstance(right, (int, Fraction)):
            left, right = Fraction(left), Fraction(right)
            slack = Fraction(self.tol) + Fraction(self.rtol) * max(abs(left), abs(right))
            return self.compare_numbers(op, left, right, slack, abs(left - right))
        if _is_int(left) and _is_int(right):
            a, b = self.ints(node, left), self.ints(node, right)
            diff, over, _ = int64.arithmetic(ast.Sub(), a, b)
            distance = np.where(over, np.inf, np.abs(diff.astype(np.float64)))
            return self.compare_numbers(op, a, b, self.tol, distance)
        a, b = self.floats(node, left), self.floats(node, right)
        slack = self.tol + self.rtol * np.maximum(np.abs(a), np.abs(b))
        return self.compare_numbers(op, a, b, slack, np.abs(a - b))

    @staticmethod
    def compare_numbers(op, a, b, slack, distance):
        """``a op b`` where ``distance`` = |a - b| and ``==``, ``!=``, ``<=`` and ``>=``
        allow ``slack``."""
        if isinstance(op, ast.Eq):
            return distance <= slack
        if isinstance(op, ast.NotEq):
            return distance > slack
        if isinstance(op, ast.LtE):
            return (a <= b) | (distance <= slack)
        if isinstance(op, ast.GtE):
            return (a >= b) | (distance <= slack)
        if isinstance(op, ast.Lt):
            return a < b
        return a > b

    @staticmethod
    def compare_text(op, left, right):
        # A categorical column holds text: compare with the text form of numbers.
        if not _is_text(left):
            left = _as_text_constant(left) if np.ndim(left) == 0 else left
        if not _is_text(right):
            right = _as_text_constant(right) if np.ndim(right) == 0 else right
        if isinstance(op, ast.Eq):
            return np.asarray(left == right, dtype=bool) if np.ndim(left) or np.ndim(right) \
                else left == right
        if isinstance(op, ast.NotEq):
            return np.logical_not(np.asarray(left == right, dtype=bool))
        raise ExprError("text can only be compared with == or !=")
