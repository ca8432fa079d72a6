"""multiple_imputation plugin (seed 000, "Multiple imputation"): means and regressions per
stratum within sampling error, order, missing values, small strata, determinism and a
recipe end to end."""

import numpy as np
import pandas as pd
from helpers import ROOT, small_dataset

from sdcflow import run
from sdcflow.data import Dataset, Variable, read_data
from sdcflow.data.text import TEXT
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("multiple_imputation")


def apply(data, seed=0, **params):
    return PLUGIN.apply(data, registry.with_defaults(PLUGIN.params, params),
                        np.random.default_rng(seed))


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {})
    check_method(PLUGIN, testdata, {"variables": ["savings", "income"],
                                    "predictors": ["urbrur", "age"], "strata": ["sex"]})


def households(n=20_000, seed=9) -> Dataset:
    """Two strata with different models: size (categorical 1..4) drives consumption,
    which drives savings."""
    rng = np.random.default_rng(seed)
    town = rng.choice(["a", "b"], n)
    size = rng.integers(1, 5, n)
    shift = np.where(town == "a", 0.0, 300.0)
    consumption = 500 + 150 * size + shift + 100 * rng.standard_normal(n)
    savings = 0.3 * consumption - 40 * size + 50 * rng.standard_normal(n)
    frame = pd.DataFrame({"town": pd.Series(town, dtype=TEXT),
                          "size": pd.Series(size.astype(str), dtype=TEXT),
                          "consumption": consumption, "savings": savings})
    variables = {"town": Variable("town", "strata", "categorical"),
                 "size": Variable("size", "key", "categorical"),
                 "consumption": Variable("consumption", "numeric", "continuous"),
                 "savings": Variable("savings", "numeric", "continuous")}
    return Dataset(frame, variables)


def regression(frame, name):
    """OLS of ``name`` on the size dummies (with intercept): coefficients, standard errors."""
    D = np.column_stack([np.ones(len(frame)),
                         pd.get_dummies(frame["size"], drop_first=True).to_numpy(float)])
    y = frame[name].to_numpy(float)
    beta = np.linalg.lstsq(D, y, rcond=None)[0]
    resid = y - D @ beta
    cov = resid @ resid / (len(y) - D.shape[1]) * np.linalg.inv(D.T @ D)
    return beta, np.sqrt(np.diag(cov))


def test_means_and_regressions_per_stratum_within_sampling_error():
    data = households()
    out = apply(data, seed=3)
    assert out.info["synthesised"] == 20_000
    for town in ("a", "b"):
        rows = data.frame["town"] == town
        n = int(rows.sum())
        for name in ("consumption", "savings"):
            y = data.frame.loc[rows, name]
            y_syn = out.data.frame.loc[rows, name]
            # parameter draw, new noise and the earlier synthetic variable: at most
            # 3 var / n between the two means; 6 sigma
            assert abs(y_syn.mean() - y.mean()) < 6 * np.sqrt(3 * y.var() / n)
            beta, se = regression(data.frame[rows], name)
            beta_syn, _ = regression(out.data.frame[rows], name)
            assert np.all(np.abs(beta_syn - beta) < 6 * np.sqrt(3) * se)
    # the strata really have their own models: town b's consumption is 300 higher
    frame = out.data.frame
    gap = frame.loc[frame["town"] == "b", "consumption"].mean() - \
        frame.loc[frame["town"] == "a", "consumption"].mean()
    assert abs(gap - 300) < 6 * np.sqrt(3 * 2 * 100 ** 2 / 5000)  # about 10000 per town


def test_the_order_of_the_variables_is_the_synthesis_order():
    data = households(n=500)
    a = apply(data, seed=1, variables=["consumption", "savings"])
    b = apply(data, seed=1, variables=["savings", "consumption"])
    assert a.info["variables"] == ["consumption", "savings"]
    assert b.info["variables"] == ["savings", "consumption"]
    assert not a.data.frame["savings"].equals(b.data.frame["savings"])


def test_missing_values_and_integer_types():
    data = small_dataset(
        k=("key", "categorical", ["x", "y"] * 10),
        n=("numeric", "integer", [3, 5, 4, 6, 5, 7, None, 8, 7, 9, 8, 10, 9, 11, 10, 12, 11,
                                  13, 12, 14]),
        v=("numeric", "continuous", np.arange(20.0) * 1.5))
    out = apply(data, seed=2)
    res = out.data.frame
    assert pd.isna(res.loc[6, "n"]) and res.loc[6, "v"] == 9.0  # record 6 untouched
    assert out.data.variables["n"].type == "continuous" and res["n"].dtype == "float64"
    assert out.info["unchanged"] == {"missing_values": 1, "small_strata": 0}
    assert out.info["changed"] == {"n": 19, "v": 19}


def test_small_stratum_is_reported():
    data = small_dataset(
        g=("strata", "categorical", ["a"] * 6 + ["b"]),
        y=("numeric", "continuous", [1, 2, 3, 4, 5, 6, 7]))
    out = apply(data, seed=1, predictors=[])
    assert out.data.frame["y"].iloc[6] == 7.0
    assert out.info["small_strata"] == [{
        "stratum": "b", "records": 1,
        "reason": "1 records cannot support a regression on 1 parameters"}]


def test_recipe_end_to_end(write_recipe, tmp_path):
    path = write_recipe("""
        sdcflow: 1
        name: mi
        seed: 21
        data: {builtin: casc_census}
        variables:
          AFNLWGT: {role: weight, type: integer}
          PEARNVAL: {role: key, type: integer}
          FICA: {role: numeric, type: integer}
          FEDTAX: {role: numeric, type: integer}
          STATETAX: {role: numeric, type: integer}
        steps:
          - id: synth
            method: multiple_imputation
            params: {predictors: [PEARNVAL]}
        release: {path: out.csv}
        """)
    result = run(path, tmp_path / "out", use_cache=False)
    info = next(s.info for s in result.steps if s.node == "synth")
    assert info["variables"] == ["FICA", "FEDTAX", "STATETAX"]
    assert info["synthesised"] == 1080 and info["design_columns"] == 2
    original, _, _ = read_data({"builtin": "casc_census"}, ROOT, {
        n: Variable(n, "numeric", "integer")
        for n in ("FICA", "FEDTAX", "STATETAX", "PEARNVAL")})
    for name in ("FICA", "FEDTAX", "STATETAX"):
        y = original.frame[name].to_numpy(float)
        y_syn = result.data[name].to_numpy(float)
        assert abs(y_syn.mean() - y.mean()) < 6 * np.sqrt(3 * y.var() / len(y))
        assert not np.any(y_syn == y)
    # FICA is a payroll tax, nearly proportional to earnings: the synthetic values keep
    # that (correlation with PEARNVAL close to the original one)
    earn = original.frame["PEARNVAL"].to_numpy(float)
    r0 = np.corrcoef(earn, original.frame["FICA"].to_numpy(float))[0, 1]
    r1 = np.corrcoef(earn, result.data["FICA"].to_numpy(float))[0, 1]
    assert abs(r1 - r0) < 6 * 2 * (1 - r0 ** 2) / np.sqrt(1080)
