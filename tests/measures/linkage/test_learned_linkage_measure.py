"""learned_linkage measure (worst-case DBRL with learned weights, seed 003)."""

import numpy as np
import pytest
from helpers import small_dataset

from sdcflow import run
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("learned_linkage")


def evaluate(data, original, **params):
    params = registry.with_defaults(PLUGIN.params, params)
    return PLUGIN.evaluate(data, params, np.random.default_rng(0), original=original)


def noisy_pair(n=50, seed=2):
    """Three variables; a and b get noise of one standard deviation, c none."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3))
    y = x + np.column_stack([rng.normal(size=n), rng.normal(size=n), np.zeros(n)])
    cols = "abc"
    original = small_dataset(**{k: ("numeric", "continuous", x[:, j]) for j, k in enumerate(cols)})
    protected = small_dataset(**{k: ("numeric", "continuous", y[:, j])
                                 for j, k in enumerate(cols)})
    return original, protected


def test_the_noise_free_variable_gets_the_weight():
    original, protected = noisy_pair()
    result = evaluate(protected, original)
    s = result.summary
    assert s["percent"] == 100.0 and s["correct"] == 50
    assert s["equal_weights"]["percent"] < 100
    assert max(s["weights"], key=s["weights"].get) == "c" and s["weights"]["c"] > 0.9
    assert s["program"]["status"] == "optimal" and s["program"]["solution"] == "milp"
    assert s["program"]["candidates"] == "all"
    assert result.per_record["correct"].all()


def test_deterministic():
    original, protected = noisy_pair(seed=9)
    a = evaluate(protected, original).summary
    b = evaluate(protected, original).summary
    assert a == b


def test_bilinear_form():
    original, protected = noisy_pair(n=25, seed=4)
    s = evaluate(protected, original, form="bilinear").summary
    assert np.trace(np.array(s["matrix"])) == pytest.approx(1)
    assert s["percent"] == 100.0
    assert "min_eigenvalue" in s


def test_max_records():
    original, protected = noisy_pair(n=30)
    with pytest.raises(ValueError, match="30 records exceed max_records = 20"):
        evaluate(protected, original, max_records=20)
    params = registry.with_defaults(PLUGIN.params, {"max_records": 20})
    found = list(PLUGIN.check_data(params, protected))
    assert found and found[0][0] == ("max_records",)


def test_missing_values_take_no_part():
    original, protected = noisy_pair(n=20, seed=5)
    frame = protected.frame.copy()
    frame.loc[3, "c"] = np.nan
    protected = protected.with_columns({"c": frame["c"]})
    s = evaluate(protected, original).summary
    assert s["used_records"] == 19 and s["correct"] == 19 and s["percent"] == 95.0


def test_conformance():
    original, _ = noisy_pair(n=30)
    check_method(PLUGIN, original, {})


RECIPE = """
sdcflow: 1
name: learned
seed: 4
data: {builtin: casc_census}
variables:
  AGI: {role: numeric, type: integer}
  FEDTAX: {role: numeric, type: integer}
  STATETAX: {role: numeric, type: integer}
steps:
  - {id: sample, method: sampling, params: {size: 120}}
  - {id: micro, method: microaggregation, params: {k: 3, variables: [AGI, FEDTAX]}}
  - {id: learn, measure: learned_linkage, params: {reference: sample, time_limit: 10}}
"""


def test_recipe(write_recipe, tmp_path):
    result = run(write_recipe(RECIPE), tmp_path / "out", use_cache=False)
    s = result.measures["learn"]
    assert s["records"] == 120 and s["reference"] == "sample"
    # STATETAX is untouched by the microaggregation: the worst case links at least as many
    # records as equal weights, and its weight is the largest
    assert s["correct"] >= s["equal_weights"]["correct"]
    assert max(s["weights"], key=s["weights"].get) == "STATETAX"
    assert sum(s["weights"].values()) == pytest.approx(1)


def corrupted_pair(n=30, seed=5):
    """Three variables; each protected record has one of them (varying) moved by 2 to 4
    standard deviations, the others exact."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3))
    y = x.copy()
    y[np.arange(n), rng.integers(0, 3, size=n)] += rng.uniform(2, 4, size=n)
    original = small_dataset(**{k: ("numeric", "continuous", x[:, j])
                                for j, k in enumerate("abc")})
    protected = small_dataset(**{k: ("numeric", "continuous", y[:, j])
                                 for j, k in enumerate("abc")})
    return original, protected


def test_owa_and_choquet_forms():
    # by hand: the own original differs on one variable only, so an OWA or Choquet
    # integral ignoring the largest squared difference links all 30 (kernel tests)
    original, protected = corrupted_pair()
    owa = evaluate(protected, original, form="owa").summary
    assert owa["percent"] == 100.0 and owa["form"] == "owa"
    w = owa["owa_weights"]
    assert len(w) == 3 and sum(w) == pytest.approx(1) and w[0] < 1e-6
    ci = evaluate(protected, original, form="choquet").summary
    assert ci["percent"] == 100.0
    measure = {tuple(row["variables"]): row["value"] for row in ci["fuzzy_measure"]}
    assert len(measure) == 7 and measure[("a", "b", "c")] == 1.0
    assert measure[("a",)] <= measure[("a", "b")] <= 1.0  # monotone
    assert ci["program"]["status"] == "optimal"


def test_bilinear_pd_form():
    original, protected = noisy_pair(n=25, seed=4)
    s = evaluate(protected, original, form="bilinear_pd").summary
    assert np.trace(np.array(s["matrix"])) == pytest.approx(1)
    assert s["min_eigenvalue"] > 0 and s["program"]["cuts"] >= 0
    assert s["percent"] == 100.0  # c is noise-free: a positive definite M stressing it links all


def test_choquet_refuses_too_many_variables():
    cols = {f"v{j}": ("numeric", "continuous", np.arange(5.0) + j) for j in range(11)}
    data = small_dataset(**cols)
    params = registry.with_defaults(PLUGIN.params, {"form": "choquet"})
    found = list(PLUGIN.check(params, data.meta))
    assert found and found[0][0] == ("form",) and "at most 10 variables" in found[0][1]


def test_conformance_of_the_new_forms():
    original, _ = noisy_pair(n=20)
    for form in ("owa", "choquet", "choquet_submodular", "bilinear_pd"):
        check_method(PLUGIN, original, {"form": form})


def test_recipe_with_choquet_and_owa(write_recipe, tmp_path):
    recipe = RECIPE.replace(
        "  - {id: learn, measure: learned_linkage, params: {reference: sample, time_limit: 10}}",
        "  - {id: ci, measure: learned_linkage, params: {reference: sample, form: choquet}}\n"
        "  - {id: owa, measure: learned_linkage, params: {reference: sample, form: owa}}\n"
        "  - {id: wm, measure: learned_linkage, params: {reference: sample}}")
    result = run(write_recipe(recipe), tmp_path / "out", use_cache=False)
    ci, owa, wm = (result.measures[k] for k in ("ci", "owa", "wm"))
    assert len(ci["fuzzy_measure"]) == 7 and len(owa["owa_weights"]) == 3
    # a Choquet integral generalises the weighted mean and the OWA: its optimum is at
    # least theirs (all three solved to optimality on 120 records)
    assert ci["program"]["status"] == wm["program"]["status"] == "optimal"
    assert ci["program"]["objective"] >= wm["program"]["objective"] - 1e-6
    assert ci["program"]["objective"] >= owa["program"]["objective"] - 1e-6
