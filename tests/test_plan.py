"""The planner (sdcflow.recipe.plan): dependencies from reads/writes, input/after, grids, cycles."""

import pytest
from helpers import QUICKSTART

from sdcflow import validate
from sdcflow.errors import RecipeError

HEAD = """\
sdcflow: 1
name: t
seed: 1
data: {builtin: testdata}
variables:
  age: {role: key, type: integer}
  sex: {role: key}
  income: {role: numeric}
"""


def plan_of(write_recipe, steps):
    return validate(write_recipe(HEAD + steps)).plan


def test_quickstart_dependencies_follow_the_variables():
    plan = validate(QUICKSTART).plan
    deps = {ps.node: ps.deps for ps in plan.steps}
    assert deps["age10"] == [] and deps["water_groups"] == [] and deps["income_top"] == []
    assert deps["walls_pram"] == []  # PRAM of walls reads walls (and the household id)
    assert deps["risk_age"] == ["age10"]
    # risk reads the five keys: age, water and relat were last written by these steps
    assert deps["risk"] == ["age10", "relat_groups", "water_groups"]
    # the constraint checked (income-positive) reads income
    assert deps["edits"] == ["income_top"]
    assert [ps.node for ps in plan.steps] == ["risk_original", "age10", "risk_age",
                                              "water_groups", "relat_groups", "walls_pram",
                                              "income_top", "risk", "edits"]


def test_a_measure_listed_before_a_recode_sees_the_data_before_it(write_recipe):
    plan = plan_of(write_recipe, """\
steps:
  - {id: before, measure: k_anonymity, params: {k: 2}}
  - {id: rec, method: global_recode, params: {variable: age, breaks: [0, 50, 200]}}
  - {id: after, measure: k_anonymity, params: {k: 2}}
""")
    assert plan.node("before").view["age"] == "original"
    assert plan.node("after").view["age"] == "rec"
    assert plan.release_view(0, None)["age"] == "rec"
    assert plan.release_view(0, "before")["age"] == "original"


def test_input_original_branches(write_recipe):
    plan = plan_of(write_recipe, """\
steps:
  - {id: rec, method: global_recode, params: {variable: age, breaks: [0, 50, 200]}}
  - {id: other, method: top_bottom_code, input: original, params: {variable: age, top: {value: 80}}}
  - {id: risk, measure: k_anonymity, params: {k: 2}}
""")
    assert plan.node("risk").view["age"] == "other"
    assert plan.node("risk").deps == ["other"]


def test_after_adds_an_ordering_edge(write_recipe):
    plan = plan_of(write_recipe, """\
steps:
  - {id: a, method: top_bottom_code, params: {variable: income, top: {value: 1e6}}}
  - {id: b, method: top_bottom_code, params: {variable: age, top: {value: 90}}, after: [a]}
""")
    assert plan.node("b").deps == ["a"]
    assert list(plan.graph.edges) == [("a", "b")]


def test_grid_repeats_downstream_steps_per_variant(write_recipe):
    plan = plan_of(write_recipe, """\
steps:
  - {id: base, measure: k_anonymity, params: {k: 2}}
  - id: rec
    method: global_recode
    params: {variable: age, breaks: [0, 50, 200]}
    grid: {include_lowest: [true, false]}
  - {id: risk, measure: k_anonymity, params: {k: 2}}
""")
    # in the grid's order of values
    assert [ps.node for ps in plan.steps] == [
        "base", "rec[include_lowest=true]", "rec[include_lowest=false]",
        "risk[include_lowest=true]", "risk[include_lowest=false]"]
    assert plan.node("risk[include_lowest=true]").deps == ["rec[include_lowest=true]"]
    assert plan.node("rec[include_lowest=false]").params["include_lowest"] is False
    assert len(plan.variants) == 2


def test_two_grids_multiply(write_recipe):
    plan = plan_of(write_recipe, """\
steps:
  - {id: rec, method: global_recode, params: {variable: age, breaks: [0, 50, 200]},
     grid: {include_lowest: [true, false]}}
  - {id: risk, measure: k_anonymity, grid: {k: [2, 3]}}
""")
    risk = sorted(ps.node for ps in plan.steps if ps.step.id == "risk")
    assert risk == ["risk[rec.include_lowest=false,risk.k=2]",
                    "risk[rec.include_lowest=false,risk.k=3]",
                    "risk[rec.include_lowest=true,risk.k=2]",
                    "risk[rec.include_lowest=true,risk.k=3]"]


def test_cycle_through_after_is_reported(write_recipe):
    with pytest.raises(RecipeError) as info:
        plan_of(write_recipe, """\
steps:
  - {id: a, method: top_bottom_code, params: {variable: income, top: {value: 1e6}}, after: b}
  - {id: b, measure: k_anonymity, after: a}
""")
    [problem] = info.value.problems
    assert problem.message.startswith("steps form a cycle: a -> b -> a ('after' waits")
    assert problem.line == 10


def test_cycle_through_input_is_reported(write_recipe):
    with pytest.raises(RecipeError) as info:
        plan_of(write_recipe, """\
steps:
  - {id: a, method: top_bottom_code, params: {variable: income, top: {value: 1e6}}, input: b}
  - {id: b, method: top_bottom_code, params: {variable: age, top: {value: 90}}, input: a}
""")
    assert "steps form a cycle through 'input'" in info.value.problems[0].message
