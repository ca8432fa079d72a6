"""Cell keys in the table build (sdcflow.tabular.build with ``Tabulation.key``): every
cell, margins included, gets the fractional part of the sum of its records' keys
(cellKey's ``ck = sum(rkeys) %% 1``), exact, and the same whatever the split of the
records into partitions or the table the cell belongs to."""

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.tabular import Tabulation, build_partial, build_table, combine, finish_table

#: records of a 2 x 2 table with their keys; the cell keys worked out by hand
FRAME = pd.DataFrame({"g": ["A", "A", "A", "B", "B", "B", "B", "B"],
                      "h": ["x", "y", "y", "x", "x", "x", "x", "y"],
                      "rkey": [0.6, 0.3, 0.4, 0.9, 0.8, 0.7, 0.05, 0.95]})
HAND = {("A", "x"): 0.6, ("A", "y"): 0.7,             # 0.3 + 0.4
        ("B", "x"): 0.45,                              # 0.9 + 0.8 + 0.7 + 0.05 = 2.45
        ("B", "y"): 0.95, ("A", "Total"): 0.3,         # 1.3
        ("B", "Total"): 0.4,                           # 3.4
        ("Total", "x"): 0.05,                          # 3.05
        ("Total", "y"): 0.65,                          # 1.65
        ("Total", "Total"): 0.7}                       # 4.7


def keys_of(table):
    return {(r.g, r.h): r.cell_key for r in table.cells.itertuples()}


def test_cell_keys_worked_out_by_hand():
    table = build_table(FRAME, ["g", "h"], key="rkey")
    assert keys_of(table) == HAND  # exact: keys are summed as whole 1e-8 units


def test_without_key_the_table_has_no_cell_keys():
    assert "cell_key" not in build_table(FRAME, ["g", "h"]).cells


def test_a_cell_has_the_same_key_in_another_table():
    # the margin g = A of the g x h table is the cell g = A of the table of g alone
    one = build_table(FRAME, ["g"], key="rkey")
    assert dict(zip(one.cells["g"], one.cells["cell_key"], strict=True)) == {
        "A": HAND[("A", "Total")], "B": HAND[("B", "Total")], "Total": HAND[("Total", "Total")]}


def test_bad_record_keys_are_refused():
    with pytest.raises(ValueError, match=r"column 'rkey': record keys must lie in \[0, 1\]"):
        build_table(FRAME.assign(rkey=FRAME["rkey"] + 0.5), ["g", "h"], key="rkey")


@settings(max_examples=30)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("xy"),
                          st.integers(0, 10**8)), min_size=1, max_size=40),
       st.lists(st.integers(0, 40), max_size=3))
def test_any_split_into_partitions_gives_the_same_keys(rows, cuts):
    frame = pd.DataFrame(rows, columns=["g", "h", "u"])
    frame["rkey"] = frame["u"] / 10**8
    tab = Tabulation(("g", "h"), key="rkey")
    whole = finish_table(build_partial(tab, frame))
    bounds = [0, *sorted(c % (len(frame) + 1) for c in cuts), len(frame)]
    parts = [build_partial(tab, frame.iloc[a:b]) for a, b in itertools.pairwise(bounds)]
    split = finish_table(combine(parts[::-1]))
    np.testing.assert_array_equal(whole.cells["cell_key"], split.cells["cell_key"])
    # each key is the exact sum of its records' whole units, modulo 1e8
    total = whole.cells["cell_key"].iloc[-1]
    assert total == (frame["u"].sum() % 10**8) / 10**8


def test_magnitude_tables_also_key_cells_by_their_non_zero_records():
    # cellKey keys a magnitude cell by the records with a non-zero value: A y has the
    # keys .3 (value 5) and .4 (value 0): .7 for all records, .3 for the non-zero ones
    frame = FRAME.assign(y=[1.0, 5.0, 0.0, 2.0, 0.0, 3.0, 4.0, 0.0])
    table = build_table(frame, ["g", "h"], response="y", key="rkey")
    got = {(r.g, r.h): (r.cell_key, r.cell_key_nonzero) for r in table.cells.itertuples()}
    assert got[("A", "y")] == (0.7, 0.3)
    assert got[("B", "y")] == (0.95, 0.0)  # its one record has value 0
    assert got[("B", "x")] == (0.45, 0.65)  # .9 + .7 + .05 (the .8 has value 0)
