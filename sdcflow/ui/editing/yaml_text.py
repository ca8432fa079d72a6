"""Editing YAML text in place: each change rewrites only the characters of the values it
changes, so every other byte of the file (comments, blank lines, key order, quoting, flow
or block style) stays as the user wrote it.

A full round trip through a YAML library re-emits the whole document and does not keep
every file byte for byte (ruamel.yaml 0.19 writes ``[{freq: 3}]`` as ``[freq: 3]``,
re-indents a top-level list and turns a comment-only file into ``null``). So the text is
parsed with the parser ``sdcflow run`` uses (PyYAML's safe composer, whose nodes carry
their start and end in the text) and each edit splices newly rendered text into the span
of the node it replaces, or inserts whole lines after a block collection's last entry.

New values are rendered in flow style (``{role: key, type: categorical}``) when they fit
on a line of :data:`WIDTH` characters, else in block style indented two spaces further;
inside a flow collection only flow style is possible. Strings are written plain only
when plain YAML reads them back as the same text under sdcflow's YAML 1.2 rules (and as
text under YAML 1.1), otherwise double-quoted (JSON's escapes are YAML's)."""

from __future__ import annotations

import copy
import json
import math
import numbers
import re
from collections.abc import Mapping, Sequence

import yaml

from ...recipe._schema import where

WIDTH = 96  # the longest line a new flow value is written on (the recipes keep to ~100)

Path = Sequence  # of str (mapping keys) and int (sequence indexes)

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-/]*\Z")
# read as booleans or null by YAML 1.1 or 1.2: quoted so that every reader sees text
_RESERVED = {"true", "false", "null", "yes", "no", "on", "off", "y", "n"}
# characters written as escapes in quoted text: what YAML may not hold raw, and the line
# breaks YAML 1.1 knows beyond \n and \r (NEL, LS, PS), which a reader would fold
_ESCAPE = re.compile("[^\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd"
                     "\U00010000-\U0010ffff]")


class EditError(ValueError):
    """An edit that cannot be made: a value that is not JSON-like, a path through a scalar,
    an index out of range."""


# ---------------------------------------------------------------- rendering values

def check_value(value, where: str = "value") -> None:
    """Refuse what a recipe cannot hold: only mappings with text keys, lists, text,
    finite numbers, booleans and null (what the recipe's JSON Schema describes)."""
    if value is None or isinstance(value, (bool, str)):
        return
    if isinstance(value, numbers.Integral):
        return
    if isinstance(value, numbers.Real):
        if not math.isfinite(float(value)):
            raise EditError(f"{where}: {value} is not a finite number")
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise EditError(f"{where}: the key {key!r} is not text")
            check_value(item, f"{where}.{key}")
        return
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            check_value(item, f"{where}[{i}]")
        return
    raise EditError(f"{where}: a {type(value).__name__} cannot be written in a recipe")


def scalar(value) -> str:
    """A scalar as YAML text that sdcflow reads back as the same value."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    text = str(value)
    if _PLAIN.match(text) and text.lower() not in _RESERVED:
        return text
    quoted = json.dumps(text, ensure_ascii=False)
    return _ESCAPE.sub(lambda m: "".join(f"\\u{u:04x}" for u in _utf16(m.group())), quoted)


def _utf16(char: str) -> list[int]:
    data = char.encode("utf-16-be", "surrogatepass")
    return [int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data), 2)]


def flow(value) -> str:
    """``value`` in flow style, on one line."""
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{scalar(k)}: {flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(flow(v) for v in value) + "]"
    return scalar(value)


def _collection(value) -> bool:
    return isinstance(value, (Mapping, list, tuple)) and len(value) > 0


def after_key(value, col: int, used: int, width: int = WIDTH) -> str:
    """The text after ``key:`` (at column ``col``, ``used`` characters long with the
    colon): `` value`` on the same line when it fits, else the block on the next lines."""
    text = flow(value)
    if not _collection(value) or col + used + 1 + len(text) <= width:
        return " " + text
    inner = col + 2
    return "\n" + " " * inner + block(value, inner, width)


def block(value, col: int, width: int = WIDTH, prefer_flow: bool = True) -> str:
    """``value`` in block style at column ``col``: the first line without its indent,
    no final line break. Entries that fit are written in flow style (a mapping in a
    sequence only when ``prefer_flow``)."""
    pad = "\n" + " " * col
    if isinstance(value, Mapping) and value:
        lines = []
        for key, item in value.items():
            head = f"{scalar(key)}:"
            lines.append(head + after_key(item, col, len(head), width))
        return pad.join(lines)
    if isinstance(value, (list, tuple)) and value:
        return pad.join("- " + item_text(item, col + 2, width, prefer_flow) for item in value)
    return flow(value)


def item_text(item, col: int, width: int = WIDTH, prefer_flow: bool = True) -> str:
    """A sequence item (after its ``- ``, its content at column ``col``)."""
    text = flow(item)
    if not _collection(item) or (col + len(text) <= width and
                                 (prefer_flow or not isinstance(item, Mapping))):
        return text
    return block(item, col, width, prefer_flow)


# ---------------------------------------------------------------- the text and its nodes

class _Loader(yaml.SafeLoader):
    """PyYAML's safe composer, except that an alias (``*name``) becomes a copy of its
    anchored node marked ``alias`` and placed where the alias is written (PyYAML gives
    the anchored node itself, placed at the anchor)."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            node = copy.copy(super().compose_node(parent, index))
            node.start_mark, node.end_mark = event.start_mark, event.end_mark
            node.alias = True
            return node
        return super().compose_node(parent, index)


def compose(text: str):
    """The node tree of ``text`` (None for an empty document); marks index the text."""
    loader = _Loader(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def is_alias(node) -> bool:
    return getattr(node, "alias", False)


def _flow(node) -> bool:
    return bool(getattr(node, "flow_style", False))


class YamlText:
    """A YAML text and its nodes; each edit changes the text and composes it again."""

    def __init__(self, text: str):
        self.text = text
        self.root = compose(text)
        # (a file written with Windows line ends gets new lines with them too)
        self.newline = "\r\n" if "\r\n" in text else "\n"

    def _splice(self, start: int, stop: int, new: str) -> None:
        if self.newline != "\n":
            new = new.replace("\r\n", "\n").replace("\n", self.newline)
        self.text = self.text[:start] + new + self.text[stop:]
        self.root = compose(self.text)

    # -- finding nodes
    def node(self, path: Path):
        """The node at ``path``; KeyError/IndexError when there is none."""
        node = self.root
        for depth, part in enumerate(path):
            node = self.child(node, part, path[:depth + 1])
        return node

    def child(self, node, part, path=()):
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            for key, value in node.value:
                if key.value == part:
                    return value
            raise KeyError(where(path))
        if isinstance(node, yaml.SequenceNode) and isinstance(part, int) \
                and not isinstance(part, bool):
            if 0 <= part < len(node.value):
                return node.value[part]
            raise IndexError(f"{where(path)}: no such item (there are {len(node.value)})")
        raise KeyError(where(path))

    def _pair(self, mapping, key: str):
        for j, (k, v) in enumerate(mapping.value):
            if k.value == key:
                return j, k, v
        raise KeyError(key)

    # -- positions
    def end(self, node) -> int:
        """Where the node's own text ends (a block collection: where its last entry's
        does; trailing line breaks of block scalars excluded)."""
        if is_alias(node):
            return node.end_mark.index
        if isinstance(node, yaml.MappingNode) and not _flow(node) and node.value:
            return self.end(node.value[-1][1])
        if isinstance(node, yaml.SequenceNode) and not _flow(node) and node.value:
            return self.end(node.value[-1])
        stop = node.end_mark.index
        while stop > node.start_mark.index and self.text[stop - 1] in " \t\r\n":
            stop -= 1
        return stop

    def line_start(self, pos: int) -> int:
        return self.text.rfind("\n", 0, pos) + 1

    def line_end(self, pos: int) -> int:
        """The start of the line after the one ``pos`` is on."""
        if pos > 0 and self.text[pos - 1] == "\n":
            return pos
        nl = self.text.find("\n", pos)
        return len(self.text) if nl < 0 else nl + 1

    def comments_above(self, pos: int, col: int) -> int:
        """The start of the full-line comments right above the line starting at ``pos``
        (indented at least ``col``): they belong to the entry that follows them."""
        while pos > 0:
            prev = self.line_start(pos - 1)
            line = self.text[prev:pos - 1]
            stripped = line.lstrip(" ")
            if stripped.startswith("#") and len(line) - len(stripped) >= col:
                pos = prev
            else:
                break
        return pos

    def dash(self, item) -> int:
        """The position of the ``-`` that opens a block sequence item."""
        pos = item.start_mark.index - 1
        while pos >= 0 and self.text[pos] in " \t\r\n":
            pos -= 1
        return pos

    def _entry_lines(self, start: int, col: int, stop_node) -> tuple[int, int]:
        """The whole lines of an entry starting at ``start`` with its comments above."""
        return (self.comments_above(self.line_start(start), col),
                self.line_end(self.end(stop_node)))

    def _insert_lines(self, pos: int, lines: str) -> None:
        if pos == len(self.text) and self.text and not self.text.endswith("\n"):
            lines = "\n" + lines
        self._splice(pos, pos, lines)

    def alias_depth(self, path: Path) -> int | None:
        """How many parts of ``path`` lead to an alias on the way (None: no alias)."""
        node = self.root
        for depth, part in enumerate(path):
            if is_alias(node):
                return depth
            try:
                node = self.child(node, part, path[:depth + 1])
            except (KeyError, IndexError):
                return None
        return len(path) if is_alias(node) else None

    def _after_anchor(self, pos: int) -> int:
        """``pos``, or after the anchor (``&name``) written there (kept when the value
        after it is replaced: aliases refer to it)."""
        at = pos
        while at < len(self.text) and self.text[at] == " ":
            at += 1
        if self.text.startswith("&", at):
            while at < len(self.text) and self.text[at] not in " \n\r\t":
                at += 1
            return at
        return pos

    # -- edits
    def replace(self, path: Path, value) -> None:
        """Write ``value`` in place of the value at ``path`` (not the root)."""
        parent = self.node(path[:-1])
        last = path[-1]
        if isinstance(parent, yaml.MappingNode):
            _, key, node = self._pair(parent, last)
            if _flow(parent):
                start = self._after_anchor(node.start_mark.index)
                gap = " " if start != node.start_mark.index else ""
                self._splice(start, self.end(node), gap + flow(value))
                return
            colon = self.text.index(":", key.end_mark.index)
            start = self._after_anchor(colon + 1)
            stop = max(self.end(node), start)
            col = key.start_mark.column
            used = start - key.start_mark.index
            self._splice(start, stop, after_key(value, col, used))
            return
        node = self.child(parent, last, path)
        start = self._after_anchor(node.start_mark.index)
        gap = " " if start != node.start_mark.index else ""
        if _flow(parent):
            self._splice(start, self.end(node), gap + flow(value))
            return
        col = node.start_mark.column
        self._splice(start, self.end(node), gap + item_text(value, col))

    def add_key(self, path: Path, key: str, value) -> None:
        """Append ``key: value`` to the mapping at ``path``."""
        mapping = self.node(path)
        if not isinstance(mapping, yaml.MappingNode):
            raise EditError(f"{where(path)} is not a mapping")
        if _flow(mapping) or not mapping.value:
            entry = f"{scalar(key)}: {flow(value)}"
            if mapping.value:
                at = self.end(mapping.value[-1][1])
                self._splice(at, at, ", " + entry)
            else:
                close = mapping.end_mark.index - 1
                self._splice(close, close, entry)
            return
        col = mapping.value[0][0].start_mark.column
        head = f"{scalar(key)}:"
        at = self.line_end(self.end(mapping.value[-1][1]))
        self._insert_lines(at, " " * col + head + after_key(value, col, len(head)) + "\n")

    def delete_key(self, path: Path, key: str) -> None:
        mapping = self.node(path)
        if not isinstance(mapping, yaml.MappingNode):
            raise KeyError(where([*path, key]))
        j, knode, vnode = self._pair(mapping, key)
        pairs = mapping.value
        if len(pairs) == 1:
            self._empty(path, mapping, "{}")
        elif _flow(mapping):
            if j < len(pairs) - 1:
                self._splice(knode.start_mark.index, pairs[j + 1][0].start_mark.index, "")
            else:
                self._splice(self.end(pairs[j - 1][1]), self.end(vnode), "")
        elif j == 0 and self.text[self.line_start(knode.start_mark.index):
                                  knode.start_mark.index].strip():
            # the first key of a sequence item, on the line of its '-': the next key
            # moves up onto that line
            self._splice(knode.start_mark.index, pairs[1][0].start_mark.index, "")
        else:
            start, stop = self._entry_lines(knode.start_mark.index, knode.start_mark.column,
                                            vnode)
            self._splice(start, stop, "")

    def _empty(self, path: Path, node, empty: str) -> None:
        if path:
            self.replace(path, {} if empty == "{}" else [])
        else:
            self._splice(node.start_mark.index, self.end(node), empty)

    def insert_item(self, path: Path, index: int, value, prefer_flow: bool | None = None
                    ) -> None:
        """Insert ``value`` into the sequence at ``path`` before item ``index``."""
        seq = self.node(path)
        if not isinstance(seq, yaml.SequenceNode):
            raise EditError(f"{where(path)} is not a list")
        items = seq.value
        if not 0 <= index <= len(items):
            raise IndexError(f"{where(path)}: no position {index} (there are {len(items)})")
        if _flow(seq) or not items:
            at = items[index].start_mark.index if index < len(items) else (
                self.end(items[-1]) if items else seq.end_mark.index - 1)
            text = flow(value)
            text = (text + ", ") if index < len(items) else ((", " + text) if items else text)
            self._splice(at, at, text)
            return
        dash_col = self.dash(items[0]) - self.line_start(self.dash(items[0]))
        if prefer_flow is None:
            maps = [n for n in items if isinstance(n, yaml.MappingNode)]
            prefer_flow = sum(_flow(n) for n in maps) * 2 > len(maps)
        line = " " * dash_col + "- " + item_text(value, dash_col + 2, WIDTH, prefer_flow) + "\n"
        if index < len(items):
            at = self.comments_above(self.line_start(self.dash(items[index])), dash_col)
        else:
            at = self.line_end(self.end(items[-1]))
        self._insert_lines(at, line)

    def _item_lines(self, seq, index: int) -> tuple[int, int]:
        item = seq.value[index]
        dash = self.dash(item)
        return self._entry_lines(dash, dash - self.line_start(dash), item)

    def delete_item(self, path: Path, index: int) -> None:
        seq = self.node(path)
        self.child(seq, index, [*path, index])
        items = seq.value
        if len(items) == 1:
            self._empty(path, seq, "[]")
        elif _flow(seq):
            if index < len(items) - 1:
                self._splice(items[index].start_mark.index, items[index + 1].start_mark.index,
                             "")
            else:
                self._splice(self.end(items[index - 1]), self.end(items[index]), "")
        else:
            self._splice(*self._item_lines(seq, index), "")

    def move_item(self, path: Path, index: int, position: int, values: list) -> None:
        """Move item ``index`` of the sequence at ``path`` to ``position`` (its index
        afterwards), with the comments right above it; ``values``: the sequence's values
        (a flow sequence is written anew)."""
        seq = self.node(path)
        self.child(seq, index, [*path, index])
        if not 0 <= position < len(seq.value):
            raise IndexError(f"{where(path)}: no position {position}")
        if position == index:
            return
        if _flow(seq):
            values = list(values)
            values.insert(position, values.pop(index))
            self.replace(path, values)  # (a flow list holds no comments)
            return
        start, stop = self._item_lines(seq, index)
        chunk = self.text[start:stop]
        if not chunk.endswith("\n"):
            chunk += "\n"
        self._splice(start, stop, "")
        seq = self.node(path)
        items = seq.value
        if position < len(items):
            dash = self.dash(items[position])
            col = dash - self.line_start(dash)
            at = self.comments_above(self.line_start(dash), col)
        else:
            at = self.line_end(self.end(items[-1]))
        self._insert_lines(at, chunk)
