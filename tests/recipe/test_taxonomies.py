"""Taxonomies declared on variables (``variables.X.taxonomy``): inline, from a JSON file
next to the recipe, shipped, or WordNet (an optional extra); each mistake reported at the
declaration's position."""

import json
import sys

import pytest
from helpers import ROOT, validate_cli

import sdcflow
from sdcflow.data.taxonomy import WORDNET_MISSING

HEAD = """\
sdcflow: 1
name: t
seed: 1
data: {path: data.csv}
variables:
  job: {role: key, taxonomy: %s}
  age: {role: key, type: integer}
steps:
  - {id: gen, method: semantic_generalisation, params: {variable: job, depth: 1}}
"""


@pytest.fixture
def recipe(tmp_path):
    (tmp_path / "data.csv").write_text("job,age\nNurse,30\nDoctor,41\nCook,25\n")

    def _write(taxonomy: str) -> str:
        path = tmp_path / "r.yaml"
        path.write_text(HEAD % taxonomy)
        return path

    return _write


def test_file_next_to_the_recipe(recipe, tmp_path):
    (tmp_path / "jobs.json").write_text(json.dumps(
        {"parents": {"Nurse": "Health", "Doctor": "Health", "Cook": "Service"}}))
    result = sdcflow.run(recipe("{file: jobs.json}"), tmp_path / "out")
    # two top concepts: the root '*' joins them; depth 1 is Health / Service
    assert result.data["job"].tolist() == ["Health", "Health", "Service"]


def test_inline_tree_and_builtin(recipe, tmp_path):
    result = sdcflow.run(recipe('{tree: {All: {Health: [Nurse, Doctor], Service: [Cook]}}}'),
                         tmp_path / "a")
    assert result.data["job"].tolist() == ["Health", "Health", "Service"]
    result = sdcflow.run(recipe("{builtin: occupations}"), tmp_path / "b")
    assert result.data["job"].tolist() == ["Professional", "Professional", "Service worker"]


@pytest.mark.parametrize(("taxonomy", "message"), [
    ("{parents: {Nurse: Health, Health: Nurse, Cook: null}}",
     "variables.job: the taxonomy has a cycle: "),
    ("{tree: {Health: [Nurse], Care: [Nurse]}}",
     ("variables.job: concept 'Nurse' appears twice (under 'Health' and under 'Care'): "
     "a taxonomy is a tree")),
    ("{builtin: jobs}", "variables.job: unknown shipped taxonomy 'jobs'; shipped: occupations"),
    ("{file: missing.json}", "variables.job: the taxonomy file missing.json: no such file"),
    ("{wordnet: noun}", f"variables.job: {WORDNET_MISSING}"),
    ("{tree: {A: [x]}, builtin: occupations}",
     "give exactly one of 'tree', 'parents', 'file', 'builtin' or 'wordnet'"),
])
def test_declaration_errors(recipe, capsys, monkeypatch, taxonomy, message):
    if "wordnet" in taxonomy:
        # the extra missing, whether or not nltk is installed here (None in sys.modules
        # makes ``import nltk`` fail)
        for name in [m for m in sys.modules if m == "nltk" or m.startswith("nltk.")]:
            monkeypatch.delitem(sys.modules, name)
        monkeypatch.setitem(sys.modules, "nltk", None)
    code, err = validate_cli(recipe(taxonomy), capsys)
    assert code == 1
    # line 6, at the taxonomy's value
    assert any(line.startswith(f"{recipe(taxonomy)}:6:") and message in line for line in err), err


def test_values_outside_the_taxonomy(recipe, capsys):
    code, err = validate_cli(recipe("{tree: {Health: [Nurse, Doctor]}}"), capsys)
    assert code == 1
    assert any("'job' has values outside its taxonomy (1): 'Cook'" in line for line in err), err


def test_a_numeric_variable_cannot_have_one(tmp_path, capsys):
    (tmp_path / "data.csv").write_text("job,age\nNurse,30\n")
    path = tmp_path / "r.yaml"
    path.write_text((HEAD % "{builtin: occupations}").replace(
        "age: {role: key, type: integer}", "age: {role: key, type: integer, taxonomy: "
        "{builtin: occupations}}"))
    code, err = validate_cli(path, capsys)
    assert code == 1
    assert any("variables.age: a taxonomy needs a categorical variable" in line
               for line in err), err


def test_the_shipped_recipe():
    # recipes/semantic_generalisation.yaml: 36 of the 60 synthetic records share their
    # (occupation, town) with fewer than 3 others before, 23 after generalising the
    # professions to their fields, none after semantic microaggregation with k = 3
    result = sdcflow.run(ROOT / "recipes" / "semantic_generalisation.yaml", write=False,
                         use_cache=False)
    violations = {step: result.measures[step]["violations"]["3"]
                  for step in ("risk_original", "risk_fields", "risk")}
    assert violations == {"risk_original": 36, "risk_fields": 23, "risk": 0}


def test_merged_categories_leave_no_taxonomy(tmp_path, capsys):
    # global_recode's merged category 'Health' is no concept of the taxonomy: validation
    # refuses the semantic step after it, instead of a failure at run time
    (tmp_path / "data.csv").write_text("job,age\nNurse,30\nDoctor,41\nCook,25\n")
    path = tmp_path / "r.yaml"
    path.write_text((HEAD % "{builtin: occupations}").replace(
        "steps:\n", "steps:\n  - {id: merge, method: global_recode, params: {variable: job, "
        "groups: {Health: [Nurse, Doctor]}}}\n"))
    code, err = validate_cli(path, capsys)
    assert code == 1
    assert any(":10:" in line and "'job' has no taxonomy" in line for line in err), err
