"""``dp_histogram`` and ``dp_mean`` from a recipe: noise scales worked out by hand from
the sensitivity (a count: 1 per record; a sum clamped to [lower, upper]: max(|lower|,
|upper|)), each half of a mean's spend; households truncated to the budget's
max_records, which multiplies the sensitivity; results published whole (they are the DP
release); the same figures run after run."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from helpers import validate_cli

from sdcflow import run
from sdcflow.dp.steps import unit_mask

RECIPE = """\
sdcflow: 1
name: dp-measures
seed: 9
privacy_budget: BUDGET
data: {path: data.csv}
variables:
  region: {role: key, type: categorical}
  income: {role: numeric, type: integer}
  hid: {role: household}
steps:
  - {id: hist, measure: dp_histogram,
     params: {variable: region, categories: [a, b, c], epsilon: 0.5}}
  - {id: avg, measure: dp_mean, params: {variable: income, lower: 0, upper: 1000,
                                         epsilon: 0.5}}
release:
  measures: [hist, avg]
"""


def write(tmp_path, budget="{epsilon: 1.0}"):
    rng = np.random.default_rng(3)
    n = 3000
    pd.DataFrame({"region": rng.choice(["a", "b", "c", "d"], n, p=[.5, .3, .15, .05]),
                  "income": rng.integers(0, 1200, n),
                  "hid": np.repeat(np.arange(n // 3), 3)}).to_csv(tmp_path / "data.csv",
                                                                 index=False)
    path = tmp_path / "r.yaml"
    path.write_text(RECIPE.replace("BUDGET", budget))
    return path


def _measures(out):
    return json.loads((out / "public" / "manifest.json").read_text())["measures"]


def test_histogram_and_mean_scales_and_figures(tmp_path):
    path = write(tmp_path)
    run(path, tmp_path / "o")
    m = _measures(tmp_path / "o")
    truth = pd.read_csv(tmp_path / "data.csv")
    # histogram: 1 slice, sensitivity 1, epsilon 0.5 -> scale 2
    assert m["hist"]["scale"] == 2.0 and m["hist"]["spent"] == 0.5
    counts = truth["region"].value_counts()
    for c in "abc":
        # a discrete Laplace of scale 2 exceeds 30 with probability below 1e-6
        assert abs(m["hist"]["counts"][c] - counts[c]) <= 30
    assert abs(m["hist"]["counts"]["other"] - counts["d"]) <= 30
    # mean: half of epsilon 0.5 to each of sum and count: sum 1000 / 0.25 = 4000,
    # count 1 / 0.25 = 4
    assert m["avg"]["sum_scale"] == 4000.0 and m["avg"]["count_scale"] == 4.0
    clamped = truth["income"].clip(0, 1000).mean()
    assert abs(m["avg"]["mean"] - clamped) < 20
    again = tmp_path / "o2"
    run(path, again)
    assert _measures(again) == m


def test_households_multiply_the_sensitivity(tmp_path):
    path = write(tmp_path, "{epsilon: 1.0, unit: household, max_records: 2}")
    run(path, tmp_path / "o")
    m = _measures(tmp_path / "o")
    # d_in 2: histogram scale 2 x 2 = 4; the third record of every household dropped
    assert m["hist"]["scale"] == 4.0
    assert m["avg"]["count_scale"] == 8.0
    assert abs(m["avg"]["count"] - 2000) <= 200


def test_unit_mask_keeps_the_first_records_of_each_unit():
    units = np.array([7, 7, 3, 7, 3, 3, 3, 9])
    assert unit_mask(units, 2).tolist() == [True, True, True, False, True, False, False,
                                            True]


def test_categories_must_be_declared(tmp_path, capsys):
    path = write(tmp_path)
    path.write_text(path.read_text().replace("categories: [a, b, c], ", ""))
    code, lines = validate_cli(path, capsys)
    assert code == 1
    assert any("declare the categories to count" in line for line in lines)


@pytest.mark.parametrize("budget", ["{epsilon: 0.9}", "{rho: 0.2}"])
def test_the_measures_spend_the_budget(tmp_path, capsys, budget):
    # epsilon 0.5 + 0.5 = 1 > 0.9; under rho: 0.125 + 0.125 = 0.25 > 0.2
    code, lines = validate_cli(write(tmp_path, budget), capsys)
    assert code == 1
    assert any("more than the recipe's privacy budget" in line for line in lines)
