"""microaggregation_gower method (sdcMicro's microaggrGower: Gower distance, each record
replaced by the aggregate of itself and its k - 1 nearest records)."""

import numpy as np
import pandas as pd
from helpers import small_dataset

from sdcflow import run
from sdcflow.data.io import builtin_path
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("microaggregation_gower")


def apply(data, seed=0, **params):
    return PLUGIN.apply(data, registry.with_defaults(PLUGIN.params, params),
                        np.random.default_rng(seed))


def hand():
    # the kernel test's records: x = 0, 1, 2, 10 with categories a, a, b, a
    return small_dataset(x=("numeric", "continuous", [0.0, 1, 2, 10]),
                         c=("key", "categorical", ["a", "a", "b", "a"]))


def test_hand_example():
    # Gower by hand (range of x 10; category mismatch 1; mean of the two): d(0,1) = 0.05,
    # d(0,3) = 0.5, d(0,2) = 0.6, d(1,3) = 0.45, d(1,2) = 0.55, d(2,3) = 0.9, so the
    # neighbourhoods (k = 3) are {0,1,3}, {1,0,3}, {2,1,0}, {3,1,0}: means 11/3, 11/3, 1,
    # 11/3
    out = apply(hand(), k=3)
    np.testing.assert_allclose(out.data.frame["x"], [11 / 3, 11 / 3, 1, 11 / 3])
    # categories drawn from the neighbourhood: records 0, 1, 3 have only a's around them
    assert (out.data.frame["c"][[0, 1, 3]] == "a").all()
    assert set(out.data.frame["c"]) <= {"a", "b"}
    median = apply(hand(), k=3, aggregation="median")
    np.testing.assert_allclose(median.data.frame["x"], [1, 1, 1, 1])


def test_categorical_draws_follow_frequencies():
    # record 2's neighbourhood {2, 1, 0} holds b, a, a: over 600 seeds "b" about 1/3
    # (sd sqrt(2/9 / 600) = 0.019; within 4 sd)
    got = [apply(hand(), seed=s, k=3, variables=["c"], distance_variables=["x", "c"]
                 ).data.frame["c"][2] for s in range(600)]
    assert abs(np.mean(np.array(got) == "b") - 1 / 3) < 4 * 0.019


def test_checks():
    meta = hand().meta
    params = registry.with_defaults(PLUGIN.params, {"weights": [1, 2, 3]})
    assert any("3 weights for 2" in m for _, m in PLUGIN.check(params, meta))
    params = registry.with_defaults(PLUGIN.params, {"weights": [0, 0]})
    assert any("all 0" in m for _, m in PLUGIN.check(params, meta))
    data = small_dataset(x=("numeric", "continuous", [0.0, np.nan, 2]))
    params = registry.with_defaults(PLUGIN.params, {})
    assert any("missing" in m for _, m in PLUGIN.check_data(params, data))


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {"k": 3, "variables": ["income", "sex", "water"],
                                    "strata": ["urbrur"]})


RECIPE = """
sdcflow: 1
name: gower
seed: 3
data: {builtin: testdata}
variables:
  urbrur: {role: strata, type: categorical}
  sex: {role: key, type: categorical}
  water: {role: key, type: categorical}
  age: {role: key, type: integer}
  income: {role: numeric}
steps:
  - {id: micro, method: microaggregation_gower, params: {k: 3}}
"""


def test_recipe_mixed_data(write_recipe, tmp_path):
    result = run(write_recipe(RECIPE), tmp_path / "out", use_cache=False)
    out = result.data
    original = pd.read_csv(builtin_path("testdata"))
    assert len(out) == len(original) == 4580
    # a mean of 3 records of the same stratum lies within the stratum's range
    for u in (1, 2):
        o, p = original[original.urbrur == u], out[original.urbrur == u]
        assert p["income"].between(o["income"].min(), o["income"].max()).all()
        assert p["age"].between(o["age"].min(), o["age"].max()).all()
    # categories are drawn from the data's own, and most records change income
    assert set(out["sex"].astype(str)) <= set(original["sex"].astype(str))
    assert (out["income"].to_numpy() != original["income"].to_numpy()).mean() > 0.5
