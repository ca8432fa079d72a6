"""categorical_information_loss measure (seed 000, section 4, "Categorical Data")."""

import math

import numpy as np
import pytest
from helpers import small_dataset

import sdcflow
from sdcflow.data import Variable
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("categorical_information_loss")


def evaluate(data, original, **params):
    params = registry.with_defaults(PLUGIN.params, params)
    return PLUGIN.evaluate(data, params, np.random.default_rng(0), original=original)


def test_hand_example():
    # a: x x y y -> x x x y (one change); b: 1 2 1 2 kept
    before = small_dataset(a=("key", "categorical", ["x", "x", "y", "y"]),
                           b=("key", "categorical", ["1", "2", "1", "2"]))
    after = small_dataset(a=("key", "categorical", ["x", "x", "x", "y"]),
                          b=("key", "categorical", ["1", "2", "1", "2"]))
    result = evaluate(after, before, K=2)
    s = result.summary
    assert s["distance"] == pytest.approx(1 / 8)
    assert s["distance_by_variable"] == {"a": 0.25, "b": 0.0}
    assert s["changed_by_variable"] == {"a": 1, "b": 0}
    # tables: a: (x 2, y 2) vs (x 3, y 1) -> 2; b: 0; a x b: x1 x2 y1 y2 vs x1 x2 x1 y2 -> 2
    assert s["ctbil"] == 4
    assert s["ctbil_by_order"] == {"1": 2, "2": 2}
    assert s["ctbil_tables"] == {"a": 2, "b": 0, "a x b": 2}
    assert s["ctbil_relative"] == pytest.approx(4 / (2 * 4 * 3))
    # P(a | a'=x) = (2/3, 1/3), P(a | a'=y) = (0, 1); b unchanged: every entropy 0
    h = -(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3))
    assert s["ebil"] == pytest.approx(3 * h)
    assert s["ebil_by_variable"] == {"a": pytest.approx(3 * h), "b": 0.0}
    assert s["pril"] == pytest.approx(-2 * math.log(2 / 3) - math.log(1 / 3))
    assert s["matrix"] == {"a": "estimated", "b": "estimated"}
    assert result.per_record["distance"].tolist() == [0, 0, 0.5, 0]
    assert result.per_record["pril"].tolist() == pytest.approx(
        [-math.log(2 / 3), -math.log(2 / 3), -math.log(1 / 3), 0])


def test_ordinal_distance_uses_the_declared_order():
    before = small_dataset(s=("key", "categorical", ["low", "mid", "high", "low"]))
    after = small_dataset(s=("key", "categorical", ["high", "mid", "mid", None]))
    order = ("low", "mid", "high")
    before.variables["s"] = Variable("s", "key", "ordinal", order=order)
    after.variables["s"] = Variable("s", "key", "ordinal", order=order)
    result = evaluate(after, before)
    # low -> high: 2/2; mid -> mid: 0; high -> mid: 1/2; low -> missing: 1
    assert result.per_record["distance"].tolist() == [1.0, 0.0, 0.5, 1.0]


def test_ordinal_distance_is_over_the_declared_domain_with_unobserved_categories():
    # D(V) is the declared order (5 categories), observed or not: d(c, c') =
    # |rank c - rank c'| / (|D(V)| - 1) (Domingo-Ferrer & Torra's direct distance), so
    # lo -> max is 4/4 = 1 and lo -> mid 1/4, never above 1. Counting only the observed
    # categories {lo, mid, max} gave 4/2 = 2.
    order = ("lo", "mid", "hi", "top", "max")
    before = small_dataset(s=("key", "categorical", ["lo", "lo", "mid", "max"]))
    after = small_dataset(s=("key", "categorical", ["max", "mid", "mid", "lo"]))
    for d in (before, after):
        d.variables["s"] = Variable("s", "key", "ordinal", order=order)
    result = evaluate(after, before)
    assert result.per_record["distance"].tolist() == [1.0, 0.25, 0.0, 1.0]
    assert result.summary["distance"] == pytest.approx(2.25 / 4)
    # only two observed categories, both inside the order: still over |D(V)| - 1 = 4
    two = small_dataset(s=("key", "categorical", ["lo", "mid"]))
    two.variables["s"] = Variable("s", "key", "ordinal", order=order)
    swapped = small_dataset(s=("key", "categorical", ["mid", "lo"]))
    swapped.variables["s"] = Variable("s", "key", "ordinal", order=order)
    assert evaluate(swapped, two).per_record["distance"].tolist() == [0.25, 0.25]


def test_ordinal_value_outside_the_declared_order_is_at_distance_one():
    # a value the order does not declare (e.g. a code left by an earlier step) has no
    # rank: distance 1 to any other value, 0 to itself
    order = ("lo", "mid", "hi")
    before = small_dataset(s=("key", "categorical", ["lo", "hi", "x", "x"]))
    after = small_dataset(s=("key", "categorical", ["x", "hi", "x", "lo"]))
    for d in (before, after):
        d.variables["s"] = Variable("s", "key", "ordinal", order=order)
    distances = evaluate(after, before).per_record["distance"].tolist()
    assert distances == [1.0, 0.0, 0.0, 1.0]


def test_missing_is_a_category_and_integers_compare_as_text():
    before = small_dataset(a=("key", "integer", [1, 2, None, 2]))
    after = small_dataset(a=("key", "categorical", ["1", None, None, "2"]))
    s = evaluate(after, before).summary
    assert s["changed_by_variable"] == {"a": 1}  # 2 -> missing; missing stays missing
    # tables: 1 (1, 1), 2 (2, 1), missing (1, 2) -> 0 + 1 + 1
    assert s["ctbil"] == 2


def test_given_pram_matrix():
    # p(V'|V) = [[0.8, 0.2], [0.1, 0.9]]; original shares (1/2, 1/2):
    # P(V=1 | V'=1) = 0.4 / 0.45 = 8/9, P(V=2 | V'=1) = 1/9
    before = small_dataset(w=("pram", "categorical", ["1", "1", "2", "2"]))
    after = small_dataset(w=("pram", "categorical", ["1", "2", "1", "2"]))
    matrix = {"w": {"1": {"1": 0.8, "2": 0.2}, "2": {"1": 0.1, "2": 0.9}}}
    s = evaluate(after, before, matrix=matrix).summary
    assert s["matrix"] == {"w": "given"}
    assert s["pril"] == pytest.approx(-math.log(8 / 9) - math.log(0.1 / 0.55)
                                      - math.log(1 / 9) - math.log(0.45 / 0.55))


def test_a_change_the_matrix_forbids_is_an_error():
    before = small_dataset(w=("pram", "categorical", ["1", "2"]))
    after = small_dataset(w=("pram", "categorical", ["2", "2"]))
    with pytest.raises(ValueError, match="impossible"):
        evaluate(after, before, matrix={"w": {"1": {"1": 1.0}, "2": {"2": 1.0}}})


def test_a_category_without_a_row_is_an_error():
    before = small_dataset(w=("pram", "categorical", ["1", "3"]))
    with pytest.raises(ValueError, match=r"no row for the categories \['3'\]"):
        evaluate(before, before, matrix={"w": {"1": {"1": 1.0}}})


def test_matrix_checks():
    data = small_dataset(w=("pram", "categorical", ["1", "2", "3"]))
    params = registry.with_defaults(PLUGIN.params, {"matrix": {"w": {"1": {"1": 0.5},
                                                                     "2": {"2": 1.0}},
                                                               "v": {"1": {"1": 1.0}}}})
    found = dict(PLUGIN.check(params, data.meta))
    assert ("matrix", "v") in found
    assert "sum to 0.5" in found[("matrix", "w", "1")]
    found = dict(PLUGIN.check_data(params, data))
    assert "no row for the categories ['3']" in found[("matrix", "w")]


def test_refuses_different_records():
    a = small_dataset(a=("key", "categorical", ["x", "y"]))
    b = small_dataset(a=("key", "categorical", ["x"]))
    with pytest.raises(ValueError, match="records differ"):
        evaluate(b, a)


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {"K": 3})


def test_recipe_recoding_and_pram_on_testdata(write_recipe, tmp_path):
    # water 6/7/9 merged into 6 (seed 004) and walls post-randomised with a known matrix
    path = write_recipe("""
        sdcflow: 1
        name: cat-il
        seed: 7
        data: {builtin: testdata}
        variables:
          urbrur: {role: key, type: categorical}
          water: {role: key, type: categorical}
          sex: {role: key, type: categorical}
          walls: {role: pram, type: categorical}
        steps:
          - id: recode
            method: global_recode
            params: {variable: water, groups: {"6": ["6", "7", "9"]}}
          - id: pram
            method: pram
            params:
              variables: [walls]
              matrix: {walls: {"2": {"2": 0.9, "3": 0.1}, "3": {"2": 0.05, "3": 0.95},
                               "9": {"9": 1.0}}}
          - id: il
            measure: categorical_information_loss
            params:
              matrix: {walls: {"2": {"2": 0.9, "3": 0.1}, "3": {"2": 0.05, "3": 0.95},
                               "9": {"9": 1.0}}}
        """)
    result = sdcflow.run(path, tmp_path / "out", use_cache=False)
    s = result.measures["il"]
    assert s["variables"] == ["urbrur", "water", "sex", "walls"]
    # 36 + 35 records of water 7 and 9 changed category, nothing else in water
    assert s["changed_by_variable"]["water"] == 71
    assert s["changed_by_variable"]["urbrur"] == 0 and s["changed_by_variable"]["sex"] == 0
    assert s["changed_by_variable"]["walls"] > 0
    assert s["matrix"]["walls"] == "given" and s["matrix"]["water"] == "estimated"
    assert s["ebil_by_variable"]["urbrur"] == 0 and s["ebil_by_variable"]["walls"] > 0
    # water's marginal table: 7 (36) and 9 (35) emptied, 6 gained 71 -> 142
    assert s["ctbil_tables"]["water"] == 142
    assert len(result.per_record["il"]) == 4580
