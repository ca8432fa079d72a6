"""microaggregation plugin: algorithms, groups, strata, and edit constraints (seed 001)."""

import numpy as np
import pandas as pd
import pytest
from helpers import small_dataset
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow import run
from sdcflow.constraints import Constraint
from sdcflow.data import Dataset, Variable
from sdcflow.data.text import TEXT
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("microaggregation")


def apply(data, **params):
    return PLUGIN.apply(data, registry.with_defaults(PLUGIN.params, params),
                        np.random.default_rng(0))


def with_constraints(frame: pd.DataFrame, *specs, types=None) -> Dataset:
    types = types or {}
    variables = {c: Variable(c, "numeric", types.get(c, "continuous")) for c in frame}
    return Dataset(frame, variables, tuple(Constraint.from_recipe(s) for s in specs))


def test_toy_case_through_the_plugin():
    data = small_dataset(x=("numeric", "continuous", [2, 3, 3, 20, 21]),
                         y=("numeric", "continuous", [1, 2, 2, 19, 20]))
    out = apply(data, k=2).data.frame
    np.testing.assert_allclose(out["x"], [8 / 3] * 3 + [20.5] * 2)
    np.testing.assert_allclose(out["y"], [5 / 3] * 3 + [19.5] * 2)


@pytest.mark.parametrize("algorithm", ["mdav", "optimal_univariate", "projected",
                                       "individual_ranking", "fuzzy"])
def test_every_algorithm_gives_groups_of_k_to_2k_minus_1(testdata, algorithm):
    data = Dataset(testdata.frame[["income", "savings", "expend"]].iloc[:600].copy(),
                   {v: testdata.variables[v] for v in ("income", "savings", "expend")})
    out = apply(data, k=3, algorithm=algorithm, variables=["income", "savings", "expend"])
    frame = out.data.frame
    if algorithm in ("individual_ranking", "optimal_univariate"):
        sizes = frame["income"].value_counts()  # one partition per variable
    else:
        sizes = frame.groupby(["income", "savings", "expend"]).size()
    assert sizes.min() >= 3
    assert out.info["algorithm"] == algorithm and 0 < out.info["sse_over_sst"] < 1


def test_linear_constraint_groups_adds_and_keeps():
    # seed 001, EC-LC1: net + tax == gross; only net and tax are named
    rng = np.random.default_rng(1)
    net = rng.gamma(2.0, 1000.0, 200).round(2)
    tax = (rng.uniform(0.1, 0.4, 200) * net).round(2)
    frame = pd.DataFrame({"net": net, "tax": tax, "gross": net + tax})
    data = with_constraints(frame, {"id": "ntg", "expr": "net + tax == gross"})
    out = apply(data, k=3, groups=[["net"], ["tax"]])
    assert out.info["notes"] == [("added gross: constraint 'ntg' needs them aggregated with "
                                 "net, tax")]
    assert out.info["groups"][0]["variables"] == ["net", "tax", "gross"]
    result = data.constraints[0].violations(out.data.frame)
    assert result["violations"] == 0
    # without the constraints, separate groups break the identity
    loose = apply(data, k=3, groups=[["net"], ["tax"], ["gross"]], constraints=False)
    assert data.constraints[0].violations(loose.data.frame)["violations"] > 0


def test_multiplicative_constraint_uses_the_geometric_mean_of_each_factor():
    # seed 001, EC-NLC1: price * (1 + vat) == retail
    rng = np.random.default_rng(2)
    price = rng.uniform(1, 100, 90)
    vat = rng.choice([0.04, 0.1, 0.21], 90)
    frame = pd.DataFrame({"price": price, "vat": vat, "retail": price * (1 + vat)})
    c = {"id": "vat", "expr": "price * (1 + vat) == retail"}
    data = with_constraints(frame, c)
    out = apply(data, k=3)
    assert out.info["groups"][0]["aggregation"] == {
        "price": "geometric", "vat": "geometric of vat + 1", "retail": "geometric"}
    assert data.constraints[0].violations(out.data.frame)["violations"] == 0
    arithmetic = apply(data, k=3, constraints=False)
    assert data.constraints[0].violations(arithmetic.data.frame)["violations"] > 0


def test_domain_constraint_uses_an_existing_value():
    frame = pd.DataFrame({"age": np.arange(30, dtype=float) * 3})
    data = with_constraints(frame, {"id": "ages", "domain": "age"})
    out = apply(data, k=4)
    assert out.info["groups"][0]["aggregation"] == {"age": "median"}
    assert set(out.data.frame["age"]) <= set(frame["age"])


def test_conditional_constraint_partitions_first():
    # seed 001, EC-GV1: if sex == 'male' then pregnancies == 0
    rng = np.random.default_rng(5)
    sex = np.where(rng.random(120) < 0.5, "male", "female")
    preg = np.where(sex == "male", 0, rng.integers(0, 5, 120))
    frame = pd.DataFrame({"sex": pd.Series(sex, dtype=TEXT), "pregnancies": preg.astype(float),
                          "income": rng.gamma(2, 10, 120)})
    variables = {"sex": Variable("sex", "key", "categorical"),
                 "pregnancies": Variable("pregnancies", "numeric", "continuous"),
                 "income": Variable("income", "numeric", "continuous")}
    c = Constraint.from_recipe({"id": "preg", "if": "sex == 'male'", "then": "pregnancies == 0"})
    data = Dataset(frame, variables, (c,))
    out = apply(data, k=3)
    assert out.info["partitioned_on"] == ["preg"]
    assert c.violations(out.data.frame)["violations"] == 0
    mixed = apply(data, k=3, constraints=False)
    assert c.violations(mixed.data.frame)["violations"] > 0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1e4), st.floats(0, 1e4)), min_size=3, max_size=40),
       st.integers(2, 4), st.sampled_from(["mdav", "projected", "fuzzy"]))
def test_constraints_are_preserved(pairs, k, algorithm):
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    if len(a) < k:
        return
    frame = pd.DataFrame({"a": a, "b": b, "total": a + b})
    data = with_constraints(frame, {"id": "sum", "expr": "a + b == total"},
                            {"id": "range", "expr": "0 <= a <= 10000"})
    out = apply(data, k=k, algorithm=algorithm)
    for c in data.constraints:
        assert c.violations(out.data.frame)["violations"] == 0


def test_categorical_by_plurality_and_ordinal_by_median():
    data = small_dataset(x=("numeric", "continuous", [1, 2, 3, 100, 101, 102]),
                         c=("numeric", "categorical", ["a", "a", "b", "b", "c", "c"]))
    data.variables["o"] = Variable("o", "numeric", "ordinal", order=("lo", "mid", "hi"))
    data.frame["o"] = pd.Series(["lo", "mid", "lo", "hi", "hi", "mid"], dtype=TEXT)
    out = apply(data, k=3, variables=["x", "c", "o"]).data.frame
    assert out["c"].tolist() == ["a"] * 3 + ["c"] * 3  # the most frequent category
    assert out["o"].tolist() == ["lo"] * 3 + ["hi"] * 3  # lower median in the order


def test_strata_are_aggregated_separately():
    data = small_dataset(region=("strata", "categorical", ["n"] * 3 + ["s"] * 3),
                         x=("numeric", "continuous", [1, 2, 3, 4, 5, 6]))
    out = apply(data, k=3).data.frame
    assert out["x"].tolist() == [2, 2, 2, 5, 5, 5]


def test_integer_variables_become_continuous_when_averaged():
    data = small_dataset(x=("numeric", "integer", [1, 2, 4, 10, 11, 13]))
    out = apply(data, k=3)
    assert out.data.variables["x"].type == "continuous"
    median = apply(data, k=3, aggregation="median")
    assert median.data.variables["x"].type == "integer"
    assert median.data.frame["x"].tolist() == [2, 2, 2, 11, 11, 11]


def test_missing_values_are_refused_where_the_algorithm_needs_complete_values(testdata):
    # mdav takes missing values (tests/methods/perturbative/microaggregation/test_microaggregation_missing.py)
    data = small_dataset(x=("numeric", "continuous", [1.0, None, 3, 4]))
    assert not list(PLUGIN.check_data(registry.with_defaults(PLUGIN.params, {"k": 2}), data))
    params = registry.with_defaults(PLUGIN.params, {"k": 2, "algorithm": "projected"})
    found = list(PLUGIN.check_data(params, data))
    assert found == [(("variables",), ("'x' has 1 missing values (records 2); projected "
                                      "needs complete values (mdav, individual_ranking and "
                                      "optimal_univariate take missing values)"))]


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {"k": 3, "variables": ["income", "savings"]})


def test_census_recipe_keeps_the_income_identity(tmp_path):
    from helpers import ROOT

    result = run(ROOT / "recipes" / "casc_microaggregation.yaml", tmp_path / "out",
                 use_cache=False)
    assert result.measures["edits"]["total"] == 0
    data = result.data
    np.testing.assert_allclose(data["PEARNVAL"] + data["POTHVAL"], data["PTOTVAL"], rtol=1e-9)
    sizes = data.groupby(["PEARNVAL", "POTHVAL", "PTOTVAL"]).size()
    assert sizes.min() >= 3
