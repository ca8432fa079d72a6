"""global_risk measure (sdcMicro's measure_risk global_risk_ER / global_risk_pct), and an
end-to-end recipe with the five measures on categorical keys."""

import json

import numpy as np
import pytest
from helpers import small_dataset

from sdcflow import run
from sdcflow.kernels.risk.risk import household_risk, individual_risk
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("global_risk")


def evaluate(data, **params):
    params = registry.with_defaults(PLUGIN.params, params)
    return PLUGIN.evaluate(data, params, np.random.default_rng(0), original=data)


def test_unweighted_by_hand():
    # keys x, x, y, z, z, z: fk 2, 2, 1, 3, 3, 3; risk 1/fk: 1/2, 1/2, 1, 1/3, 1/3, 1/3
    # expected re-identifications = 1/2 + 1/2 + 1 + 3 * 1/3 = 3; 100 * 3 / 6 = 50 %
    # above 0.4: the three records with 1/2 or 1
    data = small_dataset(a=("key", "categorical", ["x", "x", "y", "z", "z", "z"]))
    s = evaluate(data, threshold=0.4).summary
    assert s["expected_reidentifications"] == pytest.approx(3.0, rel=1e-15)
    assert s["risk"] == pytest.approx(0.5, rel=1e-15)
    assert s["percent"] == pytest.approx(50.0, rel=1e-15)
    assert s["above_threshold"] == 3
    assert s["records"] == 6 and s["weight"] is None


def test_weighted_sdcmicro_example():
    # The 8 records of sdcMicro's test_indivRisk.R, approx risks (from that file):
    # 3 * 0.01369863 + 0.08579129 + 0.17707583 + 2 * 0.01877883 + 0.03931625 = 0.38083692
    # expected re-identifications, 100 * 0.38083692 / 8 = 4.7604615 %
    data = small_dataset(
        A=("key", "categorical", ["2", "3", "2", "2", "3", "3", "1", "2"]),
        B=("key", "categorical", ["3", "3", "3", "3", "3", "3", "4", "3"]),
        C=("key", "categorical", ["1", "3", "1", "2", "1", "1", "1", "1"]),
        w=("weight", "continuous", [18.0, 45.5, 39.0, 17.0, 92.0, 8.0, 123.5, 51]),
    )
    s = evaluate(data).summary
    assert s["expected_reidentifications"] == pytest.approx(0.38083692, abs=5e-8)
    assert s["percent"] == pytest.approx(4.7604615, abs=1e-6)
    assert s["method"] == "approx" and s["qual"] == 1


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {"method": "exact", "qual": 0.5})


RECIPE = """
    sdcflow: 1
    name: risk-measures
    seed: 7
    data: {builtin: testdata}
    variables:
      urbrur: {role: key, type: categorical}
      water: {role: key, type: categorical}
      sex: {role: key, type: categorical}
      age: {role: key, type: integer}
      relat: {role: key, type: categorical}
      sampling_weight: {role: weight}
      ori_hid: {role: household}
      walls: {role: sensitive}
    steps:
      - {id: freq, measure: frequencies}
      - {id: indiv, measure: individual_risk, params: {threshold: 0.02}}
      - {id: overall, measure: global_risk}
      - {id: households, measure: household_risk}
      - {id: ldiv, measure: l_diversity, params: {l: 2}}
    checks:
      - "overall.percent < 5"
      - "households.expected_reidentifications >= overall.expected_reidentifications"
      - "ldiv.sensitive.walls.distinct_min >= 1"
"""


def test_recipe_with_the_five_measures(write_recipe, tmp_path):
    result = run(write_recipe(RECIPE), tmp_path / "out", use_cache=False)
    m = result.measures
    assert all(c["passed"] for c in result.checks)
    # seed 004: 653 sample uniques on these five keys (the k = 2 violations)
    assert m["freq"]["sample_uniques"] == 653
    assert m["freq"]["records"] == 4580 and m["freq"]["records_with_missing_keys"] == 0

    # every measure agrees with the kernels applied to the frequencies measure's fk and Fk
    fk = result.per_record["freq"]["fk"].to_numpy()
    Fk = result.per_record["freq"]["Fk"].to_numpy()
    risk = individual_risk(fk, Fk, "approx")
    np.testing.assert_allclose(result.per_record["indiv"]["risk"], risk, rtol=1e-15)
    assert m["overall"]["expected_reidentifications"] == pytest.approx(risk.sum(), rel=1e-12)
    assert m["overall"]["percent"] == pytest.approx(100 * risk.sum() / 4580, rel=1e-12)
    assert m["indiv"]["above_threshold"] == int((risk > 0.02).sum())
    hids = result.data["ori_hid"].astype(int).to_numpy()
    hh = household_risk(risk, hids)
    np.testing.assert_allclose(result.per_record["households"]["household_risk"], hh,
                               rtol=1e-15)
    assert m["households"]["households"] == len(set(hids.tolist()))

    # regression values (computed by sdcflow 0.1.0, no external reference): the global and
    # household expected re-identifications, and the 1533 records with a single walls value
    # in their key combination
    assert m["overall"]["expected_reidentifications"] == pytest.approx(40.4177846, abs=1e-6)
    assert m["households"]["expected_reidentifications"] == pytest.approx(187.7418291, abs=1e-6)
    assert m["households"]["households"] == 1000
    assert m["ldiv"]["classes"] == 1335
    assert m["ldiv"]["below_l"] == 1533
    assert m["ldiv"]["sensitive"]["walls"]["below_l"] == 1533
    # the summaries went to measures.json as they are
    written = json.loads((result.out_dir / "measures.json").read_text())["measures"]
    assert written["overall"] == m["overall"]
