"""Generated generalisation hierarchies, by hand."""

import numpy as np
import pytest

from sdcflow.kernels.non_perturbative.hierarchies import (
    HierarchyError,
    hierarchy_maps,
    interval_levels,
    mask_levels,
    width_levels,
    with_top,
)


def test_masking_replaces_trailing_characters():
    assert mask_levels(["123", "45"]) == [["12*", "4*"], ["1**", "**"], ["***", "**"]]
    assert mask_levels(["123", "45"], 1) == [["12*", "4*"]]


def test_widths_double_and_nest():
    # width 10: 20-29, 30-39; width 20 from 0: 20-39 for all
    assert width_levels(np.array([21, 23, 34]), 10, 2, integer=True) == [
        ["20-29", "20-29", "30-39"], ["20-39", "20-39", "20-39"]]
    assert width_levels(np.array([0.5, 2.6]), 2.5, 1) == [["[0,2.5)", "[2.5,5)"]]
    # a class below zero: "-10 to -1" (not "-10--1"), and so every class at every level
    assert width_levels(np.array([-3, 4]), 5, 2, integer=True) == [
        ["-5 to -1", "0 to 4"], ["-10 to -1", "0 to 9"]]


def test_breaks_per_level():
    assert interval_levels(np.array([5, 50, 100]), [[0, 10, 100], [0, 100]]) == [
        ["[0,10)", "[10,100]", "[10,100]"], ["[0,100]", "[0,100]", "[0,100]"]]
    with pytest.raises(HierarchyError, match="150 lies outside the breaks of level 1"):
        interval_levels(np.array([150]), [[0, 100]])


def test_maps_number_codes_by_first_appearance_and_check_nesting():
    maps, names = hierarchy_maps([["a", "b", "c"], ["x", "x", "y"], ["*", "*", "*"]])
    assert maps.tolist() == [[0, 1, 2], [0, 0, 1], [0, 0, 0]]
    assert names == [["a", "b", "c"], ["x", "y"], ["*"]]
    with pytest.raises(HierarchyError, match="'x' would become both 'p' and 'q'"):
        hierarchy_maps([["a", "b"], ["x", "x"], ["p", "q"]])


def test_top_level_added_once():
    assert with_top([["a", "b"]]) == [["a", "b"], ["*", "*"]]
    assert with_top([["a", "b"], ["x", "x"]]) == [["a", "b"], ["x", "x"]]
