"""Reading and writing the files of statistical packages: SPSS (``.sav``, ``.zsav``), Stata
(``.dta``) and SAS (``.sas7bdat``, ``.xpt``), through ReadStat (the optional extra
``sdcflow[formats]``, which brings pyreadstat).

A column becomes text as a Parquet column does (numbers with every digit, a whole
number without ``.0``, so codes stored as numbers read as codes); the user-missing codes
of SPSS and the extended missing values of Stata and SAS (``.a`` ... ``.z``) become
missing values; dates stay the numbers the file holds. What the file says about each
declared column is kept as metadata: its value labels (code -> label, the code written
as the column's text) and its variable label; the report shows them and a release in
one of these formats carries them back.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from .csv_input import TextTable
from .dataset import Variable
from .findings import Finding
from .recipe_files import CheckedFile

# file suffix -> format name; SAS data sets (.sas7bdat) are read only: ReadStat cannot
# write them (release as .xpt, the SAS transport file, instead)
STAT_SUFFIXES = {".sav": "sav", ".zsav": "zsav", ".dta": "dta", ".sas7bdat": "sas7bdat",
                 ".xpt": "xpt"}
STAT_FORMATS = tuple(STAT_SUFFIXES.values())
WRITABLE = ("sav", "zsav", "dta", "xpt")
MISSING_EXTRA = ("reading or writing {what} files needs the optional extra sdcflow[formats]"
                 " (pip install 'sdcflow[formats]', which brings pyreadstat): pyreadstat is"
                 " not installed")


def load_pyreadstat():
    """pyreadstat, or ``None`` (then :data:`MISSING_EXTRA` says what to install)."""
    try:
        import pyreadstat
    except ImportError:
        return None
    return pyreadstat


def read_stat_text(path: CheckedFile, fmt: str, variables: Mapping[str, Variable]) -> tuple[
        TextTable | None, dict, list[Finding]]:
    """The column names of the statistics file ``path`` (checked by
    :mod:`.recipe_files`) and the columns of ``variables`` as text, the metadata of those
    columns (``value_labels``, ``variable_labels``), or the findings that say why the file
    cannot be read."""
    import pyarrow as pa

    from .parquet_input import _text

    reader = load_pyreadstat()
    if reader is None:
        return None, {}, [Finding(("data", "path"), MISSING_EXTRA.format(what=fmt))]
    read = {"sav": reader.read_sav, "zsav": reader.read_sav, "dta": reader.read_dta,
            "sas7bdat": reader.read_sas7bdat, "xpt": reader.read_xport}[fmt]
    try:
        # ReadStat opens the file by its name: the checked file, held open meanwhile and
        # reopened through /proc/self/fd where there is one (so it is the file checked)
        with path.opened() as fh:
            name = _opened_name(fh, path)
            _, head = read(name, metadataonly=True)
            names = [str(n) for n in head.column_names]
            wanted = [w for w in variables if names.count(w) == 1]
            frame, meta = read(name, usecols=wanted or names[:1],
                               disable_datetime_conversion=True)
    except reader.ReadstatError as exc:  # (ReadStat's own words, quoting nothing of the file)
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else "unreadable"
        return None, {}, [Finding(None, f"cannot read the {fmt} file: {message}")]
    except (reader.PyreadstatError, OSError, ValueError, UnicodeError):
        return None, {}, [Finding(None, f"cannot read the {fmt} file: it is damaged or not"
                                        f" a {fmt} file sdcflow can read")]
    columns, value_labels, numeric = {}, {}, []
    for w in wanted:
        values = frame[w]
        stored_as_numbers = pd.api.types.is_numeric_dtype(values)
        if stored_as_numbers:
            numeric.append(w)
            array = pa.array(values.to_numpy(dtype=np.float64), from_pandas=True)
        else:
            array = pa.array(values.astype(object).where(values.notna(), None)
                             .map(lambda v: v if v is None else str(v)), pa.large_string())
            # (SPSS and Stata have no missing text: an empty string is one)
        text = _text(pa.chunked_array([array]), codes=True).rename(w)
        columns[w] = text.mask(text.eq("").fillna(False)) if not stored_as_numbers else text
        labels = (meta.variable_value_labels or {}).get(w)
        if labels:
            value_labels[w] = {_code(k): str(v) for k, v in labels.items()}
    variable_labels = {w: str(label) for w, label in
                       (meta.column_names_to_labels or {}).items() if w in wanted and label}
    metadata = {"value_labels": value_labels, "variable_labels": variable_labels,
                "numeric_codes": numeric}
    return TextTable(names, columns, int(head.number_rows if head.number_rows is not None
                                         else len(frame))), metadata, []


def _opened_name(fh, path: CheckedFile) -> str:
    proc = f"/proc/self/fd/{fh.fileno()}"
    return proc if os.path.exists(proc) else str(path.path)


def labels_for_release(variables: Mapping[str, Variable], source: Mapping) -> dict:
    """The labels a release in a statistics format carries: the input file's value and
    variable labels (``source``, as :func:`read_stat_text` gives them), and for the other
    variables the value labels the recipe declares (``variables.X.labels``; their column
    goes out as numbers when its codes are)."""
    value_labels = {name: {str(k): str(v) for k, v in var.labels.items()}
                    for name, var in variables.items() if var.labels}
    numeric = [n for n, labels in value_labels.items() if all(map(is_number, labels))]
    value_labels.update(source.get("value_labels") or {})
    return {"value_labels": value_labels, "variable_labels": source.get("variable_labels"),
            "categories": source.get("categories", "codes"),
            "numeric_codes": sorted(set(numeric) | set(source.get("numeric_codes") or ()))}


def _code(value) -> str:
    """A labelled value as its column's text: a whole number without '.0'."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def write_stat_file(frame: pd.DataFrame, path: Path, fmt: str, metadata: Mapping | None) -> None:
    """Write ``frame`` as an SPSS, Stata or SAS transport file, with the value labels and
    variable labels of ``metadata`` (as :func:`read_stat_text` gives them) for the
    columns still there. Categories read as their labels (``data.value_labels: labels``)
    go back to their codes. A column read as numeric codes is written as numbers when every
    released value is a number (then its labels go with it); a column recoded into text
    (``1-3``) is written as text, without the labels of the old codes."""
    writer = load_pyreadstat()
    if writer is None:
        raise RuntimeError(MISSING_EXTRA.format(what=fmt))
    metadata = metadata or {}
    numeric = set(metadata.get("numeric_codes", ()))
    out, value_labels = {}, {}
    as_labels = metadata.get("categories") == "labels"
    for name in frame.columns:
        col = frame[name]
        labels = (metadata.get("value_labels") or {}).get(name)
        if as_labels and labels and not pd.api.types.is_numeric_dtype(col):
            codes = {label: code for code, label in reversed(list(labels.items()))}
            col = col.map(lambda v, codes=codes: codes.get(v, v) if isinstance(v, str) else v)
        if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
            out[name] = col.astype("float64")
            labelled = True
        elif name in numeric and _all_numbers(col):
            out[name] = pd.to_numeric(col.astype(object).where(col.notna(), np.nan))
            labelled = True
        else:
            out[name] = col.astype(object).where(col.notna(), None)
            labelled = False
        if labels and labelled:
            value_labels[name] = {float(k): v for k, v in labels.items() if is_number(k)}
    data = pd.DataFrame(out, index=frame.index)
    column_labels = {k: v for k, v in (metadata.get("variable_labels") or {}).items()
                     if k in data.columns}
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt in ("sav", "zsav"):
        writer.write_sav(data, str(path), compress=fmt == "zsav",
                         column_labels=column_labels or None,
                         variable_value_labels=value_labels or None)
    elif fmt == "dta":
        writer.write_dta(data, str(path), column_labels=column_labels or None,
                         variable_value_labels=value_labels or None)
    else:  # xpt: SAS transport files have no value labels
        writer.write_xport(data, str(path), column_labels=column_labels or None)
    fix_timestamp(path, fmt)


# ReadStat stamps the time of writing into each file's header; a release must be the same
# bytes for the same recipe and input, so the stamp is set to 1 January 1970, 00:00:00
_SAV_STAMP = slice(92, 109)  # creation date "dd Mon yy" and time "hh:mm:ss"
_DTA_STAMP = re.compile(rb"<timestamp>\x11\d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d</timestamp>")
_XPT_STAMP = re.compile(rb"\d\d[A-Z]{3}\d\d:\d\d:\d\d:\d\d")


def fix_timestamp(path: Path, fmt: str) -> None:
    """Set the time of writing that ReadStat puts in the header of an SPSS, Stata or SAS
    transport file to 1 January 1970, 00:00 (the header only: the SAV header's date and
    time fields, Stata's ``<timestamp>``, the SAS transport header records)."""
    raw = bytearray(path.read_bytes())
    if fmt in ("sav", "zsav"):
        if raw[:4] in (b"$FL2", b"$FL3") and len(raw) >= _SAV_STAMP.stop:
            raw[_SAV_STAMP] = b"01 Jan 7000:00:00"
    elif fmt == "dta":
        head = bytes(raw[:512])
        match = _DTA_STAMP.search(head)
        if match:
            raw[match.start():match.end()] = b"<timestamp>\x1101 Jan 1970 00:00</timestamp>"
    else:
        end = raw.find(b"HEADER RECORD*******NAMSTV")
        head = bytes(raw[:end if end > 0 else 640])
        for match in _XPT_STAMP.finditer(head):
            raw[match.start():match.end()] = b"01JAN70:00:00:00"
    path.write_bytes(bytes(raw))


def is_number(text: str) -> bool:
    """Whether ``text`` is a number (as a code: ``1``, ``2.5``, ``-3``)."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def _all_numbers(col: pd.Series) -> bool:
    present = col.dropna()
    return all(is_number(str(v)) for v in present.unique())
