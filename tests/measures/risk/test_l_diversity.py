"""l_diversity measure (Machanavajjhala et al. 2007; sdcMicro's ldiversity)."""

import math

import numpy as np
import pytest
from helpers import small_dataset

from sdcflow.data import Metadata, Variable
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("l_diversity")


def evaluate(data, **params):
    params = registry.with_defaults(PLUGIN.params, params)
    return PLUGIN.evaluate(data, params, np.random.default_rng(0), original=data)


def test_sdcmicro_missing_key_values_form_a_class():
    # sdcMicro's tests/testthat/test_ldiversity.R, "ldiversityWORK handles NAs and distinct
    # counts correctly": classes (female, NA, other) rows 1-3 with sensitive 1, 0, 2 ->
    # distinct 3; (male, teacher, other) rows 4-5: 1, 0 -> 2; (female, nurse, majority)
    # rows 6-7: 0, 1 -> 2. Entropy l (by hand): exp(ln 3) = 3 and exp(ln 2) = 2.
    data = small_dataset(
        sex=("key", "categorical", ["female", "female", "female", "male", "male", "female",
                                    "female"]),
        occupation=("key", "categorical", [None, None, None, "teacher", "teacher", "nurse",
                                           "nurse"]),
        ethnicity=("key", "categorical", ["other", "other", "other", "other", "other",
                                          "majority", "majority"]),
        sensitive=("sensitive", "categorical", ["1", "0", "2", "1", "0", "0", "1"]),
    )
    result = evaluate(data)
    assert result.per_record["l_distinct_sensitive"].tolist() == [3, 3, 3, 2, 2, 2, 2]
    np.testing.assert_allclose(result.per_record["l_entropy_sensitive"], [3] * 3 + [2] * 4,
                               rtol=1e-14)
    assert result.summary["classes"] == 3
    assert result.summary["sensitive"] == {"sensitive": {"distinct_min": 2, "entropy_min": 2.0}}
    assert "below_l" not in result.summary


def test_sdcmicro_several_sensitive_variables():
    # test_ldiversity.R, "ldiversity handles multiple sensitive variables": one class;
    # sens1 A, B, A -> distinct 2, sens2 X, Y, Z -> 3. Entropy (by hand): sens1 shares
    # 2/3, 1/3: H = ln 3 - (2/3) ln 2, exp(H) = 3 / 2^(2/3) = 1.889882; sens2 exp(ln 3) = 3.
    data = small_dataset(key=("key", "categorical", ["1", "1", "1"]),
                         sens1=("sensitive", "categorical", ["A", "B", "A"]),
                         sens2=("sensitive", "categorical", ["X", "Y", "Z"]))
    result = evaluate(data, l=3)
    assert result.per_record["l_distinct_sens1"].tolist() == [2, 2, 2]
    assert result.per_record["l_distinct_sens2"].tolist() == [3, 3, 3]
    assert result.per_record["l_entropy_sens1"].tolist() == \
        pytest.approx([3 / 2 ** (2 / 3)] * 3, rel=1e-14)
    assert result.per_record["l_entropy_sens2"].tolist() == pytest.approx([3] * 3, rel=1e-14)
    # l = 3: every record is below on sens1, none on sens2; 3 records below on either
    assert result.summary["sensitive"]["sens1"]["below_l"] == 3
    assert result.summary["sensitive"]["sens2"]["below_l"] == 0
    assert (result.summary["l"], result.summary["below_l"],
            result.summary["below_l_percent"]) == (3, 3, 100.0)


def test_by_hand_with_missing_sensitive_values_and_named_variables():
    # classes on a: x (records 0-3), y (4-5), missing (6); sensitive s:
    #   x: p, p, q, missing -> distinct 2; shares 2/3, 1/3 -> exp(H) = 3 / 2^(2/3)
    #   y: missing, missing -> 0 and 0 (no observed value)
    #   NA: r -> 1 and 1
    # l = 2: the records of y and NA are below: 3 of 7 = 42.857 %
    data = small_dataset(a=("key", "categorical", ["x", "x", "x", "x", "y", "y", None]),
                         b=("key", "categorical", ["1", "2", "1", "2", "1", "1", "1"]),
                         s=("numeric", "continuous", [1.0, 1.0, 2.0, None, None, None, 3.0]))
    result = evaluate(data, variables=["a"], sensitive=["s"], l=2)
    assert result.per_record["l_distinct_s"].tolist() == [2, 2, 2, 2, 0, 0, 1]
    np.testing.assert_allclose(result.per_record["l_entropy_s"],
                               [3 / 2 ** (2 / 3)] * 4 + [0, 0, 1], rtol=1e-14)
    s = result.summary
    assert s["variables"] == ["a"] and s["classes"] == 3
    assert s["sensitive"]["s"] == {"distinct_min": 0, "entropy_min": 0.0, "below_l": 3}
    assert (s["below_l"], s["below_l_percent"]) == (3, round(100 * 3 / 7, 3))
    assert math.isclose(s["below_l_percent"], 42.857)


def test_reads_keys_and_sensitive_variables():
    meta = Metadata({"a": Variable("a", "key", "categorical"),
                     "s": Variable("s", "sensitive", "categorical"),
                     "w": Variable("w", "weight", "continuous")})
    assert PLUGIN.reads({}, meta) == {"a", "s"}
    assert PLUGIN.reads({"sensitive": ["w"]}, meta) == {"a", "w"}


def test_checks():
    meta = Metadata({"a": Variable("a", "key", "categorical"),
                     "walls": Variable("walls", "pram", "categorical")})
    assert list(PLUGIN.check({}, meta)) == [
        ((), ("no sensitive variables: declare variables with role 'sensitive' or name them "
             "in 'sensitive'"))]
    assert list(PLUGIN.check({"sensitive": ["wals", "a", "walls"]}, meta)) == [
        (("sensitive", 0), "'wals' is not a declared variable (did you mean 'walls'?)"),
        (("sensitive", 1), ("'a' is a key variable; a sensitive variable must not be one of "
                           "the keys")),
    ]


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {"sensitive": ["income"], "l": 2})


def test_recursive_c_l_diversity_by_hand():
    # Machanavajjhala et al. (2007), definition 4.2: a class is (c, l)-diverse when
    # r_1 < c (r_l + ... + r_m), counts sorted descending. Class x: s = a, a, a, b, c
    # (3, 1, 1): l = 2: 3 / (1 + 1) = 1.5; class y: a, a, b, b (2, 2): 2 / 2 = 1;
    # class z: a (one value): infinite. c = 1.5: x fails (1.5 is not < 1.5), y passes,
    # z fails -> 6 of 10 records.
    data = small_dataset(k=("key", "categorical", list("xxxxxyyyyz")),
                         s=("sensitive", "categorical", list("aaabcaabba")))
    result = evaluate(data, l=2, c=1.5)
    assert result.per_record["l_recursive_s"].tolist() == [1.5] * 5 + [1.0] * 4 + [math.inf]
    assert result.summary["sensitive"]["s"]["not_recursive"] == 6
    assert (result.summary["c"], result.summary["not_recursive"],
            result.summary["not_recursive_percent"]) == (1.5, 6, 60.0)
    # c = 2: only z fails
    assert evaluate(data, l=2, c=2).summary["not_recursive"] == 1


def test_recursive_needs_l():
    meta = Metadata({"a": Variable("a", "key", "categorical"),
                     "s": Variable("s", "sensitive", "categorical")})
    assert list(PLUGIN.check({"c": 2}, meta)) == [
        (("c",), ("recursive (c, l)-diversity needs l too: give 'l' (the number of values "
                 "whose counts r_l + ... + r_m must outweigh r_1 / c)"))]


def test_conformance_recursive(testdata):
    check_method(PLUGIN, testdata, {"sensitive": ["income"], "l": 2, "c": 3})
