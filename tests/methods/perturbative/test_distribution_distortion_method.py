"""distribution_distortion plugin (Liew, Choi & Liew 1985): fits per variable and stratum,
rank order, missing values, types, checks and a recipe end to end."""

import numpy as np
import pandas as pd
from helpers import small_dataset
from scipy import stats

from sdcflow import run
from sdcflow.data.io import builtin_path
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("distribution_distortion")


def apply(data, seed=0, **params):
    return PLUGIN.apply(data, registry.with_defaults(PLUGIN.params, params),
                        np.random.default_rng(seed))


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {})
    check_method(PLUGIN, testdata, {"variables": ["expend"], "distribution": "empirical",
                                    "strata": ["urbrur"]})


def test_plugin_matches_the_kernel_by_hand():
    # x = 3, 9, 1, 4, None: the normal fit of 1, 3, 4, 9 (mean 4.25, ML sd) drawn with
    # default_rng(5) and handed out rank for rank; the missing value stays missing
    data = small_dataset(x=("numeric", "integer", [3, 9, 1, 4, None]))
    out = apply(data, seed=5, distribution="normal")
    observed = np.array([3.0, 9, 1, 4])
    series = np.sort(stats.norm(observed.mean(), observed.std()).ppf(
        np.random.default_rng(5).random(4)))
    frame = out.data.frame
    np.testing.assert_allclose(frame["x"].iloc[[2, 0, 3, 1]], series, rtol=1e-14)
    assert frame["x"].isna().iloc[4] and out.data.variables["x"].type == "continuous"
    fit = out.info["variables"]["x"]["fit"]
    assert fit["distribution"] == "normal" and fit["records"] == 4
    assert fit["parameters"]["mean"] == 4.25 and out.info["variables"]["x"]["changed"] == 4


def test_rank_order_per_stratum_and_fits_per_stratum():
    rng = np.random.default_rng(1)
    region = np.repeat(["north", "south"], [300, 200])
    income = np.where(region == "north", rng.lognormal(8, 0.5, 500), rng.lognormal(10, 1, 500))
    data = small_dataset(income=("numeric", "continuous", income),
                         region=("strata", "categorical", region))
    out = apply(data, seed=2, distribution="lognormal")
    z = out.data.frame["income"].to_numpy()
    fits = out.info["variables"]["income"]["fit"]
    assert [f["stratum"] for f in fits] == ["north", "south"] and out.info["strata"] == 2
    for label, f in zip(("north", "south"), fits, strict=True):
        rows = region == label
        logs = np.log(income[rows])
        assert f["parameters"]["meanlog"] == np.float64(logs.mean())
        order = np.argsort(income[rows], kind="stable")
        assert np.all(np.diff(z[rows][order]) >= 0)
        # the released values of the stratum follow its own fitted law
        assert stats.kstest(np.log(z[rows]), stats.norm(logs.mean(), logs.std()).cdf
                            ).pvalue > 1e-4


def test_best_reports_the_laws_tried():
    data = small_dataset(x=("numeric", "continuous", [-1.0, 0.5, 2, 3.5, 4, 7]))
    fit = apply(data, distribution="best").info["variables"]["x"]["fit"]
    assert set(fit["ks_tried"]) == {"normal", "uniform", "triangular"}
    assert fit["ks"] == min(fit["ks_tried"].values())


def test_checks():
    data = small_dataset(x=("numeric", "continuous", [0.0, 1, 2, None]),
                         s=("strata", "categorical", ["a", "a", "b", "b"]))
    assert [m for _, m in PLUGIN.check_data({"distribution": "lognormal"}, data)] == [
        "the lognormal law needs positive values: 'x' has 1 that are not"]
    assert list(PLUGIN.check_data({"distribution": "exponential"}, data)) == []
    assert dict(PLUGIN.check({"strata": ["x"]}, data.meta)) == {
        ("strata", 0): "'x' cannot both be distorted and define strata"}
    huge = small_dataset(x=("numeric", "continuous", [1e-300, 1e300, 1.0]))
    assert [m for _, m in PLUGIN.check_data({"distribution": "lognormal"}, huge)] == [
        "the lognormal law fitted to 'x' can give values beyond the range of 64-bit floats"]
    empty = small_dataset(k=("key", "categorical", ["1", "2"]))
    assert [m for _, m in PLUGIN.check({}, empty.meta)] == [
        ("no variables: name them or declare integer or continuous variables with role "
         "numeric")]


def test_recipe_casc_distortion(write_recipe, tmp_path):
    path = write_recipe("""
        sdcflow: 1
        name: t
        seed: 1
        data: {builtin: casc_census}
        variables:
          FEDTAX: {role: numeric, type: integer}
          AGI: {role: numeric, type: integer}
        steps:
          - {id: distort, method: distribution_distortion, params: {distribution: empirical}}
        release: {path: out.csv}
        """)
    result = run(path, tmp_path / "out", use_cache=False)
    original = pd.read_csv(builtin_path("casc_census"))
    for name in ("FEDTAX", "AGI"):
        x, z = original[name].to_numpy(float), result.data[name].to_numpy(float)
        order = np.argsort(x, kind="stable")
        assert np.all(np.diff(z[order]) >= 0)
        assert x.min() <= z.min() and z.max() <= x.max()
    info = next(s.info for s in result.steps if s.node == "distort")
    assert info["variables"]["AGI"]["fit"]["distribution"] == "empirical"
