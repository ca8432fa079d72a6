"""The one order in which the report lists the categories of a variable (frequency bars,
the key-variable tables, the rows and columns of protected tables): the declared order of
an ordinal variable; numbers by their value; class labels by the numbers they bound
(``<=8``, ``9-11``, ``12``, ``13-15``, ``16+``; ``(0,9]``, ``[10,20)``; ``-10 to -1``);
other text alphabetically; missing last."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence

MISSING = "(missing)"

_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_BRACKETS = re.compile(rf"^[(\[]\s*({_NUM})\s*[,;]\s*({_NUM})\s*[)\]]$")
_RANGE = re.compile(rf"^({_NUM})\s*(?:-|\u2013|\u2014|to|thru)\s*({_NUM})$")
_BELOW = re.compile(rf"^(?:<=?|\u2264|=<|up to|under|below)\s*({_NUM})$")
_ABOVE = re.compile(rf"^(?:>=?|\u2265|=>|over|above)\s*({_NUM})$")
_PLUS = re.compile(rf"^({_NUM})\s*(?:\+|or more|and over|and more)$")


def bounds(label: str) -> tuple[float, float] | None:
    """The numbers a category label stands for, as (low, high): ``12`` is (12, 12),
    ``9-11`` (9, 11), ``<=8`` (-inf, 8), ``16+`` (16, inf), ``(0,9]`` (0, 9), ``-10 to
    -1`` (-10, -1); None for a label that is not a number or a class of numbers."""
    text = str(label).strip()
    try:
        value = float(text)
    except ValueError:
        pass
    else:
        return None if math.isnan(value) else (value, value)
    for pattern, shape in ((_BRACKETS, "range"), (_RANGE, "range"), (_BELOW, "below"),
                           (_ABOVE, "above"), (_PLUS, "above")):
        match = pattern.match(text.lower())
        if match:
            numbers = [float(g) for g in match.groups()]
            if shape == "below":
                return (-math.inf, numbers[0])
            if shape == "above":
                return (numbers[0], math.inf)
            return (numbers[0], numbers[1])
    return None


def category_key(label: str, declared: Mapping[str, int] | None = None) -> tuple:
    """The sort key of one category (see the module's description): missing last, then
    the declared order (``declared``: category -> position), then numbers and classes by
    their bounds, then text; ties broken by the text, so that the order never depends on a
    set's."""
    text = str(label)
    if text == MISSING:
        return (1, 0, 0, 0.0, 0.0, text)
    if declared and text in declared:
        return (0, 0, declared[text], 0.0, 0.0, text)
    span = bounds(text)
    if span is not None:
        return (0, 1, 0, span[0], span[1], text)
    return (0, 2, 0, 0.0, 0.0, text)


def ordered(labels: Iterable, declared: Sequence[str] | None = None) -> list[str]:
    """``labels`` (as text, each once) in the report's order of categories."""
    position = {str(c): i for i, c in enumerate(declared or ())}
    return sorted(dict.fromkeys(str(v) for v in labels),
                  key=lambda c: category_key(c, position))


def tree_order(codes: Sequence[str], depths: Sequence[int]) -> list[str] | None:
    """The codes of a hierarchical dimension listed in post-order (each subtotal after its
    children, the total last, as tables hold them), reordered so that the children of
    each node follow :func:`category_key`; the hierarchy itself is kept. None when the
    codes are not in post-order (then their order cannot tell the hierarchy)."""
    # rebuild the tree: in post-order a code at depth d is the parent of the codes at
    # depth d + 1 listed since the last code at depth <= d
    stack: list[tuple[str, int, list]] = []
    for code, depth in zip(codes, depths):
        children = []
        while stack and stack[-1][1] > depth:
            children.append(stack.pop())
        if any(child[1] != depth + 1 for child in children):
            return None
        stack.append((str(code), int(depth), children[::-1]))
    if any(node[1] != 0 for node in stack):
        return None

    def emit(node) -> list[str]:
        code, _, children = node
        out = []
        for child in sorted(children, key=lambda n: category_key(n[0])):
            out += emit(child)
        return out + [code]

    out: list[str] = []
    for root in stack:
        out += emit(root)
    return out
