"""The t_closeness, d_risk, d_risk_rmd, model_risk, fuzzy_clustering_loss and
classification_loss measures (and suda's DIS-SUDA scores) from a recipe, end to end."""

import pytest

from sdcflow import RecipeError, run

RECIPE = """
sdcflow: 1
name: measures-end-to-end
seed: 1
data: {builtin: testdata}
variables:
  urbrur: {role: key}
  water: {role: key}
  sex: {role: key}
  relat: {role: key}
  walls: {role: sensitive}
  income: {role: numeric, type: continuous}
  savings: {role: numeric, type: continuous}
  expend: {role: numeric, type: continuous}
  sampling_weight: {role: weight, type: continuous}
steps:
  - {id: noise, method: noise, params: {k: 0.5}}
  - {id: tclose, measure: t_closeness, params: {t: 0.2}}
  - {id: drisk, measure: d_risk}
  - {id: drmd, measure: d_risk_rmd}
  - {id: suda, measure: suda, params: {dis_fraction: 0.1}}
  - {id: model, measure: model_risk, params: {interactions: [[water, relat]]}}
  - {id: fuzzy, measure: fuzzy_clustering_loss, params: {clusters: 4, max_iter: 60}}
  - {id: classify, measure: classification_loss, params: {target: sex,
                                                          variables: [income, savings, urbrur]}}
"""


def test_recipe_end_to_end(write_recipe, tmp_path):
    result = run(write_recipe(RECIPE), tmp_path / "out", use_cache=False)
    m = result.measures
    # after noise with k = 0.5 the numeric values move by about 0.7 standard deviations:
    # few originals stay within 0.05 of them, and the keys are untouched
    assert 0 <= m["drisk"]["risk"] < 0.2
    assert 0 <= m["drmd"]["risk2"] <= m["drmd"]["risk1"] <= 1
    assert 0 < m["tclose"]["sensitive"]["walls"]["max"] <= 1
    assert m["suda"]["dis_fraction"] == 0.1 and 0 <= m["suda"]["max_dis_score"] <= 1
    assert m["model"]["interactions"] == ["water:relat"] and m["model"]["tau1"] >= 0
    assert m["fuzzy"]["centre_distance"] > 0 and m["fuzzy"]["clusters"] == 4
    assert 0 <= m["classify"]["accuracy_protected"] <= 1
    assert m["classify"]["test_records"] == 4580


def test_bad_parameters_are_reported(write_recipe, tmp_path):
    text = RECIPE.replace("interactions: [[water, relat]]", "interactions: [[water, relatt]]")
    with pytest.raises(RecipeError, match="'relatt' is not one of the key variables"):
        run(write_recipe(text), tmp_path / "out", use_cache=False)
