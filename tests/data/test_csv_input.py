"""Reading CSV files (sdcflow.data.csv_input): what is not a table is refused, in bounded
memory, with a message that says why."""

import pytest

from sdcflow.data import Variable, csv_input, read_data


def var(name, typ="categorical"):
    return Variable(name, "key", typ)


def read_bytes(tmp_path, content: bytes, names=("a",), **spec):
    (tmp_path / "d.csv").write_bytes(content)
    return read_data({"path": "d.csv", **spec}, tmp_path, {n: var(n) for n in names})


def messages(findings):
    return [(f.path, f.message) for f in findings]


@pytest.fixture
def small_limit(monkeypatch):
    """A record limit of 64 bytes (the real one is 16 MiB), for files that exceed it."""
    monkeypatch.setattr(csv_input, "MAX_RECORD_BYTES", 64)


def test_a_header_longer_than_the_limit_is_refused_from_a_bounded_prefix(tmp_path,
                                                                         small_limit):
    # one line of 1,000 bytes and no line end: the reader looks at 64 bytes of it
    _, _, findings = read_bytes(tmp_path, b"a" * 1000)
    assert messages(findings) == [(None, ("the first line (the header) is longer than 64"
                                         " bytes: is this a CSV file with line ends?"))]


@pytest.mark.parametrize("record", [b"x" * 200 + b",1\n", b'"' + b"x\n" * 100 + b'",1\n'])
def test_a_record_longer_than_the_limit_is_refused(tmp_path, small_limit, record):
    # a long line, or a quoted field with line ends inside: pyarrow reads blocks of 64
    # bytes and refuses a record that straddles more than one block boundary
    _, _, findings = read_bytes(tmp_path, b"a,b\n1,2\n" + record + b"3,4\n")
    assert messages(findings) == [(None, ("a record (line) of the data is longer than 64"
                                         " bytes: is this a CSV file with line ends?"))]


def test_records_up_to_the_limit_are_read(tmp_path, small_limit):
    data, _, findings = read_bytes(tmp_path, b"a,b\n" + b"x" * 50 + b",1\n3,4\n")
    assert findings == [] and data.frame["a"].tolist() == ["x" * 50, "3"]


def test_too_many_columns(tmp_path, monkeypatch):
    monkeypatch.setattr(csv_input, "MAX_COLUMNS", 3)
    _, _, findings = read_bytes(tmp_path, b"a,b,c,d\n1,2,3,4\n")
    assert messages(findings) == [(None, ("the header has more than 3 columns: is ','"
                                         " the delimiter?"))]


def test_lines_with_another_number_of_fields_are_named(tmp_path):
    # pandas padded a short line with missing values and stopped at the first long one;
    # every line that does not match the header is named
    _, _, findings = read_bytes(tmp_path, b"a,b\nx,1\ny\nz,2,3\nw,4\n")
    assert messages(findings) == [(None, ("2 lines have a different number of fields than"
                                         " the header (2): line 3 has 1 field, line 4 has"
                                         " 3 fields"))]


def test_an_empty_last_field_is_not_a_short_line(tmp_path):
    data, _, findings = read_bytes(tmp_path, b"a,b\nx,\n,y\n", names=("a", "b"))
    assert findings == []
    assert data.frame["b"].isna().tolist() == [True, False]
    assert data.frame["a"].isna().tolist() == [False, True]


def test_a_utf8_byte_order_mark_is_not_part_of_the_first_name(tmp_path):
    for encoding in ("utf-8", "utf-8-sig"):
        data, _, findings = read_bytes(tmp_path, b"\xef\xbb\xbfa,b\nx,1\n", encoding=encoding)
        assert findings == [] and data.frame["a"].tolist() == ["x"]


@pytest.mark.parametrize("content, message", [
    (b"a,b\nx\x00,1\n", ("column 'a' holds NUL characters (is the file binary, or text in"
                        " another encoding? set data.encoding) (1 record: 1 (line 2))")),
    (b"a\x00,b\nx,1\n", ("the header holds NUL characters: is the file binary, or text in"
                        " another encoding (set data.encoding)?")),
])
def test_nul_characters_are_refused(tmp_path, content, message):
    _, _, findings = read_bytes(tmp_path, content)
    assert [f.message for f in findings] == [message]


def test_utf16_text_read_as_utf8_is_refused_and_read_with_its_encoding(tmp_path):
    content = "a,b\nx,1\n".encode("utf-16")
    _, _, findings = read_bytes(tmp_path, content)
    assert findings and "utf-8" in findings[0].message
    data, _, findings = read_bytes(tmp_path, content, encoding="utf-16")
    assert findings == [] and data.frame["a"].tolist() == ["x"]


def test_text_in_another_encoding(tmp_path):
    content = "a,b\nx,1\nJosé,2\n".encode("latin-1")
    _, _, findings = read_bytes(tmp_path, content)
    assert messages(findings) == [(None, ("the data are not utf-8 text (line 3); give the"
                                         " file's encoding as data.encoding (e.g. latin-1"
                                         " or cp1252)"))]
    data, _, findings = read_bytes(tmp_path, content, encoding="latin-1")
    assert findings == [] and data.frame["a"].tolist() == ["x", "José"]


@pytest.mark.parametrize("encoding, message", [
    ("utf-9", ("unknown encoding 'utf-9' (did you mean 'utf-8'?); Python's codecs name the"
              " encodings sdcflow can read (e.g. utf-8, latin-1, cp1252)")),
    ("rot13", "'rot13' is not a text encoding (e.g. utf-8, latin-1, cp1252)"),
])
def test_encodings_python_cannot_read_text_with(tmp_path, encoding, message):
    _, _, findings = read_bytes(tmp_path, b"a\nx\n", encoding=encoding)
    assert messages(findings) == [(("data", "encoding"), message)]


def test_a_quote_cannot_be_the_delimiter(tmp_path):
    _, _, findings = read_bytes(tmp_path, b"a\nx\n", delimiter='"')
    assert messages(findings) == [(("data", "delimiter"), (
        "'\"' cannot be the delimiter of a CSV file: give one ASCII character other than a"
        " quote, a line end or NUL"))]


@pytest.mark.parametrize("content, message", [
    (b"", "the data file is empty (no header, no records)"),
    (b"\n\r\n", "the data file has no header (it is blank)"),
    (b"a\n", "the data have no records"),
])
def test_empty_files(tmp_path, content, message):
    _, _, findings = read_bytes(tmp_path, content)
    assert [f.message for f in findings] == [message]


def test_blank_lines_are_skipped(tmp_path):
    data, source, findings = read_bytes(tmp_path, b"\na\r\nx\r\n\r\ny\r\n")
    assert findings == [] and data.frame["a"].tolist() == ["x", "y"]
    assert source["records"] == 2


def test_quoted_fields_keep_delimiters_and_line_ends(tmp_path):
    data, _, findings = read_bytes(tmp_path, b'a,b\n"x, y",1\n"two\nlines",2\n')
    assert findings == [] and data.frame["a"].tolist() == ["x, y", "two\nlines"]


def test_undeclared_columns_are_named_but_not_checked(tmp_path):
    # an undeclared column in another encoding does not matter: it is never read
    _data, source, findings = read_bytes(tmp_path, b"a,junk\nx,\xff\n")
    assert findings == [] and source["undeclared_columns"] == ["junk"]


def test_bytes_the_declared_encoding_does_not_define(tmp_path):
    # 0x81 is undefined in cp1252 (Python's codec refuses it)
    _, _, findings = read_bytes(tmp_path, b"a,b\nx,\x81\n", encoding="cp1252")
    assert messages(findings) == [(None, ("the data are not cp1252 text (byte 0x81); give"
                                         " the file's encoding as data.encoding"))]
