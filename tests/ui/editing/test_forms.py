"""Forms from the plugins' parameter schemas (sdcflow.ui.editing.forms): every registered plugin's
schema gives fields, and each parameter's value shown in its field reads back as the
same value; hand cases for k-anonymity's k, microaggregation, global_recode."""

from __future__ import annotations

import json

import jsonschema
import pytest

from sdcflow.plugins import registry
from sdcflow.ui.editing.forms import KINDS, Field, form_fields, parse_form

PLUGINS = sorted(registry.plugins(), key=lambda p: p.name)
VARIABLES = ["urbrur", "water", "sex", "age", "relat", "income"]


def _valid(value, schema) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(value)


def sample(prop: dict):
    """A value the property allows: its default, else a small one of its type (None
    when none of the candidates is valid)."""
    if "default" in prop and prop["default"] is not None:
        return prop["default"]
    for alt in prop.get("anyOf") or prop.get("oneOf") or [prop]:
        for candidate in _candidates(alt):
            if _valid(candidate, prop):
                return candidate
    return None


def _candidates(schema: dict) -> list:
    if "enum" in schema:
        return list(schema["enum"])
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) else kind
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    if kind == "integer":
        return [int(low) + 1 if low is not None else 1, 2, 3, 10]
    if kind == "number":
        return [0.5, 1, 2, 10, 0.05, 1.5] + ([low + 0.5] if low is not None else [])
    if kind == "string":
        return ["age", "a"]
    if kind == "boolean":
        return [True]
    if kind == "array":
        items = schema.get("items", {})
        one = [c for c in _candidates(items)] if isinstance(items, dict) else []
        n = max(schema.get("minItems", 1), 1)
        return [one[:n]] if len(one) >= n else []
    if kind == "object":
        props, out = schema.get("properties", {}), {}
        for name in schema.get("required", []):
            out[name] = sample(props.get(name, {}))
        if not out and props:
            name, prop = next(iter(props.items()))
            out[name] = sample(prop)
        elif not out and isinstance(schema.get("additionalProperties"), dict):
            out["age"] = sample(schema["additionalProperties"])
        return [] if None in out.values() else [out]
    return []


def _answers(fields: list[Field]) -> dict:
    """What a browser sends for the fields as shown: the text, or the selected choices
    of a multiselect."""
    return {f.name: (f.selected if f.kind == "multiselect" else f.value) for f in fields
            if f.value}


@pytest.mark.parametrize("plugin", PLUGINS, ids=lambda p: p.name)
def test_every_plugin_schema_gives_fields_that_read_back(plugin):
    schema = plugin.params
    fields = form_fields(schema, variables=VARIABLES)
    assert [f.name for f in fields] == list(schema.get("properties", {}))
    assert all(f.kind in KINDS for f in fields)
    assert all(f.description for f in fields)  # (every parameter has a description)
    for f in fields:
        prop = schema["properties"][f.name]
        value = sample(prop)
        if value is None:
            continue
        # each parameter alone (the schema's rules across parameters aside)
        alone = {"type": "object", "properties": {f.name: prop}}
        shown = form_fields(alone, {f.name: value}, variables=VARIABLES)
        params, errors = parse_form(alone, _answers(shown))
        assert errors == [], (f.name, value, shown[0].value, errors)
        # (no choice made in a multiselect: the parameter is left out, as an empty list)
        expected = {} if value == [] and f.kind == "multiselect" else {f.name: value}
        assert json.dumps(params) == json.dumps(expected), (f.name, shown[0].value)


def test_how_many_parameters_round_trip():
    """The measure: the share of all parameters of all plugins whose sample value reads
    back through its field (the rest have no value the small sampler finds valid:
    mappings of a given shape)."""
    total = tried = 0
    for plugin in PLUGINS:
        for prop in plugin.params.get("properties", {}).values():
            total += 1
            tried += sample(prop) is not None
    assert total > 300
    assert tried / total > 0.99, (tried, total)


def test_defaults_fill_a_form_that_reads_back_as_the_defaults():
    for plugin in PLUGINS:
        props = plugin.params.get("properties", {})
        defaults = {k: v["default"] for k, v in props.items() if "default" in v}
        params, _ = parse_form(plugin.params, _answers(form_fields(plugin.params, defaults)))
        assert json.dumps(params, sort_keys=True) == json.dumps(
            {k: v for k, v in defaults.items() if v is not None}, sort_keys=True), plugin.name


def test_k_anonymity_k_as_a_list_or_one_value():
    schema = registry.get("k_anonymity").params
    k = next(f for f in form_fields(schema, {"k": [2, 3, 5]}) if f.name == "k")
    assert (k.kind, k.value, k.default) == ("list", "2, 3, 5", [2, 3, 5])
    assert parse_form(schema, {"k": "2, 3, 5"}) == ({"k": [2, 3, 5]}, [])
    assert parse_form(schema, {"k": "3"}) == ({"k": 3}, [])
    assert parse_form(schema, {"k": "[3]"}) == ({"k": [3]}, [])
    params, errors = parse_form(schema, {"k": "2, three"})
    assert params == {} and errors == ["k: 'three' is not a whole number"]
    params, errors = parse_form(schema, {"k": "0"})
    assert errors and errors[0].startswith("k: ")


def test_k_anonymity_variables_choose_among_the_recipes_variables():
    schema = registry.get("k_anonymity").params
    fields = {f.name: f for f in form_fields(schema, {"variables": ["sex", "age"]}, VARIABLES)}
    assert fields["variables"].kind == "multiselect"
    assert fields["variables"].choices == VARIABLES
    assert fields["variables"].selected == ["sex", "age"]
    assert fields["strata"].kind == "multiselect"
    assert fields["alpha"].kind == "number"
    # without the recipe's variables: a list written as text
    assert {f.name: f.kind for f in form_fields(schema)}["variables"] == "list"
    assert parse_form(schema, {"variables": ["sex", "age"], "alpha": "0.7", "csrf": "x"}) == \
        ({"variables": ["sex", "age"], "alpha": 0.7}, [])


def test_microaggregation_form():
    schema = registry.get("microaggregation").params
    fields = {f.name: f for f in form_fields(schema, variables=VARIABLES)}
    assert fields["algorithm"].kind == "select"
    assert fields["algorithm"].choices[:2] == ["mdav", "optimal_univariate"]
    assert fields["k"].kind == "integer" and fields["k"].default == 3
    assert fields["constraints"].kind == "boolean"
    assert fields["groups"].kind == "json"
    assert parse_form(schema, {"k": "5", "algorithm": "mdav", "variables": ["income"],
                               "trim": "", "constraints": "false"}) == \
        ({"k": 5, "algorithm": "mdav", "variables": ["income"], "constraints": False}, [])
    assert parse_form(schema, {"groups": '[["income", "age"], ["sex"]]'}) == \
        ({"groups": [["income", "age"], ["sex"]]}, [])
    # the schema's rule across parameters, named
    _, errors = parse_form(schema, {"variables": ["income"], "groups": '[["income"]]'})
    assert errors == ["give 'variables' or 'groups', not both"]
    _, errors = parse_form(schema, {"algorithm": "mdva"})
    assert errors == [("algorithm: 'mdva' is not one of mdav, optimal_univariate, "
                       "projected, individual_ranking, fuzzy, fuzzy_c_means")]
    _, errors = parse_form(schema, {"groups": "[[income]]"})
    assert errors == ["groups: not valid JSON (Expecting value at line 1, column 3)"]


def test_global_recode_breaks_labels_and_groups():
    schema = registry.get("global_recode").params
    fields = {f.name: f for f in form_fields(schema, {
        "variable": "age", "breaks": [0, 9, 19, 130], "labels": ["1-9", "10-19", "20+"]})}
    assert fields["variable"].required
    assert (fields["breaks"].kind, fields["breaks"].value) == ("list", "0, 9, 19, 130")
    assert fields["labels"].value == "1-9, 10-19, 20+"
    assert fields["groups"].kind == "json"
    params, errors = parse_form(schema, {"variable": "age", "breaks": "0, 9, 19.5, 130",
                                         "labels": "1-9, 10-19, 20+", "right": ""})
    assert errors == []
    assert params == {"variable": "age", "breaks": [0, 9, 19.5, 130],
                      "labels": ["1-9", "10-19", "20+"]}
    # a label holding a comma is shown, and read, as a JSON list
    shown = {f.name: f for f in form_fields(schema, {"labels": ["(0, 9]", "(9, 19]"]})}
    assert shown["labels"].value == '["(0, 9]", "(9, 19]"]'
    assert parse_form(schema, {"variable": "age", "breaks": "0, 9, 19",
                               "labels": shown["labels"].value})[0]["labels"] == \
        ["(0, 9]", "(9, 19]"]
    params, errors = parse_form(schema, {"variable": "water",
                                         "groups": '{"6-9": ["6", "7", "9"]}'})
    assert (params["groups"], errors) == ({"6-9": ["6", "7", "9"]}, [])
    # a missing required field and a bad number, each named
    _, errors = parse_form(schema, {"breaks": "0, ten"})
    assert "breaks: 'ten' is not a number" in errors
    assert "variable: required" in errors


def test_json_is_parsed_never_evaluated():
    schema = registry.get("global_recode").params
    _, errors = parse_form(schema, {"variable": "age", "groups": "__import__('os')"})
    assert errors and errors[0].startswith("groups: not valid JSON")
