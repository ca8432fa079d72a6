"""Stratum codes: strata ordered by the text of the values, missing values a stratum of
their own ("nan", last), several variables crossed."""

import numpy as np
import pandas as pd

from sdcflow.data.strata import stratum_codes, stratum_members, value_codes
from sdcflow.data.text import TEXT


def test_value_codes_by_hand():
    codes, labels = value_codes(pd.Series(["b", None, "a", "b"], dtype=TEXT))
    assert labels == ["a", "b", "nan"]
    assert codes.tolist() == [1, 2, 0, 1]
    # numbers are ordered by their text, as the labels read (10 before 9)
    codes, labels = value_codes(pd.Series([9, 10, 9], dtype="Int64"))
    assert labels == ["10", "9"] and codes.tolist() == [1, 0, 1]
    codes, labels = value_codes(pd.Series([1.5, np.nan]))
    assert labels == ["1.5", "nan"] and codes.tolist() == [0, 1]


def test_stratum_codes_cross_the_variables():
    frame = pd.DataFrame({"r": pd.Series(["n", "s", "n", "s"], dtype=TEXT),
                          "g": pd.Series([2, 1, 2, None], dtype="Int64")})
    codes, labels = stratum_codes(frame, ["r", "g"])
    assert labels == ["n / 2", "s / 1", "s / nan"]
    assert codes.tolist() == [0, 1, 0, 2]
    codes, labels = stratum_codes(frame, [])
    assert labels == ["all"] and codes.tolist() == [0, 0, 0, 0]


def test_stratum_members_in_record_order():
    members = stratum_members(np.array([1, 0, 1, 2, 0]), 3)
    assert [m.tolist() for m in members] == [[1, 4], [0, 2], [3]]
    assert [m.tolist() for m in stratum_members(np.zeros(0, dtype=np.int64), 1)] == [[]]
