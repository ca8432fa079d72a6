"""camouflage plugin (Gopal, Garfinkel & Goes 2002): each variable replaced by interval
bounds that contain its values; types, missing values, checks, and a recipe end to end
with the camouflage_widths measure."""

import numpy as np
import pandas as pd
import pytest
from helpers import small_dataset

from sdcflow import run
from sdcflow.data.io import builtin_path
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("camouflage")


def apply(data, seed=0, **params):
    return PLUGIN.apply(data, registry.with_defaults(PLUGIN.params, params),
                        np.random.default_rng(seed))


def data():
    return small_dataset(age=("key", "integer", [20, 35, 50, None]),
                         income=("numeric", "continuous", [1000.0, 0, -500, 2500]),
                         region=("key", "categorical", ["a", "b", "a", "b"]))


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {})
    check_method(PLUGIN, testdata, {"variables": ["income"], "scale": "sd", "width": 0.05})


def test_bounds_by_hand_and_the_variable_removed():
    # scale value, width 0.2: each end drawn U(0, 0.2) |x| away from x, a then b from
    # default_rng(4) (kernel: relative_intervals)
    out = apply(data(), seed=4, variables=["income"])
    frame = out.data.frame
    assert "income" not in frame and "income" not in out.data.variables
    assert list(frame.columns) == ["age", "region", "income_lo", "income_hi"]
    x = np.array([1000.0, 0, -500, 2500])
    rng = np.random.default_rng(4)
    a, b = 0.2 * rng.random(4), 0.2 * rng.random(4)
    np.testing.assert_allclose(frame["income_lo"], x - a * np.abs(x), rtol=1e-15)
    np.testing.assert_allclose(frame["income_hi"], x + b * np.abs(x), rtol=1e-15)
    assert (frame["income_lo"] <= x).all() and (x <= frame["income_hi"]).all()
    # the zero keeps a zero-width interval (scale value): published exactly
    assert frame["income_lo"][1] == frame["income_hi"][1] == 0
    details = out.info["variables"]["income"]
    assert details["exact"] == 1
    assert details["mean_width"] == pytest.approx(float(((a + b) * np.abs(x)).mean()))
    assert out.data.variables["income_lo"].role == "numeric"


def test_the_width_does_not_give_the_value_away(testdata):
    # a width of exactly width x |x| would: |x| = (hi - lo) / width. With both ends
    # drawn, (hi - lo) / width spreads over (0, 2) |x| instead
    out = apply(testdata, seed=1, variables=["income"])
    x = testdata.frame["income"].to_numpy(dtype=float)
    lo = out.data.frame["income_lo"].to_numpy(dtype=float)
    hi = out.data.frame["income_hi"].to_numpy(dtype=float)
    ratio = ((hi - lo) / 0.2)[x > 0] / x[x > 0]
    assert ratio.min() < 0.2 and ratio.max() > 1.8
    assert np.mean(np.isclose(ratio, 1.0, rtol=1e-3)) < 0.01


def test_integer_bounds_are_rounded_outwards_and_missing_stays_missing():
    # scale sd: sd(20, 35, 50) = 15, width 0.5 x 15 = 7.5; bounds floor / ceil
    out = apply(data(), seed=1, variables=["age"], scale="sd", width=0.5)
    frame = out.data.frame
    u = np.random.default_rng(1).random(4)[:3]
    x = np.array([20.0, 35, 50])
    assert frame["age_lo"].iloc[:3].tolist() == np.floor(x - u * 7.5).tolist()
    assert frame["age_hi"].iloc[:3].tolist() == np.ceil(x + (1 - u) * 7.5).tolist()
    assert str(frame["age_lo"].dtype) == "Int64" and frame["age_hi"].isna().iloc[3]
    assert out.data.variables["age_hi"].type == "integer"


def test_checks():
    meta = small_dataset(x=("numeric", "continuous", [1.0]),
                         x_lo=("numeric", "continuous", [0.0])).meta
    assert dict(PLUGIN.check({"variables": ["x"]}, meta)) == {
        ("variables", 0): "'x' would be replaced by 'x_lo', which is already a variable"}
    huge = small_dataset(x=("numeric", "continuous", [1e308, 1.0]))
    assert [m for _, m in PLUGIN.check_data({"width": 1.0}, huge)] == [
        "width 1 gives intervals of 'x' beyond the range of 64-bit floats"]


def test_recipe_casc_camouflage_and_queries(write_recipe, tmp_path):
    path = write_recipe("""
        sdcflow: 1
        name: t
        seed: 3
        data: {builtin: casc_census}
        variables:
          FEDTAX: {role: numeric, type: integer}
          AGI: {role: numeric, type: continuous}
          INTVAL: {role: key, type: integer}
        steps:
          - {id: cam, method: camouflage, params: {width: 0.1}}
          - id: widths
            measure: camouflage_widths
            params:
              camouflaged: [FEDTAX, AGI]
              total_known: true
              queries:
                - {variable: AGI, statistic: mean}
                - {variable: FEDTAX, where: {INTVAL: [1, 2, 3, 4, 5]}}
                - {variable: FEDTAX, where: {INTVAL: 0}}
        checks:
          - "widths.variables.AGI.contained == widths.variables.AGI.records"
        release: {path: out.csv}
        """)
    result = run(path, tmp_path / "out", use_cache=False)
    original = pd.read_csv(builtin_path("casc_census"))
    released = result.data
    assert "AGI" not in released and "FEDTAX" not in released
    assert (released["AGI_lo"] <= original["AGI"]).all()
    assert (original["AGI"] <= released["AGI_hi"]).all()
    assert (released["FEDTAX_lo"] <= original["FEDTAX"]).all()
    summary = result.measures["widths"]
    # relative widths spread (both ends drawn), about 0.1 on average for width 0.1
    assert 0.08 < summary["variables"]["AGI"]["mean_relative_width"] < 0.12
    mean_query, tax_query, empty = summary["queries"]
    # no record has INTVAL 0: an empty answer
    assert empty == {"variable": "FEDTAX", "statistic": "sum", "records": 0, "low": None,
                     "high": None, "width": None, "relative_width": None, "exact": None,
                     "contains_exact": None}
    assert mean_query["contains_exact"] and tax_query["contains_exact"]
    # the mean over every record with the total known is the total / n, to the slack
    assert abs(mean_query["exact"] - original["AGI"].mean()) < 1e-6 * abs(mean_query["exact"])
    assert mean_query["width"] < 1e-6 * abs(mean_query["exact"])
    # the tax of the records with interest income 1 to 5: the closed form of the LP over the
    # box with the total (tests/kernels/perturbative/test_camouflage.py), from the released
    # bounds
    s = original["INTVAL"].isin([1, 2, 3, 4, 5]).to_numpy()
    lo, hi = released["FEDTAX_lo"].to_numpy(float), released["FEDTAX_hi"].to_numpy(float)
    total = original["FEDTAX"].sum()
    want = (max(lo[s].sum(), total - hi[~s].sum()), min(hi[s].sum(), total - lo[~s].sum()))
    assert tax_query["records"] == s.sum() and tax_query["exact"] == original["FEDTAX"][s].sum()
    assert abs(tax_query["low"] - want[0]) < 1e-6 * total
    assert abs(tax_query["high"] - want[1]) < 1e-6 * total
    assert tax_query["low"] <= tax_query["exact"] <= tax_query["high"]
