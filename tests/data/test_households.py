"""Household helpers (sdcflow.data.households): numbering, consistency, collapse/expand,
spreading suppressions, new ids. Expected values worked by hand."""

import numpy as np
import pandas as pd

from sdcflow.data.households import (
    collapse,
    consistency_problems,
    expand,
    first_members,
    household_digests,
    household_units,
    inconsistent,
    new_ids,
    released_numbers_of,
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


def test_new_ids_rank_the_households_by_a_digest_of_their_released_records():
    units, count = household_units(IDS)
    released = pd.DataFrame({"sex": ["1", "2", "1", "2", "1", "1", "2"],
                             "age": [30, 31, 40, None, 29, 41, 50]})
    digests = household_digests(released, units, count)
    assert digests.dtype == np.uint64 and len(set(digests.tolist())) == 4
    ids = new_ids(digests, IDS.isna().to_numpy(), units)
    # every member of h7 (and of h2) gets one number, 1 .. 4 in the order of the digests;
    # the two records without an id are households of their own but keep no id
    expected = {u: str(int(np.argsort(np.argsort(digests, kind="stable"))[u]) + 1)
                for u in range(count)}
    assert ids.tolist() == [expected[0], expected[0], expected[1], None, expected[0],
                            expected[1], None]
    # a function of the released records only: the same records under other original ids
    # (or none) get the same numbers; the order of a household's members counts
    again = household_digests(released, *household_units(
        pd.Series(["a", "a", "b", "c", "a", "b", "d"])))
    assert again.tolist() == digests.tolist()
    swapped = released.iloc[[1, 0, 2, 3, 4, 5, 6]].reset_index(drop=True)
    assert household_digests(swapped, units, count)[0] != digests[0]
    assert household_digests(swapped, units, count)[1:].tolist() == digests[1:].tolist()


def test_household_digests_do_not_depend_on_how_the_file_is_split():
    # the Dask engine ranks the digests of each partition's households together: splitting
    # between households changes no digest
    rng = np.random.default_rng(5)
    ids = pd.Series(np.repeat(np.arange(40), rng.integers(1, 5, 40)))
    frame = pd.DataFrame({"x": rng.normal(size=len(ids)).round(3),
                          "k": rng.choice(["a", "b", None], len(ids))})
    whole = household_digests(frame, *household_units(ids))
    cut = int(np.flatnonzero(ids.to_numpy() == 17)[0])
    parts = [household_digests(frame.iloc[a:b].reset_index(drop=True),
                               *household_units(ids.iloc[a:b].reset_index(drop=True)))
             for a, b in ((0, cut), (cut, len(ids)))]
    assert np.concatenate(parts).tolist() == whole.tolist()
    numbers = released_numbers_of(whole)
    assert sorted(numbers.tolist()) == list(range(1, 41))
    assert (np.diff(whole[np.argsort(numbers)].astype(np.float64)) >= 0).all()
