"""The recipe JSON Schema (schemas/recipe.schema.json) and phase-one messages."""

import json

import jsonschema
import pytest
from helpers import ROOT

from sdcflow.errors import RecipeError
from sdcflow.recipe import recipe_from_text, recipe_schema

MINIMAL = """\
sdcflow: 1
name: t
seed: 1
data: {builtin: testdata}
variables:
  age: {role: key, type: integer}
steps:
  - {id: risk, measure: k_anonymity}
"""


def test_schema_is_valid_draft_2020_12_with_id():
    schema = recipe_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].endswith("/recipe/v1.json")


def test_every_object_in_the_schema_forbids_unknown_keys():
    def objects(node, path=""):
        if isinstance(node, dict):
            if node.get("type") == "object" and "properties" in node:
                yield path, node
            for key, value in node.items():
                yield from objects(value, f"{path}/{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                yield from objects(value, f"{path}/{i}")

    for path, node in objects(recipe_schema()):
        assert node.get("additionalProperties") is False, path


def test_top_level_schemas_file_is_the_shipped_one():
    top = json.loads((ROOT / "schemas" / "recipe.schema.json").read_text())
    assert top == recipe_schema()


def test_minimal_recipe_is_valid():
    recipe = recipe_from_text(MINIMAL, "r.yaml")
    assert recipe.name == "t" and recipe.seed == 1
    assert [s.id for s in recipe.steps] == ["risk"]


def problems(text):
    with pytest.raises(RecipeError) as info:
        recipe_from_text(text, "r.yaml")
    return [str(p) for p in info.value.problems]


def test_misspelt_section_suggests_the_right_one():
    text = MINIMAL.replace("steps:", "stpes:")
    assert problems(text) == [
        "r.yaml:1:1: recipe: missing required key 'steps'",
        ("r.yaml:7:1: recipe: unknown key 'stpes' (did you mean 'steps'?) (allowed: checks, "
         "constraints, data, description, execution, name, privacy_budget, release, sdcflow, "
         "seed, steps, tables, variables, version)"),
    ]


def test_a_missing_section_does_not_hide_the_problems_elsewhere():
    text = MINIMAL.replace("name: t\n", "").replace("k_anonymity", "k_anonimity")
    found = problems(text)
    assert found[0] == "r.yaml:1:1: recipe: missing required key 'name'"
    assert any("k_anonimity" in p and "did you mean 'k_anonymity'" in p for p in found[1:])


def test_other_format_version():
    assert problems(MINIMAL.replace("sdcflow: 1", "sdcflow: 2")) == [
        "r.yaml:1:10: sdcflow: unsupported recipe format version 2 (this sdcflow reads version 1)"
    ]


def test_step_needs_method_or_measure():
    text = MINIMAL.replace("{id: risk, measure: k_anonymity}", "{id: risk}")
    assert problems(text) == [
        ("r.yaml:8:5: steps[0]: a step needs exactly one of 'method' (a masking method) or "
         "'measure'")
    ]


def test_ordinal_needs_its_order():
    text = MINIMAL.replace("{role: key, type: integer}", "{role: key, type: ordinal}")
    assert problems(text) == ["r.yaml:6:8: variables.age: missing required key 'order'"]


def test_boolean_trap_is_explained():
    text = MINIMAL.replace(
        "  - {id: risk, measure: k_anonymity}",
        "  - {id: rec, method: global_recode, params: {variable: age, breaks: [0, 5],"
        " include_lowest: yes}}")
    [message] = problems(text)
    assert message == ("r.yaml:8:94: steps[0].params.include_lowest: expected true or false,"
                       " got 'yes' (yes/no/on/off are text in sdcflow recipes)")
