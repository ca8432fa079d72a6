"""The rules of :mod:`sdcflow.data.stat_limits` against ReadStat itself: every name the
rules accept is written by pyreadstat and read back unchanged, and every name they
refuse is one ReadStat refuses or one the format's documentation forbids (SPSS's names
compared without case, which ReadStat lets through; SAS's names compared without case
too). The expected verdicts come from the formats' documented rules (IBM SPSS
Statistics and the PSPP manual, "Identifiers"; StataCorp, "[U] 11.3 Naming
conventions"; SAS Institute, TS-140) and were checked against pyreadstat 1.3."""

from __future__ import annotations

import pandas as pd
import pytest

from sdcflow.data.stat_limits import label_problems, name_problems, value_problems

pyreadstat = pytest.importorskip("pyreadstat")

WRITE = {"sav": pyreadstat.write_sav, "dta": pyreadstat.write_dta,
         "xpt": pyreadstat.write_xport}
READ = {"sav": pyreadstat.read_sav, "dta": pyreadstat.read_dta, "xpt": pyreadstat.read_xport}

# name -> the formats that can hold it
NAMES = {
    "age": {"sav", "dta", "xpt"},
    "a.b": {"sav"},  # SPSS allows '.' inside a name
    "a$b": {"sav"},
    "_x": {"dta", "xpt"},  # SPSS: a letter first
    "x_1": {"sav", "dta", "xpt"},
    "ägé": {"sav", "dta"},  # Unicode letters; SAS transport names are ASCII
    "my sex": set(),
    "1st": set(),
    "a-b": set(),
    "a" * 32: {"sav", "dta", "xpt"},
    "a" * 33: {"sav"},
    "a" * 64: {"sav"},
    "a" * 65: set(),
    "ä" * 32: {"sav", "dta"},  # 64 bytes in UTF-8
    "ä" * 33: set(),  # 66 bytes (SPSS) and 33 characters (Stata)
    "ALL": {"dta", "xpt"},  # an SPSS reserved word
    "_n": {"xpt"},  # Stata reserved; SPSS: not a letter first
    "int": {"sav", "xpt"},  # Stata reserved
    "str10": {"sav", "xpt"},
}


@pytest.mark.parametrize("name", list(NAMES), ids=lambda n: n if len(n) < 12 else f"{n[0]}x{len(n)}")
@pytest.mark.parametrize("fmt", ["sav", "dta", "xpt"])
def test_names_as_readstat_writes_them(tmp_path, name, fmt):
    refused = dict(name_problems([name], fmt))
    assert (name not in refused) == (fmt in NAMES[name]), refused
    if name in refused:
        return
    path = tmp_path / f"t.{fmt}"
    WRITE[fmt](pd.DataFrame({name: [1.0, 2.0]}), str(path))
    frame, _ = READ[fmt](str(path))
    assert list(frame.columns) == [name]


def test_names_that_differ_only_in_case():
    # SPSS and SAS compare names without case: 'Age' and 'age' are one variable there
    # (ReadStat itself refuses the pair in a SAS transport file); Stata tells them apart
    assert list(name_problems(["Age", "age"], "sav")) == [
        ("age", "SPSS does not tell 'age' from 'Age' (names are compared without case)")]
    assert [n for n, _ in name_problems(["Age", "age"], "xpt")] == ["age"]
    assert list(name_problems(["Age", "age"], "dta")) == []


@pytest.mark.parametrize(("fmt", "size", "kept"), [
    # ReadStat cuts SPSS variable labels to 256 bytes and refuses Stata's beyond 80
    ("sav", 256, True), ("sav", 257, False), ("dta", 80, True), ("dta", 81, False),
    ("xpt", 256, True), ("xpt", 257, False)])
def test_variable_labels(fmt, size, kept):
    found = list(label_problems({"a": "L" * size}, {}, set(), fmt))
    assert (not found) == kept, found


@pytest.mark.parametrize(("fmt", "labels", "kept"), [
    ("sav", {"1": "x" * 120}, True),
    ("sav", {"1": "x" * 121}, False),  # ReadStat cuts SPSS value labels to 120 bytes
    ("sav", {"1.5": "half"}, True),
    ("dta", {"1": "x" * 32000}, True),
    ("dta", {"1": "x" * 32001}, False),  # ... and Stata's to 32,000
    ("dta", {"1.5": "half"}, False),  # Stata labels whole numbers only
    ("dta", {"3000000000": "big"}, False),  # ... of Stata's long range
    ("xpt", {"1.5": "half"}, True)])  # (no value labels in SAS transport files)
def test_value_labels(fmt, labels, kept):
    found = list(label_problems({}, {"a": labels}, {"a"}, fmt))
    assert (not found) == kept, found


@pytest.mark.parametrize(("fmt", "value", "kept"), [
    # IBM mainframe doubles: 16^-65 = 5.398e-79 the smallest normalised; the format
    # reaches 7.2e75, but ReadStat writes 2^249 = 9.046e74 and above as inf (found by
    # bisection with pyreadstat 1.3) and 1e-80 as 0
    ("xpt", 9.04e74, True), ("xpt", 2.0 ** 249, False), ("xpt", 7.2e75, False),
    ("xpt", 1e-78, True), ("xpt", 1e-80, False), ("xpt", 0.0, True),
    # Stata's largest double, 8.988e307 (ReadStat refuses 9e307)
    ("dta", 8.98e307, True), ("dta", 9e307, False),
    ("sav", 1.7e308, True)])
def test_numbers(tmp_path, fmt, value, kept):
    frame = pd.DataFrame({"x": [value]})
    found = list(value_problems(frame, fmt))
    assert (not found) == kept, found
    if kept:
        path = tmp_path / f"t.{fmt}"
        WRITE[fmt](frame, str(path))
        assert READ[fmt](str(path))[0]["x"].tolist() == [value]
