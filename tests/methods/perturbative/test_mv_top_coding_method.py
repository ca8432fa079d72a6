"""mv_top_coding plugin: sdcMicro's mvTopCoding (R/mvTopCoding.R) from a recipe."""

import math

import numpy as np
import pytest
from helpers import small_dataset

from sdcflow.errors import PluginError
from sdcflow.kernels.perturbative.mv_top_coding import mv_top_code
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("mv_top_coding")


def apply(data, seed=0, **params):
    return PLUGIN.apply(data, registry.with_defaults(PLUGIN.params, params),
                        np.random.default_rng(seed))


def corners():
    # the two-variable case worked by hand in tests/kernels/perturbative/test_mv_top_coding.py
    xy = [(1, 1), (1, -1), (-1, 1), (-1, -1)] * 4 + [(10, 10), (-10, -10)]
    return small_dataset(x=("numeric", "integer", [a for a, _ in xy]),
                         y=("numeric", "continuous", [float(b) for _, b in xy]),
                         k=("key", "categorical", ["a", "b"] * 9))


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {"variables": ["expend", "income", "savings"]})
    check_method(PLUGIN, testdata, {"variables": ["expend", "income"], "alpha": 0.01,
                                    "estimator": "classical"})


def test_classical_by_hand_from_the_plugin():
    out = apply(corners(), estimator="classical")
    # sqrt(qchisq(0.975, 2) * 416 / 3400) (10, 10), qchisq(0.975, 2) = -2 log(0.025)
    factor = math.sqrt(-2 * math.log(0.025) * 416 / 3400)
    frame = out.data.frame
    assert frame.loc[16, "x"] == pytest.approx(10 * factor)
    assert frame.loc[17, "y"] == pytest.approx(-10 * factor)
    assert out.data.variables["x"].type == "continuous"  # 9.501: no longer whole
    assert frame["k"].equals(corners().frame["k"])
    assert out.info == {"alpha": 0.025, "estimator": "classical",
                        "limit": pytest.approx(-2 * math.log(0.025)), "coded": 2,
                        "incomplete_records": 0}


def test_plugin_is_the_kernel_with_the_step_generator():
    rng = np.random.default_rng(7)
    x = rng.multivariate_normal([0, 0, 0], np.eye(3) + 0.5, 60)
    x[:3] *= 6
    data = small_dataset(a=("numeric", "continuous", x[:, 0]),
                         b=("numeric", "continuous", x[:, 1]),
                         c=("numeric", "continuous", x[:, 2]))
    out = apply(data, seed=3)
    expected = mv_top_code(x, 0.025, "mcd", np.random.default_rng(3))
    np.testing.assert_array_equal(out.data.frame[["a", "b", "c"]].to_numpy(), expected.values)
    assert out.info["coded"] == int(expected.coded.sum()) >= 3
    # determinism: the same generator, the same release
    again = apply(data, seed=3)
    assert again.data.frame.equals(out.data.frame)


def test_collinear_variables_are_a_clear_error():
    data = small_dataset(a=("numeric", "continuous", np.arange(10.0)),
                         b=("numeric", "continuous", 2 * np.arange(10.0)))
    with pytest.raises(PluginError, match="Mahalanobis"):
        apply(data, estimator="classical")
    few = small_dataset(a=("numeric", "continuous", [1.0, 2.0, np.nan]),
                        b=("numeric", "continuous", [1.0, 3.0, 2.0]))
    problems = list(PLUGIN.check_data(registry.with_defaults(PLUGIN.params, {}), few))
    assert problems and "more than 3 records without a missing value (2)" in problems[0][1]
