"""Household helpers (sdcflow.data.households): numbering, consistency, collapse/expand,
spreading suppressions, new ids. Expected values worked by hand."""

import numpy as np
import pandas as pd

from sdcflow.data.households import (
    collapse,
    consistency_problems,
    expand,
    first_members,
    household_units,
    inconsistent,
    new_ids,
    spread_missing,
)

IDS = pd.Series(["h7", "h7", "h2", None, "h7", "h2", None], dtype="str")


def test_households_are_numbered_in_order_of_first_appearance():
    units, count = household_units(IDS)
    # h7 -> 0, h2 -> 1, each record without an id a household of its own (2, 3)
    assert units.tolist() == [0, 0, 1, 2, 0, 1, 3] and count == 4
    assert first_members(units, count).tolist() == [0, 2, 3, 6]


def test_inconsistent_households_count_a_missing_value_as_a_value():
    units, count = household_units(IDS)
    values = pd.Series(["a", "a", "b", "c", None, "b", "d"], dtype="str")
    # h7 has a, a and missing: inconsistent; h2 has b, b; the lone records are alone
    assert inconsistent(units, count, values).tolist() == [True, False, False, False]


def test_consistency_problems_name_households_and_records():
    frame = pd.DataFrame({"hid": IDS, "water": pd.Series(["1", "2", "3", "4", "1", "3", "5"],
                                                         dtype="str")})
    found = consistency_problems(frame, "hid", ["water"], is_csv=True)
    assert found == {"water": "column 'water' is declared household-level (level: household) "
                              "but differs between members of 1 household (hid h7; records "
                              "1 (line 2), 2 (line 3), 5 (line 6))"}


def test_collapse_and_expand_are_the_household_file_and_its_merge():
    units, count = household_units(IDS)
    frame = pd.DataFrame({"walls": ["x", "x", "y", "z", "x", "y", "w"]})
    once = collapse(frame, units, count)
    assert once["walls"].tolist() == ["x", "y", "z", "w"]
    once["walls"] = ["X", "Y", "Z", "W"]
    assert expand(once, units)["walls"].tolist() == ["X", "X", "Y", "Z", "X", "Y", "W"]


def test_a_suppression_spreads_to_the_whole_household():
    units, count = household_units(IDS)
    codes = np.array([[0, 1], [0, 1], [2, -1], [3, 1], [-1, 1], [2, 0], [4, 4]])
    spread = spread_missing(codes, units, count)
    # column 0: h7's third member was suppressed -> all of h7; column 1: h2's first
    assert spread[:, 0].tolist() == [-1, -1, 2, 3, -1, 2, 4]
    assert spread[:, 1].tolist() == [1, 1, -1, 1, 1, -1, 4]


def test_new_ids_number_households_in_order_of_first_appearance():
    # h7 first, then h2; no random draw (a seeded one would give the seed away)
    units, count = household_units(IDS)
    ids = new_ids(units, count, IDS.isna().to_numpy())
    assert ids.tolist() == ["1", "1", "2", None, "1", "2", None]
