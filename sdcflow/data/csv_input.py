"""Reading a CSV file as text columns, in bounded memory, refusing what is not a table.

The header is read from a bounded prefix of the file; the records by pyarrow's CSV
reader in blocks of :data:`MAX_RECORD_BYTES`, which refuses a record longer than one
block before holding more than two. So a file that is one enormous line (or one
enormous field) is refused after reading a few blocks, whatever its size. Every record
must have as many fields as the header (pandas would pad a short one with missing
values); the records that do not are named by line.
"""

from __future__ import annotations

import codecs
import csv
import io
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import pandas as pd

from ..errors import did_you_mean
from .findings import SHOW, Finding, records_text
from .recipe_files import MAX_HEADER_COLUMNS, CheckedFile, quotable
from .text import TEXT

MAX_RECORD_BYTES = 16 << 20  # the longest record (line) read, and the reader's block size
MAX_COLUMNS = 100_000  # the most columns a header may have
_ENCODINGS = ("utf-8", "utf-8-sig", "latin-1", "cp1252", "iso-8859-15", "utf-16", "ascii")


@dataclass
class TextTable:
    """What a reader returns: the column names as written, the wanted columns as text
    (missing values NaN) and the number of records."""

    names: list[str]
    columns: dict[str, pd.Series]
    records: int


def check_encoding(spec: Mapping) -> tuple[str, list[Finding]]:
    """The Python codec name of the data's ``encoding``, or a finding saying it is none."""
    name = spec.get("encoding", "utf-8")
    try:
        info = codecs.lookup(name)
    except LookupError:
        return name, [Finding(("data", "encoding"), (
            f"unknown encoding '{name}'{did_you_mean(name, _ENCODINGS)}; Python's codecs"
            " name the encodings sdcflow can read (e.g. utf-8, latin-1, cp1252)"))]
    if not getattr(info, "_is_text_encoding", True):
        return name, [Finding(("data", "encoding"),
                              f"'{name}' is not a text encoding (e.g. utf-8, latin-1, cp1252)")]
    return info.name, []


def csv_delimiter(spec: Mapping) -> str:
    """The field delimiter: ``data.delimiter`` (or ``sep``, pandas' name), else ','."""
    return spec.get("delimiter", spec.get("sep", ","))


def dialect_problems(spec: Mapping) -> list[Finding]:
    """The CSV conventions that contradict each other: the delimiter given twice, the
    decimal mark the same as the thousands separator. (A decimal mark that is also the
    delimiter is fine in quoted fields, "2,5"; unquoted, the records come out ragged.)"""
    out = []
    if "sep" in spec and "delimiter" in spec and spec["sep"] != spec["delimiter"]:
        out.append(Finding(("data", "sep"), (
            f"data.sep {spec['sep']!r} and data.delimiter {spec['delimiter']!r} are two"
            " names of the same setting; give one")))
    decimal, thousands = spec.get("decimal", "."), spec.get("thousands")
    if thousands is not None and thousands == decimal:
        out.append(Finding(("data", "thousands"), (
            f"the thousands separator {thousands!r} is also the decimal mark")))
    return out


def read_csv_text(path: CheckedFile, spec: Mapping, wanted: Iterable[str]
                  ) -> tuple[TextTable | None, list[Finding]]:
    """The header of the CSV file ``path`` (checked by :mod:`.recipe_files`) and its
    ``wanted`` columns as text, or the findings that say why the file cannot be read as a
    table."""
    encoding, findings = check_encoding(spec)
    delimiter = csv_delimiter(spec)
    if delimiter in ('"', "\n", "\r", "\x00") or not delimiter.isascii():
        # (pyarrow's reader takes one ASCII character, not NUL)
        findings.append(Finding(("data", "sep" if "sep" in spec else "delimiter"), (
            f"{delimiter!r} cannot be the delimiter of a CSV file: give one ASCII character"
            " other than a quote, a line end or NUL")))
    findings.extend(dialect_problems(spec))
    if findings:
        return None, findings
    names, findings = _header(path, encoding, delimiter)
    if names is None:
        return None, findings
    if not findings and _header_only(path):  # (one line without a line end: pyarrow
        return TextTable(names, {w: pd.Series([], dtype=TEXT, name=w)  # finds no rows)
                                 for w in wanted if w in names}, 0), []
    index = {}
    for i, name in enumerate(names):
        index.setdefault(name, i)
    wanted = [w for w in wanted if w in index]
    table, findings = _records(path, encoding, delimiter, len(names),
                               [index[w] for w in wanted] or [0])
    if table is None:
        return None, findings
    import pyarrow as pa

    frame = table.to_pandas(types_mapper={pa.string(): TEXT}.get)
    columns = {}
    for w in wanted:
        col = frame[f"f{index[w]}"].iloc[1:].reset_index(drop=True)  # (row 0: the header)
        columns[w] = col.rename(w)
        nul = col.str.contains("\x00", regex=False).fillna(False).to_numpy(dtype=bool)
        if nul.any():
            findings.append(Finding(("variables", w), (
                f"column '{w}' holds NUL characters (is the file binary, or text in another"
                f" encoding? set data.encoding) ({records_text(nul, True)})")))
    if findings:
        return None, findings
    return TextTable(names, columns, table.num_rows - 1), []


def _header(path: CheckedFile, encoding: str, delimiter: str) -> tuple[list[str] | None,
                                                                       list[Finding]]:
    """The column names, read from at most :data:`MAX_RECORD_BYTES` of the file."""
    with path.opened() as fh:
        prefix = fh.read(MAX_RECORD_BYTES)
        whole = not fh.read(1)
    if not prefix:
        return None, [Finding(None, "the data file is empty (no header, no records)")]
    codec = "utf-8-sig" if encoding == "utf-8" else encoding
    # undecodable bytes become lone surrogates: only those in the header matter here
    decoder = codecs.getincrementaldecoder(codec)(errors="surrogateescape")
    try:
        text = decoder.decode(prefix, final=whole)
    except UnicodeError as exc:  # (a codec without surrogateescape, e.g. utf-16)
        return None, [Finding(None, f"cannot read the header as {encoding} text: {exc}")]
    text = text.lstrip("\ufeff").lstrip("\r\n")  # (a BOM, blank lines: skipped as pyarrow does)
    end = re.search(r"[\r\n]", text)
    if end is None and not whole:
        return None, [Finding(None, (
            f"the first line (the header) is longer than {_size(MAX_RECORD_BYTES)}:"
            " is this a CSV file with line ends?"))]
    line = text[:end.start()] if end else text
    bad = re.search("[\udc80-\udcff]", line)
    if bad:
        return None, [Finding(None, (
            f"the header is not {encoding} text (byte 0x{ord(bad.group()) - 0xdc00:02x});"
            " give the file's encoding as data.encoding (e.g. latin-1 or cp1252)"))]
    if not line:
        return None, [Finding(None, "the data file has no header (it is blank)")]
    if "\x00" in line:
        return None, [Finding(None, (
            "the header holds NUL characters: is the file binary, or text in another"
            " encoding (set data.encoding)?"))]
    if line.count(delimiter) >= MAX_COLUMNS:
        return None, [Finding(None, (
            f"the header has more than {MAX_COLUMNS:,} columns: is {delimiter!r} the"
            " delimiter?"))]
    try:
        names = next(csv.reader([line], delimiter=delimiter, strict=False), [])
    except csv.Error as exc:
        return None, [Finding(None, f"cannot read the header: {exc}")]
    return names, []


def record_problem(path: CheckedFile, raw: bytes, delimiter: str, n_columns: int
                   ) -> str | None:
    """Why the records of the UTF-8 CSV file ``path`` (its bytes ``raw``) do not make a
    table of ``n_columns`` columns (lines with another number of fields, an unclosed
    quote), or None. pandas, which reads the files of a recipe other than the data, pads
    a short line with missing values and takes a long first line's extra field as an
    index."""
    if _header_only(path, raw):
        return None
    _, findings = _records(path, "utf-8", delimiter, n_columns, [0], raw)
    return findings[0].message if findings else None


def _header_only(path: CheckedFile, raw: bytes | None = None) -> bool:
    """Whether the file (its bytes ``raw``, when read already) is one line without a
    line end (a header, no records)."""
    if path.size > MAX_RECORD_BYTES:
        return False
    if raw is None:
        with path.opened() as fh:
            raw = fh.read(MAX_RECORD_BYTES)
    text = raw.rstrip(b"\r\n")
    return b"\n" not in text and b"\r" not in text and text.count(b'"') % 2 == 0


def _records(path: CheckedFile, encoding: str, delimiter: str, n_columns: int,
             keep: list[int], raw: bytes | None = None):
    """The records (header first) as a pyarrow table of the ``keep`` columns, all text;
    or findings. (``raw``: the file's bytes, when read already.)"""
    import pyarrow as pa
    from pyarrow import csv as pacsv

    bad_rows = []

    def invalid(row):
        bad_rows.append((row.number, row.actual_columns, row.text))
        return "skip"

    read = pacsv.ReadOptions(
        block_size=MAX_RECORD_BYTES, use_threads=False,  # (threads lose the line numbers)
        autogenerate_column_names=True,
        encoding="utf8" if encoding == "utf-8" else encoding)
    parse = pacsv.ParseOptions(delimiter=delimiter, newlines_in_values=True,
                               invalid_row_handler=invalid)
    names = [f"f{i}" for i in range(n_columns)]
    convert = pacsv.ConvertOptions(
        column_types=dict.fromkeys(names, pa.string()), include_columns=[names[i] for i in keep],
        strings_can_be_null=True, null_values=[""], quoted_strings_can_be_null=True)
    try:
        with (path.opened() if raw is None else io.BytesIO(raw)) as fh:
            table = pacsv.read_csv(fh, read_options=read, parse_options=parse,
                                   convert_options=convert)
    except UnicodeDecodeError as exc:  # (from Python's codec, for encodings not UTF-8)
        return None, [Finding(None, (
            f"the data are not {encoding} text (byte 0x{exc.object[exc.start]:02x}); give"
            " the file's encoding as data.encoding"))]
    except (pa.ArrowException, UnicodeError, ValueError) as exc:
        return None, [Finding(None, _reader_message(str(exc), encoding, path.size))]
    if bad_rows:
        return None, [_ragged(bad_rows, n_columns)]
    return table, []


def _reader_message(message: str, encoding: str, size: int) -> str:
    """pyarrow's error as a sentence about the data file (of ``size`` bytes)."""
    message = message.strip().splitlines()[0] if message.strip() else "unreadable"
    if "straddling object" in message or "cannot infer number of columns" in message:
        if size < MAX_RECORD_BYTES:  # (no record is too long: a quote is never closed)
            return "a quoted field of the data is never closed (an unclosed quote?)"
        return (f"a record (line) of the data is longer than {_size(MAX_RECORD_BYTES)}:"
                " is this a CSV file with line ends?")
    utf8 = re.match(r"In CSV column #(\d+): Row #(\d+): .*invalid UTF8", message)
    if utf8:
        return (f"the data are not {encoding} text (line {utf8.group(2)}); give the"
                " file's encoding as data.encoding (e.g. latin-1 or cp1252)")
    # (pyarrow's other messages may quote a record: only what they say of it is kept)
    rows = re.search(r"Row #(\d+)", message)
    return "cannot read the file as CSV data" + (f" (line {rows.group(1)})" if rows else "")


def _ragged(bad_rows: list, n_columns: int) -> Finding:
    shown = []
    for number, fields, text in bad_rows[:SHOW]:
        where = f"line {number}" if number is not None and number > 0 else "a line"
        unclosed = " (an unclosed quote?)" if text.count('"') % 2 else ""
        shown.append(f"{where} has {fields} field{'s' if fields != 1 else ''}{unclosed}")
    more = f" and {len(bad_rows) - SHOW} more" if len(bad_rows) > SHOW else ""
    noun = "line has" if len(bad_rows) == 1 else "lines have"
    return Finding(None, (
        f"{len(bad_rows)} {noun} a different number of fields than the header"
        f" ({n_columns}): {', '.join(shown)}{more}"))


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n:,} bytes"


def csv_frame(file: CheckedFile, columns: Iterable[str] = (), raw: bytes | None = None,
              **options):
    """The recipe's ``file`` (its bytes ``raw``, when read already) as a CSV table (pandas
    ``read_csv`` with ``options``; ``sep`` the delimiter, default ','), refused when it
    is empty, binary, not UTF-8, ragged, has a column name twice or more than
    :data:`MAX_HEADER_COLUMNS` columns, or lacks one of ``columns`` (named as the
    recipe writes them; the file's own header is never quoted)."""
    raw = file.content() if raw is None else raw
    end = raw.find(b"\n")
    first = raw if end < 0 else raw[:end]
    if not first.strip():
        raise file.refuse("it is empty (no header)" if not raw else
                          "its first line (the header) is blank")
    file.check_text(raw)
    sep = options.get("sep", ",")
    names = _check_header(first.decode("utf-8-sig"), sep,
                          bool(options.get("skipinitialspace")), file)
    problem = record_problem(file, raw, sep, len(names))
    if problem is not None:
        raise file.refuse(problem)
    # numbers exactly as written: pandas 2's default parser may miss the last digit
    # (a ptable written by sdcflow read back 1e-17 off); pandas 3 parses exactly by
    # default and deprecates the option
    if int(pd.__version__.split(".")[0]) < 3:
        options.setdefault("float_precision", "round_trip")
    try:
        frame = pd.read_csv(io.BytesIO(raw), encoding="utf-8-sig", index_col=False,
                            **options)
    except pd.errors.EmptyDataError:
        raise file.refuse("it is empty (no header)") from None
    except (pd.errors.ParserError, ValueError, UnicodeError, csv.Error) as exc:
        raise file.refuse(_parser_message(str(exc))) from None
    file.lacks(columns, [str(c) for c in frame.columns])
    return frame


def _check_header(line: str, sep: str, skip_space: bool, file: CheckedFile) -> list[str]:
    """The names of a CSV header line, refused when too many or one is there twice
    (which pandas would rename quietly)."""
    line = line.rstrip("\r\n")
    if line.count(sep) >= MAX_HEADER_COLUMNS:
        raise file.refuse(f"its header has more than {MAX_HEADER_COLUMNS:,} columns: is "
                          f"{sep!r} its delimiter?")
    try:
        names = next(csv.reader([line], delimiter=sep, skipinitialspace=skip_space,
                                strict=False), [])
    except csv.Error:  # (a field longer than the csv module's limit)
        raise file.refuse("its header is not a CSV line") from None
    seen: dict[str, int] = {}
    for i, n in enumerate(names, 1):
        if n in seen:
            shown = f" '{n}'" if quotable(n) else ""
            raise file.refuse(f"its header names a column{shown} twice (columns {seen[n]} "
                              f"and {i})")
        seen[n] = i
    return names


def _parser_message(text: str) -> str:
    """pandas' complaint about a CSV file as a sentence that quotes none of the file."""
    ragged = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", text)
    if ragged:
        want, line, got = ragged.groups()
        return (f"line {line} has {got} fields, where the header has {want}: is it a CSV "
                "table?")
    quote = re.search(r"EOF inside string starting (?:at|with) (?:row|line) (\d+)", text)
    if quote:
        return f"a quote opened on line {int(quote.group(1)) + 1} is never closed"
    return "it is not a CSV table sdcflow can read"
