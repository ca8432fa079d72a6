"""resampling plugin (seed 000, "Resampling"): rank order, strata, missing values, types,
checks and a recipe end to end."""

import numpy as np
import pandas as pd
from helpers import ROOT, small_dataset

from sdcflow import run
from sdcflow.data import Variable, read_data
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("resampling")


def apply(data, seed=0, **params):
    return PLUGIN.apply(data, registry.with_defaults(PLUGIN.params, params),
                        np.random.default_rng(seed))


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {})
    check_method(PLUGIN, testdata, {"variables": ["income"], "t": 2, "strata": ["urbrur"]})


def test_plugin_matches_the_hand_computed_kernel_example():
    # tests/kernels/test_resampling.py: x = [10, 40, 20, 30], t = 2, default_rng(7)
    data = small_dataset(x=("numeric", "continuous", [10, 40, 20, 30]))
    out = apply(data, seed=7, t=2)
    assert out.data.frame["x"].tolist() == [15.0, 30.0, 20.0, 30.0]
    assert out.info == {"t": 2, "strata": 1, "changed": {"x": 2}, "missing_kept": {"x": 0}}


def test_rank_order_is_kept_and_each_variable_on_its_own(testdata):
    out = apply(testdata, seed=3).data.frame
    for name in ("expend", "income", "savings"):
        x = testdata.frame[name].to_numpy(float)
        y = out[name].to_numpy(float)
        order = np.lexsort((np.arange(len(x)), x))
        assert np.all(np.diff(y[order]) >= 0)
        # not a copy: most values change
        assert np.mean(x != y) > 0.9


def test_strata_resample_within_each_stratum(testdata):
    out = apply(testdata, seed=1, variables=["income"], strata=["urbrur"])
    frame = out.data.frame
    for code in ("1", "2"):
        mask = testdata.frame["urbrur"] == code
        x = testdata.frame.loc[mask, "income"].to_numpy(float)
        y = frame.loc[mask, "income"].to_numpy(float)
        # every value is an average of the stratum's own values
        assert x.min() <= y.min() and y.max() <= x.max()
        order = np.argsort(x, kind="stable")
        assert np.all(np.diff(y[order]) >= 0)
    assert out.info["strata"] == 2


def test_missing_values_stay_missing_and_are_left_out():
    data = small_dataset(x=("numeric", "continuous", [1.0, np.nan, 3.0, 2.0, np.nan, 5.0]))
    out = apply(data, seed=4, t=3)
    y = out.data.frame["x"]
    assert y.isna().tolist() == [False, True, False, False, True, False]
    present = y.dropna().to_numpy()
    assert present.min() >= 1.0 and present.max() <= 5.0
    assert out.info["missing_kept"] == {"x": 2}


def test_integer_variable_becomes_continuous_unless_all_values_are_whole():
    data = small_dataset(a=("numeric", "integer", [1, 2, 3, 4, 5, 6, 7, 9]),
                         c=("numeric", "integer", [4, 4, 4, 4] + [None] * 4))
    out = apply(data, seed=2, t=3)
    assert out.data.variables["a"].type == "continuous"
    assert out.data.frame["a"].dtype == "float64"
    # a constant variable resamples to itself: it stays integer (missing stays <NA>)
    assert out.data.variables["c"].type == "integer"
    assert out.data.frame["c"].dtype == "Int64"
    assert out.data.frame["c"].tolist()[:4] == [4, 4, 4, 4]
    assert out.data.frame["c"].isna().sum() == 4


def test_checks():
    data = small_dataset(k=("key", "categorical", ["a", "b"]),
                         x=("numeric", "continuous", [1.0, 2.0]))
    assert list(PLUGIN.check(registry.with_defaults(PLUGIN.params, {}), data.meta)) == []
    only_keys = small_dataset(k=("key", "categorical", ["a", "b"]))
    (finding,) = PLUGIN.check(registry.with_defaults(PLUGIN.params, {}), only_keys.meta)
    assert finding[0] == ("variables",) and "no variables" in finding[1]
    params = registry.with_defaults(PLUGIN.params, {"strata": ["nope", "x"]})
    assert list(PLUGIN.check(params, data.meta)) == [
        (("strata", 0), "'nope' is not a declared variable"),
        (("strata", 1), "'x' cannot both be resampled and define strata")]


def test_recipe_end_to_end(write_recipe, tmp_path):
    path = write_recipe("""
        sdcflow: 1
        name: resample
        seed: 11
        data: {builtin: casc_census}
        variables:
          INTVAL: {role: numeric, type: integer}
          FICA: {role: numeric, type: integer}
          TAXINC: {role: sensitive, type: integer}
        steps:
          - id: boot
            method: resampling
            params: {t: 10}
          - id: boot_sensitive
            method: resampling
            params: {variables: [TAXINC]}
        release: {path: out.csv}
        """)
    result = run(path, tmp_path / "out", use_cache=False)
    original, _, _ = read_data({"builtin": "casc_census"}, ROOT, {
        n: Variable(n, "numeric", "integer") for n in ("INTVAL", "FICA", "TAXINC")})
    info = next(s.info for s in result.steps if s.node == "boot")
    assert info["t"] == 10 and set(info["changed"]) == {"INTVAL", "FICA"}
    assert next(s.info for s in result.steps if s.node == "boot_sensitive")["t"] == 5
    for name in ("INTVAL", "FICA", "TAXINC"):
        x = original.frame[name].to_numpy(float)
        y = pd.to_numeric(result.data[name]).to_numpy(float)
        order = np.argsort(x, kind="stable")
        assert np.all(np.diff(y[order]) >= 0)  # rank order of the records kept
        # ties kept: every group of equal original values has one released value
        assert pd.Series(y).groupby(x).nunique().max() == 1
