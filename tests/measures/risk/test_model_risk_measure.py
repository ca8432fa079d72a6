"""model_risk measure (sdcMicro's modRisk)."""

import numpy as np
import pytest
from helpers import small_dataset

from sdcflow.data import Metadata, Variable
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("model_risk")


def evaluate(data, **params):
    params = registry.with_defaults(PLUGIN.params, params)
    return PLUGIN.evaluate(data, params, np.random.default_rng(0), original=data)


def sdcmicro_dataset():
    # the data of sdcMicro's test_modRisks.R (rebuilt with R's RNG in
    # tests/kernels/risk/test_model_risk.py): Var1..Var3 and weights 100
    return small_dataset(
        Var1=("key", "categorical", ["2", "3", "2", "3", "3", "1", "2", "3", "2", "2"]),
        Var2=("key", "categorical", ["2", "1", "2", "2", "1", "2", "1", "1", "1", "2"]),
        Var3=("key", "categorical", ["5", "4", "4", "5", "4", "4", "3", "3", "2", "2"]),
        w=("weight", "continuous", [100.0] * 10),
    )


def test_sdcmicro_figures():
    # sdcMicro test_modRisks.R: default method 0.553 and 0.705; CE 0.542, 0.699
    result = evaluate(sdcmicro_dataset())
    s = result.summary
    assert (round(s["gr1"], 6), round(s["gr2"], 7)) == (0.552916, 0.7053842)
    assert round(s["gr1_percent"], 4) == 55.2916
    assert (s["cells"], s["counted_cells"], s["sample_uniques"]) == (24, 9, 8)
    assert s["weight"] == "w" and s["bound"] is None and s["interactions"] == []
    assert (result.per_record["model_risk1"] > 0).sum() == 8
    ce = evaluate(sdcmicro_dataset(), method="CE").summary
    assert (round(ce["gr1"], 3), round(ce["gr2"], 3)) == (0.542, 0.699)
    bounded = evaluate(sdcmicro_dataset(), bound=1.5).summary
    assert (round(bounded["gr1"], 3), round(bounded["gr2"], 3)) == (0.622, 0.794)


def test_saturated_model_by_hand():
    # interaction a:b saturates the 2 x 2 table: fitted = counts. Without a weight
    # variable the weights are 1 (pi = 1): each sample unique has risk 1 (v = 0)
    data = small_dataset(a=("key", "categorical", ["x", "x", "x", "y", "y"]),
                         b=("key", "categorical", ["u", "v", "v", "u", "v"]))
    result = evaluate(data, interactions=[["a", "b"]])
    assert result.per_record["model_risk1"].tolist() == [1.0, 0.0, 0.0, 1.0, 1.0]
    assert result.per_record["model_risk2"].tolist() == [1.0, 0.0, 0.0, 1.0, 1.0]
    s = result.summary
    assert (s["tau1"], s["tau2"], s["weight"]) == (3.0, 3.0, None)
    assert s["interactions"] == ["a:b"] and s["gr1"] == 3 / 4


def test_checks():
    meta = Metadata({"a": Variable("a", "key", "categorical"),
                     "b": Variable("b", "key", "categorical")})
    assert list(PLUGIN.check({"interactions": [["a", "bb"]]}, meta)) == [
        (("interactions", 0, 1), "'bb' is not one of the key variables (did you mean 'b'?)")]
    data = small_dataset(a=("key", "categorical", ["x", "y"]),
                         w=("weight", "continuous", [1.0, 0.0]))
    params = registry.with_defaults(PLUGIN.params, {})
    assert list(PLUGIN.check_data(params, data)) == [
        ((), ("the weight variable 'w' has 1 zero value(s): the inclusion probabilities 1/w "
              "need positive weights"))]


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {"variables": ["urbrur", "water", "sex"],
                                    "method": "CE"})


def test_too_large_a_model_is_refused():
    # 3 keys of 300, 300 and 2 categories: 180,000 cells and 1 + 299 + 299 + 1 = 600
    # parameters: 108,000,000 design values, above the limit of 20,000,000
    n = 300
    data = small_dataset(a=("key", "integer", list(range(n))),
                         b=("key", "integer", list(range(n))),
                         c=("key", "categorical", ["x", "y"] * (n // 2)))
    params = registry.with_defaults(PLUGIN.params, {})
    assert list(PLUGIN.check_data(params, data)) == [
        (("variables",), ("180,000 cells x 600 parameters make a design matrix of "
                          "108,000,000 values (at most 20,000,000): use fewer keys or "
                          "interactions, or recode them"))]


def linear_dataset():
    # the records of tests/kernels/risk/test_model_risk.py (hand fit of a linear key):
    # x's codes as text, as a categorical key read from a file holds them
    return small_dataset(x=("key", "categorical", ["0", "1", "2", "2", "2", "2"]),
                         c=("key", "categorical", ["A", "B", "A", "A", "B", "B"]),
                         w=("weight", "continuous", [10.0] * 6))


def test_sdcmicro_convention_enters_keys_held_as_numbers_linearly():
    # sdcMicro's glm sees x as an integer column (one term) and c as text (a factor):
    # fitted mu(x, c) = a b^x / 2, b = (1 + sqrt 13)/2, a = 6 / (1 + b + b^2) (by hand in
    # the kernel test); the sample uniques (0, A) and (1, B) have pi = 1/10
    b = (1 + np.sqrt(13)) / 2
    a = 6 / (1 + b + b * b)
    v = 0.9 * a * b ** np.array([0, 1]) / 2
    result = evaluate(linear_dataset(), convention="sdcmicro")
    s = result.summary
    assert s["convention"] == "sdcmicro" and s["linear"] == ["x"]
    np.testing.assert_allclose(result.per_record["model_risk1"][:2], np.exp(-v), rtol=1e-9)
    assert s["tau1"] == pytest.approx(np.exp(-v).sum(), rel=1e-9)
    # the default convention fits every key as a factor; 'linear' chooses explicitly
    assert evaluate(linear_dataset()).summary["linear"] == []
    explicit = evaluate(linear_dataset(), linear=["x"]).summary
    assert explicit["tau1"] == pytest.approx(s["tau1"], rel=1e-12)
    assert evaluate(linear_dataset(), convention="sdcmicro", linear=[]).summary["tau1"] == \
        pytest.approx(evaluate(linear_dataset()).summary["tau1"], rel=1e-12)


def test_sdcmicro_ipf_is_every_key_a_factor():
    ipf = evaluate(linear_dataset(), method="IPF", convention="sdcmicro").summary
    assert ipf["linear"] == [] and ipf["method"] == "IPF"
    assert ipf["tau1"] == pytest.approx(evaluate(linear_dataset()).summary["tau1"], rel=1e-12)


def test_linear_checks():
    meta = Metadata({"a": Variable("a", "key", "categorical"),
                     "b": Variable("b", "key", "categorical")})
    assert list(PLUGIN.check({"linear": ["bb"]}, meta)) == [
        (("linear", 0), "'bb' is not one of the key variables (did you mean 'b'?)")]
    ipf = "method IPF fits the main effects with every key a factor, as sdcMicro's loglm: no "
    assert list(PLUGIN.check({"method": "IPF", "linear": ["a"],
                              "interactions": [["a", "b"]]}, meta)) == [
        (("interactions",), ipf + "interactions"), (("linear",), ipf + "linear")]
    params = registry.with_defaults(PLUGIN.params, {"linear": ["c"]})
    text = ("'c' has values that are not numbers: a linear term needs numbers (leave it out "
            "of 'linear' to fit it as a factor)")
    assert list(PLUGIN.check_data(params, linear_dataset())) == [(("linear",), text)]
