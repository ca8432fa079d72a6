"""Reading a Parquet file as text columns: only the declared columns, and only types that
sdcflow can hold exactly.

A column becomes the text its values write: strings as they are; integers with all their
digits (also uint64 values past int64: the declared type decides what happens to them);
decimals as written (``1.10``); whole floats without a trailing ``.0`` (so codes stored
as floats read as codes), other floats as their shortest round-trip text; booleans as
``True``/``False``; dictionary (categorical) columns by their values. Temporal types,
binary data and nested or other types are refused by name: store them as text or
numbers.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from .csv_input import TextTable
from .dataset import Variable
from .findings import Finding
from .recipe_files import CheckedFile
from .text import TEXT, text_column


def read_parquet_text(path: CheckedFile, variables: Mapping[str, Variable]) -> tuple[
        TextTable | None, list[Finding]]:
    """The column names of the Parquet file ``path`` (checked by :mod:`.recipe_files`)
    and the columns of ``variables`` as text, or the findings that say why they cannot be
    read."""
    with path.opened() as fh:
        return _read(fh, variables)


def _read(fh, variables: Mapping[str, Variable]) -> tuple[TextTable | None, list[Finding]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(fh)
        schema = parquet.schema_arrow
    except (pa.ArrowException, OSError, ValueError) as exc:
        return None, [Finding(None, f"cannot read Parquet data: {_reason(exc)}")]
    names = [str(n) for n in schema.names]
    wanted = [w for w in variables if names.count(w) == 1]
    findings = []
    for w in wanted:
        kind = schema.field(w).type
        if not _holdable(kind):
            findings.append(Finding(("variables", w), (
                f"column '{w}' has the Parquet type {kind}, which sdcflow cannot hold:"
                " store it as text or numbers")))
    if findings:
        return None, findings
    try:
        table = parquet.read(columns=wanted) if wanted else None
    except (pa.ArrowException, OSError, ValueError) as exc:
        return None, [Finding(None, f"cannot read Parquet data: {_reason(exc)}")]
    columns = {w: _text(table.column(w), codes=not variables[w].is_numeric).rename(w)
               for w in wanted}
    return TextTable(names, columns, parquet.metadata.num_rows), []


def _holdable(kind) -> bool:
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    t = pa.types
    return (t.is_string(kind) or t.is_large_string(kind)
            or getattr(t, "is_string_view", lambda _: False)(kind)
            or t.is_integer(kind) or t.is_floating(kind) or t.is_decimal(kind)
            or t.is_boolean(kind) or t.is_null(kind))


def _text(column, codes: bool) -> pd.Series:
    """A pyarrow column of a holdable type as a text Series (missing values NaN); floats
    that are not whole are written as Python writes them if they are ``codes``, else as
    pyarrow does (faster, and read back as the same double all the same)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = column.type
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
        column = column.cast(kind)
    t = pa.types
    if t.is_floating(kind):
        column = _float_text(column.to_numpy().astype(np.float64), codes)
    elif t.is_boolean(kind) or t.is_null(kind):
        return text_column(column.to_pandas())  # booleans as True/False, nulls missing
    else:  # strings as they are, integers and decimals with every digit
        column = pc.cast(column, pa.large_string())
    return pd.Series(TEXT.__from_arrow__(column), dtype=TEXT)


def _float_text(x: np.ndarray, codes: bool):
    """Floats as a pyarrow text array: whole numbers within int64 without a trailing
    '.0', the others in their shortest round-trip form; NaN missing."""
    import pyarrow as pa
    import pyarrow.compute as pc

    missing = np.isnan(x)
    with np.errstate(invalid="ignore"):
        whole = ~missing & (x == np.round(x)) & (np.abs(x) < 2.0**63)
    out = pc.cast(pa.array(np.where(whole, x, 0).astype(np.int64)), pa.large_string())
    other = ~missing & ~whole
    if other.any():
        text = (pa.array([str(v) for v in x[other]], pa.large_string()) if codes
                else pc.cast(pa.array(x[other]), pa.large_string()))
        out = pc.replace_with_mask(out, pa.array(other), text)
    if missing.any():
        out = pc.replace_with_mask(out, pa.array(missing),
                                   pa.nulls(int(missing.sum()), pa.large_string()))
    return out


def _reason(exc: BaseException) -> str:
    """Why pyarrow could not read the file, in words that quote none of it."""
    text = str(exc)
    if "size is 0 bytes" in text:
        return "the file is empty"
    if "magic bytes not found" in text or "smaller than the minimum file footer" in text:
        return "it is not a Parquet file"
    return "the file is damaged or not a Parquet file sdcflow can read"
