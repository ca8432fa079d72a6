"""The report's one order of categories (sdcflow.report.order): declared order of an
ordinal, numbers by value, class labels by the numbers they bound, text, missing last."""

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.report.order import MISSING, bounds, ordered, tree_order


def test_recode_labels_in_the_order_of_their_bounds():
    # the example: drawn as text they came out "9-11, 12, 13-15, 16+, <=8"
    assert ordered(["9-11", "12", "13-15", "16+", "<=8"]) == [
        "<=8", "9-11", "12", "13-15", "16+"]
    # numbers by value, not as text ("10" after "9"); missing last, text after numbers
    assert ordered(["10", MISSING, "9", "other", "1-9", "0"]) == [
        "0", "1-9", "9", "10", "other", MISSING]
    # R's interval labels and classes below zero
    assert ordered(["(9,19]", "[0,9]", "-10 to -1", "(19,130]"]) == [
        "-10 to -1", "[0,9]", "(9,19]", "(19,130]"]


def test_bounds_of_each_shape_of_label():
    assert bounds("12") == (12, 12)
    assert bounds("9-11") == (9, 11)
    assert bounds("-10--1") == (-10, -1)
    assert bounds("-10 to -1") == (-10, -1)
    assert bounds("<=8") == (-math.inf, 8)
    assert bounds("16+") == (16, math.inf)
    assert bounds(">= 65") == (65, math.inf)
    assert bounds("(0,9.5]") == (0, 9.5)
    assert bounds("urban") is None and bounds("nan") is None


def test_the_declared_order_of_an_ordinal_comes_first():
    assert ordered(["high", "low", MISSING, "mid", "unknown"], ["low", "mid", "high"]) == [
        "low", "mid", "high", "unknown", MISSING]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-50, 50), min_size=1, max_size=20, unique=True))
def test_whole_numbers_come_out_in_numeric_order(values):
    assert ordered([str(v) for v in values]) == [str(v) for v in sorted(values)]


def test_tree_order_sorts_siblings_and_keeps_the_hierarchy():
    # post-order as tables hold a dimension: leaves of A (text-sorted: 10 before 2), A,
    # leaves of B, B, the total
    codes = ["1", "10", "2", "A", "11", "3", "B", "Total"]
    depths = [2, 2, 2, 1, 2, 2, 1, 0]
    assert tree_order(codes, depths) == ["1", "2", "10", "A", "3", "11", "B", "Total"]
    # a flat dimension: categories then the total
    assert tree_order(["10", "9", "<=8", "Total"], [1, 1, 1, 0]) == [
        "<=8", "9", "10", "Total"]
    # not a post-order (the total first): the caller keeps the table's order
    assert tree_order(["Total", "2", "1"], [0, 1, 1]) is None
