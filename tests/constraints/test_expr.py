"""The safe expression language (sdcflow.constraints.expr)."""

import ast

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.constraints import ExprError, evaluate, parse
from sdcflow.constraints.expr import MAX_DEPTH, MAX_LENGTH


def test_arithmetic_and_chained_comparison():
    expr = parse("0 <= age <= 125")
    assert expr.names == {"age"}
    result = evaluate(expr, {"age": np.array([-1.0, 0, 50, 125, 126])})
    assert result.tolist() == [False, True, True, True, False]


def test_equality_has_floating_point_tolerance():
    expr = parse("net + tax == gross")
    env = {"net": np.array([0.1, 1.0]), "tax": np.array([0.2, 1.0]), "gross": np.array([0.3, 2.5])}
    # 0.1 + 0.2 != 0.3 in binary floating point; the relative tolerance accepts it
    assert evaluate(expr, env).tolist() == [True, False]
    assert evaluate(expr, env, tolerance=0.5).tolist() == [True, True]


def test_text_columns_compare_with_text_form_of_numbers():
    expr = parse("sex == 1 and water in [6, 7]")
    env = {"sex": np.array(["1", "2", "1"], dtype=object),
           "water": np.array(["6", "6", "9"], dtype=object)}
    assert evaluate(expr, env).tolist() == [True, False, False]


def test_functions_and_dotted_names():
    expr = parse("abs(FIXED.ASSETS - 2) <= max(a, 1)")
    assert expr.names == {"FIXED.ASSETS", "a"}
    env = {"FIXED.ASSETS": np.array([0.0, 5.0]), "a": np.array([0.0, 2.0])}
    assert evaluate(expr, env).tolist() == [False, False]


@pytest.mark.parametrize("text, message", [
    ("__import__('os').system('x')", "unknown function '__import__('os').system'"),
    ("open('f')", "unknown function 'open'"),
    ("a.b()", "unknown function 'a.b'"),
    ("(lambda: 1)()", "unknown function 'lambda: 1'"),
    ("[x for x in y]", "not allowed"),
    ("a if b else c", "not allowed"),
    ("a[0]", "not allowed"),
    ("x in y", "'in' needs a list of constants"),
    ("a +* b", "syntax error"),
    ("", "empty expression"),
    ("f'{a}'", "not allowed"),
    ("a := 1", "syntax error"),
])
def test_anything_outside_the_whitelist_is_refused(text, message):
    with pytest.raises(ExprError) as info:
        parse(text)
    assert message in str(info.value)


def test_subscripts_only_for_checks():
    assert parse("risk.violations[3] == 0", subscripts=True).names == {"risk.violations"}
    with pytest.raises(ExprError):
        parse("risk.violations[3] == 0")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_random_text_never_escapes_as_another_exception(text):
    try:
        parse(text, subscripts=True)
    except ExprError:
        pass


# --- exact constants and size limits (reported by the release-integrity review) --------


def _constant(expr, text):
    """The folded value of the sub-expression written ``text``."""
    return next(v for node, v in expr.constants.items() if ast.unparse(node) == text)


def test_constant_sub_expressions_are_folded_exactly():
    # Python's exact integers are the reference; NumPy's int64 made 2**64 -> 0 and
    # 10**19 -> -8446744073709551616 (silently)
    expr = parse("x <= 2**64 + 10**19", condition=False)
    assert _constant(expr, "2 ** 64 + 10 ** 19") == 2 ** 64 + 10 ** 19
    assert _constant(parse("x == 1 / 3 * 3"), "1 / 3 * 3") == 1


@pytest.mark.parametrize("text, message, offset", [
    ("x <= 2**10**10", "2 ** 10 ** 10: 2 ** 10000000000 is too large to compute exactly", 5),
    ("x <= 1 / 0", "1 / 0: division by zero", 5),
    ("x / (1 - 1) <= 1", "x / (1 - 1): division by zero", 0),
    ("x <= (1 - 1) ** -1", "division by zero (0 to a negative power)", 5),
    ("x <= 10.0 ** 1000 * 10.0 ** 300", "is too large (more than 4096 bits", 5),
    ("x <= 1e400", "too large for a 64-bit floating-point number", 5),
    ("x <= log(0)", "log(0): the logarithm of 0 is undefined", 5),
    ("x <= (-8) ** 0.5", "a negative number to a fractional power has no real value", 5),
    ("x <= 'a' * 2", "'a' is text, not a number", 5),
])
def test_constants_that_cannot_be_computed_exactly_are_refused_at_parse(text, message, offset):
    with pytest.raises(ExprError) as info:
        parse(text)
    assert message in str(info.value) and info.value.offset == offset


def test_a_sum_of_twenty_thousand_terms_is_refused_with_a_message():
    # Python's parser overflows its stack on such a tree (RecursionError, "maximum
    # recursion depth exceeded during ast construction"): an internal error before
    with pytest.raises(ExprError, match=f"at most {MAX_LENGTH} are allowed"):
        parse(" + ".join(["x"] * 20_000) + " >= 0")
    with pytest.raises(ExprError, match="nested too deeply to be read"):
        parse("-" * 5_000 + "x >= 0")


def test_depth_limit():
    deepest = " + ".join(["x"] * (MAX_DEPTH - 1)) + " >= 0"   # Compare + 98 BinOps + Name
    assert parse(deepest).names == {"x"}
    with pytest.raises(ExprError, match=f"nested more than {MAX_DEPTH} levels deep"):
        parse("x + " + deepest)


_ATOMS = st.sampled_from(["x", "a.b", "0", "1", "2", "10", "64", "0.5", "1e308", "400",
                          "9" * 40, "'t'"])


@st.composite
def _arithmetic(draw, depth=0):
    if depth > 4 or draw(st.booleans()):
        return draw(_ATOMS)
    kind = draw(st.sampled_from(["bin", "neg", "call"]))
    if kind == "neg":
        return f"-({draw(_arithmetic(depth + 1))})"
    if kind == "call":
        name = draw(st.sampled_from(["abs", "sqrt", "log", "exp", "round", "min", "max"]))
        return f"{name}({draw(_arithmetic(depth + 1))})"
    op = draw(st.sampled_from(["+", "-", "*", "/", "//", "%", "**"]))
    return f"({draw(_arithmetic(depth + 1))}) {op} ({draw(_arithmetic(depth + 1))})"


@settings(max_examples=400, deadline=None)
@given(_arithmetic(), st.sampled_from(["<=", "==", "!="]), _arithmetic())
def test_arithmetic_on_any_numbers_parses_or_is_refused_never_crashes(left, op, right):
    # huge powers, zero divisors, overflows: every outcome is an Expr or an ExprError
    try:
        parse(f"{left} {op} {right}", subscripts=True)
    except ExprError:
        pass
