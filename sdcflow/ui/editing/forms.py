"""An HTML form for a step's parameters, from its plugin's parameter JSON Schema (the one
``sdcflow methods NAME`` prints: ``registry.get(NAME).params``), and the form's answers
read back into typed parameters. A new plugin gets its form without work on the
workbench.

Each property becomes a :class:`Field` of one kind:

* ``select``: an ``enum`` (the answer must be one of its values);
* ``boolean``: true/false (``""`` leaves it out: a checkbox cannot tell "not given"
  from false, so the page offers default / true / false);
* ``integer``, ``number``, ``text``: a scalar (a text that may be a number, e.g.
  ``oneOf: [enum, integer]``, is read as the schema allows);
* ``list``: a list of scalars written ``2, 3, 5`` (or as a JSON list when an item
  holds a comma); a single value where the schema also allows a scalar (``k: 3``);
* ``multiselect``: a list of enum values, or of variable names (``variables``,
  ``strata``, ...) when the recipe's variables are given: they are the choices;
* ``json``: anything else (mappings, lists of lists or of mappings), as JSON text,
  read with :func:`json.loads` (never evaluated).

Answers left empty are left out of the parameters, so the recipe keeps only what the
user set; what is given is checked against the schema (jsonschema, with the messages
``sdcflow validate`` gives), each error naming its field."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ...recipe import YamlDocument
from ...recipe._schema import schema_problems

KINDS = ("text", "number", "integer", "boolean", "select", "multiselect", "list", "json")

_INT = re.compile(r"[-+]?[0-9]+\Z")
_TRUE = {"true", "on", "1", "yes"}
_FALSE = {"false", "off", "0", "no"}
# list parameters of variable names whose description does not say "variable"
_VARIABLE_LISTS = {"variables", "strata", "linear"}


@dataclass
class Field:
    """One parameter as a form field. ``value``: the current value as the field shows
    it ("" when not set; the default is in ``default``); ``selected``: the chosen
    choices of a select or multiselect."""

    name: str
    label: str
    description: str
    kind: str
    required: bool = False
    default: object = None
    choices: list[str] = field(default_factory=list)
    value: str = ""
    selected: list[str] = field(default_factory=list)
    schema: dict = field(default_factory=dict)  # the property's JSON Schema


class _Bad(ValueError):
    """A form answer that is not a value of its field."""


def _alternatives(schema: Mapping) -> list[Mapping]:
    alts = schema.get("anyOf") or schema.get("oneOf")
    return [a for a in alts if isinstance(a, Mapping)] if alts else [schema]


def _types(schema: Mapping) -> set[str]:
    """The JSON types a (scalar) schema allows: its ``type``(s), the types of its enum
    values ("enum" marks an enum), over its alternatives."""
    out: set[str] = set()
    for alt in _alternatives(schema):
        kind = alt.get("type")
        if isinstance(kind, str):
            out.add(kind)
        elif isinstance(kind, list):
            out.update(kind)
        if "enum" in alt:
            out.add("enum")
        if kind is None and "enum" not in alt:
            out.add("any")
    return out


def _is_array(schema: Mapping) -> bool:
    """Whether one alternative schema (no anyOf/oneOf of its own) allows a list."""
    kind = schema.get("type")
    return kind == "array" or (isinstance(kind, list) and "array" in kind)


def _arrays(schema: Mapping) -> list[Mapping]:
    return [a for a in _alternatives(schema) if _is_array(a)]


def _scalar_item(items) -> bool:
    return isinstance(items, Mapping) and bool(_types(items)) and \
        not _types(items) & {"array", "object", "any"}


def _names_variables(name: str, prop: Mapping) -> bool:
    return name in _VARIABLE_LISTS or name.endswith("variables") or \
        "variable" in str(prop.get("description", "")).lower()


def field_kind(name: str, prop: Mapping, variables: list[str] | None = None) -> str:
    """The kind of form field for the property ``name`` of schema ``prop``."""
    alts = _alternatives(prop)
    if any(_types(a) & {"object", "any"} for a in alts):
        return "json"
    arrays = _arrays(prop)
    if arrays:
        items = arrays[0].get("items")
        if len(arrays) > 1 or not _scalar_item(items):
            return "json"
        if "enum" in items and len(arrays) == len(alts):
            return "multiselect"
        if variables is not None and len(arrays) == len(alts) and _types(items) == {"string"} \
                and _names_variables(name, prop):
            return "multiselect"
        return "list"
    types = _types(prop)
    if all("enum" in a for a in alts):
        return "select"
    if types <= {"boolean", "null"}:
        return "boolean"
    if types == {"integer"}:
        return "integer"
    if types <= {"integer", "number"}:
        return "number"
    return "text"


def _show(value) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _shown(kind: str, value) -> tuple[str, list[str]]:
    """What a field shows for ``value`` (its text, and its selected choices)."""
    if value is None and kind != "boolean":
        return "", []
    if kind == "json":
        return json.dumps(value), []
    if kind == "list" and value == []:
        return "[]", []
    if kind in ("list", "multiselect"):
        items = value if isinstance(value, list) else [value]
        shown = [_show(v) for v in items]
        if kind == "list" and any("," in s for s in shown):
            return json.dumps(items), []
        return ", ".join(shown), shown
    if kind == "boolean":
        return ("" if value is None else json.dumps(value)), []
    return _show(value), [_show(value)] if kind == "select" else []


def _choices(kind: str, prop: Mapping, variables: list[str] | None) -> list[str]:
    if kind == "select":
        return [_show(v) for a in _alternatives(prop) for v in a.get("enum", [])]
    if kind == "boolean":
        return ["true", "false"] + (["null"] if "null" in _types(prop) else [])
    if kind == "multiselect":
        items = _arrays(prop)[0]["items"]
        return [_show(v) for v in items["enum"]] if "enum" in items else list(variables or [])
    return []


def _label(name: str) -> str:
    return name.replace("_", " ")


def form_fields(schema: dict, values: dict | None = None,
                variables: list[str] | None = None) -> list[Field]:
    """The form fields of a plugin's parameter schema, in the schema's order, showing
    ``values`` (a step's ``params``); ``variables``: the recipe's variables, offered as
    the choices of parameters that list variables."""
    values = values or {}
    required = set(schema.get("required", []))
    out = []
    for name, prop in (schema.get("properties") or {}).items():
        if not isinstance(prop, Mapping):
            continue
        kind = field_kind(name, prop, variables)
        text, selected = _shown(kind, values.get(name))
        out.append(Field(name=name, label=_label(name),
                         description=str(prop.get("description", "")), kind=kind,
                         required=name in required, default=prop.get("default"),
                         choices=_choices(kind, prop, variables), value=text,
                         selected=selected, schema=dict(prop)))
    return out


# ---------------------------------------------------------------- reading answers

def _scalar(raw: str, schema: Mapping, name: str):
    """``raw`` as a value of the scalar schema ``schema`` (its alternatives in the order
    enum, boolean, null, integer, number, text)."""
    text = raw.strip()
    types = _types(schema)
    for alt in _alternatives(schema):
        for value in alt.get("enum", []):
            if _show(value) == text:
                return value
    if "boolean" in types:
        if text.lower() in _TRUE:
            return True
        if text.lower() in _FALSE:
            return False
    if "null" in types and text.lower() in ("null", "none"):
        return None
    if types & {"integer", "number"} and _INT.match(text):
        return int(text)
    if "number" in types:
        try:
            number = float(text)
        except ValueError:
            number = None
        if number is not None and math.isfinite(number):
            return number
    if types & {"string", "any"}:
        return raw if "string" in types else text
    if types & {"integer", "number"}:
        whole = types == {"integer"}
        raise _Bad(f"{name}: '{text}' is not {'a whole number' if whole else 'a number'}")
    if "boolean" in types:
        raise _Bad(f"{name}: '{text}' is not true or false")
    options = ", ".join(_show(v) for a in _alternatives(schema) for v in a.get("enum", []))
    raise _Bad(f"{name}: '{text}' is not one of {options}")


def _items(raw, name: str) -> tuple[list[str], bool]:
    """The items of a list answer (a list of answers, a JSON list, or comma-separated
    text) and whether it was written as a list."""
    if isinstance(raw, list):
        return [r for r in raw if r.strip()], True
    text = raw.strip()
    if text.startswith("["):
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError as exc:
            raise _Bad(f"{name}: not a JSON list ({exc.msg} at column {exc.colno})") from None
        if not isinstance(parsed, list):
            raise _Bad(f"{name}: not a list")
        return [_show(v) for v in parsed], True
    parts = [p.strip() for p in text.split(",")]
    return [p for p in parts if p], len(parts) > 1


def _value(kind: str, raw, prop: Mapping, name: str):
    if kind == "json":
        text = raw if isinstance(raw, str) else raw[-1]
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise _Bad(f"{name}: not valid JSON ({exc.msg} at line {exc.lineno}, column "
                       f"{exc.colno})") from None
    if kind in ("list", "multiselect"):
        items, listed = _items(raw, name)
        item_schema = _arrays(prop)[0]["items"]
        values = [_scalar(item, item_schema, name) for item in items]
        scalars = [a for a in _alternatives(prop) if not _is_array(a)]
        if len(values) == 1 and not listed and scalars:
            return _scalar(items[0], {"anyOf": scalars}, name)
        return values
    text = raw if isinstance(raw, str) else raw[-1]
    return _scalar(text, prop, name)


def _empty(raw) -> bool:
    if raw is None:
        return True
    if isinstance(raw, str):
        return not raw.strip()
    return not any(isinstance(r, str) and r.strip() for r in raw)


def parse_form(schema: dict, form: Mapping[str, str | list[str]]
               ) -> tuple[dict, list[str]]:
    """The parameters a form's answers give (``form``: field name -> text, or the list
    of texts of a multiselect) and the errors, each naming its field. Empty answers are
    left out; other form keys are ignored. The parameters are checked against
    ``schema``; they are returned as far as they could be read, errors or not."""
    params: dict = {}
    errors: list[str] = []
    bad: set[str] = set()
    for name, prop in (schema.get("properties") or {}).items():
        raw = form.get(name)
        if _empty(raw) or not isinstance(prop, Mapping):
            continue
        if not isinstance(raw, (str, list)):
            raw = str(raw)
        try:
            params[name] = _value(field_kind(name, prop), raw, prop, name)
        except _Bad as exc:
            errors.append(str(exc))
            bad.add(name)
    for problem in schema_problems(YamlDocument("form"), params, schema):
        if problem.path[:1] and problem.path[0] in bad:
            continue
        message = problem.message.removeprefix("recipe: ")  # (the parameters as a whole)
        missing = re.match(r"missing required key '(.+)'\Z", message)
        if missing:
            if missing.group(1) in bad:
                continue
            message = f"{missing.group(1)}: required"
        errors.append(message)
    return params, errors
