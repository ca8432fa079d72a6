"""score measure: (IL + DR) / 2 over other measures' results (seed 002, SDC scores)."""

import pytest
from helpers import SWEEP_RECIPE as RECIPE

from sdcflow import run, validate
from sdcflow.errors import RecipeError


def test_one_score_per_variant(write_recipe, tmp_path):
    result = run(write_recipe(RECIPE), tmp_path / "out", use_cache=False)
    for k in (2, 3, 5):
        sc = result.measures[f"sc[k={k}]"]
        il = result.measures[f"supp[k={k}]"]["total"] / 10
        dr = result.measures[f"risk[k={k}]"]["percent"]["5"]
        assert sc["il"] == il and sc["dr"] == dr and sc["score"] == (il + dr) / 2
    # more suppression for larger k: the information loss grows along the sweep
    assert result.measures["sc[k=2]"]["il"] < result.measures["sc[k=5]"]["il"]


def test_weights(write_recipe, tmp_path):
    text = RECIPE.replace('dr: "risk.percent[5]"}', 'dr: "risk.percent[5]", il_weight: 1}')
    result = run(write_recipe(text), tmp_path / "out", use_cache=False)
    sc = result.measures["sc[k=3]"]
    assert sc["score"] == sc["il"]


def test_score_depends_on_its_measures_in_the_plan(write_recipe):
    plan = validate(write_recipe(RECIPE)).plan
    assert plan.node("sc[k=3]").deps == ["risk[k=3]", "supp[k=3]"]


@pytest.mark.parametrize("il, message", [
    ("loss.pil", "'loss' is not a step"),
    ("kanon.total", "'kanon' is a method; only the results of measure steps can be used"),
    ("sc.il", "a measure cannot use its own result"),
])
def test_references_are_checked(write_recipe, il, message):
    text = RECIPE.replace('il: "supp.total / 10"', f'il: "{il}"')
    with pytest.raises(RecipeError) as info:
        validate(write_recipe(text))
    assert any(message in p.message for p in info.value.problems), info.value.problems
