"""Reading Parquet files (sdcflow.data.parquet_input): every type sdcflow can hold is read
exactly; the others are refused by name."""

import datetime
import decimal

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sdcflow.data import Variable, read_data


def write(tmp_path, **columns):
    pq.write_table(pa.table(columns), tmp_path / "d.parquet")


def read(tmp_path, **types):
    variables = {n: Variable(n, "numeric" if t in ("integer", "continuous") else "key", t)
                 for n, t in types.items()}
    return read_data({"path": "d.parquet"}, tmp_path, variables)


BIG = 2**63 + 5  # 9223372036854775813: a uint64 past int64


def test_uint64_past_int64_as_integer_is_refused(tmp_path):
    write(tmp_path, n=pa.array([1, BIG, None], pa.uint64()))
    _, _, [finding] = read(tmp_path, n="integer")
    assert finding.path == ("variables", "n")
    assert finding.message.endswith("such as '9223372036854775813' (1 record: 2)")
    assert "beyond the 64-bit integer range" in finding.message


def test_uint64_past_int64_as_codes_or_continuous(tmp_path):
    # as codes every digit is kept; as continuous the nearest double (2**63 exactly)
    write(tmp_path, n=pa.array([1, BIG, None], pa.uint64()))
    data, _, findings = read(tmp_path, n="categorical")
    assert findings == [] and data.frame["n"].tolist()[:2] == ["1", str(BIG)]
    data, _, findings = read(tmp_path, n="continuous")
    assert findings == [] and data.frame["n"].tolist()[:2] == [1.0, 2.0**63]


def test_int64_extremes_are_exact(tmp_path):
    write(tmp_path, n=pa.array([-(2**63), 2**63 - 1, None], pa.int64()))
    data, _, findings = read(tmp_path, n="integer")
    assert findings == [] and data.frame["n"].tolist()[:2] == [-(2**63), 2**63 - 1]


def test_floats_as_codes_and_numbers(tmp_path):
    # whole floats are codes without '.0'; others their shortest round-trip text
    write(tmp_path, f=pa.array([3.0, 0.1, None, 1e19]))
    data, _, findings = read(tmp_path, f="categorical")
    assert findings == [] and data.frame["f"].tolist()[:2] == ["3", "0.1"]
    assert data.frame["f"].isna()[2] and data.frame["f"][3] == "1e+19"
    data, _, findings = read(tmp_path, f="continuous")
    assert findings == [] and data.frame["f"].tolist()[:2] == [3.0, 0.1]


@pytest.mark.parametrize("array, text", [
    (pa.array(["u", "v", None]).dictionary_encode(), ["u", "v"]),  # R factors, pandas categories
    (pa.array([10, 20, None]).dictionary_encode(), ["10", "20"]),
    (pa.array([decimal.Decimal("1.10"), decimal.Decimal("2.00"), None], pa.decimal128(5, 2)),
     ["1.10", "2.00"]),
    (pa.array([True, False, None]), ["True", "False"]),
    (pa.array(["a", "b", None], pa.large_string()), ["a", "b"]),
])
def test_holdable_types_as_text(tmp_path, array, text):
    write(tmp_path, c=array)
    data, _, findings = read(tmp_path, c="categorical")
    assert findings == []
    assert data.frame["c"].tolist()[:2] == text and data.frame["c"].isna()[2]


def test_decimals_as_numbers_are_exact(tmp_path):
    write(tmp_path, d=pa.array([decimal.Decimal(12345678901234567890123)], pa.decimal128(30, 0)))
    _, _, [finding] = read(tmp_path, d="integer")
    assert "beyond the 64-bit integer range" in finding.message
    write(tmp_path, d=pa.array([decimal.Decimal("1.25")], pa.decimal128(5, 2)))
    data, _, findings = read(tmp_path, d="continuous")
    assert findings == [] and data.frame["d"].tolist() == [1.25]


@pytest.mark.parametrize("array, name", [
    (pa.array([datetime.datetime(2020, 1, 1)]), "timestamp[us]"),
    (pa.array([datetime.date(2020, 1, 1)]), "date32[day]"),
    (pa.array([datetime.timedelta(1)]), "duration[us]"),
    (pa.array([[1, 2]]), "list<element: int64>"),  # (Parquet's name for the item)
    (pa.array([{"x": 1}]), "struct<x: int64>"),
    (pa.array([b"\xff"]), "binary"),
    (pa.array([datetime.date(2020, 1, 1)]).dictionary_encode(), "date32[day]"),
])
def test_types_sdcflow_cannot_hold_are_refused_by_name(tmp_path, array, name):
    # binary data gave an internal error (UnicodeDecodeError); the others became text
    # such as '2020-01-01 00:00:00' or '[1 2]', whose form depends on the pandas version
    write(tmp_path, c=array, ok=pa.array(["x"]))
    for typ in ("categorical", "continuous"):
        _, _, [finding] = read(tmp_path, c=typ, ok="categorical")
        assert finding.path == ("variables", "c")
        assert finding.message == (f"column 'c' has the Parquet type {name}, which sdcflow"
                                   " cannot hold: store it as text or numbers")


def test_undeclared_columns_of_any_type_are_not_read(tmp_path):
    write(tmp_path, ok=pa.array(["x"]), junk=pa.array([[1]]))
    _data, source, findings = read(tmp_path, ok="categorical")
    assert findings == [] and source["undeclared_columns"] == ["junk"]


def test_a_damaged_file(tmp_path):
    (tmp_path / "d.parquet").write_bytes(b"PAR1 not really")
    _, _, [finding] = read(tmp_path, ok="categorical")
    assert finding.path is None and finding.message.startswith("cannot read Parquet data: ")
