"""shuffling plugin (seed 004, "Shuffling"): exact marginals, rank correlations with the
predictors, strata, missing values, checks and a recipe end to end."""

import numpy as np
import pandas as pd
from helpers import small_dataset
from scipy.stats import spearmanr

from sdcflow import run
from sdcflow.data import Dataset, Metadata, Variable
from sdcflow.data.text import TEXT
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("shuffling")


def apply(data, seed=0, **params):
    return PLUGIN.apply(data, registry.with_defaults(PLUGIN.params, params),
                        np.random.default_rng(seed))


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {})
    check_method(PLUGIN, testdata, {"variables": ["savings", "expend"],
                                    "predictors": ["urbrur", "water"], "strata": ["sex"],
                                    "normal_scores": False})


def survey(n=4000, seed=3) -> Dataset:
    """region (4 categories) and age drive income (log-normal) and savings (skewed)."""
    rng = np.random.default_rng(seed)
    region = rng.integers(0, 4, n)
    age = rng.integers(18, 80, n)
    z = 0.02 * age + 0.3 * region + 0.5 * rng.standard_normal(n)
    income = np.round(np.exp(8 + z))
    savings = np.round(0.1 * income * rng.gamma(2.0, 1.0, n))
    frame = pd.DataFrame({"region": pd.Series(region.astype(str), dtype=TEXT),
                          "age": pd.Series(age, dtype="Int64"),
                          "income": income, "savings": pd.Series(savings, dtype="Int64")})
    variables = {"region": Variable("region", "key", "categorical"),
                 "age": Variable("age", "key", "integer"),
                 "income": Variable("income", "numeric", "continuous"),
                 "savings": Variable("savings", "numeric", "integer")}
    return Dataset(frame, variables)


def test_marginals_are_kept_exactly_and_integers_stay_integers():
    data = survey()
    out = apply(data, seed=1)
    frame = out.data.frame
    for name in ("income", "savings"):
        assert sorted(frame[name]) == sorted(data.frame[name])
    assert frame["savings"].dtype == "Int64"
    assert out.data.variables["savings"].type == "integer"
    assert out.info["predictors"] == ["region", "age"]
    assert out.info["design_columns"] == 5  # intercept, 3 region dummies, age
    assert out.info["synthesised"] == 4000 and out.info["changed"]["income"] > 3900


def test_rank_correlations_with_the_predictors_are_approximately_kept():
    data = survey(n=20_000, seed=4)
    out = apply(data, seed=2).data.frame
    n = len(out)
    for a, b in (("income", "age"), ("savings", "age"), ("income", "savings")):
        rho = spearmanr(data.frame[a], data.frame[b]).statistic
        rho_out = spearmanr(out[a].astype(float), out[b].astype(float)).statistic
        # Spearman standard error about sqrt(1.06) (1 - rho^2) / sqrt(n); the difference
        # of two estimates at most twice that; 6 sigma
        assert abs(rho_out - rho) < 6 * 2 * np.sqrt(1.06) * (1 - rho ** 2) / np.sqrt(n)
    # the categorical predictor: mean rank of income by region kept within 5%
    ranks = data.frame["income"].rank() / n
    ranks_out = out["income"].rank() / n
    by_region = ranks.groupby(data.frame["region"]).mean()
    by_region_out = ranks_out.groupby(out["region"]).mean()
    np.testing.assert_allclose(by_region_out, by_region, rtol=0.05)


def test_strata_shuffle_within_each_stratum():
    data = survey(n=1000)
    out = apply(data, seed=5, predictors=["age"], strata=["region"]).data.frame
    for rows in data.frame.groupby("region").groups.values():
        assert sorted(out.loc[rows, "income"]) == sorted(data.frame.loc[rows, "income"])


def test_missing_values_are_left_unchanged():
    data = survey(n=300)
    frame = data.frame.copy()
    frame.loc[[3, 10], "income"] = np.nan
    frame.loc[[20], "age"] = pd.NA
    frame.loc[[30], "region"] = np.nan
    holed = Dataset(frame, data.variables)
    out = apply(holed, seed=6)
    res = out.data.frame
    for r in (3, 10, 20, 30):  # all variables of these records kept as they were
        assert res.loc[r, "savings"] == frame.loc[r, "savings"]
        assert res.loc[r, "income"] == frame.loc[r, "income"] or np.isnan(frame.loc[r, "income"])
    assert res["income"].isna().sum() == 2
    assert out.info["unchanged"] == {"missing_values": 4, "small_strata": 0}
    complete = ~frame.index.isin([3, 10, 20, 30])
    assert sorted(res.loc[complete, "income"]) == sorted(frame.loc[complete, "income"])


def test_small_stratum_is_left_unchanged_and_reported():
    data = small_dataset(
        g=("strata", "categorical", ["a"] * 6 + ["b"] * 2),
        x=("key", "continuous", [1, 2, 3, 4, 5, 6, 7, 8]),
        y=("numeric", "continuous", [5, 3, 8, 1, 9, 2, 7, 4]))
    out = apply(data, seed=1)
    # stratum b: 2 records and 2 parameters (intercept, x): no residual to draw from
    assert out.data.frame["y"].tolist()[6:] == [7.0, 4.0]
    assert out.info["unchanged"]["small_strata"] == 2
    assert out.info["small_strata"][0]["stratum"] == "b"
    assert sorted(out.data.frame["y"].tolist()[:6]) == [1, 2, 3, 5, 8, 9]


def test_checks(testdata):
    params = registry.with_defaults(PLUGIN.params, {
        "variables": ["income"], "predictors": ["nope", "income", "ori_hid"]})
    meta = Metadata({**testdata.variables,
                     "ori_hid": Variable("ori_hid", "identifier", "categorical")})
    assert list(PLUGIN.check(params, meta)) == [
        (("predictors", 0), "'nope' is not a declared variable"),
        (("predictors", 1), "'income' is both replaced and a predictor"),
        (("predictors", 2),
         "'ori_hid' is an identifier: one dummy per record cannot be a predictor")]
    empty = small_dataset(k=("key", "categorical", ["a"]))
    (finding,) = PLUGIN.check(registry.with_defaults(PLUGIN.params, {}), empty.meta)
    assert finding[0] == ("variables",)
    many = small_dataset(k=("key", "categorical", [str(i) for i in range(300)]),
                         y=("numeric", "continuous", list(range(300))))
    (finding,) = PLUGIN.check_data(registry.with_defaults(PLUGIN.params, {}), many)
    assert finding[0] == ("predictors",) and "300 design columns" in finding[1]


def test_recipe_end_to_end(write_recipe, tmp_path, testdata):
    # the seed's example: shuffle(sdc, form = savings + expend ~ urbrur + walls + water)
    path = write_recipe("""
        sdcflow: 1
        name: shuffle
        seed: 5
        data: {builtin: testdata}
        variables:
          urbrur: {role: key}
          walls: {role: key}
          water: {role: key}
          expend: {role: numeric, type: continuous}
          income: {role: numeric, type: continuous}
          savings: {role: numeric, type: continuous}
        steps:
          - id: shuffle
            method: shuffling
            params: {variables: [savings, expend], predictors: [urbrur, walls, water]}
        release: {path: out.csv}
        """)
    result = run(path, tmp_path / "out", use_cache=False)
    info = next(s.info for s in result.steps if s.node == "shuffle")
    assert info["synthesised"] == 4580 and info["unchanged"]["missing_values"] == 0
    # urbrur 2 categories, walls 3, water 8: 1 + 1 + 2 + 7 design columns
    assert info["design_columns"] == 11
    for name in ("savings", "expend"):
        assert sorted(result.data[name]) == sorted(testdata.frame[name])
        assert info["changed"][name] > 4500
    assert result.data["income"].equals(testdata.frame["income"])
