"""Bad data and unreadable files through the command line: `sdcflow validate` and
`sdcflow run` exit 1 with a message naming the file, column or records, never a
traceback or an internal error (exit 4), and release nothing."""

import os
import textwrap

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sdcflow.cli import main
from sdcflow.data import csv_input, recipe_files

RECIPE = """\
sdcflow: 1
name: bad
seed: 1
data: {data}
variables:
{variables}
steps:
  - {{id: risk, measure: k_anonymity, params: {{k: 1}}}}
"""
KEY = "  a: {role: key}"


@pytest.fixture(autouse=True)
def in_tmp_path(tmp_path, monkeypatch):
    """Messages name files relative to the working directory."""
    monkeypatch.chdir(tmp_path)


def recipe(tmp_path, data="{path: d.csv}", variables=KEY, name="r.yaml"):
    path = tmp_path / name
    path.write_text(RECIPE.format(data=data, variables=variables))
    return path


def both_commands_refuse(tmp_path, path, capsys, *expected):
    """validate and run: exit 1, the expected messages, no traceback, nothing released."""
    for argv in (["validate", str(path)], ["run", str(path), "--out", str(tmp_path / "out")]):
        code = main(argv)
        err = capsys.readouterr().err
        assert code == 1, f"{argv[0]}: exit {code}\n{err}"
        assert "Traceback" not in err and "internal error" not in err
        for text in expected:
            assert text in err, f"{argv[0]}: {text!r} not in\n{err}"
    assert not (tmp_path / "out").exists()


def test_integer_beyond_int64(tmp_path, capsys):
    (tmp_path / "d.csv").write_text("a,n\nx,1\ny,12345678901234567890\nz,1e19\n")
    path = recipe(tmp_path, variables=KEY + "\n  n: {role: key, type: integer}")
    both_commands_refuse(tmp_path, path, capsys,
                         "r.yaml:7:6: column 'n' is declared integer but has values beyond"
                         " the 64-bit integer range",
                         "such as '12345678901234567890' (2 records: 2 (line 3), 3 (line 4))"
                         " in d.csv")


def test_parquet_uint64_beyond_int64(tmp_path, capsys):
    pq.write_table(pa.table({"a": ["x", "y"], "n": pa.array([1, 2**64 - 1], pa.uint64())}),
                   tmp_path / "d.parquet")
    path = recipe(tmp_path, "{path: d.parquet}", KEY + "\n  n: {role: numeric, type: integer}")
    both_commands_refuse(tmp_path, path, capsys,
                         "such as '18446744073709551615' (1 record: 2) in d.parquet")


@pytest.mark.parametrize("array, kind", [
    (pa.array([b"\xff", b"x"]), "binary"),
    (pa.array([0, 1], pa.timestamp("ms")), "timestamp[ms]"),
    (pa.array([[1], [2]]), "list<element: int64>"),
])
def test_parquet_types_sdcflow_cannot_hold(tmp_path, capsys, array, kind):
    pq.write_table(pa.table({"a": array}), tmp_path / "d.parquet")
    path = recipe(tmp_path, "{path: d.parquet}")
    both_commands_refuse(tmp_path, path, capsys,
                         f"r.yaml:6:6: column 'a' has the Parquet type {kind}, which sdcflow"
                         " cannot hold")


@pytest.mark.parametrize("content, message", [
    (b"a,b\nx,1\ny\nz,2,3\n", ("d.csv: 2 lines have a different number of fields than the"
                              " header (2): line 3 has 1 field, line 4 has 3 fields")),
    (b"a,b\nx\x00y,1\n", "r.yaml:6:6: column 'a' holds NUL characters"),
    ("a\nJosé\n".encode("latin-1"), "d.csv: the data are not utf-8 text (line 2)"),
    (b"\xef\xbb\xbfa\nx\n\xef\xbb\xbfb\n", None),  # a BOM: read (and a stray one kept)
])
def test_csv_that_is_not_a_clean_table(tmp_path, capsys, content, message):
    (tmp_path / "d.csv").write_bytes(content)
    path = recipe(tmp_path)
    if message is None:
        assert main(["validate", str(path)]) == 0
        return
    both_commands_refuse(tmp_path, path, capsys, message)


def test_unknown_encoding(tmp_path, capsys):
    (tmp_path / "d.csv").write_text("a\nx\n")
    path = recipe(tmp_path, "{path: d.csv, encoding: klingon}")
    both_commands_refuse(tmp_path, path, capsys,
                         "r.yaml:4:31: unknown encoding 'klingon'")


def test_one_enormous_line_is_refused_before_it_is_read(tmp_path, capsys, monkeypatch):
    # a 1 GB one-line file took 5.5 GB before being refused; the reader looks at one
    # block (here 1 KiB, really 16 MiB) of it
    monkeypatch.setattr(csv_input, "MAX_RECORD_BYTES", 1024)
    (tmp_path / "d.csv").write_bytes(b"a" * 100_000)
    both_commands_refuse(tmp_path, recipe(tmp_path), capsys,
                         "d.csv: the first line (the header) is longer than 1,024 bytes")
    (tmp_path / "d.csv").write_bytes(b"a\n" + b"x" * 100_000 + b"\n")
    both_commands_refuse(tmp_path, recipe(tmp_path), capsys,
                         "d.csv: a record (line) of the data is longer than 1,024 bytes")


def test_data_file_is_a_pipe(tmp_path, capsys):
    os.mkfifo(tmp_path / "d.csv")  # reading it would block for ever
    both_commands_refuse(tmp_path, recipe(tmp_path), capsys,
                         "r.yaml:4:14: the data file d.csv: it is not a regular file (a pipe,"
                         " socket or device)")


def test_data_file_name_too_long(tmp_path, capsys):
    name = "x" * 300 + ".csv"  # longer than NAME_MAX (255): ENAMETOOLONG
    both_commands_refuse(tmp_path, recipe(tmp_path, f"{{path: {name}}}"), capsys,
                         "the data file x", "File name too long")


def test_symbolic_link_loops(tmp_path, capsys):
    # resolving a loop raises RuntimeError on Python 3.11: an internal error before
    os.symlink("loop2.csv", tmp_path / "loop1.csv")
    os.symlink("loop1.csv", tmp_path / "loop2.csv")
    both_commands_refuse(tmp_path, recipe(tmp_path, "{path: loop1.csv}"), capsys,
                         "r.yaml:4:14: the data file loop1.csv: cannot be found (Too many"
                         " levels of symbolic links)")
    os.symlink("loop2.yaml", tmp_path / "loop1.yaml")
    os.symlink("loop1.yaml", tmp_path / "loop2.yaml")
    both_commands_refuse(tmp_path, tmp_path / "loop1.yaml", capsys,
                         "loop1.yaml: cannot read recipe: Too many levels of symbolic links")


def test_data_file_without_read_permission(tmp_path, capsys, monkeypatch):
    # the tests run as root, who may read anything: opening the file is made to fail
    # as it does for a user without permission
    (tmp_path / "d.csv").write_text("a\nx\n")

    opener = os.open

    def denied(path, *args, **kwargs):
        if str(path).endswith("d.csv"):
            raise PermissionError(13, "Permission denied", str(path))
        return opener(path, *args, **kwargs)

    monkeypatch.setattr(recipe_files.os, "open", denied)
    both_commands_refuse(tmp_path, recipe(tmp_path), capsys,
                         "r.yaml:4:14: the data file d.csv: cannot be opened (Permission"
                         " denied)")


def test_recipe_that_cannot_be_read(tmp_path, capsys, monkeypatch):
    pipe = tmp_path / "pipe.yaml"
    os.mkfifo(pipe)
    both_commands_refuse(tmp_path, pipe, capsys,
                         "pipe.yaml: cannot read recipe: not a regular file")
    long = tmp_path / ("y" * 300 + ".yaml")
    both_commands_refuse(tmp_path, long, capsys, "cannot read recipe: File name too long")
    path = recipe(tmp_path)
    (tmp_path / "d.csv").write_text("a\nx\n")
    original = type(path).read_bytes

    def denied(self):
        if self.name == "r.yaml":
            raise PermissionError(13, "Permission denied", str(self))
        return original(self)

    monkeypatch.setattr(type(path), "read_bytes", denied)
    both_commands_refuse(tmp_path, path, capsys, "r.yaml: cannot read recipe: Permission denied")


def test_the_corpus_style_message_has_the_recipe_position(tmp_path, capsys):
    # (guard for the helper above: a valid recipe and data pass both commands)
    (tmp_path / "d.csv").write_text(textwrap.dedent("""\
        a
        x
        """))
    path = recipe(tmp_path)
    assert main(["validate", str(path)]) == 0
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 0


@pytest.mark.parametrize("delimiter", ['"\\0"', "é", '"\\u20ac"'])
def test_a_delimiter_pyarrow_cannot_take(tmp_path, capsys, delimiter):
    # NUL or a character beyond ASCII: pyarrow's reader raised ValueError (exit 4)
    (tmp_path / "d.csv").write_text("a\nx\n")
    path = recipe(tmp_path, f"{{path: d.csv, delimiter: {delimiter}}}")
    both_commands_refuse(tmp_path, path, capsys, "r.yaml:4:32: ",
                         "cannot be the delimiter of a CSV file: give one ASCII character")


@pytest.mark.parametrize("content, message", [
    # a header without a line end was "a record (line) of the data is longer than 16 MiB"
    (b"a", "the data have no records"),
    (b'a,"b\n1,2\n', "a quoted field of the data is never closed (an unclosed quote?)"),
])
def test_small_files_pyarrow_finds_no_record_in(tmp_path, capsys, content, message):
    (tmp_path / "d.csv").write_bytes(content)
    both_commands_refuse(tmp_path, recipe(tmp_path), capsys, message)
