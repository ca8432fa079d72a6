"""Edit constraints of seed 001_84b47752373bceeb.txt: kinds and violations."""

import pandas as pd
import pytest

from sdcflow.constraints import Constraint
from sdcflow.data.text import TEXT


@pytest.mark.parametrize("spec, kind", [
    ({"expr": "net + tax == gross"}, "linear"),                  # EC-LC1
    ({"expr": "price * (1 + vat) == retail"}, "nonlinear"),      # EC-NLC1
    ({"expr": "wage_sum == hours * rate"}, "nonlinear"),         # EC-NLC2
    ({"expr": "0 <= age <= 125"}, "range"),                      # EC-PV
    ({"expr": "harvested <= planted"}, "inequality"),            # EC-GV3
    ({"if": "sex == 'male'", "then": "pregnancies == 0"}, "conditional"),  # EC-GV1
    ({"domain": ["age"]}, "domain"),
])
def test_kinds_follow_the_seed_classification(spec, kind):
    assert Constraint.from_recipe({"id": "c", **spec}).kind == kind


FRAME = pd.DataFrame({
    "net": [10.0, 20.0, 5.0, None],
    "tax": [2.0, 3.0, 1.0, 1.0],
    "gross": [12.0, 23.0, 7.0, 3.0],
    "sex": pd.Series(["male", "female", "male", "male"], dtype=TEXT),
    "pregnancies": pd.Series([0, 2, 1, 0], dtype="Int64"),
    "age": pd.Series([30, 130, 12, 40], dtype="Int64"),
})


def test_linear_violation_counts_and_missing_not_checked():
    c = Constraint.from_recipe({"id": "c", "expr": "net + tax == gross"})
    assert c.violations(FRAME) == {"kind": "linear", "applicable": True, "violations": 1,
                                   "not_checked": 1, "first_records": [3]}


def test_conditional_violation():
    c = Constraint.from_recipe({"id": "c", "if": "sex == 'male'", "then": "pregnancies == 0"})
    assert c.violations(FRAME)["first_records"] == [3]


def test_range_violation():
    c = Constraint.from_recipe({"id": "c", "expr": "0 <= age <= 125"})
    assert c.violations(FRAME)["first_records"] == [2]


def test_domain_is_checked_against_the_original():
    c = Constraint.from_recipe({"id": "c", "domain": "age"})
    protected = FRAME.assign(age=pd.Series([30, 50, 12, 40], dtype="Int64"))
    assert c.violations(protected, FRAME)["first_records"] == [2]  # 50 never occurs originally
    assert c.violations(FRAME, FRAME)["violations"] == 0


def test_constraint_on_recoded_variable_is_reported_not_applicable():
    c = Constraint.from_recipe({"id": "c", "expr": "0 <= age <= 125"})
    recoded = FRAME.assign(age=pd.Series(["20-29"] * 4, dtype=TEXT))
    result = c.violations(recoded)
    assert result["applicable"] is False and result["violations"] == 0
