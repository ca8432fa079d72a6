"""The privacy-model measures from a recipe, end to end: recursive (c, l)-diversity,
hierarchical t-closeness, beta-likeness, delta-presence against a population file read
relative to the recipe, and the re-identification risk, with checks on their results.
Expected values are computed here from the definitions with pandas, independently of
the kernels."""

import numpy as np
import pandas as pd
import pytest

from sdcflow import RecipeError, run, validate
from sdcflow.data.io import builtin_path

RECIPE = """
sdcflow: 1
name: privacy-models
seed: 1
data: {builtin: testdata}
variables:
  urbrur: {role: key}
  sex: {role: key}
  walls:
    role: sensitive
    hierarchy: {kind: {"2": built, "3": built, "9": other}}
steps:
  - {id: ldiv, measure: l_diversity, params: {l: 2, c: 4}}
  - {id: tclose, measure: t_closeness, params: {distance: hierarchical, t: 0.5}}
  - {id: beta, measure: beta_likeness, params: {beta: 0.9}}
  - {id: presence, measure: delta_presence, params: {population: population.csv,
                                                     delta_max: 0.5}}
  - {id: risk, measure: reidentification_risk, params: {threshold: 0.01}}
checks:
  - "ldiv.not_recursive == 0"
  - "tclose.above_t == 0"
  - "presence.max <= 0.5"
  - "risk.average < 0.01"
"""


def test_recipe_end_to_end(write_recipe, tmp_path):
    data = pd.read_csv(builtin_path("testdata"), dtype=str)
    # the population: every record of the data twice -> each class has probability 1/2
    pd.concat([data[["urbrur", "sex"]]] * 2).to_csv(tmp_path / "population.csv", index=False)
    result = run(write_recipe(RECIPE), tmp_path / "out", use_cache=False)
    m = result.measures
    groups = data.groupby(["urbrur", "sex"])
    counts = groups["walls"].value_counts().unstack(fill_value=0)
    q = data["walls"].value_counts(normalize=True)
    p = counts.div(counts.sum(axis=1), axis=0)[q.index]
    n_of = groups.size()
    records = n_of.reindex(counts.index)
    # recursive (4, 2): r_1 < 4 (r_2 + ... + r_m) in every class (the largest ratio,
    # 1498 / (432 + 18) = 3.33, fails c = 3)
    ratio = counts.max(axis=1) / (counts.sum(axis=1) - counts.max(axis=1))
    assert abs(ratio.max() - 1498 / 450) < 1e-12
    assert m["ldiv"]["not_recursive"] == int(records[~(ratio < 4)].sum()) == 0
    # hierarchical EMD over the tree {2, 3} -> built, 9 -> other, root above (H = 2):
    # 1/(2H) (sum over the leaves |p - q| + sum over the groups |P - Q|)
    group = {"2": "built", "3": "built", "9": "other"}
    pg = p.T.groupby(group).sum().T
    qg = q.groupby(group).sum()
    emd = ((p - q).abs().sum(axis=1) + (pg - qg).abs().sum(axis=1)) / 4
    np.testing.assert_allclose(m["tclose"]["sensitive"]["walls"]["max"], emd.max(), rtol=1e-12)
    assert m["tclose"]["sensitive"]["walls"]["distance"] == "hierarchical"
    # beta-likeness: max over classes and over values with q > p of (q - p) / p
    gain = ((p - q) / q).clip(lower=0).max(axis=1)
    np.testing.assert_allclose(m["beta"]["sensitive"]["walls"]["max"], gain.max(), rtol=1e-12)
    assert m["beta"]["above_beta"] == int(records[gain > 0.9].sum()) == 310
    # delta-presence: exactly 1/2 everywhere
    assert (m["presence"]["min"], m["presence"]["max"]) == (0.5, 0.5)
    assert m["presence"]["population_records"] == 2 * len(data)
    # average risk: 4 classes / 4580 records; every record's risk is 1/f, far below 0.01
    assert m["risk"]["average"] == len(n_of) / len(data)
    assert m["risk"]["max"] == 1 / n_of.min()
    assert m["risk"]["above_threshold"] == 0


def _problems(write_recipe, steps: str) -> list[str]:
    head = RECIPE.split("steps:")[0]
    with pytest.raises(RecipeError) as info:
        validate(write_recipe(head + "steps:\n" + steps))
    return [f"{p.line}:{p.col}: {p.message}" for p in info.value.problems]


def test_mistakes_are_reported_at_their_position(write_recipe):
    found = _problems(write_recipe, """\
  - {id: ldiv, measure: l_diversity, params: {c: 3}}
  - {id: tclose, measure: t_closeness, params: {distance: hierarchical, sensitive: [sex2]}}
  - {id: presence, measure: delta_presence, params: {population: nowhere.csv}}
""")
    text = "\n".join(found)
    assert "recursive (c, l)-diversity needs l too" in text
    assert "'sex2' is not a declared variable" in text
    assert "the population file nowhere.csv: no such file" in text
    # each at its step's line (the steps start on line 12 of the recipe)
    assert any(f.startswith("12:") and "needs l too" in f for f in found), found
    assert any(f.startswith("14:") and "population file" in f for f in found), found


def test_data_outside_the_population_is_refused(write_recipe, tmp_path):
    pd.DataFrame({"urbrur": ["1"], "sex": ["1"]}).to_csv(tmp_path / "population.csv",
                                                        index=False)
    head = RECIPE.split("steps:")[0]
    path = write_recipe(head + "steps:\n  - {id: presence, measure: delta_presence, "
                               "params: {population: population.csv}}\n")
    with pytest.raises(RecipeError) as info:
        run(path, tmp_path / "out", use_cache=False)
    assert any("must be a sample of the population" in p.message
               for p in info.value.problems), info.value.problems
