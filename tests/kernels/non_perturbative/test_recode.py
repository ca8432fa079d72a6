"""Interval and category recoding kernels (sdcflow.kernels.non_perturbative.recode)."""

import numpy as np
import pytest

from sdcflow.kernels.non_perturbative.recode import (
    category_mapping,
    hierarchy_mapping,
    interval_codes,
    interval_labels,
)

BREAKS = [0, 9, 19, 130]


def test_right_closed_without_lowest_as_sdcmicro():
    x = np.array([0, 1, 9, 10, 19, 20, 130, 131, np.nan])
    assert interval_codes(x, BREAKS, right=True, include_lowest=False).tolist() == \
        [-1, 0, 0, 1, 1, 2, 2, -1, -1]


def test_right_closed_with_lowest():
    x = np.array([0, 9, 10])
    assert interval_codes(x, BREAKS, right=True, include_lowest=True).tolist() == [0, 0, 1]


def test_left_closed():
    x = np.array([0, 9, 19, 130])
    assert interval_codes(x, BREAKS, right=False, include_lowest=False).tolist() == [0, 1, 2, -1]
    assert interval_codes(x, BREAKS, right=False, include_lowest=True).tolist() == [0, 1, 2, 2]


def test_sdcmicro_globalrecode_cutoff_example():
    # sdcMicro tests/testthat/test_globalRecode.R: Var1 (set.seed(3); runif) cut at
    # c(0,30,60,90) gives levels A,C,B,B,C,C,A,B,B,C
    var1 = [17.63611, 80.94412, 39.10929, 33.44570, 60.60797, 60.83501, 13.33871, 30.16549,
            58.18338, 63.46695]
    codes = interval_codes(np.array(var1), [0, 30, 60, 90], include_lowest=False)
    assert "".join("ABC"[c] for c in codes) == "ACBBCCABBC"


def test_labels_in_r_style():
    assert interval_labels([0, 9, 19.5]) == ["[0,9]", "(9,19.5]"]
    assert interval_labels([0, 9, 19], include_lowest=False) == ["(0,9]", "(9,19]"]
    assert interval_labels([0, 9, 19], right=False) == ["[0,9)", "[9,19]"]


def test_category_merging_as_group_and_rename():
    # seed 004: groupAndRename(water, before=levels, after=c("1",...,"5","6-9","6-9","6-9"))
    levels = ["1", "2", "3", "4", "5", "6", "7", "9"]
    assert category_mapping(levels, {"6-9": ["6", "7", "9"]}) == {"6": "6-9", "7": "6-9",
                                                                  "9": "6-9"}


def test_hierarchy_levels():
    levels = {"region": {"m1": "north", "m2": "north", "m3": "south"},
              "country": {"north": "NL", "south": "NL"}}
    assert hierarchy_mapping(levels, "region") == {"m1": "north", "m2": "north", "m3": "south"}
    assert hierarchy_mapping(levels, "country") == {"m1": "NL", "m2": "NL", "m3": "NL"}


def test_width_breaks_refuses_too_many_intervals_before_allocating():
    # (100 - 0) / 1e-300 = 1e302 intervals: a MemoryError (or hours) before
    from sdcflow.kernels.non_perturbative.recode import width_breaks, width_count

    assert width_count(np.array([0.0, 100.0]), 1e-300) == (0.0, pytest.approx(1e302))
    with pytest.raises(ValueError, match="makes 1e\\+302 intervals, more than 1e\\+06"):
        width_breaks(np.array([0.0, 100.0]), 1e-300, max_intervals=1e6)
    # 0, 10, ..., 100: eleven intervals [0, 10) ... [100, 110)
    assert len(width_breaks(np.array([0.0, 100.0]), 10, max_intervals=11)[1]) == 11
