"""The recipe as the workbench edits it: every action changes the YAML text of the recipe
and nothing else, keeping the user's comments, key order and formatting
(:mod:`sdcflow.ui.editing.yaml_text` splices each change into the text); :func:`recipe_diff`
shows what an action changed.

The values are read with sdcflow's own YAML reader (:func:`sdcflow.recipe.load_yaml`:
YAML 1.2 core scalars, duplicate keys refused, positions for messages), so what the
workbench shows is what ``sdcflow run`` reads. After every edit the text is read again
and the edited value compared with the one written: an edit never leaves a text that
reads differently from what was asked."""

from __future__ import annotations

import copy
import difflib
import json
import numbers
import re
from collections.abc import Mapping
from pathlib import Path

import yaml

from ...errors import Problem, RecipeError
from ...recipe import load_yaml
from ...recipe._schema import where
from .yaml_text import EditError, YamlText, check_value

__all__ = ["EditError", "RecipeDocument", "recipe_diff", "starter_document"]

_ID_CHARS = re.compile(r"[^A-Za-z0-9_-]+")
_MISSING = object()


def _same(a, b) -> bool:
    """Equal as the recipe's JSON values (1 and true differ; key order does not count)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _plain(value):
    """A plain copy of a value :func:`check_value` accepts: dicts, lists (from tuples),
    text, int (from any integral number), float, bool, None."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    return [_plain(item) for item in value]


class RecipeDocument:
    """A recipe's YAML text, edited in place."""

    def __init__(self, text: str, source: str = "recipe.yaml"):
        self.source = source
        self._data = self._read(text, source)
        self._yaml = YamlText(text)

    @classmethod
    def parse(cls, text: str, source: str = "recipe.yaml") -> RecipeDocument:
        """Read ``text``; malformed YAML, several documents, duplicate keys, unsupported
        tags or a document that is not a mapping raise :class:`RecipeError` with
        ``source:line:col: message`` as ``sdcflow validate`` prints it."""
        return cls(text, source)

    @staticmethod
    def _read(text: str, source: str) -> dict:
        doc = load_yaml(text, source)
        errors = [p for p in doc.problems if p.severity == "error"]
        if errors:
            raise RecipeError(errors)
        if not isinstance(doc.data, dict):
            line, col = doc.locate(())
            raise RecipeError([Problem(source, line, col, "a recipe is a mapping of sections "
                                                          "(sdcflow, name, seed, data, ...)")])
        return doc.data

    def text(self) -> str:
        """The recipe's YAML text as it is now."""
        return self._yaml.text

    # ------------------------------------------------------------ generic access
    def get(self, path: list[str | int], default=None):
        """A plain copy (dicts, lists, scalars) of the value at ``path``, or ``default``."""
        value = self._lookup(path)
        return default if value is _MISSING else copy.deepcopy(value)

    def _lookup(self, path):
        value = self._data
        for part in path:
            if (isinstance(value, dict) and isinstance(part, str) and part in value) or (
                    isinstance(value, list) and isinstance(part, int)
                    and not isinstance(part, bool) and 0 <= part < len(value)):
                value = value[part]
            else:
                return _MISSING
        return value

    def _changed(self, check_path=None, expected=_MISSING) -> None:
        """Read the edited text again; it must read as asked (else the edit is undone)."""
        text = self._yaml.text
        try:
            data = self._read(text, self.source)
        except RecipeError as exc:  # (a bug of the splicing: never left in the text)
            raise RuntimeError(f"sdcflow could not edit the recipe: {exc}") from None
        if check_path is not None:
            found = data
            for part in check_path:
                try:
                    found = found[part]
                except (KeyError, IndexError, TypeError):
                    found = _MISSING
                    break
            if (expected is _MISSING) != (found is _MISSING) or (
                    expected is not _MISSING and not _same(found, expected)):
                raise RuntimeError(f"sdcflow could not edit the recipe at {list(check_path)}")
        self._data = data

    def _edit(self, action, check_path=None, expected=_MISSING) -> None:
        before = self._yaml.text
        try:
            try:
                action()
                self._changed(check_path, expected)
            except (yaml.YAMLError, RecipeError) as exc:
                # (deleting an anchor (&name) that an alias still uses, say)
                message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                if isinstance(exc, yaml.YAMLError) and getattr(exc, "problem", None):
                    message = exc.problem
                if "undefined alias" in message:
                    message += (" (the value it names, written with &, is used again "
                                "further on: write it out there first)")
                raise EditError(f"the edit would leave the recipe unreadable: {message}"
                                ) from None
        except BaseException:
            self._yaml = YamlText(before)
            self._data = self._read(before, self.source)
            raise

    def set(self, path: list[str | int], value) -> None:
        """Make the value at ``path`` equal ``value``, changing as little text as
        possible: mappings are updated key by key (existing keys keep their place and
        comments, new keys are appended, keys not in ``value`` removed), lists of the
        same length item by item. Missing mappings on the way are created."""
        check_value(value, where(path))
        value = _plain(value)
        if not path:
            if not isinstance(value, dict):
                raise EditError("a recipe is a mapping of sections")
            self._edit(lambda: self._assign([], value), [], value)
            return
        self._edit(lambda: self._set(list(path), value), list(path), value)

    def _set(self, path: list, value) -> None:
        aliased = self._yaml.alias_depth(path)
        if aliased is not None and aliased < len(path):
            # inside a value written as an alias (*name): the alias is replaced by the
            # value it stands for, changed (the anchored value and its other uses stay)
            whole = self._lookup(path[:aliased])
            self._yaml.replace(path[:aliased], _put(copy.deepcopy(whole), path[aliased:],
                                                    value))
            return
        for depth, part in enumerate(path):
            here = self._lookup(path[:depth])
            if isinstance(here, dict) and isinstance(part, str):
                if part not in here:
                    self._yaml.add_key(path[:depth], part, _nest(path[depth + 1:], value))
                    return
            elif isinstance(here, list) and isinstance(part, int) and not isinstance(part, bool):
                if not 0 <= part < len(here):
                    raise IndexError(f"{where(path[:depth + 1])}: no such item "
                                     f"(there are {len(here)})")
            elif isinstance(part, str) and depth > 0:
                self._yaml.replace(path[:depth], _nest(path[depth:], value))  # (a scalar becomes a mapping)
                self._data = self._read(self._yaml.text, self.source)
                return
            else:
                raise EditError(f"{where(path[:depth + 1])}: no such place in the recipe")
        self._assign(path, value)

    def _assign(self, path: list, value) -> None:
        old = self._lookup(path)
        if _same(old, value):
            return
        if path and self._yaml.alias_depth(path) is not None:
            self._yaml.replace(path, value)
            self._data = self._read(self._yaml.text, self.source)
            return
        if isinstance(old, dict) and isinstance(value, dict) and old and value:
            for key in old:
                if key in value:
                    self._assign([*path, key], value[key])
            for key in value:
                if key not in old:
                    self._yaml.add_key(path, key, value[key])
                    self._data = self._read(self._yaml.text, self.source)
            for key in old:
                if key not in value:
                    self._yaml.delete_key(path, key)
                    self._data = self._read(self._yaml.text, self.source)
            return
        if isinstance(old, list) and isinstance(value, list) and old and len(old) == len(value):
            for i, item in enumerate(value):
                self._assign([*path, i], item)
            return
        self._yaml.replace(path, value)
        self._data = self._read(self._yaml.text, self.source)

    def delete(self, path: list[str | int]) -> None:
        """Remove the value at ``path`` (a key with its value and the comment lines right
        above it, or a list item); KeyError when there is none."""
        if not path or self._lookup(path) is _MISSING:
            raise KeyError(f"{where(path)}: not in the recipe")
        parent, last = list(path[:-1]), path[-1]
        if self._yaml.alias_depth(path) not in (None, len(path)):
            container = self.get(parent)
            del container[last]
            self.set(parent, container)
            return
        if isinstance(last, str):
            self._edit(lambda: self._yaml.delete_key(parent, last), list(path))
        else:
            expected = self._lookup(parent)[:last] + self._lookup(parent)[last + 1:]
            self._edit(lambda: self._yaml.delete_item(parent, last), parent, expected)

    def insert(self, path: list[str | int], index: int, value) -> None:
        """Insert ``value`` into the list at ``path`` before item ``index`` (``len``:
        at the end); a missing list is created."""
        check_value(value, where(path))
        value = _plain(value)
        items = self._lookup(path)
        if items is _MISSING or items is None:
            if index != 0:
                raise IndexError(f"{where(path)}: no position {index} (there are 0)")
            self.set(path, [value])
            return
        if not isinstance(items, list):
            raise EditError(f"{where(path)} is not a list")
        if not 0 <= index <= len(items):
            raise IndexError(f"{where(path)}: no position {index} (there are "
                             f"{len(items)})")
        expected = [*items[:index], value, *items[index:]]
        if self._yaml.alias_depth(path) is not None:
            self.set(path, expected)
            return
        self._edit(lambda: self._yaml.insert_item(list(path), index, value), list(path),
                   expected)

    def move(self, path: list[str | int], index: int, position: int) -> None:
        """Move item ``index`` of the list at ``path`` to ``position`` (its index after
        the move), with the comment lines right above it."""
        items = self._lookup(path)
        if not isinstance(items, list) or not 0 <= index < len(items):
            raise IndexError(f"{where([*path, index])}: no such item")
        if not 0 <= position < len(items):
            raise IndexError(f"{where(path)}: no position {position} (there are "
                             f"{len(items)})")
        expected = list(items)
        expected.insert(position, expected.pop(index))
        if self._yaml.alias_depth(path) is not None:
            self.set(path, expected)
            return
        self._edit(lambda: self._yaml.move_item(list(path), index, position, items),
                   list(path), expected)

    # ------------------------------------------------------------ variables
    def variables(self) -> dict[str, dict]:
        """Each declared variable's declaration (a plain copy)."""
        found = self.get(["variables"])
        if not isinstance(found, dict):
            return {}
        return {name: spec if isinstance(spec, dict) else {} for name, spec in found.items()}

    def set_variable(self, name: str, **fields) -> None:
        """Set fields of variable ``name`` (``field=None`` removes the field); a new
        variable is appended, in flow style when it fits on a line."""
        current = self.variables().get(name)
        if current is None or not isinstance(self.get(["variables", name]), dict):
            self.set(["variables", name], {k: v for k, v in fields.items() if v is not None})
            return
        self.set(["variables", name], _updated(current, fields))

    def remove_variable(self, name: str) -> None:
        self.delete(["variables", name])

    # ------------------------------------------------------------ steps
    def steps(self) -> list[dict]:
        """The steps (plain copies)."""
        found = self.get(["steps"])
        return found if isinstance(found, list) else []

    def step_index(self, step_id: str) -> int:
        """The position of step ``step_id`` in ``steps``; KeyError when there is none."""
        for i, step in enumerate(self.steps()):
            if isinstance(step, dict) and step.get("id") == step_id:
                return i
        raise KeyError(f"no step '{step_id}'")

    def unique_step_id(self, wanted: str) -> str:
        """``wanted`` as a valid step id, with ``_2``, ``_3``... when it is taken."""
        base = _ID_CHARS.sub("_", wanted).strip("-") or "step"
        if not (base[0].isalpha() or base[0] == "_"):
            base = "step_" + base
        taken = {s.get("id") for s in self.steps() if isinstance(s, dict)}
        candidate, n = base, 2
        while candidate in taken:
            candidate, n = f"{base}_{n}", n + 1
        return candidate

    def add_step(self, step: dict, position: int | None = None) -> str:
        """Insert ``step`` at ``position`` (None: at the end); returns its id, which is
        made unique (from ``id``, else the method's or measure's name)."""
        step = dict(step)
        wanted = step.get("id") or step.get("method") or step.get("measure") or "step"
        sid = self.unique_step_id(str(wanted))
        entry = {"id": sid, **{k: v for k, v in step.items() if k != "id"}}
        count = len(self.steps())
        self.insert(["steps"], count if position is None else position, entry)
        return sid

    def update_step(self, step_id: str, **fields) -> None:
        """Set fields of a step (``params={...}``, ``grid={...}``, ``input=...``,
        ``enabled=False``); ``None`` removes a field."""
        i = self.step_index(step_id)
        self.set(["steps", i], _updated(self.steps()[i], fields))

    def remove_step(self, step_id: str) -> None:
        self.delete(["steps", self.step_index(step_id)])

    def move_step(self, step_id: str, position: int) -> None:
        """Move a step to ``position`` (its index afterwards), its comments with it."""
        self.move(["steps"], self.step_index(step_id), position)

    def set_enabled(self, step_id: str, enabled: bool) -> None:
        """Disable a step (``enabled: false``) or enable it again (the key is removed:
        enabled is the default, and the recipe stays as it was before)."""
        self.update_step(step_id, enabled=None if enabled else False)

    # ------------------------------------------------------------ checks
    def checks(self) -> list:
        """The release checks (plain copies: texts or ``{expr, message}``)."""
        found = self.get(["checks"])
        return found if isinstance(found, list) else []

    def add_check(self, expr: str, message: str | None = None) -> None:
        """Append a check (a text, or ``{expr, message}`` with a message)."""
        item = expr if message is None else {"expr": expr, "message": message}
        self.insert(["checks"], len(self.checks()), item)

    def remove_check(self, index: int) -> None:
        self.delete(["checks", index])


def _updated(current: dict, fields: dict) -> dict:
    out = {k: v for k, v in current.items() if not (k in fields and fields[k] is None)}
    out.update({k: v for k, v in fields.items() if v is not None})
    return out


def _put(container, path: list, value):
    """``container`` with ``value`` at ``path`` (missing mappings created)."""
    if not path:
        return value
    here = container
    for part in path[:-1]:
        if isinstance(here, dict) and part not in here:
            here[part] = {}
        here = here[part]
    here[path[-1]] = value
    return container


def _nest(path: list, value):
    for part in reversed(path):
        if not isinstance(part, str):
            raise EditError(f"list item {part} does not exist")
        value = {part: value}
    return value


def recipe_diff(old: str, new: str, name: str = "recipe.yaml") -> str:
    """The unified diff from ``old`` to ``new`` (empty when they are equal)."""
    out = []
    for line in difflib.unified_diff(old.splitlines(keepends=True),
                                     new.splitlines(keepends=True),
                                     f"a/{name}", f"b/{name}"):
        out.append(line)
        if not line.endswith("\n"):
            out.append("\n\\ No newline at end of file\n")
    return "".join(out)


def starter_document(data_path: str | Path, recipe_path: str | Path | None = None,
                     source: str | None = None) -> RecipeDocument:
    """A new recipe for a data file: the starter recipe ``sdcflow init`` writes
    (:func:`sdcflow.cli.starter.starter_recipe`), for a recipe file at ``recipe_path``
    (default: ``<data stem>.yaml`` beside the data; the data path is written relative to
    it). Raises :class:`sdcflow.cli.starter.InitError` when the file cannot be read or has no
    key variable."""
    from ...cli.starter import InitError, starter_recipe

    data_path = Path(data_path)
    if not data_path.is_file():
        raise InitError(f"{data_path}: no such data file")
    recipe_path = Path(recipe_path) if recipe_path is not None else \
        data_path.with_suffix(".yaml")
    text = starter_recipe(data_path, recipe_path)
    return RecipeDocument.parse(text, source or recipe_path.name)
