"""YAML loading that keeps the position of every value and avoids the YAML 1.1 traps.

The document is composed with PyYAML's ``SafeLoader`` (no Python object construction,
no tags beyond the standard ones) and turned into plain JSON-like values by our own
walk over the node tree, so that:

* every value and every mapping key keeps its ``line:col`` (for ``file:line:col`` errors);
* duplicate keys are errors instead of silently keeping the last one;
* scalars are resolved with the YAML 1.2 core rules: only ``true``/``false`` are
  booleans (``NO``, ``on``, ``yes`` stay text), and dates stay text;
* unquoted codes with a leading zero (``08``, ``010``) stay text, with a warning, because
  YAML 1.1 reads ``010`` as the octal number 8 and silently changes the category.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from ..errors import Problem

Path = tuple  # tuple of str (mapping keys) and int (sequence indexes)

_NULL = {"", "~", "null", "Null", "NULL"}
_TRUE = {"true", "True", "TRUE"}
_FALSE = {"false", "False", "FALSE"}
_INT = re.compile(r"[-+]?[0-9]+\Z")
_LEADING_ZERO = re.compile(r"[-+]?0[0-9]+\Z")
_HEX = re.compile(r"0x[0-9a-fA-F]+\Z")
_OCT = re.compile(r"0o[0-7]+\Z")
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")
_INF = re.compile(r"[-+]?\.(inf|Inf|INF)\Z")
_NAN = re.compile(r"\.(nan|NaN|NAN)\Z")
_STANDARD_TAGS = {
    "tag:yaml.org,2002:" + t
    for t in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp", "binary")
}
_MAX_NODES = 1_000_000
_MAX_DEPTH = 100


@dataclass
class YamlDocument:
    """A loaded YAML document: the data, and where each value and key was written."""

    file: str
    data: Any = None
    positions: dict = field(default_factory=dict)  # path -> (line, col) of the value
    key_positions: dict = field(default_factory=dict)  # path -> (line, col) of its key
    problems: list = field(default_factory=list)

    def locate(self, path: Path, key: bool = False) -> tuple[int | None, int | None]:
        """Position of ``path`` (of its key if ``key``), else of its nearest ancestor."""
        path = tuple(path)
        if key and path in self.key_positions:
            return self.key_positions[path]
        while True:
            if path in self.positions:
                return self.positions[path]
            if not path:
                return (None, None)
            path = path[:-1]

    def problem(self, path: Path, message: str, *, key: bool = False,
                severity: str = "error") -> Problem:
        line, col = self.locate(path, key=key)
        return Problem(self.file, line, col, message, severity, tuple(path))


def _resolve_plain(value: str) -> tuple[Any, str | None]:
    """Resolve an unquoted scalar with YAML 1.2 core rules; return (value, warning)."""
    if value in _NULL:
        return None, None
    if value in _TRUE:
        return True, None
    if value in _FALSE:
        return False, None
    if _LEADING_ZERO.match(value):
        return value, (
            f"unquoted code {value} is kept as the text '{value}' (YAML 1.1 would read "
            f"it as a number); quote it to make that explicit"
        )
    if _INT.match(value):
        return int(value), None
    if _HEX.match(value):
        return int(value, 16), None
    if _OCT.match(value):
        return int(value, 8), None
    if _FLOAT.match(value):
        return float(value), None
    if _INF.match(value):
        return (-math.inf if value.startswith("-") else math.inf), None
    if _NAN.match(value):
        return math.nan, None
    return value, None


class _Walker:
    def __init__(self, doc: YamlDocument):
        self.doc = doc
        self.count = 0

    def mark(self, node) -> tuple[int, int]:
        return (node.start_mark.line + 1, node.start_mark.column + 1)

    def problem(self, node, message: str, severity: str = "error") -> None:
        line, col = self.mark(node)
        self.doc.problems.append(Problem(self.doc.file, line, col, message, severity))

    def walk(self, node, path: Path, depth: int = 0) -> Any:
        self.count += 1
        if self.count > _MAX_NODES:
            raise _TooLarge
        if depth > _MAX_DEPTH:
            raise _TooDeep
        self.doc.positions[path] = self.mark(node)
        if node.tag not in _STANDARD_TAGS:
            self.problem(node, f"unsupported YAML tag {node.tag!r}")
            return None
        if isinstance(node, yaml.MappingNode):
            out: dict[str, Any] = {}
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    self.problem(key_node, "mapping keys must be plain names, not collections")
                    continue
                key = key_node.value
                if key == "<<" and key_node.tag == "tag:yaml.org,2002:merge":
                    self.problem(key_node, "merge keys (<<) are not supported in recipes")
                    continue
                first = self.doc.key_positions.get(path + (key,))
                if first is not None:
                    self.problem(key_node,
                                 f"duplicate key '{key}' (first given at line {first[0]})")
                    continue
                self.doc.key_positions[path + (key,)] = self.mark(key_node)
                out[key] = self.walk(value_node, path + (key,), depth + 1)
            return out
        if isinstance(node, yaml.SequenceNode):
            return [self.walk(item, path + (i,), depth + 1) for i, item in enumerate(node.value)]
        # Scalar: quoted and block scalars are always text.
        if node.style in ("'", '"', "|", ">"):
            return node.value
        value, warning = _resolve_plain(node.value)
        if warning:
            self.problem(node, warning, severity="warning")
        if isinstance(value, float) and not math.isfinite(value):
            self.problem(node, f"{node.value} is not allowed in recipes: give a finite number")
            return None
        return value


class _TooLarge(Exception):
    pass


class _TooDeep(Exception):
    pass


def load_yaml(text: str, file: str) -> YamlDocument:
    """Parse ``text`` into a :class:`YamlDocument`; syntax errors become problems."""
    doc = YamlDocument(file=file)
    try:
        nodes = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (None, None)
        what = exc.problem or str(exc)
        if "'\\t'" in what or "\t" in what:
            what = "found a tab character (YAML indents with spaces only)"
        elif exc.context:
            what = f"{exc.context}: {what}"
        doc.problems.append(Problem(file, line, col, f"malformed YAML: {what}"))
        return doc
    except yaml.YAMLError as exc:  # e.g. a reader error on control characters
        doc.problems.append(Problem(file, None, None, f"malformed YAML: {exc}"))
        return doc
    except RecursionError:
        doc.problems.append(Problem(file, None, None, "malformed YAML: nesting is too deep"))
        return doc
    if not nodes:
        doc.problems.append(Problem(file, 1, 1, "the recipe is empty"))
        return doc
    if len(nodes) > 1:
        line = nodes[1].start_mark.line + 1
        doc.problems.append(
            Problem(file, line, 1, "a recipe file holds one YAML document, found several")
        )
    walker = _Walker(doc)
    try:
        doc.data = walker.walk(nodes[0], ())
    except _TooLarge:
        doc.problems.append(
            Problem(file, None, None, "the document expands to too many values (aliases?)")
        )
    except _TooDeep:
        doc.problems.append(Problem(file, None, None, "malformed YAML: nesting is too deep"))
    return doc
