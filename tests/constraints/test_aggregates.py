"""Aggregates in edit constraints (seed 001, EC-GV2: IF age < 17 THEN gross income < mean
income). Expected values are computed by hand from the definitions in
sdcflow.constraints.aggregates."""

import re
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdcflow import run, validate
from sdcflow.constraints import Constraint, ExprError
from sdcflow.constraints.aggregates import aggregate, exact_int_sum
from sdcflow.constraints.checks import expression_value
from sdcflow.constraints.representatives import choose
from sdcflow.errors import RecipeError

GV2 = {"id": "gv2", "if": "age < 17", "then": "income < mean(income)"}


def ints(*values):
    return pd.Series(pd.array(values, dtype="Int64"), name="x")


def test_aggregates_of_integer_columns_are_exact():
    x = ints(1, 2, 2, None)
    assert aggregate("count", x) == 3  # the missing value is not counted
    assert aggregate("sum", x) == 5 and isinstance(aggregate("sum", x), int)
    assert aggregate("mean", x) == Fraction(5, 3)  # not 1.6666666666666667
    assert aggregate("median", x) == 2
    assert aggregate("median", ints(1, 2, 3, 6)) == Fraction(5, 2)
    assert aggregate("min", x) == 1 and aggregate("max", x) == 2
    big = ints(2 ** 62, 2 ** 62, 2 ** 62)  # the sum is beyond 64 bits: kept exactly
    assert aggregate("sum", big) == 3 * 2 ** 62
    assert aggregate("mean", big) == 2 ** 62


def test_aggregates_of_decimal_columns():
    # 1e16 + 1 - 1e16: a float loop gives 0, the correctly rounded sum is 1
    x = pd.Series([1e16, 1.0, -1e16, np.nan], name="x")
    assert aggregate("sum", x) == 1 and aggregate("mean", x) == Fraction(1, 3)
    y = pd.Series([0.5, 0.25, 4.0, 1.0], name="y")
    assert aggregate("median", y) == Fraction(3, 4)  # midpoint of 0.5 and 1.0
    assert aggregate("max", y) == 4 and aggregate("count", y) == 4


@given(st.lists(st.integers(-2 ** 63, 2 ** 63 - 1), max_size=50))
def test_exact_int_sum_is_the_sum(values):
    assert exact_int_sum(np.array(values, dtype=np.int64)) == sum(values)


def test_ec_gv2_by_hand():
    # mean(income) over the four incomes present: (100 + 500 + 300 + 900) / 4 = 450.
    # Under 17: record 1 (100 < 450), record 2 (500: violation), record 5 (income
    # missing: not checked); records 3 and 4 are 17 or older.
    frame = pd.DataFrame({"age": pd.array([10, 15, 30, 40, 16], dtype="Int64"),
                          "income": pd.array([100, 500, 300, 900, None], dtype="Int64")})
    result = Constraint.from_recipe(GV2).violations(frame)
    assert result["violations"] == 1 and result["first_records"] == [2]
    assert result["not_checked"] == 1


def test_the_mean_is_over_every_record_not_those_the_condition_selects():
    # the mean of all incomes is 200; that of the two under-17s would be 150, which 180
    # exceeds: with the whole column, 180 < 200 holds and nothing is violated
    frame = pd.DataFrame({"age": [10, 12, 40], "income": [120.0, 180.0, 300.0]})
    assert Constraint.from_recipe(GV2).violations(frame)["violations"] == 0
    frame.loc[2, "income"] = 150.0  # mean 150: 180 now violates
    assert Constraint.from_recipe(GV2).violations(frame)["first_records"] == [2]


def test_a_column_only_aggregated_may_be_missing():
    # wage <= 2 * mean(income) = 2 * 1.5 = 3: record 2 (wage 5) violates; record 3, whose
    # income is missing, is still checked (its income is not read record by record)
    c = Constraint.from_recipe({"id": "w", "expr": "wage <= mean(income) * 2"})
    frame = pd.DataFrame({"wage": [1.0, 5.0, 3.0], "income": [1.0, 2.0, np.nan]})
    result = c.violations(frame)
    assert result["first_records"] == [2] and result["not_checked"] == 0
    assert c.variables == {"wage", "income"} and c.record_variables() == {"wage"}


def test_equality_with_a_mean_allows_float_rounding():
    # mean(x) = 0.3 exactly as a fraction of the floats; 0.1 + 0.2 differs from the float
    # 0.3 by 5.6e-17, within rtol; the integer comparison with count is exact
    c = Constraint.from_recipe({"id": "m", "expr": "x + 0.2 == mean(y)"})
    frame = pd.DataFrame({"x": [0.1, 0.5], "y": [0.3, 0.3]})
    assert c.violations(frame)["first_records"] == [2]
    n = Constraint.from_recipe({"id": "n", "expr": "k <= count(k) - 1"})
    assert n.violations(pd.DataFrame({"k": [1, 2, 3]}))["first_records"] == [3]


@pytest.mark.parametrize("text, message", [
    ("x <= mean(x + 1)", "mean(x + 1): mean() takes the name of one column"),
    ("x <= sum(x, y)", "sum() takes one column, e.g. sum(income) (2 arguments given)"),
    ("x <= average(x)", "unknown function 'average'"),
])
def test_bad_aggregates_are_refused_when_parsed(text, message):
    with pytest.raises(ExprError, match=re.escape(message)):
        Constraint.from_recipe({"id": "c", "expr": text})


@pytest.mark.parametrize("column, reason", [
    (["a", "b"], "mean(s): 's' is text, not a number"),
    ([np.nan, np.nan], "mean(s): 's' has no values (every value is missing)"),
])
def test_a_column_without_a_mean_cannot_be_checked(column, reason):
    c = Constraint.from_recipe({"id": "t", "expr": "x <= mean(s)"})
    result = c.violations(pd.DataFrame({"x": [1, 2], "s": column}))
    assert result["applicable"] is False and result["reason"] == reason


def test_aggregates_of_results_in_checks():
    results = {"a": {"v": [1, 2, 2], "w": [1, 2, 4, 3]}}
    assert expression_value("mean(a.v)", results) == 5 / 3
    assert expression_value("median(a.w) + count(a.w) + sum(a.v)", results) == 2.5 + 4 + 5


def test_microaggregation_keeps_mean_sum_count_with_the_mean_only():
    # the arithmetic group mean keeps the column's sum, hence mean(income): the records
    # partitioned on age < 17, the group means of incomes below it stay below it
    # (tests/methods/perturbative/microaggregation/test_microaggregation_aggregate_constraints.py)
    c = Constraint.from_recipe(GV2)
    choice = choose([c], {"age": "integer", "income": "continuous"})
    assert choice.kept == ["gv2"] and choice.kinds["income"] == ("mean", 0.0)
    # fuzzy memberships (a weighted mean per record) change the sum
    choice = choose([c], {"age": "integer", "income": "continuous"}, exact_means=False)
    assert choice.kept == [] and "arithmetic mean" in choice.not_kept["gv2"]
    # the median of a column changes: not kept, and no claim is made
    c = Constraint.from_recipe({**GV2, "then": "income < median(income)"})
    choice = choose([c], {"age": "integer", "income": "continuous"})
    assert choice.kept == [] and "median(income)" in choice.not_kept["gv2"]
    assert "microaggregation changes" in choice.not_kept["gv2"]


RECIPE = """
sdcflow: 1
name: gv2
seed: 1
data: {path: people.csv}
variables:
  age: {role: key, type: integer}
  income: {role: numeric, type: continuous}
constraints:
  - {id: gv2, if: "age < 17", then: "income < mean(income)"}
steps:
  - {id: micro, method: microaggregation, params: {variables: [income], k: 3}}
  - {id: edits, measure: constraints}
"""


def people(tmp_path, income):
    ages = [10, 12, 14, 30, 35, 40, 45, 50, 55]
    pd.DataFrame({"age": ages, "income": income}).to_csv(tmp_path / "people.csv",
                                                         index=False)


def test_recipe_checks_on_the_original_and_on_the_protected_data(write_recipe, tmp_path):
    # original mean 370: the three under-17s (100, 110, 120) are below it. MDAV with k = 3
    # on income groups them together (mean 110), so the mean of the protected column is
    # still 370 and nothing is violated
    income = [100.0, 110.0, 120.0, 300.0, 400.0, 500.0, 600.0, 600.0, 600.0]
    people(tmp_path, income)
    result = run(write_recipe(RECIPE), tmp_path / "out", use_cache=False)
    assert result.measures["edits"]["constraints"]["gv2"]["violations"] == 0
    assert result.data["income"].tolist() == [110.0] * 3 + [400.0] * 3 + [600.0] * 3
    # microaggregation keeps the constraint (partitioned on age < 17, then the group
    # means); age, only in the condition, is read but not aggregated
    info = result.steps[0].info
    assert info["constraints_kept"] == ["gv2"] and info["partitioned_on"] == ["gv2"]
    assert result.data["age"].tolist() == [10, 12, 14, 30, 35, 40, 45, 50, 55]
    # an under-17 earning more than the mean: refused when the data are loaded
    people(tmp_path, [100.0, 110.0, 2000.0] + income[3:])
    with pytest.raises(RecipeError) as info:
        validate(write_recipe(RECIPE))
    assert any("gv2" in p.message for p in info.value.problems), info.value.problems
