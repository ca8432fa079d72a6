"""Expressions evaluated over measure results (release checks and the ``score`` measure).

A check reads the summaries of measure steps: numbers, text, ``None``, and dicts and
lists of them (``risk.violations[3]``, ``link.percent``). Arithmetic is exact
(:mod:`sdcflow.constraints.exact`: integers of any size, decimal numbers as exact binary
fractions), so ``risk.violations[2] <= 2**64`` compares with 18446744073709551616 and
``0.1 + 0.2 == 0.3`` is false exactly as the floats are; results that are not real
numbers (division by zero, NaN, the logarithm of 0) are refused with an
:class:`~sdcflow.constraints.expr.ExprError` instead of becoming inf or NaN.

Errors are :class:`KeyError` (no such result), :class:`TypeError` (a lookup into or
arithmetic on something of the wrong kind), :class:`IndexError` and :class:`ValueError`
(:class:`ExprError` included): mistakes of the recipe. :class:`Unverifiable` (a null
value, arithmetic without a real result) means the results cannot decide the check.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Mapping
from fractions import Fraction

import numpy as np

from .exact import Unrepresentable, apply_binary, apply_function, as_number, to_float
from .expr import Expr, ExprError, parse, shorten

__all__ = ["Unverifiable", "check_figures", "check_value", "expression_value", "figure_text"]


class Unverifiable(ExprError):
    """The check cannot be decided on these results: a value it needs is missing (null),
    or its arithmetic has no real result (division by zero, NaN, beyond the float
    range). Not a mistake of the recipe: the check fails, nothing is released."""

_COMPARISONS = {
    ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}


def check_value(expr: Expr, results: Mapping[str, object]):
    """The value of a parsed check (or any expression parsed with ``subscripts=True``)
    over ``results``, a mapping from step id to that step's result summary: a bool for
    a condition, a number (``int``, or ``float`` for decimal results) for arithmetic, or
    whatever a bare lookup such as ``risk.violations`` finds."""
    value = _Results(expr, results).visit(expr.tree.body)
    if isinstance(value, Fraction):
        try:
            return to_float(value)
        except Unrepresentable as exc:
            raise Unverifiable(f"{shorten(expr.text)}: {exc}") from None
    return value


def check_figures(expr: Expr, results: Mapping[str, object]) -> dict[str, object]:
    """The figures a check compares: the value of each side of its comparisons that is
    not a constant (``{"risk.violations[3]": 0}`` for ``risk.violations[3] == 0``), as
    the report shows them beside the threshold. A side that cannot be evaluated on
    ``results`` is left out."""
    out: dict[str, object] = {}
    values = _Results(expr, results)

    def figure(node: ast.AST) -> None:
        if node in expr.constants or isinstance(node, (ast.Constant, ast.List, ast.Tuple,
                                                       ast.Set)):
            return
        try:
            value = values.visit(node)
            if isinstance(value, Fraction):
                value = to_float(value)
        except (ExprError, Unrepresentable, KeyError, TypeError, ValueError, IndexError):
            return
        if value is None or isinstance(value, (bool, int, float, str)):
            out[ast.unparse(node)] = value

    def walk(node: ast.AST) -> None:
        if isinstance(node, ast.BoolOp):
            for sub in node.values:
                walk(sub)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            walk(node.operand)
        elif isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                figure(side)
        else:
            figure(node)

    walk(expr.tree.body)
    return out


def expression_value(text: str, results: Mapping[str, object]):
    """The value of the expression ``text`` over measure results (``link.percent / 2``),
    as :func:`check_value`."""
    return check_value(parse(text, subscripts=True, condition=False), results)


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


class _Results:
    def __init__(self, expr: Expr, results: Mapping[str, object]):
        self.constants = expr.constants
        self.results = results

    def visit(self, node: ast.AST):
        if node in self.constants:
            return self.constants[node]
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return _plain(self.results[node.id])
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            return _plain(self.lookup(node))
        if isinstance(node, ast.BoolOp):
            values = [self.visit(v) for v in node.values]
            return all(values) if isinstance(node.op, ast.And) else any(values)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Not):
                return not self.visit(node.operand)
            value = self.number(node.operand)
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.BinOp):
            return self.exactly(node, apply_binary, node.op, self.number(node.left),
                                self.number(node.right))
        if isinstance(node, ast.Call):
            args = [self.visit(a) for a in node.args]
            if not (node.func.id in ("min", "max", "mean", "sum", "median", "count")
                    and len(args) == 1 and isinstance(args[0], (list, tuple))):
                args = [_number(v, a) for v, a in zip(args, node.args)]
            return self.exactly(node, apply_function, node.func.id, args)
        if isinstance(node, ast.Compare):
            return self.compare(node)
        raise ValueError(f"cannot evaluate {ast.unparse(node)}")

    def lookup(self, node: ast.Attribute | ast.Subscript):
        base = self.visit(node.value)
        key = node.attr if isinstance(node, ast.Attribute) else node.slice.value
        if isinstance(base, dict):
            if key in base:
                return base[key]
            if str(key) in base:
                return base[str(key)]
            raise KeyError(f"no '{key}' in the result (it has: {', '.join(map(str, base))})")
        if isinstance(base, list) and isinstance(key, int):
            if not -len(base) <= key < len(base):
                raise IndexError(f"no item [{key}] in '{shorten(ast.unparse(node.value))}' "
                                 f"(it has {len(base)} items)")
            return base[key]
        raise TypeError(f"cannot look up '{key}' in {type(base).__name__}")

    def number(self, node: ast.AST):
        return _number(self.visit(node), node)

    @staticmethod
    def exactly(node: ast.AST, function, *args):
        try:
            return function(*args)
        except Unrepresentable as exc:
            raise Unverifiable(f"{shorten(ast.unparse(node))}: {exc}") from None

    def compare(self, node: ast.Compare) -> bool:
        left_node, left = node.left, self.visit(node.left)
        for op, comp in zip(node.ops, node.comparators):
            if isinstance(comp, (ast.List, ast.Tuple, ast.Set)):
                right = [self.constants.get(e, e.value) for e in comp.elts]
            else:
                right = self.visit(comp)
            if left is None or right is None:
                raise Unverifiable("a value in the check is missing (null): the measure "
                                   "could not compute it")
            for side in (left, right):
                if isinstance(side, (dict, list)) and not isinstance(op, (ast.In, ast.NotIn)):
                    kind = "mapping" if isinstance(side, dict) else "list"
                    raise TypeError(f"a comparison needs numbers, but one side is a {kind}; "
                                    "pick one of its entries with '.name' or '[key]'")
            _not_nan(left_node, left)
            _not_nan(comp, right)
            if not _COMPARISONS[type(op)](left, right):
                return False
            left_node, left = comp, right
        return True


def _number(value, node: ast.AST):
    try:
        return as_number(value, f"'{shorten(ast.unparse(node))}'")
    except Unrepresentable as exc:
        raise ExprError(str(exc)) from None


def _not_nan(node: ast.AST, value) -> None:
    if isinstance(value, float) and math.isnan(value):
        raise Unverifiable(f"'{shorten(ast.unparse(node))}' is not a number (NaN)")


def figure_text(value, compared=()) -> str:
    """A figure of a check for people: an integer as it is, a fraction to 4 significant
    digits (all of its integer part), with more digits where fewer would round it onto a
    number it is ``compared`` with: 5.0004 beside a threshold of 5 reads ``5.0004``, never
    ``5``, which would make a failed ``x <= 5`` look as if it held."""
    if value is None:
        return "missing"
    if not isinstance(value, float) or not math.isfinite(value):
        return str(value)
    for digits in range(max(4, len(str(int(abs(value))))), 18):
        text = f"{value:.{digits}g}"
        shown = float(text)
        if shown == value or all(shown != other for other in compared):
            return text
    return repr(value)
