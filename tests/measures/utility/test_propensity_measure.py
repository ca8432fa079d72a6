"""propensity measure (seed 002, section 2.6: Woo, Reiter, Oganian & Karr 2009)."""

import numpy as np
import pytest
from helpers import small_dataset

import sdcflow
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("propensity")


def evaluate(data, original, **params):
    params = registry.with_defaults(PLUGIN.params, params)
    return PLUGIN.evaluate(data, params, np.random.default_rng(0), original=original)


def test_identical_data_give_zero(testdata):
    s = evaluate(testdata, testdata, interactions=True).summary
    assert s["U"] <= 1e-12 and s["pmse"] == s["U"]
    assert s["c"] == 0.5 and s["records"] == 9160
    assert s["variables"] == ["urbrur", "water", "sex", "age", "relat", "expend", "income",
                              "savings"]


def test_hand_example_with_a_categorical_variable():
    # original a b b a, protected a b b b: P(T=1 | a) = 1/3, P(T=1 | b) = 3/5:
    # U = (3 (1/6)^2 + 5 (1/10)^2) / 8 = 1/60 (as the kernel test, through the measure)
    before = small_dataset(v=("key", "categorical", ["a", "b", "b", "a"]))
    after = small_dataset(v=("key", "categorical", ["a", "b", "b", "b"]))
    result = evaluate(after, before)
    assert result.summary["U"] == pytest.approx(1 / 60)
    assert result.per_record["propensity"].tolist() == pytest.approx([1 / 3, 3 / 5, 3 / 5, 3 / 5])


def test_clearly_different_data():
    before = small_dataset(x=("numeric", "continuous", np.arange(50.0)))
    after = small_dataset(x=("numeric", "continuous", np.arange(50.0) + 1000))
    s = evaluate(after, before).summary
    assert s["U"] == pytest.approx(0.25, abs=1e-6) and s["separated"]


def test_missing_numeric_values_leave_records_out():
    before = small_dataset(x=("numeric", "continuous", [1.0, 2.0, None, 4.0]))
    after = small_dataset(x=("numeric", "continuous", [1.0, None, 3.0, 4.0]))
    result = evaluate(after, before)
    assert result.summary["records_left_out"] == {"reference": 1, "protected": 1}
    assert result.summary["records"] == 6
    assert np.isnan(result.per_record["propensity"][1])


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {"squares": True})


def test_recipe_microaggregation_and_sampling_of_casc_census(write_recipe, tmp_path):
    # microaggregation keeps every mean: the main effects model cannot see it (U = 0),
    # the squares see the smaller variances; after sampling c is the sampled share
    path = write_recipe("""
        sdcflow: 1
        name: ps
        seed: 5
        data: {builtin: casc_census}
        variables:
          AGI: {role: numeric, type: integer}
          FEDTAX: {role: numeric, type: integer}
          PTOTVAL: {role: numeric, type: integer}
        steps:
          - id: micro
            method: microaggregation
            params: {k: 3, variables: [AGI, FEDTAX, PTOTVAL]}
          - {id: main, measure: propensity}
          - {id: second, measure: propensity, params: {squares: true, interactions: true}}
          - id: sample
            method: sampling
            params: {fraction: 0.5}
          - {id: sampled, measure: propensity, params: {reference: micro}}
        """)
    result = sdcflow.run(path, tmp_path / "out", use_cache=False)
    main, second = result.measures["main"], result.measures["second"]
    assert main["U"] < 1e-20 and main["parameters"] == 4
    assert second["U"] > main["U"] and second["parameters"] == 10
    sampled = result.measures["sampled"]
    assert sampled["c"] == pytest.approx(540 / 1620)
    assert sampled["U"] < 10 * sampled["null_expected"]
