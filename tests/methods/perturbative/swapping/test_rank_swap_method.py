"""rank_swap plugin: marginals kept, swaps within range, variants, strata, missing values,
ordinal variables, checks and a recipe end to end (seed 003_fc14c51a27fe5611.txt)."""

import numpy as np
import pandas as pd
import pytest
from helpers import ROOT, small_dataset
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow import run
from sdcflow.data import Dataset, Variable, read_data
from sdcflow.data.text import TEXT
from sdcflow.kernels.perturbative.swapping.rank_swap import rank_window
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("rank_swap")
VARIANTS = ["standard", "p_buckets", "p_distribution"]


def apply(data, seed=0, **params):
    return PLUGIN.apply(data, registry.with_defaults(PLUGIN.params, params),
                        np.random.default_rng(seed))


def mixed(n=200, seed=1):
    rng = np.random.default_rng(seed)
    income = rng.lognormal(8, 1, n).round(2)
    income[::17] = np.nan
    age = rng.integers(0, 90, n).astype(object)
    age[::23] = None
    return small_dataset(
        income=("numeric", "continuous", income),
        age=("numeric", "integer", list(age)),
        edu=("key", "ordinal", rng.choice(["low", "mid", "high"], n)),
        region=("strata", "categorical", rng.choice(["n", "s"], n)),
    )


def with_order(data):
    variables = dict(data.variables)
    variables["edu"] = variables["edu"].evolve(order=("low", "mid", "high"))
    return Dataset(data.frame, variables)


@pytest.mark.parametrize("variant", VARIANTS)
def test_conformance(variant):
    data = with_order(mixed())
    check_method(PLUGIN, data, {"variant": variant, "p": 10})
    check_method(PLUGIN, data, {"variant": variant, "p": 10,
                                "variables": ["income", "age", "edu"], "strata": []})


def _sorted(values):
    return sorted(v for v in values if not pd.isna(v))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.integers(-50, 50), st.none()), min_size=1, max_size=120),
       st.floats(0.5, 60), st.sampled_from(VARIANTS), st.integers(0, 2**32 - 1))
def test_marginal_distribution_is_exactly_kept(values, p, variant, seed):
    data = small_dataset(x=("numeric", "integer", values))
    out = apply(data, seed=seed, p=p, variant=variant).data.frame["x"]
    assert out.dtype == "Int64"
    assert _sorted(out) == _sorted(data.frame["x"])  # same multiset of values
    assert (out.isna() == data.frame["x"].isna()).all()  # missing values stay in place


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6) | st.sampled_from([0.0, 1.0, 1.0, 1.0]),
                min_size=2, max_size=150),
       st.floats(1, 40), st.integers(0, 2**32 - 1))
def test_every_standard_swap_stays_within_the_rank_range(values, p, seed):
    # a record of rank i receives a value whose rank is within w = floor(p n / 100):
    # sorted[i - w] <= new value <= sorted[i + w] (ties ranked by position)
    data = small_dataset(x=("numeric", "continuous", values))
    out = apply(data, seed=seed, p=p).data.frame["x"].to_numpy()
    x = np.asarray(values)
    order = np.argsort(x, kind="stable")
    rank = np.empty(len(x), dtype=int)
    rank[order] = np.arange(len(x))
    srt = x[order]
    w = rank_window(len(x), p)
    lo = srt[np.maximum(rank - w, 0)]
    hi = srt[np.minimum(rank + w, len(x) - 1)]
    assert ((out >= lo) & (out <= hi)).all()


def test_the_variants_reach_beyond_the_standard_window():
    # seed 003: p-buckets and p-distribution make B_j the whole file
    x = np.arange(2000, dtype=float)
    data = small_dataset(x=("numeric", "continuous", x))
    moved = {}
    for variant in VARIANTS:
        out = apply(data, seed=4, p=2, variant=variant).data.frame["x"].to_numpy()
        moved[variant] = np.abs(out - x).max()
    assert moved["standard"] <= 40
    assert moved["p_buckets"] > 80 and moved["p_distribution"] > 80


def test_missing_values_stay_missing_and_p_counts_the_others():
    values = [np.nan] * 90 + list(range(10))
    data = small_dataset(x=("numeric", "continuous", values))
    result = apply(data, p=20)  # 20% of the 10 non-missing values: 2 ranks
    out = result.data.frame["x"].to_numpy()
    assert np.isnan(out[:90]).all()
    assert sorted(out[90:]) == list(range(10))
    assert (np.abs(out[90:] - np.arange(10)) <= 2).all()
    assert result.info["rank_window"] == {"x": 2}


def test_strata_swap_within_each_stratum():
    data = mixed(400, seed=2)
    result = apply(data, p=30, variables=["income"])
    frame, out = data.frame, result.data.frame
    for region in ("n", "s"):
        rows = frame["region"] == region
        assert _sorted(out.loc[rows, "income"]) == _sorted(frame.loc[rows, "income"])
    assert result.info["strata"] == 2
    assert set(result.info["rank_window"]["income"]) == {"n", "s"}


def test_ordinal_variables_swap_categories_by_their_order():
    edu = ["low"] * 5 + ["mid"] * 5 + ["high"] * 5
    data = Dataset(pd.DataFrame({"edu": pd.Series(edu, dtype=TEXT)}),
                   {"edu": Variable("edu", "key", "ordinal", order=("low", "mid", "high"))})
    out = apply(data, p=20, variables=["edu"]).data.frame["edu"]  # 3 ranks
    assert sorted(out) == sorted(edu)
    # a value moves at most 3 ranks: "low" (ranks 0-4) never meets "high" (ranks 10-14)
    assert "high" not in set(out[:5]) and "low" not in set(out[10:])


def test_info_counts_changed_values_per_variable():
    data = small_dataset(x=("numeric", "continuous", np.arange(100.0)),
                         y=("numeric", "integer", [7] * 100))
    info = apply(data, p=5).info
    assert info["changed"]["y"] == 0  # equal values: swapping changes nothing
    assert 90 <= info["changed"]["x"] <= 100
    assert info["percent_changed"]["x"] == info["changed"]["x"]
    assert info["variant"] == "standard" and info["p"] == 5


def test_the_seed_example_swap_range_through_the_plugin():
    # seed 003's example: 10 records, p = 2 ranks = 20%; every masked value is within 2
    values = [8, 6, 10, 7, 9, 2, 1, 4, 5, 3]
    data = small_dataset(a1=("numeric", "integer", values))
    for seed in range(20):
        out = apply(data, seed=seed, p=20).data.frame["a1"].to_numpy(dtype=int)
        assert sorted(out) == list(range(1, 11))
        assert (np.abs(out - np.array(values)) <= 2).all()


def test_checks():
    meta = small_dataset(x=("key", "continuous", [1.0])).meta
    params = registry.with_defaults(PLUGIN.params, {})
    assert list(PLUGIN.check(params, meta)) == [
        (("variables",), "no variables: name them or declare variables with role numeric")]
    data = mixed(50)
    params = registry.with_defaults(PLUGIN.params, {"strata": ["regio", "income"]})
    assert list(PLUGIN.check(params, data.meta)) == [
        (("strata", 0), "'regio' is not a declared variable"),
        (("strata", 1), "'income' is swapped, so it cannot also define strata")]
    small = registry.with_defaults(PLUGIN.params, {"p": 1, "variables": ["income"],
                                                   "strata": []})
    (finding,) = PLUGIN.check_data(small, data)
    assert finding[0] == ("p",) and "no value can be swapped" in finding[1]
    assert "p must be at least 2.128" in finding[1]  # 47 non-missing values
    ok = registry.with_defaults(PLUGIN.params, {"p": 1, "variant": "p_buckets"})
    assert list(PLUGIN.check_data(ok, data)) == []


def test_recipe_end_to_end(write_recipe, tmp_path):
    path = write_recipe("""
        sdcflow: 1
        name: swap
        seed: 7
        data: {builtin: casc_census}
        variables:
          INTVAL: {role: numeric, type: integer}
          FICA: {role: numeric, type: integer}
          TAXINC: {role: sensitive, type: integer}
        steps:
          - id: swap
            method: rank_swap
            params: {p: 5}
          - id: buckets
            method: rank_swap
            params: {p: 5, variant: p_buckets, variables: [TAXINC]}
        release: {path: out.csv}
        """)
    result = run(path, tmp_path / "out", use_cache=False)
    original, _, _ = read_data({"builtin": "casc_census"}, ROOT, {
        n: Variable(n, "numeric", "integer") for n in ("INTVAL", "FICA", "TAXINC")})
    info = next(s.info for s in result.steps if s.node == "swap")
    assert set(info["changed"]) == {"INTVAL", "FICA"}
    assert info["rank_window"] == {"INTVAL": 54, "FICA": 54}  # 5% of 1080 records
    for name in ("INTVAL", "FICA", "TAXINC"):
        assert sorted(result.data[name]) == sorted(original.frame[name])
    assert next(s.info for s in result.steps if s.node == "buckets")["bucket_size"] == {
        "TAXINC": 54}
