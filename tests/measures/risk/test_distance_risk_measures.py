"""d_risk and d_risk_rmd measures (sdcMicro's dRisk, dRiskRMD)."""

import numpy as np
from helpers import small_dataset

from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

D_RISK = registry.get("d_risk")
D_RISK_RMD = registry.get("d_risk_rmd")


def evaluate(plugin, data, original, **params):
    params = registry.with_defaults(plugin.params, params)
    return plugin.evaluate(data, params, np.random.default_rng(0), original=original)


def test_d_risk_by_hand():
    # as tests/kernels/risk/test_distance_risk.py: only record 0 keeps both original
    # values within 0.05 masked standard deviations
    original = small_dataset(a=("numeric", "continuous", [0.5, 10.7, 20, 29.3]),
                             b=("numeric", "continuous", [1.06, 2, 3.07, 4]))
    masked = small_dataset(a=("numeric", "continuous", [0, 10, 20, 30]),
                           b=("numeric", "continuous", [1, 2, 3, 4]))
    result = evaluate(D_RISK, masked, original)
    assert result.summary == {"k": 0.05, "reference": "original", "variables": ["a", "b"],
                              "risk": 0.25, "percent": 25.0, "at_risk": 1, "records": 4}
    assert result.per_record["at_risk"].tolist() == [True, False, False, False]
    assert evaluate(D_RISK, masked, original, variables=["a"]).summary["at_risk"] == 2


def test_d_risk_rmd_unmasked_data():
    # unmasked: every record with a non-zero distance is close
    x = [-2.0, 2, 0, 0, 0, -1, 1, -1, 1]
    y = [0.0, 0, -2, 2, 0, -1, 1, 1, -1]
    data = small_dataset(a=("numeric", "continuous", x), b=("numeric", "continuous", y))
    result = evaluate(D_RISK_RMD, data, data)
    assert result.summary["close"] == 8 and result.summary["isolated"] == 8
    assert result.summary["covariance"] == "mcd"
    assert result.per_record["close"].tolist() == [True] * 4 + [False] + [True] * 4


def test_checks():
    data = small_dataset(a=("numeric", "continuous", [1.0, 1.0, 1.0, 1.0]),
                         b=("numeric", "continuous", [1.0, 2.0, 3.0, 5.0]))
    params = registry.with_defaults(D_RISK_RMD.params, {})
    assert list(D_RISK_RMD.check_data(params, data)) == [
        (("variables",), "'a' has a single value: it cannot be standardised")]
    params = registry.with_defaults(D_RISK_RMD.params, {"variables": ["b"]})
    short = small_dataset(b=("numeric", "continuous", [1.0, 2.0]))
    assert list(D_RISK_RMD.check_data(params, short)) == [
        (("variables",), ("2 complete records for 1 variables: the robust covariance needs "
                          "more than variables + 1"))]
    empty = small_dataset(c=("key", "categorical", ["x"]))
    assert list(D_RISK.check({}, empty.meta)) == [
        (("variables",), "no variables: name them or declare numeric variables")]


def test_conformance(testdata):
    check_method(D_RISK, testdata, {"variables": ["income", "savings"]})
    check_method(D_RISK_RMD, testdata, {"variables": ["income", "savings", "expend"]})
