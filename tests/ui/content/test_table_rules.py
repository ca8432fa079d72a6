"""The Tables page's rules form: a sensitivity_rules step's rules read into fields and
written back (checked by the parser the step uses), and table steps added or changed
through RecipeDocument, the rest of the recipe untouched."""

from __future__ import annotations

import pytest

from sdcflow.ui.content.table_rules import (
    RuleInputError,
    add_audit,
    rule_fields,
    rules_from_form,
    set_rules,
    set_secondary,
)
from sdcflow.ui.editing.recipe_edit import RecipeDocument

RECIPE = """\
sdcflow: 1
name: t
data: {builtin: testdata}
variables:
  urbrur: {role: key, type: categorical}
  water: {role: key, type: categorical}
tables:
  - {id: t1, dims: [urbrur, water]}
steps:
  # the rules of t1
  - {id: rules, method: sensitivity_rules, table: t1, params: {rules: [{freq: 3}]}}
"""


def test_fields_of_rules_and_rules_kept_as_written():
    fields, kept = rule_fields([{"freq": 3}, {"dominance": {"n": 1, "k": 50}},
                                {"dominance": {"n": 2, "k": 80}}, {"p_percent": 10},
                                {"p_percent": {"p": 50, "reference": "total"}},
                                {"pq": {"p": 10, "q": 50}}, {"zero": None}])
    assert fields == {"freq": 3, "dom_n": 1, "dom_k": 50, "p_percent": 10, "pq_p": 10,
                      "pq_q": 50, "zero": True}
    assert kept == [{"dominance": {"n": 2, "k": 80}},
                    {"p_percent": {"p": 50, "reference": "total"}}]


def test_rules_from_the_form():
    form = {"freq": "4", "dom_n": "1", "dom_k": "62.5", "p_percent": "", "zero": "on"}
    assert rules_from_form(form, [{"dominance": {"n": 2, "k": 80}}]) == [
        {"freq": 4}, {"dominance": {"n": 1, "k": 62.5}}, {"zero": None},
        {"dominance": {"n": 2, "k": 80}}]
    assert rules_from_form({"p_percent": "10.0"}, []) == [{"p_percent": 10}]


@pytest.mark.parametrize("form, message", [
    ({"freq": "three"}, "minimum frequency: 'three' is not a whole number"),
    ({"freq": "2.5"}, "not a whole number"),
    ({"dom_n": "1"}, "needs both n and k"),
    ({"pq_p": "10"}, "needs both p and q"),
    ({}, "at least one rule"),
    ({"dom_n": "1", "dom_k": "150"}, "dominance"),
    ({"freq": "0"}, "freq"),
])
def test_bad_rules_are_refused(form, message):
    with pytest.raises(RuleInputError, match=message):
        rules_from_form(form, [])


def test_rules_secondary_and_audit_written_to_the_recipe():
    doc = RecipeDocument.parse(RECIPE)
    assert set_rules(doc, "t1", [{"freq": 5}]) == "rules"
    assert "  # the rules of t1\n  - {id: rules, method: sensitivity_rules, table: t1, " \
           "params: {rules: [{freq: 5}]}}" in doc.text()
    assert set_secondary(doc, "t1", "heuristic", "unit") == "secondary_t1"
    assert add_audit(doc, "t1") == "audit_t1"
    assert add_audit(doc, "t1") == "audit_t1"  # one audit
    assert set_secondary(doc, "t1", "optimal", "value") == "secondary_t1"
    assert [(s["id"], s.get("params")) for s in doc.steps()] == [
        ("rules", {"rules": [{"freq": 5}]}),
        ("secondary_t1", {"algorithm": "optimal", "cost": "value"}),
        ("audit_t1", None)]
    with pytest.raises(RuleInputError):
        set_secondary(doc, "t1", "magic", "unit")


def test_rules_added_before_the_table_steps():
    doc = RecipeDocument.parse(RECIPE.replace(
        "  - {id: rules, method: sensitivity_rules, table: t1, params: {rules: [{freq: 3}]}}",
        "  - {id: ck, method: cell_key, table: t1, params: {D: 5, V: 3}}"))
    assert set_rules(doc, "t1", [{"freq": 3}]) == "primary_t1"
    assert [s["id"] for s in doc.steps()] == ["primary_t1", "ck"]
