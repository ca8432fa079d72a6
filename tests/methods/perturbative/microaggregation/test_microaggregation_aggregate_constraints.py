"""microaggregation keeping a conditional constraint on a column statistic, "IF age < 17
THEN income < mean(income)" (EC-GV2 in Torra's classification of edit constraints, after
Shlomo & de Waal, "Protection of micro-data subject to edit constraints against
statistical disclosure", JOS 24(2), 2008; V. Torra, "Constrained microaggregation: adding
constraints for data editing", Transactions on Data Privacy 1(2), 2008): the records are
partitioned on the condition, then microaggregated within each part with the arithmetic
mean, which keeps every column's sum (so its mean) and, being internal, the comparison."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sdcflow.constraints import Constraint
from sdcflow.constraints.representatives import parts
from sdcflow.data import Dataset, Variable
from sdcflow.plugins import registry

PLUGIN = registry.get("microaggregation")
MINORS = {"id": "minors", "if": "age < 17", "then": "income < mean(income)"}


def apply(data, **given):
    return PLUGIN.apply(data, registry.with_defaults(PLUGIN.params, given),
                        np.random.default_rng(0))


def dataset(age, income, *specs) -> Dataset:
    frame = pd.DataFrame({"age": np.asarray(age, dtype=float),
                          "income": np.asarray(income, dtype=float)})
    variables = {"age": Variable("age", "key", "continuous"),
                 "income": Variable("income", "numeric", "continuous")}
    return Dataset(frame, variables,
                   tuple(Constraint.from_recipe(s) for s in (specs or (MINORS,))))


def test_by_hand_partitioned_first_then_the_group_means():
    # minors (12, 14, 16) earn 1000, 1100, 1200; adults (30..60) earn 0, 50, 100, 9000.
    # mean(income) = (3300 + 9150) / 7 = 1778.57: every minor is below it.
    data = dataset([12, 14, 16, 30, 40, 50, 60], [1000, 1100, 1200, 0, 50, 100, 9000])
    c = data.constraints[0]
    assert c.violations(data.frame)["violations"] == 0
    out = apply(data, variables=["income"], k=3)
    # k = 3: each part is one group (fewer than 2k records): the minors' mean is 1100,
    # the adults' (0 + 50 + 100 + 9000) / 4 = 2287.5; the sum, 12450, and with it the
    # mean are unchanged, and 1100 < 1778.57
    assert out.data.frame["income"].tolist() == [1100] * 3 + [2287.5] * 4
    assert out.info["partitioned_on"] == ["minors"]
    assert out.info["constraints_kept"] == ["minors"]
    assert c.violations(out.data.frame)["violations"] == 0
    reasons = out.info["groups"][0]["because"]
    assert reasons == ["income: mean keeps 'minors' (aggregate: income < mean(income))"]
    # without the constraints MDAV groups 9000 with the two richest minors (centroid
    # 1778.57: 9000 is farthest; its two nearest are 1200 and 1100), whose mean 3766.67
    # is above the mean: the edit constraint breaks
    loose = apply(data, variables=["income"], k=3, constraints=False)
    assert loose.data.frame["income"].iloc[2] == pytest.approx(11300 / 3)
    assert c.violations(loose.data.frame)["violations"] == 2


def test_a_part_smaller_than_k_is_not_split_off():
    # two minors, k = 3: partitioning would leave a group of two. Groups of at least k
    # come first: the records are not partitioned and the constraint is reported as
    # not kept, with the reason
    data = dataset([12, 16, 30, 40, 50, 60, 70], [1000, 1200, 0, 50, 100, 9000, 20])
    out = apply(data, variables=["income"], k=3)
    assert out.info["partitioned_on"] == []
    assert out.info["constraints_kept"] == []
    assert out.info["constraints_not_kept"]["minors"] == (
        "its condition 'age < 17' holds for 2 record(s) and fails for 5 (in one stratum): "
        "fewer than k = 3 on one side, so the records were not partitioned on it (a group "
        "smaller than k)")
    counts = out.data.frame["income"].value_counts()
    assert counts.min() >= 3


def test_statistics_that_group_means_change_are_not_kept():
    median = {"id": "med", "if": "age < 17", "then": "income < median(income)"}
    part = parts(Constraint.from_recipe(median))[1]
    assert not part.kinds and "median(income)" in part.why
    data = dataset([12, 14, 16, 30, 40, 50, 60], [0, 10, 20, 0, 50, 100, 9000], median)
    assert "med" in apply(data, variables=["income"], k=3).info["constraints_not_kept"]
    # fuzzy memberships give each record a weighted mean: the column's sum changes
    fuzzy = apply(dataset([12, 14, 16, 30, 40, 50, 60], [1000, 1100, 1200, 0, 50, 100, 9000]),
                  variables=["income"], k=3, algorithm="fuzzy")
    assert "arithmetic mean" in fuzzy.info["constraints_not_kept"]["minors"]
    # sum and count are kept like the mean; the median aggregation yields to it
    total = {"id": "tot", "expr": "income <= sum(income)"}
    assert parts(Constraint.from_recipe(total))[0].kinds == {"mean"}
    out = apply(dataset([12, 14, 16, 30, 40, 50, 60], [1000, 1100, 1200, 0, 50, 100, 9000]),
                variables=["income"], k=3, aggregation="median")
    assert out.info["groups"][0]["aggregation"] == {"income": "mean"}


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 80), st.floats(0, 1e5)), min_size=3, max_size=40),
       st.integers(2, 4), st.sampled_from(["mdav", "projected", "individual_ranking"]),
       st.booleans())
def test_the_constraint_holds_and_groups_have_k(rows, k, algorithm, with_age):
    age = np.array([r[0] for r in rows], dtype=float)
    income = np.array([r[1] for r in rows])
    assume(len(rows) >= k)
    data = dataset(age, income)
    c = data.constraints[0]
    assume(c.violations(data.frame)["violations"] == 0)
    variables = ["age", "income"] if with_age and algorithm != "individual_ranking" \
        else ["income"]
    out = apply(data, variables=variables, k=k, algorithm=algorithm)
    again = apply(data, variables=variables, k=k, algorithm=algorithm)
    assert out.data.frame.equals(again.data.frame)  # deterministic
    released = out.data.frame
    # every released value is shared by at least k records: no group below k
    assert released.groupby(variables).size().min() >= k
    if "minors" in out.info["constraints_kept"]:
        assert c.violations(released)["violations"] == 0
        assert released["income"].sum() == pytest.approx(income.sum(), rel=1e-9, abs=1e-6)
    else:
        assert "fewer than k" in out.info["constraints_not_kept"]["minors"]
