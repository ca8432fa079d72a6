"""Converting text columns to their declared types (sdcflow.data.convert): integers
exactly or not at all, continuous values as the nearest double."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdcflow.data import Variable, read_data, text_column
from sdcflow.data.convert import INT64_MAX, INT64_MIN, convert_column

RANGE = "-9223372036854775808 to 9223372036854775807"


def convert(values, typ="integer"):
    return convert_column(text_column(values), Variable("n", "key", typ), is_csv=True)


def test_int64_limits_are_the_64_bit_range():
    # two's complement 64-bit: -2**63 .. 2**63 - 1
    assert (INT64_MIN, INT64_MAX) == (np.iinfo(np.int64).min, np.iinfo(np.int64).max)
    assert f"{INT64_MIN} to {INT64_MAX}" == RANGE


@pytest.mark.parametrize("big", ["12345678901234567890", "1e19", "9223372036854775808",
                                 "-9223372036854775809", "1e400"])
def test_integers_beyond_int64_are_refused_with_their_records(big):
    # each value is outside -2**63 .. 2**63-1: refused, not rounded (it was an internal
    # error, "cannot safely cast non-equivalent float64 to int64")
    _column, [problem] = convert(["1", big, "3", big])
    assert problem == (
        f"column 'n' is declared integer but has values beyond the 64-bit integer range"
        f" ({RANGE}; declare it continuous for the nearest 64-bit float, or categorical to"
        f" keep the digits as codes) such as {big!r} (2 records: 2 (line 3), 4 (line 5))")


def test_the_ends_of_the_int64_range_are_read_exactly():
    column, problems = convert(["-9223372036854775808", "9223372036854775807", None])
    assert problems == []
    assert column.dtype == "Int64"
    assert column.tolist()[:2] == [INT64_MIN, INT64_MAX] and column.isna()[2]


def test_integers_past_2_to_53_keep_every_digit():
    # '3.0' makes pandas read the column as float64, where 2**53 + 1 would become 2**53;
    # the exact reading keeps 9007199254740993
    column, problems = convert(["9007199254740993", "3.0", "1e3", "-0"])
    assert problems == []
    assert column.tolist() == [9007199254740993, 3, 1000, 0]


def test_non_integers_and_beyond_are_both_reported():
    _, problems = convert(["1.5", "2e19", "1e-400", "inf"])
    assert [p.split(" such as ")[1] for p in problems] == [
        "'1.5' (3 records: 1 (line 2), 3 (line 4), 4 (line 5))",
        "'2e19' (1 record: 2 (line 3))"]


def test_continuous_values_are_the_nearest_double():
    # a 20-digit number in a continuous variable is read as the double nearest to it
    # (relative error below 2**-53, as for any decimal fraction); only infinity and
    # numbers past the double range (about 1.8e308) are refused
    column, problems = convert(["12345678901234567890", "0.1", None], "continuous")
    assert problems == []
    assert column.dtype == np.float64
    assert column.tolist()[:2] == [12345678901234567890.0, 0.1] and np.isnan(column[2])
    _, [problem] = convert(["1", "1e400", "-inf"], "continuous")
    assert problem == ("column 'n' has infinite values, or numbers beyond the range of a"
                       " 64-bit float, such as '1e400' (2 records: 2 (line 3), 3 (line 4))")


@pytest.mark.parametrize("text", ["521924.8898251510690898", "-39546.0539647942642",
                                  "9223372036854775813"])
def test_continuous_values_are_correctly_rounded(text):
    # Python's float() rounds correctly (IEEE 754 round-half-even of the exact decimal);
    # pandas 2.3's to_numeric gave a neighbouring double for each of these
    column, problems = convert([text], "continuous")
    assert problems == [] and column[0] == float(text)


def test_categorical_codes_keep_their_digits():
    column, problems = convert(["12345678901234567890", "08", None], "categorical")
    assert problems == []
    assert column.tolist()[:2] == ["12345678901234567890", "08"] and column.isna()[2]


@given(st.lists(st.integers(INT64_MIN, INT64_MAX) | st.none(), min_size=1, max_size=30),
       st.booleans())
def test_every_int64_reads_back_exactly(values, as_float_text):
    # written plainly or (forcing pandas' float path) with a '.0', every int64 is read as
    # itself
    text = [None if v is None else f"{v}.0" if as_float_text else str(v) for v in values]
    column, problems = convert(text)
    assert problems == []
    assert [None if pd.isna(v) else int(v) for v in column.tolist()] == values


def test_big_integers_in_a_csv_file_through_the_reader(tmp_path):
    (tmp_path / "d.csv").write_text("id,n\n12345678901234567890,1\n2,1e19\n")
    variables = {"id": Variable("id", "key", "categorical"),
                 "n": Variable("n", "numeric", "continuous")}
    data, _, findings = read_data({"path": "d.csv"}, tmp_path, variables)
    assert findings == []
    assert data.frame["id"].tolist() == ["12345678901234567890", "2"]
    assert data.frame["n"].tolist() == [1.0, 1e19]
