"""microaggregation with missing values: sdcMicro's convention (MDAV's distance rule,
group means of the observed values, missing values stay missing)."""

import numpy as np
import pandas as pd
from helpers import small_dataset

from sdcflow.plugins import registry

PLUGIN = registry.get("microaggregation")


def apply(data, **params):
    return PLUGIN.apply(data, registry.with_defaults(PLUGIN.params, params),
                        np.random.default_rng(0))


def data():
    # the kernel test's records (tests/kernels/.../test_mdav_missing.py), standardize
    # none so that the hand computation holds: groups {3, 4, 5} and {0, 1, 2}
    return small_dataset(x=("numeric", "continuous", [0.0, 0, 1, 10, 10, np.nan]),
                         y=("numeric", "continuous", [0.0, 1, 0, 10, 11, 10.5]),
                         c=("numeric", "categorical", ["a", None, "b", "b", "b", "a"]))


def test_mdav_with_missing_values():
    out = apply(data(), k=3, standardize="none", variables=["x", "y", "c"])
    f = out.data.frame
    # x: group {0,1,2} -> 1/3; group {3,4,5} -> mean of the observed 10, 10; record 5
    # keeps its missing x
    np.testing.assert_allclose(f["x"][:5], [1 / 3] * 3 + [10, 10])
    assert pd.isna(f["x"][5])
    np.testing.assert_allclose(f["y"], [1 / 3] * 3 + [10.5] * 3)
    # categories: plurality of the observed (group {0,1,2}: a, b -> a, the first); the
    # missing category of record 1 stays missing
    assert f["c"][0] == "a" and pd.isna(f["c"][1]) and f["c"][2] == "a"
    assert (f["c"][3:] == "b").all()
    # x of group {3,4,5} and c of group {0,1,2} rest on 2 < k observed values: reported
    assert out.info["groups_with_fewer_than_k_observed"] == {"x": 1, "c": 1}


def test_individual_ranking_groups_the_observed_values():
    d = small_dataset(x=("numeric", "continuous",
                         [5.0, np.nan, 1, 2, 3, 4, 6, np.nan, 7]))
    f = apply(d, k=3, algorithm="individual_ranking").data.frame
    # observed 1..7 ranked: {1,2,3} -> 2, {4,5,6,7} -> 5.5; missing stay missing
    assert f["x"].isna().tolist() == [False, True] + [False] * 5 + [True, False]
    np.testing.assert_allclose(f["x"].dropna(), [5.5, 2, 2, 2, 5.5, 5.5, 5.5])


def test_other_algorithms_refuse_missing_values():
    params = registry.with_defaults(PLUGIN.params, {"algorithm": "projected",
                                                    "variables": ["x", "y"]})
    found = [m for _, m in PLUGIN.check_data(params, data())]
    assert any("projected needs complete values" in m for m in found)
    d = small_dataset(x=("numeric", "continuous", [np.nan] * 4),
                      y=("numeric", "continuous", [1.0, 2, 3, 4]))
    params = registry.with_defaults(PLUGIN.params, {})
    assert any("'x' has no observed value" in m for _, m in PLUGIN.check_data(params, d))


def test_integer_variable_keeps_missing(testdata):
    frame = testdata.frame.copy()
    frame.loc[[0, 5, 9], "income"] = np.nan
    d = testdata.with_columns({"income": frame["income"]}, [testdata.variables["income"]])
    f = apply(d, k=3, variables=["income", "savings"]).data.frame
    assert f["income"].isna().sum() == 3 and f["income"][[0, 5, 9]].isna().all()
    assert f["savings"].notna().all()
