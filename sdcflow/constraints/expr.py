"""A small, safe expression language for edit constraints and release checks.

Expressions are parsed with :mod:`ast` and only a whitelist of node types is accepted:
arithmetic (``+ - * / // % **``), comparisons (chained, as in ``0 <= age <= 125``),
``and``/``or``/``not``, ``in``/``not in`` a list of constants, numbers, strings, names,
dotted names, and the functions ``abs``, ``min``, ``max``, ``sqrt``, ``log``, ``exp``
and ``round``. Nothing is ever passed to :func:`eval`: evaluation is our own walk over
the checked tree, vectorised over NumPy arrays for constraints.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

_BINOPS: dict[type, Callable] = {
    ast.Add: np.add,
    ast.Sub: np.subtract,
    ast.Mult: np.multiply,
    ast.Div: np.true_divide,
    ast.FloorDiv: np.floor_divide,
    ast.Mod: np.mod,
    ast.Pow: np.power,
}
_FUNCS: dict[str, Callable] = {
    "abs": np.abs,
    "sqrt": np.sqrt,
    "log": np.log,
    "exp": np.exp,
    "round": np.round,
    "min": lambda *a: np.minimum.reduce(np.broadcast_arrays(*a)) if len(a) > 1 else np.min(a[0]),
    "max": lambda *a: np.maximum.reduce(np.broadcast_arrays(*a)) if len(a) > 1 else np.max(a[0]),
}
_COMPARE = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn)


class ExprError(ValueError):
    """An expression is not valid; ``offset`` is the 0-based column in its text and
    ``field`` the recipe field that holds it (when known)."""

    def __init__(self, message: str, offset: int | None = None, field: str | None = None):
        super().__init__(message)
        self.offset = offset
        self.field = field


def dotted_name(node: ast.AST) -> str | None:
    """``a.b.c`` for a chain of attributes on a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


@dataclass
class Expr:
    """A parsed, checked expression and the (dotted) names it refers to."""

    text: str
    tree: ast.Expression
    names: set[str] = field(default_factory=set)

    def evaluate(self, env: Mapping[str, np.ndarray], tolerance: float = 0.0,
                 rtol: float = 1e-9) -> np.ndarray:
        """Evaluate over the columns in ``env`` (NumPy arrays of equal length).

        ``==``, ``!=``, ``<=`` and ``>=`` allow an absolute ``tolerance`` plus a relative
        ``rtol`` for floating-point rounding."""
        return _Evaluator(env, tolerance, rtol).visit(self.tree.body)


def parse(text: str, *, subscripts: bool = False, condition: bool = True) -> Expr:
    """Parse and whitelist-check ``text``. ``subscripts`` allows ``a.b[3]`` (checks);
    ``condition`` requires a comparison or a combination of comparisons (true/false)."""
    if not isinstance(text, str) or not text.strip():
        raise ExprError("empty expression")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        offset = (exc.offset - 1) if exc.offset else None
        raise ExprError(f"syntax error in expression {text!r}: {exc.msg}", offset) from None
    names: set[str] = set()
    _check(tree.body, names, subscripts)
    if condition and not _is_condition(tree.body):
        raise ExprError(f"{text!r} is not a condition: write a comparison such as "
                        "'x == y', 'x <= 10' or 'x in [1, 2]'", 0)
    return Expr(text, tree, names)


def _is_condition(node: ast.AST) -> bool:
    if isinstance(node, ast.Compare):
        return True
    if isinstance(node, ast.BoolOp):
        return all(_is_condition(v) for v in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _is_condition(node.operand)
    return False


def _check(node: ast.AST, names: set[str], subscripts: bool) -> None:
    def bad(what: str) -> ExprError:
        return ExprError(f"{what} is not allowed in expressions", getattr(node, "col_offset", None))

    if isinstance(node, ast.Constant):
        if not isinstance(node.value, (int, float, str)) or node.value is None:
            raise bad(f"the constant {node.value!r}")
        return
    if isinstance(node, (ast.Name, ast.Attribute)):
        name = dotted_name(node)
        if name is None:
            raise bad("attribute access on an expression")
        names.add(name)
        return
    if isinstance(node, ast.Subscript) and subscripts:
        _check(node.value, names, subscripts)
        if not (isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, (int, str))):
            raise bad("a subscript other than a number or a string")
        return
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        _check(node.left, names, subscripts)
        _check(node.right, names, subscripts)
        return
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Not)):
        _check(node.operand, names, subscripts)
        return
    if isinstance(node, ast.BoolOp):
        for value in node.values:
            _check(value, names, subscripts)
        return
    if isinstance(node, ast.Compare) and all(isinstance(op, _COMPARE) for op in node.ops):
        _check(node.left, names, subscripts)
        for op, comp in zip(node.ops, node.comparators):
            if isinstance(op, (ast.In, ast.NotIn)):
                if not isinstance(comp, (ast.List, ast.Tuple, ast.Set)) or not all(
                    isinstance(e, ast.Constant) and isinstance(e.value, (int, float, str))
                    for e in comp.elts
                ):
                    raise ExprError("'in' needs a list of constants, e.g. x in [1, 2]",
                                    comp.col_offset)
            else:
                _check(comp, names, subscripts)
        return
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCS:
            fname = dotted_name(node.func) or ast.unparse(node.func)
            raise ExprError(
                f"unknown function '{fname}' (allowed: {', '.join(sorted(_FUNCS))})",
                node.col_offset,
            )
        if node.keywords or not node.args:
            raise bad("a call without positional arguments")
        for arg in node.args:
            _check(arg, names, subscripts)
        return
    raise bad(f"'{type(node).__name__}'" if not isinstance(node, ast.AST) else
              f"'{ast.unparse(node)}'")


def _as_text_constant(value):
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _is_text(x) -> bool:
    return isinstance(x, str) or (isinstance(x, np.ndarray) and x.dtype == object)


class _Evaluator:
    def __init__(self, env, tolerance, rtol):
        self.env = env
        self.tol = tolerance
        self.rtol = rtol

    def visit(self, node):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, (ast.Name, ast.Attribute)):
            return self.env[dotted_name(node)]
        if isinstance(node, ast.BinOp):
            return _BINOPS[type(node.op)](self.num(node.left), self.num(node.right))
        if isinstance(node, ast.UnaryOp):
            value = self.visit(node.operand)
            if isinstance(node.op, ast.Not):
                return np.logical_not(value)
            return -np.asarray(value, dtype=float) if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.BoolOp):
            values = [np.asarray(self.visit(v), dtype=bool) for v in node.values]
            combine = np.logical_and if isinstance(node.op, ast.And) else np.logical_or
            return combine.reduce(np.broadcast_arrays(*values))
        if isinstance(node, ast.Compare):
            left = self.visit(node.left)
            result = None
            for op, comp in zip(node.ops, node.comparators):
                if isinstance(op, (ast.In, ast.NotIn)):
                    consts = [e.value for e in comp.elts]
                    if _is_text(left):
                        consts = [_as_text_constant(c) for c in consts]
                    part = np.isin(np.asarray(left, dtype=object if _is_text(left) else float),
                                   consts)
                    if isinstance(op, ast.NotIn):
                        part = ~part
                    right = left
                else:
                    right = self.visit(comp)
                    part = self.compare(op, left, right)
                result = part if result is None else np.logical_and(result, part)
                left = right
            return result
        if isinstance(node, ast.Call):
            return _FUNCS[node.func.id](*(self.num(a) for a in node.args))
        raise ExprError(f"cannot evaluate {ast.unparse(node)!r}")  # unreachable after _check

    def num(self, node):
        value = self.visit(node)
        if _is_text(value):
            try:
                return np.asarray(value, dtype=float)
            except (TypeError, ValueError):
                raise ExprError(f"'{ast.unparse(node)}' is text, not a number") from None
        return value

    def compare(self, op, left, right):
        if _is_text(left) or _is_text(right):
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
        a = np.asarray(left, dtype=float)
        b = np.asarray(right, dtype=float)
        slack = self.tol + self.rtol * np.maximum(np.abs(a), np.abs(b))
        if isinstance(op, ast.Eq):
            return np.abs(a - b) <= slack
        if isinstance(op, ast.NotEq):
            return np.abs(a - b) > slack
        if isinstance(op, ast.LtE):
            return a <= b + slack
        if isinstance(op, ast.GtE):
            return a + slack >= b
        if isinstance(op, ast.Lt):
            return a < b
        return a > b


def degree(node: ast.AST) -> int:
    """Polynomial degree of an arithmetic expression in its names (2 = non-linear)."""
    if isinstance(node, ast.Constant):
        return 0
    if isinstance(node, (ast.Name, ast.Attribute)):
        return 1
    if isinstance(node, ast.UnaryOp):
        return degree(node.operand)
    if isinstance(node, ast.BinOp):
        left, right = degree(node.left), degree(node.right)
        if isinstance(node.op, (ast.Add, ast.Sub)):
            return max(left, right)
        if isinstance(node.op, ast.Mult):
            return min(left + right, 2)
        if isinstance(node.op, ast.Div):
            return left if right == 0 else 2
        return 0 if left == right == 0 else 2
    return 2
