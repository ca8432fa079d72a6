"""information_loss measure (seed 000, section 4, continuous data; sdcMicro dUtility)."""

import numpy as np
import pytest
from helpers import small_dataset

import sdcflow
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("information_loss")


def evaluate(data, original, **params):
    params = registry.with_defaults(PLUGIN.params, params)
    return PLUGIN.evaluate(data, params, np.random.default_rng(0), original=original)


def test_hand_example_through_the_measure():
    before = small_dataset(a=("numeric", "integer", [1, 3, 5, 7]),
                           b=("numeric", "continuous", [2.0, 0.0, 4.0, 6.0]))
    after = small_dataset(a=("numeric", "integer", [2, 3, 5, 7]),
                          b=("numeric", "continuous", [2.0, 1.0, 4.0, 6.0]))
    result = evaluate(after, before)
    s = result.summary
    # two of the 8 cells differ by 1: mse = mae = 2/8; mean variation: 1/1 for a's first
    # cell, b's 0 -> 1 is undefined and left out: 1 / 7
    assert s["X"] == {"mse": 0.25, "mae": 0.25, "mv": pytest.approx(1 / 7),
                      "mv_left_out": 1, "cells": 8}
    assert s["variables"] == ["a", "b"] and s["records"] == 4
    # IL1s: mean over the 8 cells of |d| / (sqrt(2) S_j)
    s_a = np.std([1, 3, 5, 7], ddof=1)
    s_b = np.std([2, 0, 4, 6], ddof=1)
    assert s["il1s"] == pytest.approx((1 / s_a + 1 / s_b) / np.sqrt(2) / 8)
    assert result.per_record["il1s"].tolist() == pytest.approx(
        [1 / s_a / np.sqrt(2) / 2, 1 / s_b / np.sqrt(2) / 2, 0, 0])
    # sdcMicro's dUtility: IL1 = 100 |d| / |x| summed (a's 100 * 1/1; b's 0 -> 1 is Inf,
    # left out); IL1s the sum of the standardised distances, IL1old their mean over 8 cells
    assert s["sdcmicro"]["IL1"] == pytest.approx(100.0)
    assert s["sdcmicro"]["IL1s"] == pytest.approx((1 / s_a + 1 / s_b) / np.sqrt(2))
    assert s["sdcmicro"]["IL1old"] == pytest.approx(s["sdcmicro"]["IL1s"] / 8)
    assert 0 < s["pil"] < 100 and s["sdcmicro"]["eigen"] > 0
    assert "il1_sdcmicro" not in s and "eigen_percent" not in s


def test_refuses_different_records():
    a = small_dataset(x=("numeric", "continuous", [1.0, 2.0]))
    b = small_dataset(x=("numeric", "continuous", [1.0]))
    with pytest.raises(ValueError, match="records differ"):
        evaluate(b, a)


def test_refuses_a_variable_recoded_into_text():
    a = small_dataset(x=("numeric", "integer", [1, 2]))
    b = small_dataset(x=("numeric", "ordinal", ["0-9", "0-9"]))
    with pytest.raises(ValueError, match="'x' is not numeric in the protected data"):
        evaluate(b, a)


def test_no_numeric_variables_is_a_finding():
    data = small_dataset(a=("key", "categorical", ["x"]))
    assert [p for p, _ in PLUGIN.check({}, data.meta)] == [("variables",)]


def test_missing_values_do_not_crash():
    before = small_dataset(x=("numeric", "continuous", [1.0, 2.0, 3.0, 4.0]),
                           y=("numeric", "continuous", [2.0, 1.0, 4.0, 3.0]))
    after = small_dataset(x=("numeric", "continuous", [1.0, None, 3.0, 4.5]),
                          y=("numeric", "continuous", [2.0, 1.0, 4.0, 3.0]))
    s = evaluate(after, before).summary
    assert s["records_complete"] == 3 and s["X"]["cells"] == 7


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {})


def test_recipe_microaggregation_of_casc_census(write_recipe, tmp_path):
    # microaggregation (MDAV, k = 3) replaces groups by their means: against its input (the
    # top-coded data) the means are kept (their PIL is 0 up to rounding) while the values,
    # variances and correlations change; against the original, top coding moved INTVAL's mean
    path = write_recipe("""
        sdcflow: 1
        name: il
        seed: 1
        data: {builtin: casc_census}
        variables:
          AGI: {role: numeric, type: integer}
          FEDTAX: {role: numeric, type: integer}
          PTOTVAL: {role: numeric, type: integer}
          INTVAL: {role: numeric, type: integer}
        steps:
          - id: top
            method: top_bottom_code
            params: {variable: INTVAL, top: {quantile: 0.99}}
          - id: micro
            method: microaggregation
            params: {k: 3, variables: [AGI, FEDTAX, PTOTVAL, INTVAL]}
          - {id: il, measure: information_loss}
          - {id: il_micro_only, measure: information_loss, params: {reference: top}}
        """)
    result = sdcflow.run(path, tmp_path / "out", use_cache=False)
    il = result.measures["il"]
    assert il["records"] == 1080 and il["variables"] == ["AGI", "FEDTAX", "PTOTVAL", "INTVAL"]
    micro_only = result.measures["il_micro_only"]
    assert micro_only["pil_by_statistic"]["means"] < 1e-6
    assert il["pil_by_statistic"]["means"] > 1
    assert il["X"]["mae"] > 0 and il["V"]["mae"] > 0 and il["R"]["mae"] > 0
    assert 0 < il["pil"] < 100 and il["il1s"] > 0
    # against the top-coded data the values of INTVAL above its 99% quantile no longer count
    assert micro_only["X"]["mae"] < il["X"]["mae"]
    assert len(result.per_record["il"]) == 1080


def test_sdcmicro_il1_on_testdata_after_mdav(write_recipe, tmp_path):
    # sdcMicro's published figure: createSdcObj(testdata, ..., numVars = c("expend",
    # "income", "savings")), microaggregation(sdc, method = "mdav", aggr = 3) and then
    # the object's utility (dUtility, printed as "IL1") is 384,097.5: the sum over the
    # 13,740 cells of 100 |x - x'| / |x| (the cells with x = 0 left out). The measure
    # reproduces it from the same data and the same MDAV partition (sdcflow's MDAV is
    # sdcMicro's: tests/kernels/perturbative/microaggregation). IL1old is Yancey,
    # Winkler & Creecy's IL1s (the mean standardised distance; no missing values here)
    # and sdcMicro's IL1s the sum: 13,740 times it.
    path = write_recipe("""
        sdcflow: 1
        name: il1
        seed: 1
        data: {builtin: testdata}
        variables:
          expend: {role: numeric, type: continuous}
          income: {role: numeric, type: continuous}
          savings: {role: numeric, type: continuous}
        steps:
          - id: micro
            method: microaggregation
            params: {k: 3, algorithm: mdav}
          - {id: il, measure: information_loss}
        """)
    il = sdcflow.run(path, tmp_path / "out", use_cache=False).measures["il"]
    assert round(il["sdcmicro"]["IL1"], 1) == 384097.5
    assert il["sdcmicro"]["IL1old"] == pytest.approx(il["il1s"], rel=1e-12)
    assert il["sdcmicro"]["IL1s"] == pytest.approx(13740 * il["il1s"], rel=1e-12)
