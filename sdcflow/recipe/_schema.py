"""Phase one of validation: the recipe against ``recipe.schema.json`` (and, in phase
two, each step's ``params`` against its plugin's schema), every error located at its
``file:line:col`` and worded for people, with "did you mean" for misspelt keys."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources

import jsonschema

from ..errors import Problem, did_you_mean, unique_problems
from ._yaml import YamlDocument

_BOOL_WORDS = {"yes", "no", "on", "off", "y", "n"}
_TYPE_WORDS = {
    "object": "a mapping", "array": "a list", "string": "text", "integer": "an integer",
    "number": "a number", "boolean": "true or false", "null": "nothing",
}
_JSON_TYPES = {
    dict: "a mapping", list: "a list", str: "text", bool: "a boolean", int: "an integer",
    float: "a number", type(None): "nothing (null)",
}


@lru_cache(maxsize=1)
def recipe_schema() -> dict:
    """The recipe format's JSON Schema (draft 2020-12), as shipped in the package."""
    text = resources.files("sdcflow").joinpath("schemas/recipe.schema.json").read_text("utf-8")
    return json.loads(text)


def where(path: tuple) -> str:
    """``steps[2].params.k`` for the path ('steps', 2, 'params', 'k')."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "recipe"


def _describe(value) -> str:
    if isinstance(value, (dict, list)) or value is None:
        return _JSON_TYPES[type(value)]
    if isinstance(value, str):
        return f"'{value}'"
    return json.dumps(value)


def _allowed_keys(schema: Mapping) -> list[str]:
    return sorted(schema.get("properties", {}))


def _unknown_key(doc: YamlDocument, path: tuple, label: str, key: str,
                 allowed: list[str]) -> str:
    """The message for a key unknown at ``path``: where it belongs when it is a known key
    in the wrong place, else the nearest allowed key and the allowed ones."""
    from ._misplaced import misplaced_hint

    hint = misplaced_hint(doc.data, path, key, recipe_schema())
    if hint is not None:
        return f"{label}: unknown key '{key}': {hint}"
    return f"{label}: unknown key '{key}'{did_you_mean(key, allowed)} (allowed: " \
           f"{', '.join(allowed)})"


def schema_problems(
    doc: YamlDocument, instance, schema: Mapping, base: tuple = ()
) -> list[Problem]:
    """Every way ``instance`` (found at ``base`` in ``doc``) breaks ``schema``."""
    validator = jsonschema.Draft202012Validator(schema)
    problems: list[Problem] = []
    for error in sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.absolute_path))):
        problems.extend(_explain(doc, error, base))
    return unique_problems(problems)


def _explain(doc: YamlDocument, error: jsonschema.ValidationError, base: tuple) -> list[Problem]:
    path = base + tuple(error.absolute_path)
    label = where(path)
    value = error.instance
    kind = error.validator
    schema = error.schema if isinstance(error.schema, Mapping) else {}
    if kind == "additionalProperties" and isinstance(value, Mapping):
        allowed = _allowed_keys(schema)
        extras = [k for k in value if k not in allowed]
        return [doc.problem(path + (k,), _unknown_key(doc, path, label, k, allowed), key=True)
                for k in extras]
    if kind == "required" and isinstance(value, Mapping):
        missing = [k for k in error.validator_value if k not in value]
        return [doc.problem(path, f"{label}: missing required key '{k}'") for k in missing]
    if kind in ("oneOf", "anyOf"):
        # Errors deeper than the alternatives themselves say more than "matches none".
        deeper = [
            e for e in (error.context or [])
            if e.validator not in ("required", "not", "type", "oneOf", "anyOf", "enum", "const")
            or len(e.absolute_path) > len(error.absolute_path)
        ]
        if deeper and "x-error" not in schema:
            return [p for e in deeper for p in _explain(doc, e, base)]
        if deeper:
            specific = [p for e in deeper if e.validator not in ("required", "not")
                        for p in _explain(doc, e, base)]
            if specific:
                return specific
        message = schema.get("x-error")
        if message is None:
            types = [e.validator_value for e in error.context or [] if e.validator == "type"]
            flat = [t for ts in types for t in (ts if isinstance(ts, list) else [ts])]
            if flat:
                words = " or ".join(_TYPE_WORDS.get(t, t) for t in dict.fromkeys(flat))
                message = f"expected {words}, got {_describe(value)}"
            else:
                message = f"{_describe(value)} does not match any allowed form"
        return [doc.problem(path, f"{label}: {message}")]
    if kind == "type":
        expected = error.validator_value
        expected = expected if isinstance(expected, list) else [expected]
        words = " or ".join(_TYPE_WORDS.get(t, t) for t in expected)
        message = f"{label}: expected {words}, got {_describe(value)}"
        if "boolean" in expected and isinstance(value, str) and value.lower() in _BOOL_WORDS:
            message += " (yes/no/on/off are text in sdcflow recipes)"
        numeric = "number" in expected or "integer" in expected
        if numeric and isinstance(value, str) and \
                value.strip().lstrip("+-").replace(".", "", 1).isdigit():
            message += " (remove the quotes to give a number)"
        return [doc.problem(path, message)]
    if kind == "enum":
        options = [str(v) for v in error.validator_value]
        return [doc.problem(path, f"{label}: {_describe(value)} is not one of "
                                  f"{', '.join(options)}{did_you_mean(value, options)}")]
    if kind == "const" and path == ("sdcflow",):
        return [doc.problem(path, f"sdcflow: unsupported recipe format version {value!r}"
                                  " (this sdcflow reads version 1)")]
    if kind == "pattern" and "x-error" in schema:
        return [doc.problem(path, f"{label}: {_describe(value)} is not {schema['x-error']}")]
    if kind == "if":
        return []  # the 'then' error that follows says what is wrong
    if kind in ("minItems", "minProperties"):
        n = error.validator_value
        what = "item" if kind == "minItems" else "entry"
        return [doc.problem(path, f"{label}: needs at least {n} {what}{'s' if n != 1 else ''}")]
    if "x-error" in schema and kind in ("not", "then"):
        return [doc.problem(path, f"{label}: {schema['x-error']}")]
    return [doc.problem(path, f"{label}: {error.message}")]
