"""global_recode plugin (seed 004_149321b221e875f3.txt)."""

import numpy as np
import pytest
from helpers import small_dataset

from sdcflow.data import Variable
from sdcflow.data.codes import key_codes
from sdcflow.kernels.risk.frequencies import frequencies
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("global_recode")
AGE_BREAKS = [0, 9, 19, 29, 39, 49, 59, 69, 79, 130]
AGE_LABELS = ["1-9", "10-19", "20-29", "30-39", "40-49", "50-59", "60-69", "70-79", "80-130"]


def recode(data, **params):
    return PLUGIN.apply(data, registry.with_defaults(PLUGIN.params, params),
                        np.random.default_rng(0))


def violations(data, alpha):
    keys = ["urbrur", "water", "sex", "age", "relat"]
    fk, _ = frequencies(key_codes(data.frame, keys), alpha=alpha)
    return [int((fk < k).sum()) for k in (2, 3, 5)]


def test_seed_004_age_recoding_sdcmicro_settings(testdata):
    # seed 004: globalRecode(age, breaks=c(0,9,...,79,130)) with createSdcObj(alpha=0.7)
    # reports 113 / 188 / 362 records violating 2- / 3- / 5-anonymity.
    result = recode(testdata, variable="age", breaks=AGE_BREAKS, labels=AGE_LABELS,
                    include_lowest=False)
    assert result.info["outside_breaks"] == 98  # the 98 records aged 0
    assert violations(result.data, 0.7) == [113, 188, 362]


def test_age_zero_in_the_first_class(testdata):
    # With the first interval closed at 0, nobody becomes missing: 118 / 196 / 374.
    result = recode(testdata, variable="age", breaks=AGE_BREAKS, labels=AGE_LABELS)
    assert result.info["outside_breaks"] == 0
    assert violations(result.data, 0.7) == [118, 196, 374]
    assert violations(result.data, 1.0) == [118, 196, 374]


def test_seed_004_group_and_rename(testdata):
    # seed 004: after also merging water 6,7,9 and relat 8,9: 106 / 171 / 316.
    data = recode(testdata, variable="age", breaks=AGE_BREAKS, labels=AGE_LABELS,
                  include_lowest=False).data
    data = recode(data, variable="water", groups={"6-9": [6, 7, 9]}).data
    data = recode(data, variable="relat", groups={"8-9": ["8", "9"]}).data
    assert violations(data, 0.7) == [106, 171, 316]


def test_recoded_variable_becomes_ordinal_with_label_order(testdata):
    result = recode(testdata, variable="age", breaks=AGE_BREAKS, labels=AGE_LABELS)
    var = result.data.variables["age"]
    assert var.type == "ordinal" and var.order == tuple(AGE_LABELS)
    assert result.data.frame["age"].iloc[0] == "40-49"  # testdata record 1 is aged 46


def test_hierarchy_level():
    data = small_dataset(town=("key", "categorical", ["m1", "m2", "m3", None]))
    data.variables["town"] = Variable("town", "key", "categorical", hierarchy={
        "region": {"m1": "north", "m2": "north", "m3": "south"},
        "country": {"north": "NL", "south": "NL"}})
    out = recode(data, variable="town", level="region")
    assert out.data.frame["town"].tolist()[:3] == ["north", "north", "south"]
    assert out.data.frame["town"].isna().tolist()[3]
    assert list(out.data.variables["town"].hierarchy) == ["country"]
    assert out.info == {"changed": 3}


def test_ordinal_merge_keeps_order():
    data = small_dataset(edu=("key", "ordinal", ["low", "mid", "high", "top"]))
    data.variables["edu"] = data.variables["edu"].evolve(order=("low", "mid", "high", "top"))
    out = recode(data, variable="edu", groups={"high+": ["high", "top"]})
    assert out.data.variables["edu"].order == ("low", "mid", "high+")


@pytest.mark.parametrize("params, message", [
    ({"variable": "age", "breaks": [0, 10, 5]}, "strictly increasing"),
    ({"variable": "age", "breaks": [0, 10, 20], "labels": ["a"]}, "2 intervals need 2 labels"),
    ({"variable": "sex", "breaks": [0, 1]}, "breaks need a numeric variable"),
    ({"variable": "age", "groups": {"x": [1]}}, "groups merge categories"),
    ({"variable": "sex", "groups": {"a": ["1"], "b": ["1"]}}, "is in two groups"),
    ({"variable": "sex", "level": "region"}, "has no hierarchy level"),
])
def test_semantic_checks(testdata, params, message):
    found = list(PLUGIN.check(registry.with_defaults(PLUGIN.params, params), testdata.meta))
    assert any(message in m for _, m in found), found


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {"variable": "age", "breaks": AGE_BREAKS})
    check_method(PLUGIN, testdata, {"variable": "water", "groups": {"6-9": ["6", "7", "9"]}})


def test_equal_width_intervals_for_integers():
    data = small_dataset(age=("key", "integer", [0, 9, 10, 95, None]))
    out = recode(data, variable="age", width=10)
    assert out.data.frame["age"].tolist()[:4] == ["0-9", "0-9", "10-19", "90-99"]
    assert out.data.variables["age"].order[:2] == ("0-9", "10-19")
    assert out.data.variables["age"].order[-1] == "90-99"


def test_equal_width_classes_below_zero_say_to_not_a_double_hyphen():
    # [-10, 0) holds -10..-1: "-10--1" reads as a range to "--1"; every class of the
    # variable is then written with "to" (R's cut would write (-11,-1], see sdcMicro's
    # globalRecode; the "a-b" labels of a width are sdcflow's own)
    data = small_dataset(t=("key", "integer", [-10, -1, 0, 9, 12]))
    out = recode(data, variable="t", width=10)
    assert out.data.frame["t"].tolist() == ["-10 to -1", "-10 to -1", "0 to 9", "0 to 9",
                                            "10 to 19"]
    assert out.data.variables["t"].order == ("-10 to -1", "0 to 9", "10 to 19")


def test_equal_width_with_origin_for_continuous():
    data = small_dataset(x=("numeric", "continuous", [1.0, 2.4, 2.6, 7.4]))
    out = recode(data, variable="x", width=2.5, origin=0.5)
    assert out.data.frame["x"].tolist() == ["[0.5,3)", "[0.5,3)", "[0.5,3)", "[5.5,8)"]
