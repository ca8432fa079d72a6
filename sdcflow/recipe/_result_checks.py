"""Checking an expression over measure results (a release check, a ``score``'s IL or DR)
against what the measures declare their summaries contain (:mod:`sdcflow.plugins.results`),
before anything runs: an unknown key (with the nearest one), a subscript that is not
among the keys, a mapping or a list where a number is needed, text ordered with ``<``,
text compared with a number, a value that is always null.

The rules follow how the engine evaluates checks: a key is looked up as written and then
as text (``violations[3]`` finds the key ``"3"``), comparisons are Python's, ``min`` and
``max`` of one list give its smallest and largest number."""

from __future__ import annotations

import ast
import copy
import keyword
from collections.abc import Mapping

from ..errors import did_you_mean
from ..plugins.results import (
    FLAG,
    NUMBER,
    TEXT,
    Anything,
    Flag,
    Keyed,
    ListOf,
    Null,
    Number,
    Record,
    Shape,
    Text,
)

_ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_STRUCTURES = (Record, Keyed, ListOf)


def expression_problems(tree: ast.AST, shapes: Mapping[str, Shape | None], *,
                        number: bool = False) -> list[str]:
    """The mistakes in the expression ``tree`` (the body of a parsed expression) over
    measure results whose shapes are ``shapes`` (step id -> shape; None: not declared).
    ``number``: the expression must give a number (else: a condition)."""
    typer = _Typer(tree, shapes)
    shape = typer.visit(tree)
    if number and shape is not None and not typer.problems:
        if isinstance(shape, Flag):
            typer.problems.append(f"'{ast.unparse(tree)}' is a condition (true or false), not"
                                  " a number")
        elif not isinstance(shape, (Number, Anything)):
            typer.not_a_number(tree, shape, tree, "use")
    return typer.problems


class _Typer:
    """Works out the shape of every part of an expression, noting each mistake once (a
    part with a mistake becomes unknown, so that it causes no second message)."""

    def __init__(self, root: ast.AST, shapes: Mapping[str, Shape | None]):
        self.root = root
        self.shapes = shapes
        self.problems: list[str] = []

    def visit(self, node: ast.AST) -> Shape | None:
        """The shape of ``node``; None when it cannot be known (undeclared, a mistake)."""
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool):
                return FLAG
            return TEXT if isinstance(node.value, str) else NUMBER
        if isinstance(node, ast.Name):
            return self.shapes.get(node.id)
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            return self.lookup(node)
        if isinstance(node, ast.BinOp):
            for side in (node.left, node.right):
                self.need_number(side, self.visit(side))
            return NUMBER
        if isinstance(node, ast.UnaryOp):
            shape = self.visit(node.operand)
            if isinstance(node.op, ast.Not):
                return FLAG
            self.need_number(node.operand, shape)
            return NUMBER
        if isinstance(node, ast.BoolOp):
            for value in node.values:
                self.visit(value)
            return FLAG
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Compare):
            return self.compare(node)
        return None  # (the parser admits nothing else)

    # --- looking up keys ---------------------------------------------------------------
    def lookup(self, node: ast.Attribute | ast.Subscript) -> Shape | None:
        base = self.visit(node.value)
        if base is None or isinstance(base, Anything):
            return None
        key = node.attr if isinstance(node, ast.Attribute) else node.slice.value
        label = ast.unparse(node.value)
        shown = f"'{key}'" if isinstance(node, ast.Attribute) else f"[{key!r}]"
        if isinstance(base, Null):
            self.problems.append(f"{label} is {base.describe()}, so it has no {shown}")
            return None
        if isinstance(base, Record):
            found = base.key(str(key))
            if found is None:
                self.problems.append(_unknown_key(label, str(key), shown, base.names()))
            return found
        if isinstance(base, Keyed):
            if base.keys is not None and str(key) not in base.keys:
                hint = did_you_mean(key, base.keys).strip()
                self.problems.append(f"{label} has no {shown}: its keys are "
                                     f"{_keys_phrase(base)}" + (f" {hint}" if hint else ""))
                return None
            return base.value
        if isinstance(base, ListOf):
            if isinstance(key, int) and not isinstance(key, bool) \
                    and isinstance(node, ast.Subscript):
                return base.item
            self.problems.append(f"{label} is a list: pick an item by its position, e.g. "
                                 f"{label}[0]")
            return None
        self.problems.append(f"{label} is {base.describe()}, so it has no {shown}")
        return None

    # --- functions and comparisons -----------------------------------------------------
    def call(self, node: ast.Call) -> Shape:
        shapes = [self.visit(a) for a in node.args]
        if node.func.id in ("min", "max") and len(node.args) == 1:
            shape = shapes[0]
            if isinstance(shape, ListOf) and isinstance(shape.item, (Number, Anything)):
                return NUMBER
        for arg, shape in zip(node.args, shapes, strict=True):
            self.need_number(arg, shape)
        return NUMBER

    def compare(self, node: ast.Compare) -> Shape:
        left_node, left = node.left, self.visit(node.left)
        for op, comp in zip(node.ops, node.comparators, strict=True):
            if isinstance(op, (ast.In, ast.NotIn)):
                self.membership(left_node, left, comp)
                continue
            right = self.visit(comp)
            self.pair(op, left_node, left, comp, right)
            left_node, left = comp, right
        return FLAG

    def membership(self, node: ast.AST, shape: Shape | None, listed: ast.AST) -> None:
        values = [e.value for e in listed.elts]
        label = ast.unparse(node)
        if shape is None or isinstance(shape, Anything):
            return
        if isinstance(shape, Null):
            self.problems.append(f"{label} is {shape.describe()}: it cannot be compared")
        elif isinstance(shape, _STRUCTURES):
            self.not_a_number(node, shape, self.root, "compare")
        elif isinstance(shape, Text) and not any(isinstance(v, str) for v in values):
            self.problems.append(f"{label} is text and {ast.unparse(listed)} holds numbers: "
                                 "it is never among them")
        elif isinstance(shape, Number) and all(isinstance(v, str) for v in values):
            self.problems.append(f"{label} is a number and {ast.unparse(listed)} holds text: "
                                 "it is never among them")

    def pair(self, op: ast.cmpop, left_node: ast.AST, left: Shape | None,
             right_node: ast.AST, right: Shape | None) -> None:
        sides = [(left_node, left), (right_node, right)]
        for node, shape in sides:
            if isinstance(shape, Null):
                self.problems.append(f"{ast.unparse(node)} is {shape.describe()}: it cannot be"
                                     " compared")
                return
        if left is None or right is None or isinstance(left, Anything) \
                or isinstance(right, Anything):
            return
        if isinstance(op, _ORDERING):
            for node, shape in sides:
                if isinstance(shape, Text):
                    self.problems.append(_text_ordered(node, self.example_text(node, shape)))
                    return
                if isinstance(shape, _STRUCTURES):
                    self.not_a_number(node, shape, self.root, "compare")
                    return
                if isinstance(shape, Flag):
                    self.problems.append(f"{ast.unparse(node)} is true or false: compare it "
                                         "with == or !=")
                    return
            return
        # == and !=: like with like (true/false counts as 1/0, as in Python)
        kinds = [_kind(shape) for shape in (left, right)]
        if kinds == ["text", "text"]:
            for (node, shape), (other, _) in (sides, sides[::-1]):
                if shape.values is not None and isinstance(other, ast.Constant) \
                        and other.value not in shape.values:
                    self.problems.append(f"{ast.unparse(node)} is one of "
                                         f"{', '.join(map(repr, shape.values))} here: it is "
                                         f"never {other.value!r}")
                    return
        if kinds[0] == kinds[1] or set(kinds) == {"number", "flag"}:
            return
        for node, shape in sides:
            if isinstance(shape, _STRUCTURES):
                self.not_a_number(node, shape, self.root, "compare")
                return
        text_node = left_node if kinds[0] == "text" else right_node
        other_node = right_node if text_node is left_node else left_node
        other = right if text_node is left_node else left
        self.problems.append(f"{ast.unparse(text_node)} is text and {ast.unparse(other_node)}"
                             f" is {other.describe()}: they are never equal")

    # --- messages ----------------------------------------------------------------------
    def need_number(self, node: ast.AST, shape: Shape | None) -> None:
        """Note a mistake when ``shape`` is not a number (arithmetic, a function)."""
        if shape is None or isinstance(shape, (Number, Anything)):
            return
        label = ast.unparse(node)
        if isinstance(shape, _STRUCTURES):
            self.not_a_number(node, shape, self.root, "use")
        elif isinstance(shape, Null):
            self.problems.append(f"{label} is {shape.describe()}, not a number")
        elif isinstance(shape, Text):
            self.problems.append(f"{label} is text, not a number")
        else:
            self.problems.append(f"{label} is true or false, not a number")

    def not_a_number(self, node: ast.AST, shape: Shape, whole: ast.AST | None,
                     verb: str) -> None:
        """``x is a mapping by variable (...), not a number: compare one of its values,
        e.g. '<the expression with x.first in place of x>'``."""
        label = ast.unparse(node)
        message = f"{label} is {shape.describe()}, not a number"
        example = _one_value(node, shape)
        if example is not None:
            shown = ast.unparse(_replaced(whole, node, example)) if whole is not None \
                else ast.unparse(example)
            message += f": {verb} one of its values, e.g. '{shown}'"
            if isinstance(shape, Keyed) and shape.by == "variable" and verb == "compare":
                message += " (one check per variable)"
        elif isinstance(shape, ListOf) and isinstance(shape.item, Number):
            message += f": use min({label}) or max({label})"
        self.problems.append(message)

    def example_text(self, node: ast.AST, shape: Text) -> str:
        return shape.values[0] if shape.values else "some text"


def _kind(shape: Shape) -> str:
    if isinstance(shape, Number):
        return "number"
    if isinstance(shape, Flag):
        return "flag"
    if isinstance(shape, Text):
        return "text"
    return type(shape).__name__


def _unknown_key(label: str, key: str, shown: str, keys: list[str]) -> str:
    close = did_you_mean(key, keys)
    if close:  # " (did you mean 'x'?)" -> "; did you mean 'x'?"
        return f"{label} has no {shown}; {close.strip()[1:-1]}"
    return f"{label} has no {shown} (it has: {', '.join(keys) or 'nothing'})"


def _keys_phrase(shape: Keyed) -> str:
    shown = ", ".join(shape.keys[:8]) + (", ..." if len(shape.keys) > 8 else "")
    if shape.by == "variable":
        return f"the variables ({shown})"
    return f"the values of {shape.by} ({shown})"


def _text_ordered(node: ast.AST, example: str) -> str:
    label = ast.unparse(node)
    return (f"{label} is text: it can only be compared with == or != (e.g. {label} == "
            f"{example!r})")


def _one_value(node: ast.AST, shape: Shape) -> ast.AST | None:
    """``node`` narrowed to one number inside ``shape`` (its first key), if it has one."""
    if isinstance(shape, Keyed) and shape.keys and isinstance(shape.value, Number):
        return _key_access(node, shape.keys[0])
    if isinstance(shape, Record):
        for key in shape.names():
            if isinstance(shape.key(key), Number):
                return _key_access(node, key)
    return None


def _key_access(node: ast.AST, key: str) -> ast.AST:
    base = copy.deepcopy(node)
    if key.isidentifier() and not keyword.iskeyword(key):
        return ast.Attribute(value=base, attr=key, ctx=ast.Load())
    value: int | str = int(key) if key.isdigit() else key
    return ast.Subscript(value=base, slice=ast.Constant(value), ctx=ast.Load())


def _replaced(whole: ast.AST, target: ast.AST, replacement: ast.AST) -> ast.AST:
    """A copy of ``whole`` with the node ``target`` (by identity) replaced."""
    return copy.deepcopy(whole, {id(target): replacement})
