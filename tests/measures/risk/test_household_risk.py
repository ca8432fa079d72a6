"""household_risk measure (sdcMicro's hierarchical risk, measure_risk with hid)."""

import numpy as np
import pytest
from helpers import small_dataset

from sdcflow import run
from sdcflow.data import Metadata, Variable
from sdcflow.errors import RecipeError
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("household_risk")


def evaluate(data, **params):
    params = registry.with_defaults(PLUGIN.params, params)
    return PLUGIN.evaluate(data, params, np.random.default_rng(0), original=data)


def households(hid, weights=None):
    columns = {"a": ("key", "categorical", ["x", "x", "y", "y", "y", "z", "z"]),
               "hid": ("household", "categorical", hid)}
    if weights is not None:
        columns["w"] = ("weight", "continuous", weights)
    return small_dataset(**columns)


def test_unweighted_by_hand():
    # keys x, x, y, y, y, z, z: fk 2, 2, 3, 3, 3, 2, 2; risk 1/fk (no weights):
    #   1/2, 1/2, 1/3, 1/3, 1/3, 1/2, 1/2
    # household h1 = records 0, 2: 1 - (1/2)(2/3) = 2/3
    # household h2 = records 1, 3, 4: 1 - (1/2)(2/3)(2/3) = 1 - 2/9 = 7/9
    # records 5 and 6 have a missing household id: each a household of its own, 1/2
    # expected re-identifications: 2 * 2/3 + 3 * 7/9 + 2 * 1/2 = 4/3 + 7/3 + 1 = 14/3;
    # percent: 100 * (14/3) / 7 = 66.667; 4 households; 3 records above 0.7 (7/9)
    data = households(["h1", "h2", "h1", "h2", "h2", None, None])
    result = evaluate(data, threshold=0.7)
    np.testing.assert_allclose(result.per_record["household_risk"],
                               [2 / 3, 7 / 9, 2 / 3, 7 / 9, 7 / 9, 1 / 2, 1 / 2], rtol=1e-14)
    s = result.summary
    assert s["expected_reidentifications"] == pytest.approx(14 / 3, rel=1e-14)
    assert s["percent"] == pytest.approx(100 * 14 / 3 / 7, rel=1e-14)
    assert s["risk"] == pytest.approx(14 / 3 / 7, rel=1e-14)
    assert s["households"] == 4
    assert s["max"] == pytest.approx(7 / 9, rel=1e-14)
    assert s["household"] == "hid"
    assert s["above_threshold"] == 3


def test_weighted_with_qual():
    # weights 100 throughout: x has fk 2, Fk 200, p = 0.01, fk = 2 formula:
    #   r = p/(1-p) - (p/(1-p))^2 log(1/p) = 0.01010101 - 0.00010203 * 4.60517 = 0.00963115
    # y: fk 3, Fk 300, p = 0.01, approx: r = 0.01 / (3 - 0.99) = 0.00497512
    # z: fk 2, like x; qual 2 doubles each risk
    # household of records 0..6 together: 1 - prod(1 - 2 r_i)
    data = households(["h"] * 7, [100.0] * 7)
    odds = 0.01 / 0.99
    rx = 2 * (odds - odds ** 2 * np.log(100))
    ry = 2 * (0.01 / 2.01)
    expected = 1 - (1 - rx) ** 4 * (1 - ry) ** 3
    result = evaluate(data, qual=2)
    np.testing.assert_allclose(result.per_record["household_risk"], [expected] * 7, rtol=1e-13)
    assert result.summary["expected_reidentifications"] == pytest.approx(7 * expected, rel=1e-13)
    assert result.summary["households"] == 1


def test_a_household_variable_is_required():
    meta = Metadata({"a": Variable("a", "key", "categorical")})
    found = list(PLUGIN.check(registry.with_defaults(PLUGIN.params, {}), meta))
    assert found == [((), ("no household variable: declare the household id with role "
                          "'household' (e.g. ori_hid: {role: household})"))]


def test_one_household_variable_only():
    meta = Metadata({"a": Variable("a", "key", "categorical"),
                     "h1": Variable("h1", "household", "categorical"),
                     "h2": Variable("h2", "household", "integer")})
    found = list(PLUGIN.check(registry.with_defaults(PLUGIN.params, {}), meta))
    assert found == [((), ("several variables have role household (h1, h2); household_risk "
                          "needs one household id"))]


def test_reads_weight_and_household():
    meta = households(["h"] * 7, [1.0] * 7).meta
    assert PLUGIN.reads(registry.with_defaults(PLUGIN.params, {}), meta) == {"a", "hid", "w"}


def test_recipe_without_household_is_refused(write_recipe, tmp_path):
    path = write_recipe("""
        sdcflow: 1
        name: no-households
        seed: 1
        data: {builtin: testdata}
        variables:
          sex: {role: key}
        steps:
          - {id: hh, measure: household_risk}
        """)
    with pytest.raises(RecipeError, match="no household variable"):
        run(path, tmp_path / "out", use_cache=False)


def test_conformance():
    check_method(PLUGIN, households(["h1", "h2", "h1", None, "h2", "h3", "h3"],
                                    [10.0, 20, 30, 40, 50, 60, 70]), {"method": "exact"})
