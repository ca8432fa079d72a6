"""Checks over measure results, evaluated exactly (sdcflow.constraints.checks)."""

import numpy as np
import pytest

from sdcflow import run
from sdcflow.constraints import ExprError, parse
from sdcflow.constraints.checks import check_value, expression_value

RESULTS = {
    "risk": {"violations": {"2": 106, "3": 171, "5": 316}, "percent": 2.5,
             "fk": [1, 2, 3], "n": np.int64(4580)},
    "odd": {"nan": float("nan"), "none": None, "text": "x"},
}


def value(text):
    return check_value(parse(text, subscripts=True, condition=False), RESULTS)


@pytest.mark.parametrize("text, expected", [
    # exact integers (Python's are the reference); NumPy made 2**64 -> 0 and
    # 10**19 -> -8446744073709551616, so these checks failed
    ("risk.violations[2] <= 2**64", True),
    ("risk.violations[3] + 10**19 > 10**19", True),
    ("risk.violations[2] < " + "9" * 400, True),
    ("10**400 + 1 > 10**400", True),
    # integer and text keys are the same; attributes, subscripts, NumPy scalars
    ("risk.violations['5'] == 316", True),
    ("risk.n == 4580", True),
    ("risk.fk[2] == 3 and max(risk.fk) == 3 and min(risk.fk) == 1", True),
    ("risk.percent / 2 == 1.25", True),
    ("risk.violations[3] in [171, 5]", True),
    ("0 < risk.percent < 2", False),
    ("not risk.percent > 3", True),
    ("odd.text == 'x'", True),
    # decimals are exact binary fractions: as with floats, 0.1 + 0.2 is not 0.3
    ("0.1 + 0.2 == 0.3", False),
])
def test_values(text, expected):
    assert value(text) == expected


def test_arithmetic_results_are_numbers():
    assert value("risk.percent / 2") == 1.25 and isinstance(value("risk.percent / 2"), float)
    assert value("2**64") == 18446744073709551616
    assert value("risk.violations[2] * 3") == 318


@pytest.mark.parametrize("text, error, message", [
    ("risk.nope > 0", KeyError, "no 'nope' in the result (it has: violations, percent, fk, n)"),
    ("risk.fk[5] > 0", IndexError, "no item [5] in 'risk.fk' (it has 3 items)"),
    ("risk.percent.x > 0", TypeError, "cannot look up 'x' in float"),
    ("odd.none < 3", ValueError, "a value in the check is missing (null)"),
    ("odd.nan < 3", ExprError, "'odd.nan' is not a number (NaN)"),
    ("odd.nan + 1 > 0", ExprError, "'odd.nan' is not a number (NaN)"),
    ("odd.text + 1 > 0", TypeError, "'odd.text' is str, not a number"),
    ("risk.violations[2] / (risk.fk[0] - 1) > 0", ExprError,
     "risk.violations[2] / (risk.fk[0] - 1): division by zero"),
    ("log(risk.fk[0] - 1) > 0", ExprError, "the logarithm of 0 is undefined"),
    ("risk.percent * 1e308 * 10", ExprError, "too large for a 64-bit floating-point number"),
])
def test_what_has_no_value_is_refused_with_a_message(text, error, message):
    with pytest.raises(error) as info:
        value(text)
    assert message in str(info.value)


def test_expression_value_parses_the_text():
    assert expression_value("(risk.violations[2] + risk.violations[3]) / 2", RESULTS) == 138.5


def test_a_check_with_big_constants_runs_exactly(write_recipe, tmp_path):
    # end to end: the check's 2**64 was 0 in the engine's NumPy arithmetic, so the
    # release was refused (exit 3); 10**19 was negative
    recipe = write_recipe("""
        sdcflow: 1
        name: exact-checks
        seed: 1
        data: {builtin: francdat}
        variables:
          Key1: {role: key}
          Key2: {role: key}
        steps:
          - {id: risk, measure: k_anonymity, params: {k: 2}}
        checks:
          - "risk.violations[2] < 2**64"
          - "risk.violations[2] - 10**19 < 0"
        """)
    result = run(recipe, tmp_path / "out", write=False)
    assert [c["passed"] for c in result.checks] == [True, True]
