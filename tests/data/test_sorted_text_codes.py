"""sorted_text_codes (sdcflow.data.codes) gives exactly pandas' factorize(sort=True) of a
text column, by the hashing kernel (sdcflow.kernels.string_codes) for Arrow-held text;
and row_ids' compiled dense path numbers rows as np.unique(axis=0) does."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.data.codes import key_codes, sorted_text_codes
from sdcflow.data.text import text_column
from sdcflow.kernels.risk.frequencies import row_ids
from sdcflow.kernels.string_codes import first_seen_codes

# short (one packed word) and long (hashed, compared byte by byte) strings, empty ones,
# strings that are prefixes of others and non-ASCII ones (several bytes a character)
STRINGS = st.one_of(st.sampled_from(["", "a", "ab", "abcdefgh", "abcdefghi", "é", "e\u0301",
                                     "12345678", "123456789", "zz", "Z", "\u4e2d\u6587"]),
                    st.text(max_size=12))


def assert_same_as_pandas(column: pd.Series) -> None:
    codes, uniques = sorted_text_codes(column)
    expected_codes, expected_uniques = pd.factorize(text_column(column), sort=True)
    assert codes.dtype == np.int64
    assert np.array_equal(codes, expected_codes)
    assert uniques.dtype == object
    assert list(uniques) == list(np.asarray(expected_uniques, dtype=object))


@settings(max_examples=150, deadline=None)
@given(st.lists(STRINGS, max_size=40), st.integers(0, 5), st.integers(0, 5))
def test_codes_and_sorted_values_of_pandas(values, start, chunk):
    column = pd.Series(values, dtype=text_column([]).dtype)
    assert_same_as_pandas(column)
    # the key codes of the risk measures: pandas' codes of the text column
    assert np.array_equal(key_codes(pd.DataFrame({"k": column}), ["k"])[:, 0],
                          pd.factorize(column, sort=True)[0])
    assert_same_as_pandas(column.iloc[start:])  # an Arrow array with an offset
    if chunk:  # several Arrow chunks
        parts = [values[i:i + chunk] for i in range(0, len(values), chunk)] or [[]]
        chunked = pd.Series(pd.arrays.ArrowStringArray(
            pa.chunked_array([pa.array(p, type=pa.large_string()) for p in parts])))
        assert_same_as_pandas(chunked)


def test_missing_values_and_other_storages_as_pandas():
    assert_same_as_pandas(pd.Series(["b", None, "a", "b"], dtype=text_column([]).dtype))
    assert_same_as_pandas(pd.Series(["b", "a", "b", "c"], dtype=object))
    assert_same_as_pandas(pd.Series([3, 1, 2, 3]))  # numbers: as text ("1" < "2" < "3")
    assert_same_as_pandas(pd.Series(pd.arrays.ArrowStringArray(
        pa.chunked_array([pa.array(["x", "y", "x"], type=pa.string())]))))  # 32-bit offsets


def test_kernel_numbers_by_first_appearance():
    data = np.frombuffer(b"bbaabbcc", dtype=np.uint8)
    codes, first = first_seen_codes(np.array([0, 2, 4, 6, 6, 8]), data)
    assert codes.tolist() == [0, 1, 0, 2, 3] and first.tolist() == [0, 1, 3, 4]  # "" at 3
    # many distinct strings: the table grows several times
    words = [str(k).encode() * (1 + k % 5) for k in range(5000)] * 2
    offsets = np.cumsum([0] + [len(w) for w in words])
    codes, first = first_seen_codes(offsets, np.frombuffer(b"".join(words), dtype=np.uint8))
    assert codes.tolist() == list(range(5000)) * 2 and first.tolist() == list(range(5000))
    with pytest.raises(ValueError, match="non-decreasing"):
        first_seen_codes(np.array([0, 3, 1]), np.zeros(3, dtype=np.uint8))
    with pytest.raises(ValueError, match="non-decreasing"):
        first_seen_codes(np.array([0, 4]), np.zeros(3, dtype=np.uint8))


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 30), st.integers(1, 4), st.sampled_from([2, 6, 300]), st.data())
def test_row_ids_number_rows_as_numpy_unique(n, m, high, data):
    codes = np.array(data.draw(st.lists(st.lists(st.integers(-1, high), min_size=m,
                                                 max_size=m), min_size=n, max_size=n)),
                     dtype=np.int64).reshape(n, m)
    ids, rep = row_ids(codes)
    uniq, inverse = np.unique(codes, axis=0, return_inverse=True)
    assert np.array_equal(ids, inverse.reshape(-1))
    assert np.array_equal(codes[rep], uniq)
    with pytest.raises(ValueError, match=">= -1"):
        row_ids(np.array([[0, -2]]))
