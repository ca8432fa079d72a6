"""ipso plugin (seed 000, "The IPSO family"): exact coefficients (B, C) and residual
covariance (C) per stratum with categorical predictors, missing values, small strata,
types, checks and a recipe end to end."""

import numpy as np
import pandas as pd
import pytest
from helpers import small_dataset
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow import run
from sdcflow.data import Dataset, Variable
from sdcflow.data.text import TEXT
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("ipso")


def apply(data, seed=0, **params):
    return PLUGIN.apply(data, registry.with_defaults(PLUGIN.params, params),
                        np.random.default_rng(seed))


@pytest.mark.parametrize("variant", ["A", "B", "C"])
def test_conformance(testdata, variant):
    check_method(PLUGIN, testdata, {"variant": variant})
    check_method(PLUGIN, testdata, {"variant": variant, "variables": ["income"],
                                    "predictors": ["age", "sex"], "strata": ["urbrur"]})


def survey(n=1500, seed=1) -> Dataset:
    rng = np.random.default_rng(seed)
    region = rng.choice(["north", "south"], n)
    sector = rng.integers(1, 5, n)
    age = rng.integers(20, 65, n)
    wage = 1000 + 30 * age + 200 * sector + 800 * rng.standard_normal(n)
    tax = 0.2 * wage + 50 * rng.standard_normal(n)
    frame = pd.DataFrame({"region": pd.Series(region, dtype=TEXT),
                          "sector": pd.Series(sector.astype(str), dtype=TEXT),
                          "age": pd.Series(age, dtype="Int64"),
                          "wage": wage, "tax": pd.Series(np.round(tax), dtype="Int64")})
    variables = {"region": Variable("region", "strata", "categorical"),
                 "sector": Variable("sector", "key", "categorical"),
                 "age": Variable("age", "key", "integer"),
                 "wage": Variable("wage", "numeric", "continuous"),
                 "tax": Variable("tax", "numeric", "integer")}
    return Dataset(frame, variables)


def design(frame):
    """The test's own design: [1, age, sector dummies (all but '1')]."""
    dummies = pd.get_dummies(frame["sector"], drop_first=True).to_numpy(float)
    return np.column_stack([np.ones(len(frame)), frame["age"].to_numpy(float), dummies])


def fit(frame, names):
    D = design(frame)
    Y = frame[names].to_numpy(float)
    B = np.linalg.lstsq(D, Y, rcond=None)[0]
    R = Y - D @ B
    return B, R.T @ R


def close(a, b, rel=1e-9):
    np.testing.assert_allclose(a, b, rtol=rel, atol=rel * np.abs(b).max())


@pytest.mark.parametrize("variant", ["B", "C"])
def test_exact_per_stratum_with_categorical_predictors(variant):
    data = survey()
    out = apply(data, seed=2, variant=variant)
    assert out.info["variant"] == variant
    assert out.info["predictors"] == ["sector", "age"]  # role key, declaration order
    assert out.info["design_columns"] == 5
    for region in ("north", "south"):
        rows = data.frame["region"] == region
        B0, S0 = fit(data.frame[rows], ["wage", "tax"])
        B1, S1 = fit(out.data.frame[rows], ["wage", "tax"])
        close(B1, B0)
        if variant == "C":
            close(S1, S0)
        else:
            assert not np.allclose(S1, S0, rtol=1e-3)
    # tax was integer: synthetic values are not, the variable becomes continuous
    assert out.data.variables["tax"].type == "continuous"
    assert out.data.frame["tax"].dtype == "float64"
    assert out.info["changed"] == {"wage": 1500, "tax": 1500}
    assert out.info["reproduced"] == 0


def test_a_category_of_one_record_is_reproduced_and_reported(testdata):
    # testdata: one record (row 3824) has relat 8; its dummy fits it exactly (leverage
    # 1), so IPSO-B/C release its original values: info.reproduced says so
    out = apply(testdata, seed=1)
    assert out.info["predictors"] == ["urbrur", "water", "sex", "age", "relat"]
    assert out.info["reproduced"] == 1
    names = ["expend", "income", "savings"]
    close(out.data.frame.loc[3824, names].to_numpy(float),
          testdata.frame.loc[3824, names].to_numpy(float))
    assert out.info["changed"] == {name: 4579 for name in names}
    without = apply(testdata, seed=1, predictors=["urbrur", "water", "sex", "age"])
    assert without.info["reproduced"] == 0


def test_variant_a_is_close_in_distribution_only():
    data = survey(n=6000, seed=3)
    out = apply(data, seed=4, variant="A", strata=[])
    B0, S0 = fit(data.frame, ["wage"])
    B1, S1 = fit(out.data.frame, ["wage"])
    # loose: the age slope within 6 standard errors (sd of the noise over the spread of
    # age), the residual variance within 6 relative standard errors sqrt(2 / n)
    se_age = np.sqrt(S0[0, 0] / 6000) / (data.frame["age"].std() * np.sqrt(6000))
    assert abs(B1[1, 0] - B0[1, 0]) < 6 * se_age
    assert abs(S1[0, 0] / S0[0, 0] - 1) < 6 * np.sqrt(2 / 6000)
    assert B1[1, 0] != pytest.approx(B0[1, 0], rel=1e-9)


def test_missing_values_are_left_unchanged_and_out_of_the_fit():
    data = survey(n=400)
    frame = data.frame.copy()
    frame.loc[[0, 5], "wage"] = np.nan
    frame.loc[[7], "age"] = pd.NA
    frame.loc[[9], "sector"] = np.nan
    holed = Dataset(frame, data.variables)
    out = apply(holed, seed=5, strata=[])
    res = out.data.frame
    assert res["wage"].isna().tolist() == frame["wage"].isna().tolist()
    for r in (0, 5, 7, 9):
        assert res.loc[r, "tax"] == frame.loc[r, "tax"]
    assert res.loc[7, "wage"] == frame.loc[7, "wage"]
    assert out.info["unchanged"] == {"missing_values": 4, "small_strata": 0}
    keep = ~frame.index.isin([0, 5, 7, 9])
    close(fit(res[keep], ["wage", "tax"])[0], fit(frame[keep], ["wage", "tax"])[0])


def test_small_strata_are_left_unchanged_and_reported():
    data = small_dataset(
        g=("strata", "categorical", ["a"] * 8 + ["b"] * 3),
        x=("key", "continuous", [1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3]),
        y=("numeric", "continuous", [2, 4, 5, 4, 5, 7, 8, 9, 10, 11, 12]),
        z=("numeric", "continuous", [1, 0, 1, 0, 2, 1, 0, 1, 5, 6, 8]))
    out = apply(data, seed=1)  # C: stratum b has 3 records, rank 2: 1 < 2 variables
    assert out.data.frame["y"].tolist()[8:] == [10.0, 11.0, 12.0]
    assert out.info["small_strata"] == [{
        "stratum": "b", "records": 3,
        "reason": "3 records and 2 parameters leave 1 residual degrees of freedom; "
                  "IPSO-C needs 2, one per variable"}]
    assert out.info["synthesised"] == 8
    b = apply(data, seed=1, variant="B")  # B only needs n > rank
    assert b.info["synthesised"] == 11 and "small_strata" not in b.info


def test_checks():
    data = survey(n=50)
    params = registry.with_defaults(PLUGIN.params, {"strata": ["wage", "nope"]})
    assert list(PLUGIN.check(params, data.meta)) == [
        (("strata", 0), "'wage' cannot both be replaced and define strata"),
        (("strata", 1), "'nope' is not a declared variable")]
    assert PLUGIN.reads(registry.with_defaults(PLUGIN.params, {}), data.meta) == {
        "wage", "tax", "sector", "age", "region"}
    assert PLUGIN.writes(registry.with_defaults(PLUGIN.params, {}), data.meta) == {
        "wage", "tax"}


def test_recipe_end_to_end(write_recipe, tmp_path, testdata):
    path = write_recipe("""
        sdcflow: 1
        name: ipso
        seed: 3
        data: {builtin: testdata}
        variables:
          urbrur: {role: key}
          sex: {role: key}
          age: {role: key, type: integer}
          expend: {role: numeric, type: continuous}
          income: {role: numeric, type: continuous}
          savings: {role: numeric, type: continuous}
        steps:
          - id: synth
            method: ipso
            params: {predictors: [urbrur, sex, age]}
        release: {path: out.csv}
        """)
    result = run(path, tmp_path / "out", use_cache=False)
    info = next(s.info for s in result.steps if s.node == "synth")
    assert info["variant"] == "C" and info["synthesised"] == 4580
    assert info["design_columns"] == 4
    names = ["expend", "income", "savings"]
    before = testdata.frame[names].to_numpy(float)
    after = result.data[names].to_numpy(float)
    # IPSO-C with an intercept keeps the means and the covariance matrix exactly, also
    # the covariances with the predictors
    close(after.mean(axis=0), before.mean(axis=0))
    close(np.cov(after.T), np.cov(before.T))
    age = testdata.frame["age"].to_numpy(float)
    close(np.cov(np.column_stack([age, after]).T)[0],
          np.cov(np.column_stack([age, before]).T)[0])
    assert np.all(after != before)


cell = st.one_of(st.none(), st.floats(-1e4, 1e4, allow_nan=False))
level = st.one_of(st.none(), st.sampled_from(["a", "b", "c"]))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(cell, cell, cell, level, st.sampled_from(["s", "t"])),
                min_size=1, max_size=30),
       st.sampled_from(["ipso", "shuffling", "multiple_imputation"]),
       st.integers(0, 2**32 - 1))
def test_regression_methods_never_crash_and_touch_only_complete_records(rows, name, seed):
    # the adapter shared by ipso, shuffling and multiple_imputation: whatever the missing
    # values and stratum sizes, incomplete records keep every value, and the info is
    # consistent with what happened
    y1, y2, x, k, s = zip(*rows)
    data = small_dataset(y1=("numeric", "continuous", [np.nan if v is None else v for v in y1]),
                         y2=("numeric", "integer", [None if v is None else round(v) for v in y2]),
                         x=("key", "continuous", [np.nan if v is None else v for v in x]),
                         k=("key", "categorical", list(k)),
                         s=("strata", "categorical", list(s)))
    plugin = registry.get(name)
    out = plugin.apply(data, registry.with_defaults(plugin.params, {}),
                       np.random.default_rng(seed))
    before, after = data.frame, out.data.frame
    incomplete = before[["y1", "y2", "x", "k"]].isna().any(axis=1).to_numpy()
    for col in ("y1", "y2"):
        a = after[col].to_numpy(dtype=float, na_value=np.nan)
        b = before[col].to_numpy(dtype=float, na_value=np.nan)
        assert np.array_equal(a[incomplete], b[incomplete], equal_nan=True)
        assert np.all(np.isfinite(a[~incomplete]))
    info = out.info
    assert info["unchanged"]["missing_values"] == int(incomplete.sum())
    assert info["synthesised"] + sum(info["unchanged"].values()) == len(before)


@pytest.mark.parametrize("name", ["ipso", "shuffling", "multiple_imputation"])
def test_regression_methods_on_no_records(name):
    data = small_dataset(y=("numeric", "continuous", []), x=("key", "continuous", []))
    plugin = registry.get(name)
    out = plugin.apply(data, registry.with_defaults(plugin.params, {}),
                       np.random.default_rng(0))
    assert len(out.data.frame) == 0
    assert out.info["synthesised"] == 0 and "small_strata" not in out.info
