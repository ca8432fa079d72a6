"""Exact arithmetic on single numbers (sdcflow.constraints.exact)."""

import ast
import math
import operator
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdcflow.constraints.exact import (
    MAX_BITS,
    Unrepresentable,
    apply_binary,
    apply_function,
    as_number,
    shown,
    to_float,
)

OPS = {"+": ast.Add(), "-": ast.Sub(), "*": ast.Mult(), "/": ast.Div(), "//": ast.FloorDiv(),
       "%": ast.Mod(), "**": ast.Pow()}


def test_integers_are_exact_at_any_size():
    # NumPy's int64 gives 2**64 -> 0 and 10**19 -> -8446744073709551616; Python's
    # integers are the exact values
    assert apply_binary(OPS["**"], 2, 64) == 18446744073709551616
    assert apply_binary(OPS["**"], 10, 19) == 10_000_000_000_000_000_000
    assert apply_binary(OPS["+"], 10 ** 400, 1) - 10 ** 400 == 1


def test_quotients_and_decimals_are_exact_fractions():
    third = apply_binary(OPS["/"], 1, 3)
    assert third == Fraction(1, 3) and apply_binary(OPS["*"], third, 3) == 1
    # a decimal literal is the binary fraction the float holds, exactly
    assert as_number(0.1) == Fraction(3602879701896397, 36028797018963968)
    assert to_float(third) == 1 / 3  # rounded once, as Python rounds int / int


@pytest.mark.parametrize("op, a, b, message", [
    ("**", 2, 10 ** 10, "too large to compute exactly (about 3010299957 digits"),
    ("**", Fraction(1, 2), -10 ** 6, "too large to compute exactly"),
    ("/", 1, 0, "division by zero"),
    ("//", Fraction(1, 2), 0, "division by zero"),
    ("%", 7, 0, "division by zero"),
    ("**", 0, -1, "division by zero"),
    ("**", -8, Fraction(1, 2), "a negative number to a fractional power has no real value"),
    ("*", 2 ** 4000, 2 ** 100, f"more than {MAX_BITS} bits"),
])
def test_what_cannot_be_computed_exactly_is_refused(op, a, b, message):
    with pytest.raises(Unrepresentable, match=message.replace("(", r"\(").replace("*", r"\*")):
        apply_binary(OPS[op], a, b)


def test_powers_of_zero_and_one_need_no_size_check():
    assert apply_binary(OPS["**"], 1, 10 ** 100) == 1
    assert apply_binary(OPS["**"], -1, 10 ** 100 + 1) == -1
    assert apply_binary(OPS["**"], 0, 10 ** 100) == 0


@pytest.mark.parametrize("name, args, message", [
    ("log", [0], "the logarithm of 0 is undefined"),
    ("sqrt", [-1], "the square root of the negative number -1 is not real"),
    ("exp", [1000], "too large for a 64-bit floating-point number"),
])
def test_functions_refuse_what_has_no_finite_real_value(name, args, message):
    with pytest.raises(Unrepresentable, match=message):
        apply_function(name, args)


def test_functions():
    assert apply_function("sqrt", [16]) == 4                      # perfect square: exact
    assert apply_function("log", [10 ** 400]) == pytest.approx(400 * math.log(10))
    assert apply_function("round", [Fraction(5, 2)]) == 2         # half to even
    assert apply_function("max", [[3, 9, 4]]) == 9
    assert apply_function("min", [2, Fraction(3, 2)]) == Fraction(3, 2)


def test_nan_infinity_and_text_are_not_numbers():
    with pytest.raises(Unrepresentable, match="not a number"):
        as_number(float("nan"))
    with pytest.raises(Unrepresentable, match="infinite"):
        as_number(float("inf"))
    with pytest.raises(TypeError, match="str, not a number"):
        as_number("12")
    with pytest.raises(Unrepresentable, match="too large for a 64-bit floating-point"):
        to_float(10 ** 400)


def test_long_numbers_are_abbreviated_in_messages():
    assert shown(10 ** 399 * 9) == "900000...000 (400 digits)"
    assert shown(Fraction(1, 4)) == "0.25"


@given(st.integers(-10 ** 30, 10 ** 30), st.integers(-10 ** 30, 10 ** 30),
       st.sampled_from(["+", "-", "*", "//", "%"]))
def test_integer_arithmetic_is_pythons(a, b, op):
    # Python's integers are exact: the reference for every integer result
    if op in ("//", "%") and b == 0:
        return
    python = {"+": operator.add, "-": operator.sub, "*": operator.mul,
              "//": operator.floordiv, "%": operator.mod}[op]
    assert apply_binary(OPS[op], a, b) == python(a, b)
