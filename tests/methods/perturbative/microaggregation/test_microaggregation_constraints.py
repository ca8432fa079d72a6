"""microaggregation under edit constraints: the manifest says what was done, and every
constraint it claims to keep holds on the output (V. Torra, "Constrained
microaggregation: adding constraints for data editing", Transactions on Data Privacy
1(2), 2008; the rules are tabled in tests/constraints/test_representatives.py)."""

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.constraints import Constraint
from sdcflow.data import Dataset, Variable
from sdcflow.plugins import registry

PLUGIN = registry.get("microaggregation")


def params(**given):
    return registry.with_defaults(PLUGIN.params, given)


def apply(data, **given):
    return PLUGIN.apply(data, params(**given), np.random.default_rng(0))


def dataset(frame: pd.DataFrame, specs, types=None) -> Dataset:
    types = types or {}
    variables = {c: Variable(c, "key" if types.get(c) == "categorical" else "numeric",
                             types.get(c, "continuous")) for c in frame}
    return Dataset(frame, variables, tuple(Constraint.from_recipe(s) for s in specs))


def test_median_requested_under_a_linear_constraint_reports_the_mean_it_uses():
    # finding 1: the manifest said "ntg: linear -> mean" while the median was used (and
    # the identity broke). The median is not valid for V = V1 + V2 (Torra's example:
    # rows (1, 2, 3), (0, 6, 6), (2, 6, 8) give medians 1 + 6 != 6).
    frame = pd.DataFrame({"net": [1.0, 0, 2, 10, 11, 15], "tax": [2.0, 6, 6, 20, 26, 23]})
    frame["gross"] = frame["net"] + frame["tax"]
    data = dataset(frame, [{"id": "ntg", "expr": "net + tax == gross"}])
    out = apply(data, k=3, aggregation="median")
    group = out.info["groups"][0]
    assert group["aggregation"] == {"net": "mean", "tax": "mean", "gross": "mean"}
    assert out.info["constraints_kept"] == ["ntg"]
    assert "'net' uses the mean, not aggregation: median: constraint 'ntg' needs it" \
        in out.info["notes"]
    # the group means: (1 + 0 + 2) / 3 = 1, (2 + 6 + 6) / 3 = 14/3, (3 + 6 + 8) / 3 = 17/3
    np.testing.assert_allclose(out.data.frame.loc[:2, ["net", "tax", "gross"]].to_numpy(),
                               [[1, 14 / 3, 17 / 3]] * 3)
    assert data.constraints[0].violations(out.data.frame)["violations"] == 0
    # without constraints the median is used as asked, and breaks the identity
    loose = apply(data, k=3, aggregation="median", constraints=False)
    assert loose.info["groups"][0]["aggregation"]["net"] == "median"
    assert data.constraints[0].violations(loose.data.frame)["violations"] > 0


def test_domain_and_a_range_on_one_variable_keep_existing_ages():
    # finding 2: "age >= 0" with "ages exist" was declared overconstrained and the mean
    # used (26 of 30 ages no longer existed). A range is kept by the median too.
    frame = pd.DataFrame({"age": np.arange(30, dtype=float) * 3 + 1})
    data = dataset(frame, [{"id": "ages", "domain": "age"}, {"id": "pos", "expr": "age >= 0"}])
    out = apply(data, k=4)
    assert out.info["groups"][0]["aggregation"] == {"age": "median"}
    assert out.info["constraints_kept"] == ["ages", "pos"]
    assert out.info["constraints_not_kept"] == {}
    assert set(out.data.frame["age"]) <= set(frame["age"])
    # groups of the sorted ages 1, 4, 7, 10 ...: the lower median of the first is 4
    assert out.data.frame["age"].iloc[0] == 4


def test_overconstrained_variable_is_reported_not_kept():
    frame = pd.DataFrame({"net": [1.0, 2, 4, 10, 11, 15], "tax": [1.0, 1, 2, 3, 3, 5]})
    frame["gross"] = frame["net"] + frame["tax"]
    data = dataset(frame, [{"id": "dom", "domain": "net"},
                           {"id": "ntg", "expr": "net + tax == gross"}])
    out = apply(data, k=3)
    assert out.info["constraints_kept"] == ["ntg"]
    assert "overconstrained" in out.info["constraints_not_kept"]["dom"]
    assert out.info["groups"][0]["aggregation"]["net"] == "mean"
    # and indeed the mean (1 + 2 + 4) / 3 = 7/3 is not an existing net
    assert data.constraints[0].violations(out.data.frame, frame)["violations"] > 0


def test_per_variable_algorithms_refuse_constraints_between_variables():
    frame = pd.DataFrame({"a": [1.0, 2, 3, 4], "b": [2.0, 3, 4, 5]})
    data = dataset(frame, [{"id": "le", "expr": "a <= b"}, {"id": "r", "expr": "a >= 0"}])
    for algorithm in ("individual_ranking", "optimal_univariate"):
        found = list(PLUGIN.check(params(algorithm=algorithm), data.meta))
        assert found == [(("algorithm",), (
            f"{algorithm} groups each variable separately, so it cannot keep constraint "
            "'le' (a <= b): use mdav, projected or fuzzy, or set constraints: false"))]
        assert not list(PLUGIN.check(params(algorithm=algorithm, variables=["a"],
                                            constraints=False), data.meta))


# ---------------------------------------------------------------- property: claims hold

CATALOG = {
    "ntg": {"expr": "net + tax == gross"},
    "tax_pos": {"expr": "tax >= 0"},
    "gross_dom": {"domain": "gross"},
    "ages": {"domain": "age"},
    "age_pos": {"expr": "age >= 0"},
    "age_range": {"expr": "0 <= age <= 125"},
    "age_set": {"expr": "age in [20, 30, 40, 50, 60, 70]"},
    "age_ne": {"expr": "age != 0"},
    "vat": {"expr": "price * (1 + vat) == retail"},
    "vat_range": {"expr": "0 <= vat <= 1"},
    "price_le": {"expr": "price <= retail"},
    "price_dom": {"domain": "price"},
    "harvest": {"expr": "harvested <= planted"},
    "planted_dom": {"domain": "planted"},
    "ab_le": {"expr": "a + b <= x"},
    "ab_prod": {"expr": "a * b <= x"},
    "a_dom": {"domain": "a"},
    "nl": {"expr": "a * b == x - a - b"},
    "preg": {"if": "sex == 'male'", "then": "preg == 0"},
    "young": {"if": "age < 40", "then": "harvested <= planted"},
    "mid": {"if": "30 <= age <= 50", "then": "tax >= 0"},
    "a_or": {"expr": "a < 2 or a >= 2"},
}
NUMERIC = ["net", "tax", "gross", "age", "price", "vat", "retail", "harvested", "planted",
           "a", "b", "x", "preg"]
eighths = st.integers(1, 800).map(lambda i: i / 8)  # exact sums and products in floats


@st.composite
def constrained_data(draw):
    n = draw(st.integers(4, 30))
    col = lambda s: draw(st.lists(s, min_size=n, max_size=n))
    net, tax, a, b, price, harvested, slack = (np.array(col(eighths)) for _ in range(7))
    sex = np.array(col(st.sampled_from(["male", "female"])))
    frame = pd.DataFrame({
        "net": net, "tax": tax, "gross": net + tax,
        "age": np.array(col(st.sampled_from([20, 30, 40, 50, 60, 70])), dtype=float),
        "price": price, "vat": np.array(col(st.sampled_from([0.04, 0.1, 0.21]))),
        "harvested": harvested, "planted": harvested + slack,
        "a": a, "b": b, "x": a * b + a + b,
        "sex": pd.Series(sex, dtype="str"),
        "preg": np.where(sex == "male", 0.0, np.array(col(st.integers(0, 4)), dtype=float)),
    })
    frame["retail"] = frame["price"] * (1 + frame["vat"])
    ids = draw(st.lists(st.sampled_from(sorted(CATALOG)), min_size=1, max_size=6,
                        unique=True))
    specs = [{"id": i, **CATALOG[i]} for i in ids]
    data = dataset(frame, specs, {"sex": "categorical"})
    # aggregate some of the variables the drawn constraints name (the others come in
    # through the constraints)
    named = sorted({v for c in data.constraints for v in c.variables} & set(NUMERIC))
    names = draw(st.lists(st.sampled_from(named or NUMERIC), min_size=1, max_size=4,
                          unique=True))
    return data, names


@settings(max_examples=150, deadline=None)
@given(constrained_data(), st.integers(2, 4),
       st.sampled_from(["mdav", "projected", "fuzzy", "individual_ranking"]),
       st.sampled_from(["mean", "median"]))
def test_every_constraint_claimed_kept_holds_on_the_output(case, k, algorithm, aggregation):
    data, names = case
    given_params = params(variables=names, k=k, algorithm=algorithm, aggregation=aggregation)
    if list(PLUGIN.check(given_params, data.meta)) or len(data) < k:
        return  # refused at validation (a per-variable algorithm under a relation)
    out = PLUGIN.apply(data, given_params, np.random.default_rng(0))
    info = out.info
    aggregated = {v for g in info["groups"] for v in g["variables"]}
    touching = {c.id for c in data.constraints if c.variables & aggregated}
    kept = info.get("constraints_kept", [])
    assert set(kept) | set(info.get("constraints_not_kept", {})) == touching
    for c in data.constraints:
        if c.id in kept:
            assert c.violations(out.data.frame, data.frame)["violations"] == 0, c.id
    # what the manifest names as each variable's representative is what was used
    for g in info["groups"]:
        for v, how in g["aggregation"].items():
            for reason in (r for r in g["because"] if r.startswith(f"{v}: ")):
                assert reason.startswith(f"{v}: {how.split(' of ')[0]} keeps")
