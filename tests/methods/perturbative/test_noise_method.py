"""noise plugin: methods, strata, missing values, checks, recipes (seed 000 "Additive Noise",
seed 004 noise variants and ROMM)."""

import numpy as np
import pandas as pd
import pytest
from helpers import small_dataset
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow import run
from sdcflow.data import Dataset, Variable
from sdcflow.data.io import builtin_path
from sdcflow.errors import PluginError
from sdcflow.methods.perturbative.noise import METHODS
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("noise")


def apply(data, seed=0, **params):
    return PLUGIN.apply(data, registry.with_defaults(PLUGIN.params, params),
                        np.random.default_rng(seed))


def numeric_data(n=600, seed=1, strata=None, missing=()):
    rng = np.random.default_rng(seed)
    x = rng.multivariate_normal([50, 100, 10], [[25, 20, 5], [20, 100, 0], [5, 0, 4]], n)
    columns = {"a": ("numeric", "continuous", x[:, 0]),
               "b": ("numeric", "integer", np.round(x[:, 1]).astype(int)),
               "c": ("numeric", "continuous", x[:, 2])}
    if strata is not None:
        columns["region"] = ("strata", "categorical", strata)
    data = small_dataset(**columns)
    for row, col in missing:
        data.frame.loc[row, col] = np.nan if col != "b" else pd.NA
    return data


@pytest.mark.parametrize("method", METHODS)
def test_conformance(testdata, method):
    # (outdect finds the outliers among all the records, as sdcMicro: no strata)
    check_method(PLUGIN, testdata, {"method": method,
                                    "strata": [] if method == "outdect" else ["urbrur"]})


# every method but outdect, which perturbs the outliers only (tested below)
@pytest.mark.parametrize("method", [m for m in METHODS if m != "outdect"])
def test_every_method_perturbs_keeps_missing_and_makes_integers_continuous(method):
    data = numeric_data(missing=[(3, "a"), (7, "b")])
    out = apply(data, method=method)
    frame = out.data.frame
    assert frame["a"].isna().tolist() == data.frame["a"].isna().tolist()
    assert frame["b"].isna().sum() == 1 and np.isnan(frame["b"].iloc[7])
    assert out.data.variables["b"].type == "continuous" and frame["b"].dtype == "float64"
    assert out.data.variables["a"].type == "continuous"
    # every observed value moved: 3 x 600 values, 2 missing
    assert out.info["perturbed"] == 3 * 600 - 2
    level = {"delta": 0.1} if method == "correlated2" else {"k": 0.1}  # the defaults
    assert out.info["method"] == method and out.info["strata"] == 1
    assert {name: out.info[name] for name in level} == level
    if method in ("correlated", "correlated_restored", "romm"):
        assert out.info["incomplete_records"] == 2


def test_default_variables_are_the_numeric_role():
    data = small_dataset(x=("numeric", "continuous", [1.0, 2, 3, 4]),
                         w=("weight", "continuous", [1.0, 1, 1, 1]),
                         age=("key", "integer", [1, 2, 3, 4]))
    assert PLUGIN.variables({}, data.meta) == ["x"]
    out = apply(data)
    assert out.data.frame["w"].tolist() == [1, 1, 1, 1]
    assert out.data.frame["age"].tolist() == [1, 2, 3, 4]


@pytest.mark.parametrize("method", ["correlated_restored", "romm"])
def test_exact_methods_keep_means_and_covariances_within_each_stratum(method):
    region = np.repeat(["north", "south"], [350, 250])
    data = numeric_data(strata=region, missing=[(5, "c")])
    out = apply(data, method=method, k=0.3)
    before, after = data.frame.astype({"b": float}), out.data.frame
    for name in ("north", "south"):
        rows = (before["region"] == name) & before[["a", "b", "c"]].notna().all(axis=1)
        x, z = before.loc[rows, ["a", "b", "c"]], after.loc[rows, ["a", "b", "c"]]
        np.testing.assert_allclose(z.mean(), x.mean(), rtol=1e-10)
        sd = np.sqrt(np.diag(x.cov()))
        np.testing.assert_allclose(z.cov() / np.outer(sd, sd), x.cov() / np.outer(sd, sd),
                                   atol=1e-9)
    assert out.info["strata"] == 2 and out.info["incomplete_records"] == 1


def test_small_strata_get_correlated_noise_with_the_overall_covariance():
    region = ["tiny"] * 2 + ["big"] * 598
    data = numeric_data(strata=region)
    out = apply(data, method="correlated_restored")
    assert out.info["small_strata_records"] == 2
    frame = out.data.frame
    # restoring two records exactly would give them back; they are perturbed instead
    assert not np.allclose(frame.loc[:1, ["a", "c"]], data.frame.loc[:1, ["a", "c"]])


def test_additive_small_stratum_uses_overall_variance():
    data = numeric_data(strata=["one"] + ["rest"] * 599)
    out = apply(data, method="additive")
    assert out.info["values_with_overall_variance"] == 3
    assert out.data.frame.loc[0, "a"] != data.frame.loc[0, "a"]


def test_multiplicative_keeps_zero_and_sign():
    data = small_dataset(x=("numeric", "continuous", [0.0, -5, 3, 1e6]))
    out = apply(data, method="multiplicative", k=0.2)
    z = out.data.frame["x"].to_numpy()
    assert z[0] == 0 and z[1] < 0 and z[2] > 0 and z[3] > 0
    assert out.info["perturbed"] == 3


def test_romm_lambda_is_reported_and_controls_the_change():
    data = numeric_data()
    near = apply(data, method="romm", romm_lambda=1e-4)
    far = apply(data, method="romm")
    x = data.frame[["a", "c"]].to_numpy()
    assert np.abs(near.data.frame[["a", "c"]].to_numpy() - x).max() < 0.1
    assert np.abs(far.data.frame[["a", "c"]].to_numpy() - x).max() > 5
    assert near.info["romm_lambda"] == 1e-4 and "romm_lambda" not in far.info


def test_checks():
    meta = numeric_data(strata=["s"] * 600).meta
    found = dict(PLUGIN.check({"method": "additive", "romm_lambda": 1.0,
                               "strata": ["a", "nope"]}, meta))
    assert found == {("strata", 0): "'a' is both masked and a stratum variable",
                     ("strata", 1): "'nope' is not a declared variable",
                     ("romm_lambda",): "romm_lambda applies to method romm only"}
    empty = small_dataset(k=("key", "categorical", ["1", "2"]))
    assert [m for _, m in PLUGIN.check({}, empty.meta)] == [
        "no variables: name them or declare variables with role numeric"]


def test_check_data_needs_enough_values():
    data = small_dataset(x=("numeric", "continuous", [1.0, None, None]),
                         y=("numeric", "continuous", [None, 2.0, 3.0]))
    params = registry.with_defaults(PLUGIN.params, {})
    assert [m for _, m in PLUGIN.check_data(params, data)] == [
        "'x' has 1 observed value(s): its variance needs at least 2"]
    params["method"] = "correlated"
    assert [m for _, m in PLUGIN.check_data(params, data)] == [
        ("correlated noise needs at least 2 records without a missing value in x, y to "
         "estimate their covariance matrix")]
    params["method"] = "multiplicative"
    assert list(PLUGIN.check_data(params, data)) == []


@settings(max_examples=25, deadline=None)
@given(values=st.lists(st.one_of(st.none(), st.floats(-1e6, 1e6)), min_size=4, max_size=30),
       method=st.sampled_from(METHODS), seed=st.integers(0, 2 ** 32 - 1))
def test_missing_stay_missing_and_same_seed_same_result(values, method, seed):
    values = values + [1.0, 2.0, 3.0]  # at least 3 observed values
    frame = pd.DataFrame({"x": pd.Series(values, dtype="float64"),
                          "y": pd.Series(values[::-1], dtype="float64")})
    data = Dataset(frame, {c: Variable(c, "numeric", "continuous") for c in frame})
    if method != "multiplicative" and frame.notna().all(axis=1).sum() < 2:
        return
    try:
        a = apply(data, seed=seed, method=method).data.frame
    except PluginError as exc:  # outdect's MCD on a handful of records: an exact fit
        assert method == "outdect" and "outdect cannot find the outliers" in str(exc)
        return
    b = apply(data, seed=seed, method=method).data.frame
    assert a.equals(b)
    assert a.isna().equals(frame.isna())


RECIPE = """
sdcflow: 1
name: noise
seed: 7
data: {builtin: casc_census}
variables:
  PTOTVAL: {role: numeric, type: integer}
  POTHVAL: {role: numeric, type: integer}
  PEARNVAL: {role: numeric, type: integer}
  FEDTAX: {role: numeric, type: integer}
constraints:
  - {id: total-income, expr: "PEARNVAL + POTHVAL == PTOTVAL", tolerance: 0.001}
steps:
  - id: noisy
    method: noise
    params: {method: %s, k: 0.2}
  - {id: edits, measure: constraints}
checks:
  - "edits.total == 0"
release: {path: out.csv}
"""


@pytest.mark.parametrize("method", ["correlated", "correlated_restored", "romm"])
def test_recipe_casc_multivariate_noise_keeps_the_income_identity(write_recipe, tmp_path,
                                                                 method):
    # PTOTVAL = PEARNVAL + POTHVAL in every CASC record: the covariance matrix is singular
    # and the noise (or the rotation) keeps the identity; the check requires it
    result = run(write_recipe(RECIPE % method), tmp_path / "out", use_cache=False)
    data = result.data
    original = pd.read_csv(builtin_path("casc_census"))
    assert not np.allclose(data["PTOTVAL"], original["PTOTVAL"])
    np.testing.assert_allclose(data["PEARNVAL"] + data["POTHVAL"], data["PTOTVAL"],
                               atol=1e-6)
    info = next(s.info for s in result.steps if s.node == "noisy")
    assert info["method"] == method and info["perturbed"] == 4 * 1080
    if method != "correlated":
        cols = ["PTOTVAL", "POTHVAL", "PEARNVAL", "FEDTAX"]
        np.testing.assert_allclose(data[cols].mean(), original[cols].mean(), rtol=1e-9)
        np.testing.assert_allclose(data[cols].cov(), original[cols].cov(), rtol=1e-8,
                                   atol=1e-6 * original[cols].var().max())


def test_recipe_testdata_additive_noise_per_stratum(write_recipe, tmp_path):
    path = write_recipe("""
        sdcflow: 1
        name: t
        seed: 3
        data: {builtin: testdata}
        variables:
          urbrur: {role: strata}
          income: {role: numeric, type: continuous}
          expend: {role: numeric, type: continuous}
          age: {role: key, type: integer}
        steps:
          - {id: noisy, method: noise, params: {variables: [income, expend, age], k: 0.05}}
        release: {path: out.csv}
        """)
    result = run(path, tmp_path / "out", use_cache=False)
    info = next(s.info for s in result.steps if s.node == "noisy")
    assert info == {"method": "additive", "k": 0.05, "perturbed": 3 * 4580, "strata": 2}
    assert result.data["age"].dtype == "float64"


def test_uniform_noise_is_bounded_by_its_half_width_per_stratum():
    # a_j = sqrt(3 k Var_j) with each stratum's own variance (hand formula: the variance of
    # U(-a, a) is a^2 / 3, made equal to k Var_j)
    region = np.repeat(["north", "south"], [350, 250])
    data = numeric_data(strata=region)
    out = apply(data, method="uniform", k=0.2)
    before, after = data.frame.astype({"b": float}), out.data.frame
    assert out.info["method"] == "uniform" and out.info["strata"] == 2
    for name in ("north", "south"):
        rows = before["region"] == name
        for col in ("a", "b", "c"):
            change = (after.loc[rows, col] - before.loc[rows, col]).abs()
            a = np.sqrt(3 * 0.2 * before.loc[rows, col].var(ddof=1))
            assert change.max() <= a and change.max() > 0.9 * a


def fitted_on_halves(**given):
    """The data, the params, its two halves as partitions and the state map-reduce fits
    on them (one round)."""
    data = numeric_data()
    params = registry.with_defaults(PLUGIN.params, given)
    assert PLUGIN.distributes(params, data.meta).rounds == 1
    halves = [Dataset(data.frame.iloc[:300], data.variables),
              Dataset(data.frame.iloc[300:], data.variables)]
    state = PLUGIN.combine(0, [PLUGIN.partial(0, h, params, None) for h in halves], params,
                           None)
    return data, params, halves, state


def test_uniform_noise_on_partitions_uses_the_global_variances():
    # map-reduce: partials of two halves merged give the variance of all the records, and
    # each half is then bounded by the global half-width sqrt(3 k Var)
    data, params, halves, state = fitted_on_halves(method="uniform", k=0.3)
    x = data.frame[["a", "b", "c"]].astype(float)
    np.testing.assert_allclose(state, x.var(ddof=1), rtol=1e-12)
    out = PLUGIN.apply_fitted(halves[1], params, np.random.default_rng(3), state)
    change = (out.data.frame[["a", "b", "c"]] - x.iloc[300:]).abs().max()
    assert (change <= np.sqrt(3 * 0.3 * x.var(ddof=1))).all()
    assert (change > 0.8 * np.sqrt(3 * 0.3 * x.var(ddof=1))).all()
    assert out.info["method"] == "uniform" and out.info["perturbed"] == 3 * 300


# --- sdcMicro's addNoise under its names (sdcMicro 5.8.1, R/addNoise.r) ------------------

@pytest.mark.parametrize("method, noise, k", [
    # sdcMicro's noise (percent): additive sd noise/100 sd(x), so k = (noise/100)^2;
    # correlated covariance noise/100 Sigma, so k = noise/100 (noise = 5 is k = 0.05)
    ("additive", 10, 0.01), ("additive", 150, 2.25), ("correlated", 5, 0.05),
    ("correlated", 150, 1.5)])
def test_sdcmicro_noise_is_its_k(method, noise, k):
    data = numeric_data()
    theirs = apply(data, seed=4, method=method, noise=noise)
    ours = apply(data, seed=4, method=method, k=k)
    pd.testing.assert_frame_equal(theirs.data.frame, ours.data.frame, rtol=1e-13)
    assert theirs.info["noise"] == noise and theirs.info["k"] == pytest.approx(k)


def test_correlated2_through_the_plugin_within_strata():
    # each stratum's own mean and sd (sdcMicro's formula per stratum); delta reported
    region = np.repeat(["north", "south"], [350, 250])
    data = numeric_data(strata=region)
    out = apply(data, seed=2, method="correlated2", delta=0.4)
    assert out.info["delta"] == 0.4 and "k" not in out.info and out.info["strata"] == 2
    before = data.frame.astype({"b": float})
    d1 = np.sqrt(1 - 0.16)
    for name in ("north", "south"):
        rows = before["region"] == name
        x, z = before.loc[rows, ["a", "b", "c"]], out.data.frame.loc[rows, ["a", "b", "c"]]
        # z - d1 x - (1 - d1) mean is delta sd e: its mean over the stratum is small
        noise = (z - d1 * x - (1 - d1) * x.mean()) / (0.4 * x.std(ddof=1))
        assert (noise.abs().max() < 5).all() and (noise.std() > 0.8).all()
        assert (noise.mean().abs() < 6 / np.sqrt(rows.sum())).all()


def test_correlated2_small_stratum_uses_the_overall_mean_and_sd():
    data = numeric_data(strata=["one"] + ["rest"] * 599)
    out = apply(data, method="correlated2")
    assert out.info["values_with_overall_variance"] == 3 and out.info["delta"] == 0.1


def test_correlated2_on_partitions_uses_the_global_means_and_sds():
    data, params, halves, (means, sds) = fitted_on_halves(method="correlated2", delta=0.5)
    x = data.frame[["a", "b", "c"]].astype(float)
    np.testing.assert_allclose(means, x.mean(), rtol=1e-12)
    np.testing.assert_allclose(sds, x.std(ddof=1), rtol=1e-12)
    out = PLUGIN.apply_fitted(halves[1], params, np.random.default_rng(3), (means, sds))
    e = np.random.default_rng(3).standard_normal((3, 300)).T
    d1 = np.sqrt(0.75)
    expected = d1 * x.iloc[300:] + (1 - d1) * means + 0.5 * sds * e
    np.testing.assert_allclose(out.data.frame[["a", "b", "c"]], expected, rtol=1e-12)
    assert out.info == {"method": "correlated2", "delta": 0.5, "perturbed": 900, "strata": 1}


def noise_recipe(params_text: str) -> str:
    return f"""
        sdcflow: 1
        name: noise
        seed: 1
        data: {{builtin: testdata}}
        variables:
          income: {{role: numeric, type: continuous}}
          expend: {{role: numeric, type: continuous}}
        steps:
          - {{id: n, method: noise, params: {params_text}}}
        """


MIXED = "'noise' is sdcMicro's percentage and 'k' sdcflow's noise level: give one of them"
NOISE_ONLY = ("'noise' (sdcMicro's percentage) applies to methods additive, correlated and "
              "outdect, as in sdcMicro; the others take 'k' (correlated2 'delta')")
OUTDECT_LEVEL = "outdect's noise level is sdcMicro's percentage 'noise' (default 150), not 'k'"
DELTA_ONLY = "'delta' applies to method correlated2 only"
DELTA_LEVEL = "correlated2's noise level is 'delta' (sdcMicro's), not 'k' or 'noise'"


@pytest.mark.parametrize("params_text, message", [
    ("{noise: 5, k: 0.05}", MIXED),
    ("{method: uniform, noise: 5}", NOISE_ONLY),
    ("{delta: 0.2}", DELTA_ONLY),
    ("{method: correlated, delta: 0.2}", DELTA_ONLY),
    ("{method: correlated2, k: 0.2}", DELTA_LEVEL),
    ("{method: outdect, k: 0.2}", OUTDECT_LEVEL),
])
def test_sdcmicro_parameters_are_not_mixed(write_recipe, params_text, message):
    from sdcflow import validate
    from sdcflow.errors import RecipeError

    with pytest.raises(RecipeError) as info:
        validate(write_recipe(noise_recipe(params_text)))
    assert [p.message for p in info.value.problems] == [f"steps[0].params: {message}"]


def test_sdcmicro_correlated_noise_through_a_recipe(write_recipe):
    result = run(write_recipe(noise_recipe("{method: correlated, noise: 5}")), write=False,
                 use_cache=False)
    info = next(s for s in result.manifest["steps"] if s["id"] == "n")["info"]
    assert info["noise"] == 5 and info["k"] == pytest.approx(0.05)


def test_outdect_perturbs_the_outliers_only():
    # sdcMicro's addNoise(method = "outdect", noise): the outliers (above the 0.99 quantile
    # of a variable, or far from the MCD centre) get noise of sd 1.96 sd / sqrt(n) *
    # noise / 100 in every variable; every other record keeps its values exactly
    data = numeric_data(n=600)
    data.frame.loc[10, "a"] = 500.0  # far above every other a
    out = apply(data, seed=3, method="outdect", noise=50)
    before = data.frame[["a", "b", "c"]].astype(float).to_numpy()
    after = out.data.frame[["a", "b", "c"]].to_numpy()
    moved = (after != before).any(axis=1)
    assert moved[10] and out.info["outliers"] == int(moved.sum())
    # at least the largest value of each variable (above its 0.99 quantile); a few percent
    assert 3 <= moved.sum() <= 0.1 * len(before)
    assert all(moved[int(np.argmax(before[:, j]))] for j in range(3))
    assert out.info == {"method": "outdect", "noise": 50.0, "perturbed": 3 * int(moved.sum()),
                        "strata": 1, "outliers": int(moved.sum())}
    # the noise is small: 1.96 sd / sqrt(600) * 0.5 per variable, within 6 of its sd
    scale = 1.96 * before.std(axis=0, ddof=1) / np.sqrt(600) * 0.5
    assert (np.abs(after - before)[moved] <= 6 * scale).all()


def test_outdect_takes_no_strata_and_needs_complete_records(write_recipe):
    from sdcflow import validate
    from sdcflow.errors import RecipeError

    with pytest.raises(RecipeError) as info:
        validate(write_recipe(noise_recipe("{method: outdect, strata: [urbrur]}").replace(
            "expend: {role: numeric, type: continuous}",
            "expend: {role: numeric, type: continuous}\n          urbrur: {role: strata}")))
    assert "outdect finds the outliers among all the records" in str(info.value)
    result = run(write_recipe(noise_recipe("{method: outdect}")), write=False, use_cache=False)
    info = next(s for s in result.manifest["steps"] if s["id"] == "n")["info"]
    assert info["noise"] == 150.0 and 0 < info["outliers"] < 4580 * 0.1
