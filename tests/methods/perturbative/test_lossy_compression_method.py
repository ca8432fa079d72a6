"""lossy_compression plugin (seed 000 "Lossy Compression", JPEG-based masking)."""

import numpy as np
import pandas as pd
from helpers import small_dataset

from sdcflow import run
from sdcflow.data import Variable
from sdcflow.data.io import builtin_path
from sdcflow.data.text import TEXT
from sdcflow.kernels.perturbative.lossy_compression import lossy_compress
from sdcflow.methods.perturbative.lossy_compression import sort_order
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("lossy_compression")


def apply(data, **params):
    return PLUGIN.apply(data, registry.with_defaults(PLUGIN.params, params),
                        np.random.default_rng(0))


def data(n=40):
    rng = np.random.default_rng(4)
    return small_dataset(x=("numeric", "continuous", rng.normal(100, 10, n)),
                         y=("numeric", "integer", rng.integers(0, 1000, n)),
                         k=("key", "categorical", rng.choice(["a", "b"], n)))


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {})
    check_method(PLUGIN, testdata, {"variables": ["income", "age"], "quality": 20,
                                    "sort_by": "income"})


def test_plugin_is_the_kernel_and_reports():
    d = data()
    d.frame.loc[3, "x"] = np.nan
    out = apply(d, quality=30)
    X = np.column_stack([d.frame["x"].to_numpy(float, na_value=np.nan),
                         d.frame["y"].to_numpy(float)])
    expected, _ = lossy_compress(X, 30)
    np.testing.assert_array_equal(out.data.frame[["x", "y"]].to_numpy(), expected)
    assert np.isnan(out.data.frame.loc[3, "x"])
    assert out.data.variables["y"].type == "continuous"
    assert out.data.frame["k"].equals(d.frame["k"])
    info = out.info
    assert info["quality"] == 30 and info["sorted_by"] is None
    assert info["blocks"] == 5  # 40 records x 2 variables: 5 x 1 blocks of 8 x 8
    assert info["changed"] == int((~np.isclose(expected, X) & ~np.isnan(X)).sum())
    assert set(info["rmse_0_255"]) == {"x", "y"} and info["rmse_0_255"]["x"] > 0


def test_sort_by_a_key_variable():
    d = data()
    out = apply(d, sort_by="k")
    order = d.frame["k"].sort_values(kind="stable").index.to_numpy()
    X = np.column_stack([d.frame["x"].to_numpy(float), d.frame["y"].to_numpy(float)])
    expected, _ = lossy_compress(X, 75, order=order)
    np.testing.assert_array_equal(out.data.frame[["x", "y"]].to_numpy(), expected)
    assert out.info["sorted_by"] == "k"
    assert PLUGIN.reads({"sort_by": "k"}, d.meta) == {"x", "y", "k"}


def test_sort_order_by_hand():
    # numbers: stable, missing last
    numbers = pd.Series([3.0, np.nan, 1.0, 3.0, 2.0])
    assert sort_order(numbers, Variable("v", "key", "continuous")).tolist() == [2, 4, 0, 3, 1]
    # an ordinal in its declared order, not the alphabet; missing last
    sizes = pd.Series(["small", None, "large", "medium", "small"], dtype=TEXT)
    ordinal = Variable("s", "key", "ordinal", order=("small", "medium", "large"))
    assert sort_order(sizes, ordinal).tolist() == [0, 4, 3, 2, 1]
    categorical = Variable("s", "key", "categorical")
    assert sort_order(sizes, categorical).tolist() == [2, 3, 0, 4, 1]


def test_checks():
    meta = data().meta
    assert list(PLUGIN.check({"sort_by": "nope"}, meta)) == [
        (("sort_by",), "'nope' is not a declared variable")]
    assert list(PLUGIN.check({"variables": ["x", "x"]}, meta)) == [
        (("variables",), "a variable is named twice")]


def test_no_randomness():
    d = data()
    a = PLUGIN.apply(d, {"quality": 50}, np.random.default_rng(1)).data.frame
    b = PLUGIN.apply(d, {"quality": 50}, np.random.default_rng(2)).data.frame
    assert a.equals(b)


def test_recipe_casc_lossy_compression(write_recipe, tmp_path):
    path = write_recipe("""
        sdcflow: 1
        name: t
        seed: 1
        data: {builtin: casc_census}
        variables:
          PTOTVAL: {role: numeric, type: integer}
          PEARNVAL: {role: numeric, type: integer}
          POTHVAL: {role: numeric, type: integer}
          FEDTAX: {role: numeric, type: integer}
          STATETAX: {role: numeric, type: integer}
        steps:
          - {id: jpeg, method: lossy_compression, params: {quality: 75, sort_by: PTOTVAL}}
        release: {path: out.csv}
        """)
    result = run(path, tmp_path / "out", use_cache=False)
    original = pd.read_csv(builtin_path("casc_census"))
    cols = ["PTOTVAL", "PEARNVAL", "POTHVAL", "FEDTAX", "STATETAX"]
    masked = result.data[cols]
    assert (masked.min() >= original[cols].min()).all()
    assert (masked.max() <= original[cols].max()).all()
    info = next(s.info for s in result.steps if s.node == "jpeg")
    assert info["blocks"] == 135 and info["changed"] > 0.9 * 5 * 1080
    # the values keep most of their information: correlation with the original
    for c in cols:
        assert np.corrcoef(masked[c], original[c])[0, 1] > 0.9
