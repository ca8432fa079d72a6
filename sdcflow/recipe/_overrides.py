"""Overrides of a recipe's values from the command line (``--set PATH=VALUE``), for
exploration: ``--set steps.kanon.params.k=5`` runs the recipe with ``k: 5`` in the step
``kanon`` without editing the file, as dbt's ``--vars`` and Kedro's ``--params`` do.

``PATH`` addresses the recipe's YAML: mapping keys separated by dots; in a list (steps,
tables, constraints) an item by its ``id`` or by its position (``checks.0``). A missing
key is added (``release.pdf=true``), so that what the file leaves to its default can be
set too. ``VALUE`` is read as YAML with the recipe's own rules (:mod:`._yaml`: no tags,
YAML 1.2 booleans, codes with a leading zero kept as text): ``5``, ``0.5``, ``true``,
``[2, 3, 5]``, ``{quantile: 0.99}``; anything else is text.

The recipe so changed is checked as any recipe (schema, semantics, data); a problem in
an overridden value is reported at its ``--set`` argument rather than at the file's line,
which no longer holds the value that ran. The overrides are part of the recipe as run:
the public form and its hash (:mod:`sdcflow.engine.public_recipe`) describe the
overridden recipe, so the public manifest names what really ran (an overridden seed is
left out like any seed), and the full manifest lists them (never silently).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..errors import Problem
from ._yaml import YamlDocument, load_yaml

_MISSING = object()


@dataclass(frozen=True)
class Override:
    """One ``--set PATH=VALUE`` argument: its text, the path as written, the value read."""

    arg: str
    path: str
    value: object

    @property
    def where(self) -> str:
        """How problems name it: ``--set steps.kanon.params.k=abc``."""
        return f"--set {self.arg}"

    def as_dict(self) -> dict:
        return {"set": self.path, "value": self.value}


@dataclass
class OverriddenDocument(YamlDocument):
    """A recipe document with overridden values: a problem located in one of them names
    its ``--set`` argument instead of a line of the file."""

    overridden: dict = field(default_factory=dict)  # resolved path -> Override

    def problem(self, path, message: str, *, key: bool = False,
                severity: str = "error") -> Problem:
        path = tuple(path)
        covering = [at for at in self.overridden if path[:len(at)] == at]
        if covering:  # (the deepest: a later --set inside an earlier one's value)
            override = self.overridden[max(covering, key=len)]
            return Problem(override.where, None, None, message, severity, path)
        return super().problem(path, message, key=key, severity=severity)


def parse_override(arg: str) -> tuple[Override | None, list[Problem]]:
    """``PATH=VALUE`` read (None and the problems when it cannot be)."""
    where = f"--set {arg}"
    path, sep, text = arg.partition("=")
    path = path.strip()
    if not sep or not path:
        return None, [Problem(where, None, None, "expected PATH=VALUE, e.g. "
                                                 "--set steps.kanon.params.k=5")]
    if any(not part for part in path.split(".")):
        return None, [Problem(where, None, None, f"'{path}' is not a path: keys and step "
                                                 "ids separated by single dots")]
    if not text.strip():  # ``--set release.variant=``: null, as in YAML
        return Override(arg, path, None), []
    doc = load_yaml(text, where)
    problems = [Problem(where, None, None, f"the value: {p.message}", p.severity)
                for p in doc.problems]
    if any(p.severity == "error" for p in problems):
        return None, problems
    return Override(arg, path, doc.data), problems


def apply_overrides(doc: YamlDocument, args: Iterable[str]) -> tuple[OverriddenDocument,
                                                                     list[Override],
                                                                     list[Problem]]:
    """``doc`` with the ``--set`` arguments ``args`` applied in order (a later one wins),
    the overrides applied, and the problems of those that could not be."""
    out = OverriddenDocument(doc.file, doc.data, doc.positions, doc.key_positions,
                             list(doc.problems))
    applied: list[Override] = []
    problems: list[Problem] = []
    for arg in args:
        override, found = parse_override(arg)
        problems += found
        if override is None:
            continue
        resolved, problem = _assign(out.data, override)
        if problem:
            problems.append(Problem(override.where, None, None, problem))
            continue
        # (the file's positions under it describe the value it replaced)
        for table in (out.positions, out.key_positions):
            for path in [p for p in table if p[:len(resolved)] == resolved and
                         (p != resolved or table is out.positions)]:
                del table[path]
        for earlier in [at for at in out.overridden if at[:len(resolved)] == resolved]:
            del out.overridden[earlier]  # (its value was replaced by this one)
        out.overridden[resolved] = override
        applied.append(override)
    return out, applied, problems


def _assign(data: object, override: Override) -> tuple[tuple, str | None]:
    """Set ``override``'s value in ``data`` (a recipe's mapping); the path resolved to
    keys and list indexes, or a message saying why it cannot be set."""
    if not isinstance(data, dict):
        return (), "the recipe is not a mapping"
    parts = override.path.split(".")
    node, resolved = data, []
    while parts:
        if isinstance(node, dict):
            key, parts = _key(node, parts)
            if not parts:
                node[key] = override.value
                return (*resolved, key), None
            if node.get(key, _MISSING) is _MISSING or node[key] is None:
                node[key] = {}
            node, resolved = node[key], [*resolved, key]
        elif isinstance(node, list):
            index = _item(node, parts[0])
            if index is None:
                return (), _no_item(node, parts[0], ".".join(map(str, resolved)))
            parts = parts[1:]
            if not parts:
                node[index] = override.value
                return (*resolved, index), None
            node, resolved = node[index], [*resolved, index]
        else:
            shown = ".".join(map(str, resolved))
            return (), f"{shown} is a single value ({node!r}), which has no '{parts[0]}'"
    return tuple(resolved), None  # (not reached: the loop returns with the last part)


def _key(mapping: dict, parts: list[str]) -> tuple[str, list[str]]:
    """The key of ``mapping`` that ``parts`` start with: the longest existing key of
    several dotted parts (a variable named ``a.b``), else the first part."""
    for n in range(len(parts), 1, -1):
        key = ".".join(parts[:n])
        if key in mapping:
            return key, parts[n:]
    return parts[0], parts[1:]


def _item(items: list, part: str) -> int | None:
    """The index of the item of ``items`` with id ``part``, or at position ``part``."""
    for i, item in enumerate(items):
        if isinstance(item, dict) and item.get("id") == part:
            return i
    if part.isdigit() and int(part) < len(items):
        return int(part)
    return None


def _no_item(items: list, part: str, where: str) -> str:
    from difflib import get_close_matches

    ids = [str(item["id"]) for item in items if isinstance(item, dict) and "id" in item]
    if not ids:
        return f"{where} has no item {part} (it has {len(items)})"
    close = get_close_matches(part, ids, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    return f"{where} has no item with id '{part}'{hint}; its ids: {', '.join(ids)}"
