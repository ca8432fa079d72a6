"""Reading data (sdcflow.data.io): types, missing values, and the errors it reports."""

from pathlib import Path

import pandas as pd
import pytest

from sdcflow.data import Variable, read_data, write_table
from sdcflow.data.text import TEXT


def var(name, role="key", typ="categorical", **kw):
    return Variable(name, role, typ, **kw)


def read(tmp_path: Path, text: str, variables, name="d.csv", **spec):
    (tmp_path / name).write_text(text)
    return read_data({"path": name, **spec}, tmp_path, {v.name: v for v in variables})


def test_types_and_text_codes_are_kept(tmp_path):
    data, source, findings = read(tmp_path, "code,age,inc,extra\n08,30,1.5,x\nNA,,2,y\n",
                                  [var("code"), var("age", typ="integer"),
                                   var("inc", "numeric", "continuous")])
    assert findings == []
    assert data.frame["code"].tolist() == ["08", "NA"]  # text, NA is a code not a missing value
    assert str(data.frame["age"].dtype) == "Int64" and data.frame["age"].isna().tolist() == [
        False, True]
    assert data.frame["inc"].tolist() == [1.5, 2.0]
    assert source["undeclared_columns"] == ["extra"] and source["records"] == 2
    assert len(source["sha256"]) == 64


def test_missing_codes(tmp_path):
    data, _, _ = read(tmp_path, "age\n30\n999\n", [var("age", typ="integer", missing=(999,))])
    assert data.frame["age"].isna().tolist() == [False, True]


def test_non_numeric_values_name_the_column_and_records(tmp_path):
    _, _, findings = read(tmp_path, "age\n30\nabc\n40\nx\n", [var("age", typ="integer")])
    [finding] = findings
    assert finding.path == ("variables", "age") and not finding.key
    message = finding.message
    assert message == ("column 'age' is declared integer but has non-numeric values such as "
                       "'abc' (2 records: 2 (line 3), 4 (line 5))")


def test_non_integer_values(tmp_path):
    _, _, [finding] = read(tmp_path, "age\n30\n30.5\n", [var("age", typ="integer")])
    message = finding.message
    assert "non-integer values such as '30.5' (1 record: 2 (line 3))" in message


def test_values_outside_the_ordinal_order(tmp_path):
    _, _, [finding] = read(tmp_path, "edu\nlow\nhuge\n",
                           [var("edu", typ="ordinal", order=("low", "high"))])
    message = finding.message
    assert message == ("column 'edu': values ['huge'] are not in the declared order "
                       "(1 record: 2 (line 3))")


def test_missing_column_suggests_the_closest(tmp_path):
    _, _, [finding] = read(tmp_path, "urbrur\n1\n", [var("urbur")])
    assert finding.path == ("variables", "urbur") and finding.key
    message = finding.message
    assert message == "variable 'urbur' is not a column of the data (did you mean 'urbrur'?)"


def test_empty_data(tmp_path):
    _, _, findings = read(tmp_path, "age\n", [var("age", typ="integer")])
    assert [(f.path, f.message) for f in findings] == [(None, "the data have no records")]


def test_missing_file_and_unknown_builtin(tmp_path):
    _, _, [finding] = read_data({"path": "nope.csv"}, tmp_path, {})
    assert finding.path == ("data", "path") and finding.message == "the data file nope.csv: no such file"
    _, _, [finding] = read_data({"builtin": "testdat"}, tmp_path, {})
    assert finding.message.startswith("unknown shipped data set 'testdat' (did you mean 'testdata'?)")


def test_delimiter_and_parquet_round_trip(tmp_path):
    data, _, _ = read(tmp_path, "a;b\n1;2.5\n", [var("a"), var("b", "numeric", "continuous")],
                      delimiter=";")
    write_table(data.frame, tmp_path / "d.parquet", "parquet")
    again, _, findings = read_data({"path": "d.parquet"}, tmp_path, data.variables)
    assert findings == []
    assert again.frame["a"].tolist() == ["1"] and again.frame["b"].tolist() == [2.5]


def test_parquet_integer_codes_become_text(tmp_path):
    pd.DataFrame({"water": [1, 2, None]}).to_parquet(tmp_path / "w.parquet")
    data, _, _ = read_data({"path": "w.parquet"}, tmp_path, {"water": var("water")})
    assert data.frame["water"].tolist()[:2] == ["1", "2"] and data.frame["water"].isna()[2]


def test_unreadable_csv(tmp_path):
    # the quote opened on line 2 runs to the end of the file: one field where the header
    # has two
    (tmp_path / "bad.csv").write_bytes(b'a,b\n"1,2\n')
    _, _, [finding] = read_data({"path": "bad.csv"}, tmp_path, {"a": var("a")})
    assert finding.path is None
    assert finding.message == ("1 line has a different number of fields than the header (2):"
                               " line 2 has 1 field (an unclosed quote?)")


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_write_table_is_byte_stable(tmp_path, fmt):
    frame = pd.DataFrame({"x": [0.1, 1 / 3, None], "c": pd.Series(["a", None, "b"], dtype=TEXT)})
    write_table(frame, tmp_path / f"a.{fmt}", fmt)
    write_table(frame, tmp_path / f"b.{fmt}", fmt)
    assert (tmp_path / f"a.{fmt}").read_bytes() == (tmp_path / f"b.{fmt}").read_bytes()
    if fmt == "csv":
        assert (tmp_path / "a.csv").read_text() == "x,c\n0.1,a\n0.3333333333333333,\n,b\n"


def test_missing_values_stay_missing_in_every_type(tmp_path):
    # An empty field is a missing value (NaN in a text column, NA in Int64), never the
    # three letters 'nan': pandas 2's astype("str") made it 'nan', a category of its own.
    data, _, findings = read(tmp_path, "code,age,inc\n1,30,1.5\n,,\n 2 , 40 ,\n",
                             [var("code"), var("age", typ="integer"),
                              var("inc", "numeric", "continuous")])
    assert findings == []
    frame = data.frame
    assert frame["code"].dtype == TEXT and frame["code"].tolist()[0::2] == ["1", "2"]
    assert frame["code"].isna().tolist() == [False, True, False]
    assert "nan" not in frame["code"].dropna().tolist()
    assert frame["age"].isna().tolist() == [False, True, False]
    assert frame["age"].dropna().tolist() == [30, 40]
    assert frame["inc"].isna().tolist() == [False, True, True]


def test_blank_and_declared_missing_values_are_missing(tmp_path):
    # a field of blanks is empty once stripped; 'NA' is a missing value only if declared
    data, _, findings = read(tmp_path, 'code\nx\n"  "\nNA\n',
                             [var("code", missing=("NA",))])
    assert findings == []
    assert data.frame["code"].isna().tolist() == [False, True, True]


def test_parquet_missing_values_stay_missing(tmp_path):
    # strings with None, and float codes with NaN (how pandas stores integer codes with
    # missing values), read as text: '1' not '1.0', missing stays missing
    pd.DataFrame({"s": ["a", None, "b"], "f": [1.0, None, 12.0]}).to_parquet(
        tmp_path / "m.parquet")
    data, _, findings = read_data({"path": "m.parquet"}, tmp_path,
                                  {"s": var("s"), "f": var("f")})
    assert findings == []
    assert data.frame["s"].dtype == TEXT and data.frame["f"].dtype == TEXT
    assert data.frame["s"].isna().tolist() == [False, True, False]
    assert data.frame["f"].tolist()[0::2] == ["1", "12"] and data.frame["f"].isna()[1]
