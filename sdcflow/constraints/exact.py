"""Exact arithmetic on single numbers, for the constants of expressions and for checks.

Numbers are Python ``int`` (integers, exact at any size) and :class:`fractions.Fraction`
(every other real number: quotients and decimal literals, which are binary fractions and
converted exactly). The two kinds follow Python's: ``int`` stays ``int`` under ``+ - *
// %`` and non-negative powers, ``/`` and anything involving a decimal number gives the
other kind. Nothing is rounded except ``sqrt``, ``log``, ``exp`` and fractional powers,
computed in IEEE double precision (their results are irrational in general).

What cannot be computed exactly within reason is refused with :class:`Unrepresentable`
before it is computed: numbers beyond :data:`MAX_BITS` bits (``2**10**10`` would need
ten billion bits), division by zero, real powers of negative numbers, logarithms of
non-positive numbers, and results too large for a 64-bit float where one is needed.
"""

from __future__ import annotations

import ast
import math
import sys
from fractions import Fraction

import numpy as np

__all__ = ["MAX_BITS", "Number", "Unrepresentable", "apply_binary", "apply_function",
           "as_number", "negate", "shown", "to_float"]

Number = int | Fraction
MAX_BITS = 4096  # about 1233 decimal digits: far beyond any data, cheap to compute with
_FLOAT_MAX = Fraction(sys.float_info.max)


class Unrepresentable(ValueError):
    """A number that cannot be represented exactly (or at all) in the arithmetic used."""


def shown(value) -> str:
    """A number as messages show it: long integers abbreviated with their digit count."""
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return shown(value.numerator)
        if value.numerator.bit_length() <= 1100 and value.denominator.bit_length() <= 1100:
            return repr(float(value)) if abs(value) <= _FLOAT_MAX else f"{float(value):g}"
        return f"a fraction of {_digits(max(value.numerator, value.denominator))} digits"
    if isinstance(value, int) and not isinstance(value, bool):
        digits = _digits(value)
        if digits > 24:
            text = str(abs(value))
            return f"{'-' if value < 0 else ''}{text[:6]}...{text[-3:]} ({digits} digits)"
    return str(value)


def _digits(n: int) -> int:
    return len(str(abs(n))) if abs(n).bit_length() < 13000 else \
        int(abs(n).bit_length() * math.log10(2)) + 1


def as_number(value, what: str = "a value") -> Number:
    """``value`` (a Python or NumPy number, bool included) as an exact number; text,
    containers, missing values and NaN are refused with a :class:`TypeError` or
    :class:`ValueError` naming ``what``."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None:
        raise ValueError("a value in the check is missing (null)")
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, Fraction)):
        _check_size(value)
        return value
    if isinstance(value, float):
        if math.isnan(value):
            raise Unrepresentable(f"{what} is not a number (NaN)")
        if math.isinf(value):
            raise Unrepresentable(f"{what} is infinite")
        return Fraction(value)
    raise TypeError(f"{what} is {type(value).__name__}, not a number")


def _check_size(value: Number) -> Number:
    if isinstance(value, Fraction):
        bits = max(value.numerator.bit_length(), value.denominator.bit_length())
    else:
        bits = value.bit_length()
    if bits > MAX_BITS:
        raise Unrepresentable(f"the number {shown(value)} is too large (more than "
                              f"{MAX_BITS} bits, about {int(MAX_BITS * math.log10(2))} "
                              "digits)")
    return value


def to_float(value: Number) -> float:
    """The nearest 64-bit float (as a decimal literal is read); refused when it would be
    infinite."""
    if abs(value) > _FLOAT_MAX:
        raise Unrepresentable(f"{shown(value)} is too large for a 64-bit floating-point "
                              f"number (at most {sys.float_info.max:.4g})")
    return float(value)


def _from_float(x: float, what: str) -> Fraction:
    if math.isnan(x) or math.isinf(x):
        raise Unrepresentable(f"{what} has no finite value")
    return Fraction(x)


def negate(a: Number) -> Number:
    return -a


def apply_binary(op: ast.operator, a: Number, b: Number) -> Number:
    """``a op b`` exactly, for the operators of the expression language."""
    if isinstance(op, ast.Add):
        return _check_size(a + b)
    if isinstance(op, ast.Sub):
        return _check_size(a - b)
    if isinstance(op, ast.Mult):
        return _check_size(a * b)
    if isinstance(op, ast.Pow):
        return _power(a, b)
    if b == 0:
        raise Unrepresentable("division by zero")
    if isinstance(op, ast.Div):
        return _check_size(Fraction(a) / b)
    if isinstance(op, ast.FloorDiv):
        result = a // b  # an int for ints and for fractions alike
        return result if isinstance(a, int) and isinstance(b, int) else Fraction(result)
    if isinstance(op, ast.Mod):
        return _check_size(a % b)
    raise Unrepresentable(f"the operator {type(op).__name__} is not supported")


def _power(base: Number, exponent: Number) -> Number:
    integral = isinstance(exponent, int) or exponent.denominator == 1
    if not integral:
        return _real_power(base, exponent)
    n = int(exponent)
    if base == 0:
        if n < 0:
            raise Unrepresentable("division by zero (0 to a negative power)")
        result: Number = 1 if n == 0 else 0
    elif abs(base) == 1:
        result = base if n % 2 else abs(base)
        result = Fraction(result) if n < 0 else result
    else:
        size = max(abs(Fraction(base).numerator), Fraction(base).denominator)
        bits = abs(n) * math.log2(size) if abs(n).bit_length() < 1000 else math.inf
        if bits > MAX_BITS:
            digits = shown(int(bits * math.log10(2)) + 1) if math.isfinite(bits) else "infinitely"
            raise Unrepresentable(
                f"{shown(base)} ** {shown(n)} is too large to compute exactly (about {digits} "
                f"digits; numbers are limited to {MAX_BITS} bits, about "
                f"{int(MAX_BITS * math.log10(2))} digits)")
        result = Fraction(base) ** n if n < 0 else base ** n
    if isinstance(base, Fraction) or isinstance(exponent, Fraction):
        result = Fraction(result)
    return _check_size(result)


def _real_power(base: Number, exponent: Fraction) -> Fraction:
    if base < 0:
        raise Unrepresentable("a negative number to a fractional power has no real value")
    if base == 0:
        if exponent < 0:
            raise Unrepresentable("division by zero (0 to a negative power)")
        return Fraction(0)
    try:
        result = math.exp(to_float(exponent) * _log(base))
    except OverflowError:
        raise Unrepresentable(f"{shown(base)} ** {shown(exponent)} is too large for a 64-bit "
                              "floating-point number") from None
    return _from_float(result, f"{shown(base)} ** {shown(exponent)}")


def _log(x: Number) -> float:
    if x <= 0:
        raise Unrepresentable(f"the logarithm of {shown(x)} is undefined (only numbers > 0 have one)")
    if isinstance(x, int):
        return math.log(x)  # exact-argument log of integers of any size
    return math.log(x.numerator) - math.log(x.denominator)


def apply_function(name: str, args: list) -> Number:
    """The functions of the expression language on exact numbers (``min``/``max`` of
    one argument, ``mean``, ``sum``, ``median`` and ``count`` take a list of numbers)."""
    if name in ("min", "max"):
        pick = min if name == "min" else max
        if len(args) == 1:
            if not isinstance(args[0], (list, tuple)) or not args[0]:
                raise TypeError(f"{name}() of one argument needs a non-empty list of numbers")
            args = [as_number(v, f"an item of the list given to {name}()") for v in args[0]]
        value = pick(args)
        # like NumPy, mixing kinds gives the decimal kind
        return Fraction(value) if any(isinstance(a, Fraction) for a in args) else value
    if name in ("mean", "sum", "median", "count"):
        if len(args) != 1 or not isinstance(args[0], (list, tuple)):
            raise TypeError(f"{name}() of a result needs a list of numbers")
        if name == "count":
            return len(args[0])
        if not args[0]:
            raise Unrepresentable(f"{name}() of an empty list")
        values = sorted(as_number(v, f"an item of the list given to {name}()") for v in args[0])
        if name == "median":
            middle = Fraction(values[(len(values) - 1) // 2] + values[len(values) // 2], 2)
            return int(middle) if all(isinstance(v, int) for v in values) \
                and middle.denominator == 1 else middle
        total = _check_size(sum(values))
        if name == "sum":
            return total
        mean = Fraction(total, len(values))
        return int(mean) if isinstance(total, int) and mean.denominator == 1 else mean
    if len(args) != 1:
        raise TypeError(f"{name}() takes one argument ({len(args)} given)")
    x = args[0]
    if name == "abs":
        return abs(x)
    if name == "round":  # half to even, as Python's round and NumPy's round
        return Fraction(round(x)) if isinstance(x, Fraction) else x
    if name == "sqrt":
        if x < 0:
            raise Unrepresentable(f"the square root of the negative number {shown(x)} is not "
                                  "real")
        if isinstance(x, int) and math.isqrt(x) ** 2 == x:
            return Fraction(math.isqrt(x))
        return _from_float(math.sqrt(to_float(x)), f"sqrt({shown(x)})")
    if name == "log":
        return Fraction(_log(x))
    if name == "exp":
        try:
            return _from_float(math.exp(to_float(x)), f"exp({shown(x)})")
        except OverflowError:
            raise Unrepresentable(f"exp({shown(x)}) is too large for a 64-bit floating-point "
                                  "number") from None
    raise Unrepresentable(f"unknown function '{name}'")
