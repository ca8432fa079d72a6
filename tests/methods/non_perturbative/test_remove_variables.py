"""remove_variables plugin and column removal in the plan."""

import pytest

from sdcflow import run, validate
from sdcflow.errors import RecipeError

RECIPE = """
sdcflow: 1
name: rm
seed: 1
data: {builtin: testdata}
variables:
  sex: {role: key}
  age: {role: key, type: integer}
  income: {role: numeric}
steps:
  - {id: drop, method: remove_variables, params: {variables: [income]}}
  - {id: risk, measure: k_anonymity, params: {k: 2}}
  - {id: age10, method: global_recode, params: {variable: age, breaks: [0, 19, 39, 59, 130]}}
release: {path: out.csv}
"""


def test_removed_variables_are_not_released(write_recipe, tmp_path):
    result = run(write_recipe(RECIPE), tmp_path / "out", use_cache=False)
    assert list(result.data.columns) == ["sex", "age"]
    assert (tmp_path / "out" / "public" / "out.csv").read_text().splitlines()[0] == "sex,age"


def test_a_later_step_cannot_use_a_removed_variable(write_recipe):
    text = RECIPE.replace("  - {id: risk, measure: k_anonymity, params: {k: 2}}",
                          "  - {id: tb, method: top_bottom_code,"
                          " params: {variable: income, top: {value: 5}}}")
    with pytest.raises(RecipeError) as info:
        validate(write_recipe(text))
    # found along the data flow, at the parameter, naming the step that removed it
    assert info.value.problems[0].message == (
        "steps[1].params.variable: 'income' was removed by step 'drop' before this step")


def test_steps_before_the_removal_still_see_it(write_recipe, tmp_path):
    text = RECIPE.replace(
        "  - {id: drop,",
        "  - {id: tb, method: top_bottom_code, params: {variable: income, top: {value: 5}}}\n"
        "  - {id: drop,")
    result = run(write_recipe(text), tmp_path / "out", use_cache=False)
    assert "income" not in result.data.columns
