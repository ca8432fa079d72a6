"""Constraints over columns: 64-bit arithmetic that is exact or refused
(sdcflow.constraints.columns)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdcflow.constraints import Constraint, ExprError, column_values, evaluate, parse

BIG = 2 ** 62


def test_integer_overflow_is_refused_with_the_records():
    # NumPy's int64 multiply wraps: 2**62 * 4 == 0, so "a * 4 > 0" would be False for
    # record 1 without a word
    a = np.array([BIG, 1, -BIG, 5], dtype=np.int64)
    with pytest.raises(ExprError) as info:
        evaluate(parse("a * 4 > 0"), {"a": a})
    assert str(info.value) == ("a * 4: overflows 64-bit integers in 2 records "
                               "(records 1, 3)")


@pytest.mark.parametrize("text", ["a + a > 0", "a - (-a) > 0", "-a - a - 1 < 0", "a ** 2 > 0",
                                  "abs(a * 2) > 0", "a * a > 0"])
def test_each_integer_operation_detects_overflow(text):
    with pytest.raises(ExprError, match="overflows 64-bit integers in 1 record "):
        evaluate(parse(text), {"a": np.array([3, BIG], dtype=np.int64)})


def test_integers_beyond_float_precision_compare_exactly():
    # 2**53 + 1 is not a float64: as floats (the former evaluation) both comparisons held
    a = np.array([2 ** 53 + 1], dtype=np.int64)
    assert evaluate(parse("a == 9007199254740993"), {"a": a}).tolist() == [True]
    assert evaluate(parse("a == 9007199254740992"), {"a": a}).tolist() == [False]
    # and an integer sum near the int64 limit stays exact
    b = np.array([2 ** 62 - 1], dtype=np.int64)
    assert evaluate(parse("b + b - 1 == 9223372036854775805"), {"b": b}).tolist() == [True]


def test_integers_a_float_cannot_hold_are_refused_in_float_arithmetic():
    a = np.array([1, 2 ** 53 + 1], dtype=np.int64)
    with pytest.raises(ExprError, match="integers beyond 2\\*\\*53 cannot be represented "
                                        "exactly .* in 1 record \\(record 2\\)"):
        evaluate(parse("a / 2 >= 0"), {"a": a})
    with pytest.raises(ExprError, match="9007199254740993 cannot be represented exactly"):
        evaluate(parse("x < 9007199254740993"), {"x": np.array([1.0])})


def test_float_overflow_and_division_by_zero_are_refused_with_the_records():
    x = np.array([1.0, 1e10, 2.0])
    with pytest.raises(ExprError, match="x \\* 1e\\+300: overflows 64-bit floating point .* "
                                        "in 1 record \\(record 2\\)"):
        evaluate(parse("x * 1e300 > 0"), {"x": x})
    y = np.array([1.0, 2.0, 0.0])
    with pytest.raises(ExprError, match="x / y: division by zero in 1 record \\(record 3\\)"):
        evaluate(parse("x / y <= 1"), {"x": x, "y": y})
    with pytest.raises(ExprError, match="log\\(x - 1\\): the logarithm .*\\(record 1\\)"):
        evaluate(parse("log(x - 1) >= 0"), {"x": x})
    with pytest.raises(ExprError, match="square root of a negative number .*\\(record 1\\)"):
        evaluate(parse("sqrt(x - 2) >= 0"), {"x": x})


def test_records_with_missing_values_are_never_the_reason_of_a_refusal():
    x = np.array([1.0, np.nan, 4.0])
    y = np.array([2.0, 0.0, 4.0])
    assert evaluate(parse("x / y <= 1"), {"x": x, "y": y}).tolist() == [True, False, True]


def test_constants_must_fit_the_arithmetic_of_constraints():
    # at validation, with the recipe position of the constant
    with pytest.raises(ExprError) as info:
        Constraint.from_recipe({"id": "c", "expr": "age <= 10**19"})
    assert info.value.offset == 7 and info.value.field == "expr"
    assert str(info.value) == (
        "10 ** 19: 10000000000000000000 does not fit in 64-bit integers "
        "(-9223372036854775808 to 9223372036854775807), the arithmetic of integer "
        "columns; to compare with decimal numbers write it as one, e.g. 1e+19")
    with pytest.raises(ExprError, match="400 digits\\) does not fit in 64-bit integers "
                                        "\\(.*\\), the arithmetic of integer columns, nor in"):
        Constraint.from_recipe({"id": "c", "expr": "age <= " + "9" * 400})
    # 2.0 ** 64 is a float, held exactly: fine
    c = Constraint.from_recipe({"id": "c", "expr": "x < 2.0 ** 64"})
    frame = pd.DataFrame({"x": [1.0, 2.0 ** 64]})
    assert c.violations(frame)["first_records"] == [2]


FRAME = pd.DataFrame({
    "profit": [5.0, 1.0, 3.0, None],
    "turnover": [10.0, 0.0, 2.0, 0.0],
    "n": pd.Series([2 ** 62, 3, None, 1], dtype="Int64"),
})


def test_records_where_a_constraint_has_no_value_violate_it_and_say_why():
    # profit / turnover has no value in record 2 (division by zero): it cannot satisfy
    # the constraint (the former inf <= 1 was False too, but without a reason); record 4
    # has a missing profit: not checked, and not a division by zero
    c = Constraint.from_recipe({"id": "margin", "expr": "profit / turnover <= 1"})
    assert c.violations(FRAME) == {
        "kind": "inequality", "applicable": True, "violations": 2, "not_checked": 1,
        "first_records": [2, 3], "undefined": 1,
        "reason": "profit / turnover: division by zero in 1 record (record 2)"}
    c = Constraint.from_recipe({"id": "twice", "expr": "n * 2 >= n"})
    result = c.violations(FRAME)
    assert result["first_records"] == [1] and result["undefined"] == 1
    assert result["reason"] == "n * 2: overflows 64-bit integers in 1 record (record 1)"


def test_every_operation_that_has_no_value_is_found():
    # record 1 divides by zero, record 2 overflows the square: both are found (the
    # evaluation is repeated without the records already refused)
    frame = pd.DataFrame({"a": pd.Series([1, 2 ** 40, 3], dtype="Int64"),
                          "b": pd.Series([0, 1, 1], dtype="Int64")})
    c = Constraint.from_recipe({"id": "c", "expr": "a // b + a ** 2 >= 0"})
    result = c.violations(frame)
    assert result["first_records"] == [1, 2] and result["undefined"] == 2
    assert result["reason"] == "a // b: division by zero in 1 record (record 1)"


def test_conditional_consequence_is_evaluated_only_where_the_condition_holds():
    c = Constraint.from_recipe({"id": "margin", "if": "turnover != 0",
                                "then": "profit / turnover <= 1"})
    # record 3: 3 / 2 > 1 violates; records 2 and 4 have turnover 0 (record 4 also misses
    # profit): the consequence does not apply there
    assert c.violations(FRAME) == {"kind": "conditional", "applicable": True,
                                   "violations": 1, "not_checked": 1, "first_records": [3]}


def test_integer_columns_are_integer_arrays():
    values = column_values(pd.Series([1, None, 2 ** 62], dtype="Int64"))
    assert values.dtype == np.int64 and values.tolist() == [1, 0, 2 ** 62]
    assert column_values(pd.Series([1.5, None])).dtype == np.float64


@given(st.lists(st.integers(-2 ** 63, 2 ** 63 - 1), min_size=1, max_size=5),
       st.lists(st.integers(-2 ** 63, 2 ** 63 - 1), min_size=1, max_size=5),
       st.sampled_from(["+", "-", "*", "//", "%"]))
def test_integer_column_arithmetic_is_exact_or_refused(a, b, op):
    # Python's integers give the exact result; the evaluation must equal it or refuse
    n = min(len(a), len(b))
    a, b = np.array(a[:n], dtype=np.int64), np.array(b[:n], dtype=np.int64)
    exact = []
    for x, y in zip(a.tolist(), b.tolist()):
        if op in ("//", "%") and y == 0:
            exact.append(None)
        else:
            exact.append({"+": x + y, "-": x - y, "*": x * y,
                          "//": x // y if y else 0, "%": x % y if y else 0}[op])
    representable = all(v is not None and -2 ** 63 <= v < 2 ** 63 for v in exact)
    expr = parse(f"a {op} b == c")
    c = np.array([v if v is not None and -2 ** 63 <= v < 2 ** 63 else 0 for v in exact],
                 dtype=np.int64)
    try:
        result = evaluate(expr, {"a": a, "b": b, "c": c})
    except ExprError as exc:
        assert not representable, exc
    else:
        assert representable and result.tolist() == [True] * n


def test_a_twenty_thousand_term_constraint_is_a_validation_problem(write_recipe, capsys):
    # Python's parser overflowed its stack on it: "internal error: RecursionError" (exit 4)
    from sdcflow.cli import main

    terms = " + ".join(["age"] * 20_000)
    path = write_recipe(f"""
        sdcflow: 1
        name: long-sum
        seed: 1
        data: {{builtin: testdata}}
        variables:
          age: {{role: key, type: integer}}
        constraints:
          - {{id: sum, expr: "{terms} >= 0"}}
          - {{id: deep, expr: "{' + '.join(['age'] * 150)} >= 0"}}
        steps:
          - {{id: risk, measure: k_anonymity, params: {{k: 2}}}}
        """)
    assert main(["validate", str(path)]) == 1
    err = capsys.readouterr().err
    assert "recipe.yaml:8:21: constraints[0].expr: the expression is 120002 characters " \
           "long; at most 10000 are allowed" in err
    assert "recipe.yaml:9:22: constraints[1].expr: the expression is nested more than 100 " \
           "levels deep (a sum of n terms is n levels deep); split it" in err


def test_condition_holds_is_false_where_a_value_is_missing_or_undefined():
    # microaggregation partitions on the "if" of conditional constraints: a missing n
    # (an Int64 NA, 0 in the integer array) must not satisfy "n < 5", and record 2's
    # division by zero has no value
    c = Constraint.from_recipe({"id": "c", "if": "n < 5 and profit / turnover < 1",
                                "then": "profit >= 0"})
    frame = FRAME.assign(n=pd.Series([1, 2, None, 3], dtype="Int64"),
                         profit=[5.0, 1.0, 3.0, 0.0], turnover=[10.0, 0.0, 2.0, 1.0])
    assert c.condition_holds(frame).tolist() == [True, False, False, True]
