"""``sdcflow methods NAME``: one plugin's parameters (type, default, description) and an
example step in YAML, generated from the JSON Schema fragment the plugin declares."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping

from ..plugins.registry import Plugin

_BOUNDS = (("minimum", ">="), ("exclusiveMinimum", ">"), ("maximum", "<="),
           ("exclusiveMaximum", "<"))


_WORDS = {"object": "mapping", "array": "list"}  # JSON Schema's names, in plain words
_TYPE_KEYS = ("type", "enum", "const", "anyOf", "oneOf", "items", "properties",
              "additionalProperties")


def _typed(spec) -> bool:
    """Whether a schema fragment says what a value is (not only which keys it needs,
    as the alternatives ``{"required": ["value"]}`` of a ``oneOf`` do)."""
    return isinstance(spec, Mapping) and any(k in spec for k in _TYPE_KEYS)


def type_text(spec: Mapping, depth: int = 0) -> str:
    """A short reading of a JSON Schema fragment: ``integer >= 1``, ``list of string``,
    ``one of 'a', 'b'``, ``integer >= 1 or list of integer >= 1``, ``mapping with keys
    value (number), quantile (number > 0 < 1)``. Alternatives that only require keys
    (``oneOf: [{required: [a]}, {required: [b]}]``) are rules about the keys, not types:
    the fragment's own type is read instead. A mapping inside a mapping (``depth`` > 0)
    names its keys only ('sdcflow methods --format json' has the whole schema)."""
    if "const" in spec:
        return "exactly " + json.dumps(spec["const"])
    if "enum" in spec:
        values = spec["enum"]
        if len(values) == 1:
            return "exactly " + json.dumps(values[0])
        return "one of " + ", ".join(json.dumps(v) for v in values)
    for key in ("anyOf", "oneOf"):
        alternatives = [alt for alt in spec.get(key, ()) if _typed(alt)]
        if alternatives:
            texts = list(dict.fromkeys(type_text(alt, depth) for alt in alternatives))
            return " or ".join(texts)
    kind = spec.get("type")
    if isinstance(kind, list):
        text = " or ".join(_WORDS.get(k, k) for k in kind)
    elif kind == "array" or (kind is None and "items" in spec):
        items = spec.get("items")
        text = "list of " + type_text(items, depth) if _typed(items) else "list"
        if spec.get("minItems", 0) > 1:
            text += f" (at least {spec['minItems']})"
    elif isinstance(spec.get("properties"), Mapping) and spec["properties"]:
        props = spec["properties"]
        keys = ", ".join(f"{k} ({type_text(v, depth + 1)})" for k, v in props.items()) \
            if depth == 0 else ", ".join(props)
        text = f"mapping with keys {keys}"
    elif isinstance(spec.get("additionalProperties"), Mapping):
        text = "mapping of name to " + type_text(spec["additionalProperties"], depth)
    elif kind == "object":
        text = "mapping"
    else:
        text = kind or "any value"
    bounds = [f"{sign} {spec[key]:g}" for key, sign in _BOUNDS if key in spec]
    return " ".join([text, *bounds]) if bounds else text


def _placeholder(key: str, spec: Mapping):
    """An example value for a required parameter that has no default: the first choice of
    an enum, the lower bound of a number, ``VARIABLE`` for a variable name, ..."""
    if "default" in spec:
        return spec["default"]
    if "enum" in spec:
        return spec["enum"][0]
    for alt_key in ("anyOf", "oneOf"):
        typed = [alt for alt in spec.get(alt_key, ()) if _typed(alt)]
        if typed and "type" not in spec:  # (not an alternative that only requires keys)
            return _placeholder(key, typed[0])
    kind = spec.get("type")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "array":
        count = max(spec.get("minItems", 1), 1)
        item = spec.get("items", {})
        if item.get("type") in ("number", "integer"):
            start = item.get("minimum", 0)
            return [start + i for i in range(count)]
        one = _placeholder(key.rstrip("s"), item)
        if count == 1 or not isinstance(one, str):
            return [one] * count
        return [f"{one}{i}" for i in range(1, count + 1)]  # distinct (uniqueItems)
    if kind in ("number", "integer"):
        low = spec.get("minimum", spec.get("exclusiveMinimum", 0) + 1)
        return int(low) if kind == "integer" else low
    if kind == "boolean":
        return True
    if kind == "object":
        return _object_placeholder(spec)
    return key.upper() if "variable" in key or key in ("table", "level") else "VALUE"


def _object_placeholder(schema: Mapping) -> dict:
    """The required keys of an object schema (and those of the first alternative of a
    ``oneOf``/``anyOf``, e.g. global_recode's ``breaks``) with placeholder values; an
    object of free names gets one ``NAME``."""
    props = schema.get("properties", {})
    keys = list(schema.get("required", []))
    alternatives = schema.get("oneOf") or schema.get("anyOf") or []
    if alternatives:
        keys += [k for k in alternatives[0].get("required", []) if k not in keys]
    if not keys and props and schema.get("minProperties", 0) > 0:
        keys = [next(iter(props))]
    out = {k: _placeholder(k, props.get(k, {})) for k in keys}
    extra = schema.get("additionalProperties")
    if not out and isinstance(extra, Mapping) and schema.get("minProperties", 0) > 0:
        out["NAME"] = _placeholder("value", extra)
    return out


def _example_params(plugin: Plugin) -> dict:
    """The required parameters, with placeholder values."""
    return _object_placeholder(plugin.params)


def _yaml_value(value) -> str:
    """A value in YAML flow style (JSON is YAML; plain words stay unquoted)."""
    if isinstance(value, str) and value.replace("_", "").isalnum() and not value.isdigit() \
            and value.lower() not in ("true", "false", "yes", "no", "on", "off", "null"):
        return value
    if isinstance(value, list):
        return "[" + ", ".join(_yaml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_yaml_value(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)


def example_step(plugin: Plugin) -> str:
    """An example ``steps:`` entry for ``plugin`` in YAML (placeholders in capitals)."""
    kind = "measure" if plugin.kind == "measure" else "method"
    lines = ["steps:", f"  - id: {plugin.name.replace('_', '-')}", f"    {kind}: {plugin.name}"]
    if plugin.on_table:
        lines.append("    table: TABLE")
    params = _example_params(plugin)
    if params:
        lines.append("    params:")
        lines += [f"      {k}: {_yaml_value(v)}" for k, v in params.items()]
    return "\n".join(lines)


def parameters(plugin: Plugin) -> list[dict]:
    """Each parameter: name, type (as text), required, default, description, and
    whether it is published (public/manifest.json, the external report)."""
    required = set(plugin.params.get("required", []))
    out = []
    for key, spec in plugin.params.get("properties", {}).items():
        entry = {"name": key, "type": type_text(spec), "required": key in required,
                 "description": spec.get("description", ""),
                 "published": key in plugin.public_params}
        if "default" in spec:
            entry["default"] = spec["default"]
        out.append(entry)
    return out


def describe(plugin: Plugin, dask: str = "") -> tuple[str, dict]:
    """The text of ``sdcflow methods NAME`` and the same as data (``--format json``);
    ``dask`` says how the plugin runs on the Dask engine."""
    params = parameters(plugin)
    lines = [f"{plugin.name} ({plugin.kind}, version {plugin.version})", "",
             plugin.summary, ""]
    if params:
        lines.append("parameters:")
        for p in params:
            if p["required"]:
                flag = "required"
            elif "default" in p:
                flag = f"default {json.dumps(p['default'])}"
            else:
                flag = "optional"
            if not p["published"]:
                flag += "; internal: not published"
            lines.append(f"  {p['name']}  ({p['type']}; {flag})")
            if p["description"]:
                lines.append(f"      {p['description']}")
    else:
        lines.append("parameters: none")
    if "x-error" in plugin.params:
        lines.append(f"  note: {plugin.params['x-error']}")
    if plugin.roles:
        lines.append(f"accepts roles: {', '.join(plugin.roles)}")
    if plugin.types:
        lines.append(f"accepts types: {', '.join(plugin.types)}")
    if dask:
        lines.append(f"on the Dask engine: {dask}")
    lines += [f"release policy: {text}" for text in _policy_text(plugin)]
    example = example_step(plugin)
    lines += ["", "example (replace the words in capitals):", "", example]
    data = {"name": plugin.name, "kind": plugin.kind, "version": plugin.version,
            "summary": plugin.summary, "parameters": params, "schema": plugin.params,
            "roles": list(plugin.roles) if plugin.roles else None,
            "types": list(plugin.types) if plugin.types else None, "example": example,
            "dask": dask, **policy_roles(plugin)}
    return "\n".join(lines), data


def policy_roles(plugin: Plugin) -> dict:
    """What the release policy (recipe guide, "Release policy") takes the plugin for: whether
    a method protects (and, on tables, gives a cell the same value in every table);
    whether a measure is a risk measure and counts key combinations."""
    if plugin.kind == "method":
        out = {"protects": plugin.protects, "keeps_risk": plugin.keeps_risk}
        if plugin.on_table:
            out["consistent_across_tables"] = plugin.consistent_across_tables
        return out
    return {"risk_measure": plugin.risk_measure,
            "counts_combinations": plugin.counts_combinations}


def _policy_text(plugin: Plugin) -> list[str]:
    roles = policy_roles(plugin)
    if plugin.kind == "method":
        out = ["a protection step" if roles["protects"] else
               "not a protection step (what it leaves is released as it was)"]
        if roles["keeps_risk"]:
            out.append("replaces labels only: a risk check measured before it speaks for "
                       "what it leaves")
        if roles.get("consistent_across_tables"):
            out.append("gives a cell the same protected value in every table (same "
                       "parameters)")
        return out
    out = ["a risk measure (a passing check on it can vouch for data released as they "
           "are)" if roles["risk_measure"] else "not a risk measure"]
    if roles["counts_combinations"]:
        out.append("counts the records by combinations of its variables (not to be "
                   "published beside a protected table of them)")
    return out


def methods_command(args, emit: Callable) -> int:
    """``sdcflow methods [NAME]``: every plugin, or one in full (``emit`` prints text or
    JSON as ``--format`` says)."""
    from ..plugins import registry

    if args.name is not None:
        return _describe_one(args, registry, emit)
    plugins = registry.plugins()
    data = []
    lines = []
    for plugin in plugins:
        props = plugin.params.get("properties", {})
        required = set(plugin.params.get("required", []))
        data.append({"name": plugin.name, "kind": plugin.kind, "summary": plugin.summary,
                     "version": plugin.version, "params": plugin.params,
                     "roles": list(plugin.roles) if plugin.roles else None,
                     "types": list(plugin.types) if plugin.types else None,
                     **policy_roles(plugin)})
        lines.append(f"{plugin.name} ({plugin.kind}): {plugin.summary}")
        for key, spec in props.items():
            flag = " (required)" if key in required else (
                f" (default {json.dumps(spec['default'])})" if "default" in spec else "")
            desc = spec.get("description", "")
            lines.append(f"    {key}{flag}{': ' + desc if desc else ''}")
        if plugin.roles:
            lines.append(f"    accepts roles: {', '.join(plugin.roles)}")
        if plugin.types:
            lines.append(f"    accepts types: {', '.join(plugin.types)}")
        lines.append(f"    on the Dask engine: {_distribution_text(plugin)}")
        data[-1]["dask"] = _distribution_text(plugin)
    for problem in registry.load_problems():
        lines.append(f"warning: {problem}")
    emit(args, "\n".join(lines), data)
    return 0


def _describe_one(args, registry, emit) -> int:
    """``sdcflow methods NAME``: one plugin in full, or exit 1 naming the closest names."""
    from ..errors import did_you_mean

    plugin = registry.get(args.name)
    if plugin is None:
        names = [p.name for p in registry.plugins()]
        print(f"sdcflow methods: no method or measure named {args.name!r}"
              f"{did_you_mean(args.name, names)} ('sdcflow methods' lists them all)",
              file=sys.stderr)
        return 1
    text, data = describe(plugin, _distribution_text(plugin))
    emit(args, text, data)
    return 0


def _distribution_text(plugin) -> str:
    """How a plugin runs on partitioned data (see sdcflow.plugins.distribution)."""
    from ..plugins.distribution import Distributable

    if plugin.on_table:
        return "on the table, built from the partitions by map-reduce (exact)"
    if plugin.distribution is None:
        return "not available"
    custom = type(plugin).distributes is not Distributable.distributes
    return plugin.distribution.describe() + (
        " (some parameters differ: see the page Scaling out, docs/scaling.md)" if custom else "")
