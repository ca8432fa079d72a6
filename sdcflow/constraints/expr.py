"""A small, safe expression language for edit constraints and release checks.

Expressions are parsed with :mod:`ast` and only a whitelist of node types is accepted:
arithmetic (``+ - * / // % **``), comparisons (chained, as in ``0 <= age <= 125``),
``and``/``or``/``not``, ``in``/``not in`` a list of constants, numbers, strings, names,
dotted names, the functions ``abs``, ``min``, ``max``, ``sqrt``, ``log``, ``exp`` and
``round``, and the aggregates ``mean``, ``sum``, ``median`` and ``count`` of one column
(also ``min`` and ``max`` of one column), evaluated over the whole data set
(:mod:`sdcflow.constraints.aggregates`). Nothing is ever passed to :func:`eval`: evaluation is our own walk over
the checked tree, vectorised over NumPy arrays for constraints
(:mod:`sdcflow.constraints.columns`) and exact over measure results for checks
(:mod:`sdcflow.constraints.checks`).

Arithmetic is exact or refused. Sub-expressions without names are folded when parsed,
exactly (:mod:`sdcflow.constraints.exact`): ``2**64`` is 18446744073709551616, never 0,
and ``2**10**10``, ``1/0`` or ``10.0**400`` are refused with the position of the
sub-expression. An expression is at most :data:`MAX_LENGTH` characters and
:data:`MAX_DEPTH` levels deep (a sum of n terms is n levels deep), so that neither
Python's parser nor the evaluators run out of stack.
"""

from __future__ import annotations

import ast
import unicodedata
from dataclasses import dataclass, field

import numpy as np

from .exact import Unrepresentable, apply_binary, apply_function, as_number, shown

MAX_LENGTH = 10_000  # characters
MAX_DEPTH = 100      # nested operations


# The whitelist of operators and functions (evaluated exactly over measure results by
# sdcflow.constraints.checks, and over columns by sdcflow.constraints.columns).
_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
_FUNCTIONS = ("abs", "sqrt", "log", "exp", "round", "min", "max", "mean", "sum", "median",
              "count")
AGGREGATES = ("mean", "sum", "median", "count")  # of one column (min, max: of one argument)
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
    """A parsed, checked expression, the (dotted) names it refers to and the exact
    values of its constant sub-expressions (``constants``, keyed by node)."""

    text: str
    tree: ast.Expression
    names: set[str] = field(default_factory=set)
    constants: dict[ast.AST, object] = field(default_factory=dict)


def shorten(text: str, width: int = 80) -> str:
    """``text`` for a message: long expressions abbreviated in the middle."""
    return text if len(text) <= width else f"{text[:width // 2 - 3]} ... {text[-width // 2:]}"


def parse(text: str, *, subscripts: bool = False, condition: bool = True) -> Expr:
    """Parse and whitelist-check ``text`` and fold its constants exactly. ``subscripts``
    allows ``a.b[3]`` (checks); ``condition`` requires a comparison or a combination of
    comparisons (true/false)."""
    if not isinstance(text, str) or not text.strip():
        raise ExprError("empty expression")
    source = text.strip()
    if len(source) > MAX_LENGTH:
        raise ExprError(f"the expression is {len(source)} characters long; at most {MAX_LENGTH}"
                        " are allowed", 0)
    control = next((i for i, ch in enumerate(source) if unicodedata.category(ch) == "Cc"
                    and ch not in "\t\n\r"), None)
    if control is not None:  # (Python's parser refuses a NUL byte with a ValueError)
        raise ExprError(f"the expression holds the control character "
                        f"U+{ord(source[control]):04X} at character {control + 1}: write it "
                        "without control characters", control)
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as exc:
        offset = (exc.offset - 1) if exc.offset else None
        raise ExprError(f"syntax error in expression {shorten(text)!r}: {exc.msg}",
                        offset) from None
    except (RecursionError, MemoryError):  # Python's parser runs out of stack
        raise ExprError(f"the expression is nested too deeply to be read (at most {MAX_DEPTH}"
                        " levels: a sum of n terms is n levels deep)", 0) from None
    _check_depth(tree.body)
    names: set[str] = set()
    _check(tree.body, names, subscripts)
    if condition and not _is_condition(tree.body):
        raise ExprError(f"{shorten(text)!r} is not a condition: write a comparison such as "
                        "'x == y', 'x <= 10' or 'x in [1, 2]'", 0)
    constants: dict[ast.AST, object] = {}
    _fold(tree.body, constants)
    return Expr(text, tree, names, constants)


def _check_depth(body: ast.AST) -> None:
    """Refuse trees deeper than MAX_DEPTH (walked without recursion)."""
    stack = [(body, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ExprError(f"the expression is nested more than {MAX_DEPTH} levels deep (a "
                            f"sum of n terms is n levels deep); split it",
                            getattr(node, "col_offset", 0))
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node)
                     if isinstance(child, ast.expr))


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
        if isinstance(node.value, float) and not np.isfinite(node.value):
            raise ExprError("a number too large for a 64-bit floating-point number (at most "
                            "1.797e308; Python would read it as infinity)", node.col_offset)
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
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
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
        if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS:
            fname = dotted_name(node.func) or shorten(ast.unparse(node.func))
            raise ExprError(
                f"unknown function '{fname}' (allowed: {', '.join(sorted(_FUNCTIONS))})",
                node.col_offset,
            )
        if node.keywords or not node.args:
            raise bad("a call without positional arguments")
        if node.func.id in AGGREGATES and len(node.args) != 1:
            raise ExprError(f"{node.func.id}() takes one column, e.g. {node.func.id}(income) "
                            f"({len(node.args)} arguments given)", node.col_offset)
        for arg in node.args:
            _check(arg, names, subscripts)
        return
    raise bad(f"'{type(node).__name__}'" if not isinstance(node, ast.AST) else
              f"'{shorten(ast.unparse(node))}'")


_NOT_CONSTANT = object()


def _fold(node: ast.AST, constants: dict) -> object:
    """The exact value of ``node`` if it has no names (recorded in ``constants`` for the
    evaluators), else ``_NOT_CONSTANT``; refuses what cannot be computed exactly."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, str):
            return _NOT_CONSTANT
        value = _exactly(node, as_number, node.value)
    elif isinstance(node, ast.BinOp):
        left, right = _fold(node.left, constants), _fold(node.right, constants)
        if left is _NOT_CONSTANT or right is _NOT_CONSTANT:
            _no_text_operand(node.left, node.right)
            if right == 0 and isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)):
                raise ExprError(f"{shorten(ast.unparse(node))}: division by zero",
                                node.col_offset)
            return _NOT_CONSTANT
        value = _exactly(node, apply_binary, node.op, left, right)
    elif isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
        operand = _fold(node.operand, constants)
        if operand is _NOT_CONSTANT:
            _no_text_operand(node.operand)
            return _NOT_CONSTANT
        value = -operand if isinstance(node.op, ast.USub) else operand
    elif isinstance(node, ast.Call):
        args = [_fold(a, constants) for a in node.args]
        if any(a is _NOT_CONSTANT for a in args):
            _no_text_operand(*node.args)
            return _NOT_CONSTANT
        value = _exactly(node, apply_function, node.func.id, args)
    else:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                _fold(child, constants)
        return _NOT_CONSTANT
    constants[node] = value
    return value


def _exactly(node: ast.AST, function, *args):
    try:
        return function(*args)
    except (Unrepresentable, TypeError) as exc:
        raise ExprError(f"{subject(node)}{exc}", node.col_offset) from None


def subject(node: ast.AST) -> str:
    """The sub-expression a message is about, as its prefix (nothing for a number: the
    message shows it)."""
    return "" if isinstance(node, ast.Constant) else f"{shorten(ast.unparse(node))}: "


def _no_text_operand(*nodes: ast.AST) -> None:
    for operand in nodes:
        if isinstance(operand, ast.Constant) and isinstance(operand.value, str):
            raise ExprError(f"{operand.value!r} is text, not a number: arithmetic needs "
                            "numbers", operand.col_offset)


def constant_text(value) -> str:
    """A folded constant as messages show it."""
    return shown(value)


def degree(node: ast.AST) -> int:
    """Polynomial degree of an arithmetic expression in its names (2 = non-linear)."""
    if isinstance(node, ast.Constant):
        return 0
    if isinstance(node, (ast.Name, ast.Attribute)):
        return 1
    if isinstance(node, ast.Call) and is_aggregate(node):
        return 0  # one number per data set
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


def is_aggregate(node: ast.AST) -> bool:
    """Whether ``node`` is an aggregate over a column: ``mean``, ``sum``, ``median`` or
    ``count`` of one argument, or ``min``/``max`` of one (dotted) name."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and len(node.args) == 1):
        return False
    if node.func.id in AGGREGATES:
        return True
    return node.func.id in ("min", "max") and dotted_name(node.args[0]) is not None


def aggregate_nodes(body: ast.AST) -> list[ast.Call]:
    """The aggregates of an expression, in the order of the text."""
    found = [n for n in ast.walk(body) if is_aggregate(n)]
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def record_names(expr: Expr) -> set[str]:
    """The names an expression reads record by record (outside aggregates): a record with
    one of them missing is not checked; a column read only by an aggregate is not."""
    names: set[str] = set()
    stack = [expr.tree.body]
    while stack:
        node = stack.pop()
        if is_aggregate(node):
            continue
        if isinstance(node, (ast.Name, ast.Attribute)):
            name = dotted_name(node)
            if name is not None:
                names.add(name)
                continue
        stack.extend(ast.iter_child_nodes(node))
    return names
