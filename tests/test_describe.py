"""``sdcflow methods NAME`` (sdcflow.cli.describe): one plugin's parameters and an example."""

import json

import jsonschema
import pytest
import yaml

from sdcflow.cli import main
from sdcflow.cli.describe import example_step, type_text
from sdcflow.plugins import registry


def test_type_text_reads_the_schema_fragments_plugins_use():
    # each expected text is the reading of the fragment by hand
    assert type_text({"type": "integer", "minimum": 1}) == "integer >= 1"
    assert type_text({"type": "number", "exclusiveMinimum": 0}) == "number > 0"
    assert type_text({"type": "array", "items": {"type": "string"}}) == "list of string"
    assert type_text({"type": "array", "minItems": 2, "items": {"type": "number"}}) == \
        "list of number (at least 2)"
    assert type_text({"enum": ["mdav", "kmeans"]}) == 'one of "mdav", "kmeans"'
    assert type_text({"anyOf": [{"type": "integer", "minimum": 1},
                                {"type": "array", "items": {"type": "integer"}}]}) == \
        "integer >= 1 or list of integer"
    assert type_text({"type": ["string", "number"]}) == "string or number"


@pytest.mark.parametrize("plugin", registry.plugins(), ids=lambda p: p.name)
def test_every_example_step_is_yaml_whose_params_the_plugin_accepts(plugin):
    step = yaml.safe_load(example_step(plugin))["steps"][0]
    assert step[plugin.kind if plugin.kind == "measure" else "method"] == plugin.name
    jsonschema.validate(step.get("params", {}), plugin.params)


def test_methods_name_shows_types_defaults_and_an_example(capsys):
    assert main(["methods", "global_recode"]) == 0
    out = capsys.readouterr().out
    # from global_recode's parameter schema (sdcflow/methods/non_perturbative/global_recode.py)
    assert "  variable  (string; required)" in out
    assert "  include_lowest  (boolean; default true)" in out
    assert "  width  (number > 0; optional)" in out
    assert "      variable: VARIABLE\n      breaks: [0, 1]" in out


def test_the_example_validates_once_the_placeholders_are_filled(capsys, write_recipe):
    assert main(["methods", "global_recode"]) == 0
    example = capsys.readouterr().out.split("example (replace the words in capitals):")[1]
    example = example.replace("VARIABLE", "age").replace("[0, 1]", "[0, 20, 130]")
    path = write_recipe("sdcflow: 1\nname: t\nseed: 1\ndata: {builtin: testdata}\n"
                        "variables:\n  age: {role: key, type: integer}\n" + example.strip()
                        + "\n")
    assert main(["validate", str(path)]) == 0, capsys.readouterr().err


def test_methods_name_json(capsys):
    assert main(["methods", "k_anonymity", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    [k] = [p for p in data["parameters"] if p["name"] == "k"]
    assert k == {"name": "k", "type": "integer >= 1 or list of integer >= 1",
                 "required": False, "default": [2, 3, 5],
                 "description": "The k (or several) to count violations for.",
                 "published": True}
    assert data["example"].startswith("steps:\n  - id: k-anonymity\n    measure: k_anonymity")


def test_methods_name_says_which_parameters_stay_internal(capsys):
    assert main(["methods", "rank_swap"]) == 0
    out = capsys.readouterr().out
    # rank swapping's p stays internal; the other parameters are published and say nothing
    assert "  p  (number > 0 <= 100; default 5; internal: not published)" in out
    assert '  variant  (one of "standard", "p_buckets", "p_distribution"; default ' \
        '"standard")\n' in out


def test_unknown_name_exits_1_with_the_closest_name(capsys):
    assert main(["methods", "recode"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "no method or measure named 'recode' (did you mean 'global_recode'?)" in \
        captured.err


def test_type_text_of_constants_mappings_and_key_rules():
    # each expected text is the reading of the fragment by hand
    assert type_text({"const": True}) == "exactly true"
    assert type_text({"enum": ["mean"]}) == 'exactly "mean"'
    assert type_text({"type": ["object", "null"]}) == "mapping or null"
    assert type_text({"type": "object"}) == "mapping"
    assert type_text({"type": "array"}) == "list"
    # alternatives that only require keys are rules, not types: the properties are read
    tail = {"type": "object",
            "properties": {"value": {"type": "number"},
                           "replace": {"anyOf": [{"enum": ["threshold", "mean"]},
                                                 {"type": "number"}]}},
            "oneOf": [{"required": ["value"]}, {"required": ["quantile"]}]}
    assert type_text(tail) == ('mapping with keys value (number), replace (one of '
                               '"threshold", "mean" or number)')
    # a mapping inside a mapping names its keys only
    nested = {"type": "object", "properties": {"small": {"type": "object", "properties": {
        "D": {"type": "integer"}, "V": {"type": "number"}}}}}
    assert type_text(nested) == "mapping with keys small (mapping with keys D, V)"
    # the example value of a required parameter skips the key rules too (it was "VALUE")
    from sdcflow.cli.describe import _placeholder

    assert _placeholder("n", {"oneOf": [{"required": ["a"]},
                                        {"type": "integer", "minimum": 2}]}) == 2
    # repeated alternatives are read once
    assert type_text({"oneOf": [{"type": "string"}, {"type": "string", "minLength": 1}]}) \
        == "string"


def _undescribed(schema, path: str = "") -> list[str]:
    """The keys of every mapping in a parameter schema (the parameters, and the keys of
    parameters that are mappings, in lists and alternatives too) without a description."""
    out = []
    if not isinstance(schema, dict):
        return out
    for key, spec in (schema.get("properties") or {}).items():
        if not str(spec.get("description", "")).strip():
            out.append(path + key)
        out += _undescribed(spec, f"{path}{key}.")
    for key in ("anyOf", "oneOf", "allOf"):
        for alt in schema.get(key) or []:
            out += _undescribed(alt, path)
    for key in ("items", "additionalProperties"):
        out += _undescribed(schema.get(key), f"{path}[]." if key == "items" else path)
    return out


@pytest.mark.parametrize("plugin", registry.plugins(), ids=lambda p: p.name)
def test_every_parameter_has_a_description_and_a_readable_type(plugin, capsys):
    # issue 23: 'sdcflow methods top_bottom_code' showed "top (any value or any value)"
    # and five parameters had no description
    assert _undescribed(plugin.params) == [], plugin.name
    assert main(["methods", plugin.name, "--format", "json"]) == 0
    params = json.loads(capsys.readouterr().out)["parameters"]
    assert main(["methods", plugin.name]) == 0
    out = capsys.readouterr().out
    assert [p["name"] for p in params] == list(plugin.params.get("properties", {}))
    for p in params:
        text = p["type"]
        assert text and "any value" not in text, (p["name"], text)
        assert "()" not in text and "or or" not in text and not text.endswith(" or"), text
        assert f"  {p['name']}  ({text};" in out  # the text shows the same reading


def test_top_bottom_code_reads_its_tails(capsys):
    assert main(["methods", "top_bottom_code"]) == 0
    out = capsys.readouterr().out
    # from top_bottom_code's schema (sdcflow/methods/non_perturbative/top_bottom_code.py)
    assert ('  top  (mapping with keys value (number), quantile (number > 0 < 1), category '
            '(string), replace (one of "threshold", "mean" or number), label (string); '
            'optional)') in out
