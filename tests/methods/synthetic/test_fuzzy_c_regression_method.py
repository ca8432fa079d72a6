"""fuzzy_c_regression plugin: synthetic data by fuzzy c-regression models (Cano & Torra,
FUZZ-IEEE 2009; Hathaway & Bezdek's FCRM, 1993) from a recipe."""

import numpy as np
import pandas as pd
from helpers import small_dataset

from sdcflow import run
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("fuzzy_c_regression")


def apply(data, seed=0, **params):
    return PLUGIN.apply(data, registry.with_defaults(PLUGIN.params, params),
                        np.random.default_rng(seed))


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {"variables": ["income"], "predictors": ["age"]})
    check_method(PLUGIN, testdata, {"variables": ["income", "expend"],
                                    "predictors": ["age", "sex"], "clusters": 3,
                                    "output": "maximum", "strata": ["urbrur"]})


def test_two_lines_from_the_plugin_and_one_model_by_hand():
    # the two crossing lines of tests/kernels/synthetic/test_fuzzy_c_regression.py:
    # two models give the records back, one model the least squares line
    x = [0, 1, 2, 4, 5, 6] * 2
    y = [1 + 2 * v for v in x[:6]] + [10 - v for v in x[6:]]
    data = small_dataset(x=("key", "integer", x), y=("numeric", "integer", y))
    out = apply(data, predictors=["x"], clusters=2)
    np.testing.assert_allclose(out.data.frame["y"].to_numpy(), y, atol=1e-9)
    assert out.data.variables["y"].type == "continuous"
    assert out.info["synthesised"] == 12
    # one model: OLS of y on x. Means 3 and 84 / 12 = 7; Sxx = 2 * (9+4+1+1+4+9) = 56;
    # Sxy = sum (x - 3)(y - 7) = (18 + 8 + 2 + 2 + 8 + 18) + (-9 - 4 - 1 - 1 - 4 - 9)
    #     = 56 - 28 = 28: slope 0.5, intercept 7 - 1.5 = 5.5
    one = apply(data, predictors=["x"], clusters=1)
    np.testing.assert_allclose(one.data.frame["y"].to_numpy(),
                               [5.5 + 0.5 * v for v in x])


def test_missing_values_are_kept_and_left_out():
    rng = np.random.default_rng(2)
    x = rng.normal(size=30)
    y = 3 * x + rng.normal(size=30)
    y[4] = np.nan
    data = small_dataset(x=("key", "continuous", x), y=("numeric", "continuous", y))
    out = apply(data, predictors=["x"], clusters=2)
    assert np.isnan(out.data.frame["y"].iloc[4])
    assert out.info["unchanged"]["missing_values"] == 1 and out.info["synthesised"] == 29
    again = apply(data, predictors=["x"], clusters=2)
    assert again.data.frame.equals(out.data.frame)  # the step's generator: deterministic


def test_from_a_recipe(write_recipe, tmp_path):
    rng = np.random.default_rng(5)
    age = rng.integers(18, 80, 200)
    income = np.where(age < 40, 1000 + 50 * age, 4000 - 20 * age) + rng.normal(0, 100, 200)
    pd.DataFrame({"age": age, "income": income}).to_csv(tmp_path / "people.csv", index=False)
    result = run(write_recipe("""
        sdcflow: 1
        name: fcr
        seed: 3
        data: {path: people.csv}
        variables:
          age: {role: key, type: integer}
          income: {role: numeric}
        steps:
          - {id: syn, method: fuzzy_c_regression, params: {clusters: 2}}
    """), write=False, use_cache=False)
    released = result.data["income"].to_numpy()
    assert not np.isclose(released, income).any()
    # two local models follow the kinked relation better than one line
    one = np.polyval(np.polyfit(age, income, 1), age)
    assert np.mean((released - income) ** 2) < np.mean((one - income) ** 2)


def test_too_many_clusters_is_refused_by_the_schema():
    from jsonschema import Draft202012Validator

    errors = list(Draft202012Validator(PLUGIN.params).iter_errors({"clusters": 1000}))
    assert [e.validator for e in errors] == ["maximum"]
    assert not list(Draft202012Validator(PLUGIN.params).iter_errors({"clusters": 100}))
