"""Which cluster representative keeps which edit constraint, and the choice per variable
(sdcflow.constraints.representatives). The expected representatives follow V. Torra,
"Constrained microaggregation: adding constraints for data editing" (Transactions on
Data Privacy 1(2), 2008): a weighted mean with one set of weights is the only
representative that keeps every linear relation (Prop. 1-3), the geometric mean keeps
products (Prop. 4-6), internality (min <= C <= max) keeps ranges (Prop. 7-8), monotone
representatives keep "x <= y" relations, an order statistic (the median) is the only one
that returns an existing value, and "exists in the domain" with a linear relation on the
same variable is overconstrained (no representative keeps both)."""

import pytest

from sdcflow.constraints import Constraint
from sdcflow.constraints.representatives import choose, parts

TYPES = {v: "continuous" for v in ("net", "tax", "gross", "age", "a", "b", "x", "y", "price",
                                   "vat", "retail", "harvested", "planted", "preg")}
TYPES.update(sex="categorical", edu="ordinal")


def build(*specs):
    return [Constraint.from_recipe(s) for s in specs]


NTG = {"id": "ntg", "expr": "net + tax == gross"}
VAT = {"id": "vat", "expr": "price * (1 + vat) == retail"}
HARVEST = {"id": "harvest", "expr": "harvested <= planted"}

# (name, constraints, aggregated variables, default, expected representatives,
#  expected kept, expected not kept)
CASES = [
    # the first finding: the mean keeps the identity, so aggregation: median yields to it
    ("linear with median requested", [NTG], ["net", "tax", "gross"], "median",
     {"net": "mean", "tax": "mean", "gross": "mean"}, ["ntg"], []),
    # the second finding: a one-variable range is kept by any internal representative,
    # so it does not conflict with "values exist" (median)
    ("domain and one-sided range", [{"id": "ages", "domain": "age"},
                                    {"id": "pos", "expr": "age >= 0"}],
     ["age"], "mean", {"age": "median"}, ["ages", "pos"], []),
    ("domain and two-sided range", [{"id": "ages", "domain": "age"},
                                    {"id": "r", "expr": "0 <= age <= 125"}],
     ["age"], "mean", {"age": "median"}, ["ages", "r"], []),
    ("range alone keeps the default", [{"id": "r", "expr": "0 <= age <= 125"}],
     ["age"], "mean", {"age": "mean"}, ["r"], []),
    ("range alone, median requested", [{"id": "r", "expr": "age >= 0"}],
     ["age"], "median", {"age": "median"}, ["r"], []),
    # overconstrained: a linear relation and an existing value on the same variable
    ("domain and linear", [NTG, {"id": "dom", "domain": "net"}], ["net", "tax", "gross"],
     "mean", {"net": "mean"}, ["ntg"], ["dom"]),
    ("domain declared first still yields to linear", [{"id": "dom", "domain": "net"}, NTG],
     ["net", "tax", "gross"], "mean", {"net": "mean"}, ["ntg"], ["dom"]),
    ("domain on a variable the linear relation does not touch",
     [NTG, {"id": "ages", "domain": "age"}], ["net", "tax", "gross", "age"], "mean",
     {"net": "mean", "age": "median"}, ["ntg", "ages"], []),
    ("product", [VAT], ["price", "vat", "retail"], "mean",
     {"price": "geometric", "vat": "geometric", "retail": "geometric"}, ["vat"], []),
    ("product and range", [VAT, {"id": "vr", "expr": "0 <= vat <= 1"}],
     ["price", "vat", "retail"], "median", {"vat": "geometric"}, ["vat", "vr"], []),
    ("product and domain", [VAT, {"id": "dp", "domain": "price"}],
     ["price", "vat", "retail"], "mean", {"price": "geometric"}, ["vat"], ["dp"]),
    ("product and linear on one variable", [VAT, {"id": "lin", "expr": "price + x == y"}],
     ["price", "vat", "retail", "x", "y"], "mean", {"price": "geometric", "x": "mean"},
     ["vat"], ["lin"]),
    ("product inequality", [{"id": "pi", "expr": "a * b <= x"}], ["a", "b", "x"], "mean",
     {"a": "geometric", "x": "geometric"}, ["pi"], []),
    ("a variable in two factors with different offsets",
     [{"id": "p1", "expr": "a * (1 + b) == x"}, {"id": "p2", "expr": "b * a == y"}],
     ["a", "b", "x", "y"], "mean", {"b": "geometric"}, ["p1"], ["p2"]),
    # increasing relations: order statistics commute with increasing maps
    ("increasing relation, median requested", [HARVEST], ["harvested", "planted"],
     "median", {"harvested": "median", "planted": "median"}, ["harvest"], []),
    ("increasing relation and domain", [HARVEST, {"id": "dp", "domain": "planted"}],
     ["harvested", "planted"], "mean", {"harvested": "median", "planted": "median"},
     ["harvest", "dp"], []),
    ("increasing affine relation", [{"id": "inc", "expr": "a == 2 * b + 1"}], ["a", "b"],
     "median", {"a": "median", "b": "median"}, ["inc"], []),
    ("chained comparison", [{"id": "ch", "expr": "0 <= a <= b"}], ["a", "b"], "median",
     {"a": "median", "b": "median"}, ["ch"], []),
    ("sum inequality is not increasing", [{"id": "s", "expr": "a + b <= x"},
                                          {"id": "da", "domain": "a"}],
     ["a", "b", "x"], "mean", {"a": "mean"}, ["s"], ["da"]),
    # one variable, not an interval: only an existing value keeps it
    ("set membership", [{"id": "set", "expr": "age in [20, 30, 40]"}], ["age"], "mean",
     {"age": "median"}, ["set"], []),
    ("not equal", [{"id": "ne", "expr": "age != 0"}], ["age"], "mean", {"age": "median"},
     ["ne"], []),
    ("or on one variable", [{"id": "o", "expr": "age < 18 or age > 65"}], ["age"], "mean",
     {"age": "median"}, ["o"], []),
    # nothing known keeps these
    ("neither linear nor a product", [{"id": "nl", "expr": "a * b == x + y"}],
     ["a", "b", "x", "y"], "mean", {"a": "mean", "b": "mean", "x": "mean"}, [], ["nl"]),
    # x + 1 is a factor: the geometric mean of x + 1 keeps it
    ("a product with a shifted factor", [{"id": "sh", "expr": "a * b == x + 1"}],
     ["a", "b", "x"], "mean", {"a": "geometric", "x": "geometric"}, ["sh"], []),
    ("or on two variables", [{"id": "o2", "expr": "a < 0 or b > 1"}], ["a", "b"], "mean",
     {"a": "mean"}, [], ["o2"]),
    ("not equal between variables", [{"id": "ne2", "expr": "a != b"}], ["a", "b"], "mean",
     {"a": "mean"}, [], ["ne2"]),
    # if/then: partition on the condition, whose truth must not change either way
    ("if on a categorical variable", [{"id": "p", "if": "sex == 'male'",
                                       "then": "preg == 0"}],
     ["preg"], "mean", {"preg": "mean"}, ["p"], []),
    ("if on an aggregated half-line", [{"id": "c", "if": "age < 17", "then": "x <= 100"}],
     ["age", "x"], "mean", {"age": "mean", "x": "mean"}, ["c"], []),
    ("if on an aggregated interval", [{"id": "c", "if": "18 <= age <= 65",
                                       "then": "x >= 0"}],
     ["age", "x"], "mean", {"age": "median", "x": "mean"}, ["c"], []),
    ("if with a linear then", [{"id": "c", "if": "sex == 'male'", "then": "a + b == x"}],
     ["a", "b", "x"], "median", {"a": "mean", "b": "mean", "x": "mean"}, ["c"], []),
    ("categorical and ordinal variables keep conditions on themselves",
     [{"id": "s", "expr": "sex != '9'"}, {"id": "e", "expr": "edu in ['a', 'b']"}],
     ["sex", "edu", "a"], "mean", {"sex": "plurality", "edu": "median", "a": "mean"},
     ["s", "e"], []),
    ("a constraint on variables not aggregated is not claimed", [NTG], ["age"], "mean",
     {"age": "mean"}, [], []),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_representative_and_what_it_keeps(case):
    _, specs, names, default, expected, kept, not_kept = case
    choice = choose(build(*specs), {v: TYPES[v] for v in names}, default)
    assert {v: choice.kinds[v][0] for v in expected} == expected
    assert choice.kept == kept
    assert sorted(choice.not_kept) == sorted(not_kept)
    # every variable of a kept constraint says which representative keeps it
    for cid in kept:
        assert any(f"keeps '{cid}'" in r for rs in choice.because.values() for r in rs)


def test_offsets_of_factors():
    choice = choose(build(VAT), {v: "continuous" for v in ("price", "vat", "retail")})
    assert choice.kinds == {"price": ("geometric", 0.0), "vat": ("geometric", 1.0),
                            "retail": ("geometric", 0.0)}


def test_reasons_name_the_conflict():
    choice = choose(build(NTG, {"id": "dom", "domain": "net"}),
                    {v: "continuous" for v in ("net", "tax", "gross")})
    assert choice.not_kept["dom"] == ("'net exists in the data' needs the median of net, but "
                                      "'ntg' needs the mean (overconstrained: no "
                                      "representative keeps both)")
    assert choice.overridden == {}
    separate = choose(build(NTG), {v: "continuous" for v in ("net", "tax", "gross")},
                      one_partition=False)
    assert separate.not_kept == {"ntg": ("'net + tax == gross' relates gross, net, tax, "
                                         "which the algorithm groups separately")}
    # the note names the constraint that excludes the requested representative
    both = choose(build(HARVEST, {"id": "dp", "domain": "planted"}),
                  {"harvested": "continuous", "planted": "continuous"})
    assert both.overridden == {"harvested": "dp", "planted": "dp"}
    outside = choose(build(NTG), {"net": "continuous", "tax": "continuous"})
    assert outside.not_kept == {"ntg": ("'net + tax == gross' relates net, tax (aggregated) "
                                        "to gross (not aggregated)")}


def test_parts_cut_conjunctions_and_chains():
    (c,) = build({"id": "c", "expr": "0 <= a <= b and x >= 0"})
    assert [(p.text, p.shape) for p in parts(c)] == [
        ("0 <= a", "range"), ("a <= b", "increasing"), ("x >= 0", "range")]
