"""Reading the input data (CSV, Parquet, shipped data sets) and writing releases.

Reading checks every declared variable against the data and reports, all at once, the
columns that do not exist and the records whose values do not fit the declared type,
naming the column and the first records (1-based, in file order).
"""

from __future__ import annotations

import csv
import hashlib
import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..suggest import did_you_mean
from .dataset import Dataset, Variable

DATASETS_DIR = Path(__file__).parent / "datasets"
BUILTIN_DATASETS = {
    "testdata": "testdata.csv",
    "casc_census": "CASCrefmicrodata.csv",
    "francdat": "francdat.csv",
}
_SHOW = 5  # how many offending records a message names

@dataclass(frozen=True)
class Finding:
    """A problem with the data: where in the recipe it shows (``None``: in the data file
    itself; ``key``: at the mapping key rather than the value) and what it is."""

    path: tuple | None
    message: str
    key: bool = False


def builtin_path(name: str) -> Path:
    return DATASETS_DIR / BUILTIN_DATASETS[name]


def _records(mask: np.ndarray, csv: bool) -> str:
    rows = np.flatnonzero(mask)
    shown = ", ".join(
        f"{r + 1} (line {r + 2})" if csv else str(r + 1) for r in rows[:_SHOW]
    )
    more = f" and {len(rows) - _SHOW} more" if len(rows) > _SHOW else ""
    noun = "record" if len(rows) == 1 else "records"
    return f"{len(rows)} {noun}: {shown}{more}"


def resolve_source(spec: Mapping, base_dir: Path) -> tuple[Path | None, list[Finding]]:
    """The file the ``data`` section points to, or findings saying why there is none."""
    if "builtin" in spec:
        name = spec["builtin"]
        if name not in BUILTIN_DATASETS:
            shipped = ", ".join(sorted(BUILTIN_DATASETS))
            return None, [Finding(("data", "builtin"), (
                f"unknown shipped data set '{name}'{did_you_mean(name, BUILTIN_DATASETS)};"
                f" shipped: {shipped}"))]
        return builtin_path(name), []
    path = (base_dir / spec["path"]).resolve()
    if path.is_dir():
        return None, [Finding(("data", "path"), f"the data path is a directory, not a file: {path}")]
    if not path.is_file():
        return None, [Finding(("data", "path"), f"data file not found: {path}")]
    return path, []


def table_format(spec: Mapping, path: Path) -> str:
    """The file format of a data or release spec: its ``format``, else by the suffix."""
    if "format" in spec:
        return spec["format"]
    return "parquet" if path.suffix.lower() in (".parquet", ".pq") else "csv"


def _as_text(series: pd.Series) -> pd.Series:
    """Text form of a column read from Parquet (integers without a trailing '.0')."""
    if pd.api.types.is_integer_dtype(series) or pd.api.types.is_float_dtype(series) and series.dropna().mod(1).eq(0).all():
        out = series.astype("Int64").astype("str")
    else:
        out = series.astype("str")
    return out.where(series.notna(), None).astype("str")


def read_data(
    spec: Mapping, base_dir: Path, variables: Mapping[str, Variable]
) -> tuple[Dataset | None, dict, list[Finding]]:
    """Read the data declared by ``spec`` and convert the declared variables.

    Returns the dataset (``None`` when it cannot be used), a description of the source
    (file and sha256, for the manifest), and the findings."""
    path, findings = resolve_source(spec, base_dir)
    if path is None:
        return None, {}, findings
    source = {"file": str(spec.get("builtin") or spec["path"]), "sha256": sha256_file(path)}
    fmt = table_format(spec, path)
    try:
        if fmt == "csv":
            raw = pd.read_csv(
                path, dtype=str, keep_default_na=False, na_values=[""],
                sep=spec.get("delimiter", ","), encoding=spec.get("encoding", "utf-8"),
            )
        else:
            raw = pd.read_parquet(path)
    except (ValueError, OSError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        what = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return None, source, [Finding(None, f"cannot read {fmt.upper()} data: {what}")]
    except Exception as exc:  # noqa: BLE001 - pyarrow raises its own error classes
        return None, source, [Finding(None, f"cannot read {fmt.upper()} data: {exc}")]

    dup = _duplicate_header(path, spec) if fmt == "csv" else \
        raw.columns[raw.columns.duplicated()].tolist()
    if dup:
        findings.append(Finding(None, f"the data have duplicate column names: {dup}"))
    for name in variables:
        if name not in raw.columns:
            findings.append(Finding(("variables", name), (
                f"variable '{name}' is not a column of the data"
                f"{did_you_mean(name, raw.columns)}"), key=True))
    if len(raw) == 0:
        findings.append(Finding(None, "the data have no records"))
    if findings:
        return None, source, findings

    columns = {}
    for name, var in variables.items():
        col = raw[name]
        if fmt != "csv":
            col = _as_text(col)
        col, problems = _convert(col, var, is_csv=(fmt == "csv"))
        findings.extend(Finding(("variables", name), p) for p in problems)
        columns[name] = col
    if findings:
        return None, source, findings
    frame = pd.DataFrame(columns, index=pd.RangeIndex(len(raw)))
    source["records"] = len(frame)
    source["undeclared_columns"] = [str(c) for c in raw.columns if c not in variables]
    return Dataset(frame, dict(variables)), source, []


def _duplicate_header(path: Path, spec: Mapping) -> list[str]:
    """Column names given twice in a CSV header (pandas would rename them silently)."""
    with open(path, encoding=spec.get("encoding", "utf-8"), newline="") as fh:
        header = next(csv.reader(fh, delimiter=spec.get("delimiter", ",")), [])
    counts = Counter(header)
    return sorted(name for name, count in counts.items() if count > 1)


def _convert(col: pd.Series, var: Variable, is_csv: bool) -> tuple[pd.Series, list[str]]:
    text = col.astype("str")
    text = text.str.strip()
    if var.missing:
        text = text.mask(text.isin([str(m) for m in var.missing]))
    problems: list[str] = []
    if var.type in ("categorical", "ordinal"):
        if var.type == "ordinal":
            bad = text.notna() & ~text.isin(var.order)
            if bad.any():
                values = sorted(set(text[bad]))[:_SHOW]
                problems.append(
                    f"column '{var.name}': values {values} are not in the declared order"
                    f" ({_records(bad.to_numpy(), is_csv)})"
                )
        return text, problems
    number = pd.to_numeric(text, errors="coerce")
    bad = (text.notna() & number.isna()).to_numpy()
    if bad.any():
        example = text[bad].iloc[0]
        problems.append(
            f"column '{var.name}' is declared {var.type} but has non-numeric values such as"
            f" {example!r} ({_records(bad, is_csv)})"
        )
        return number, problems
    number = number.astype("float64")
    if var.role == "weight":
        missing = number.isna().to_numpy()
        if missing.any():
            problems.append(f"column '{var.name}' is the weight and has missing values"
                            f" ({_records(missing, is_csv)})")
        negative = (number < 0).fillna(False).to_numpy()
        if negative.any():
            problems.append(f"column '{var.name}' is the weight and has negative values"
                            f" ({_records(negative, is_csv)})")
    if var.type == "integer":
        frac = (number.notna() & (number % 1 != 0)).to_numpy()
        if frac.any():
            example = text[frac].iloc[0]
            problems.append(
                f"column '{var.name}' is declared integer but has non-integer values such as"
                f" {example!r} ({_records(frac, is_csv)})"
            )
            return number, problems
        return number.astype("Int64"), problems
    inf = np.isinf(number.to_numpy())
    if inf.any():
        problems.append(f"column '{var.name}' has infinite values ({_records(inf, is_csv)})")
    return number, problems


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def write_table(frame: pd.DataFrame, path: Path, fmt: str) -> None:
    """Write ``frame`` byte-stably: CSV with '\\n' line ends and shortest round-trip
    floats, or Parquet without pandas/pyarrow creator metadata that varies by version."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "csv":
        frame.to_csv(path, index=False, lineterminator="\n")
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pandas(frame, preserve_index=False).replace_schema_metadata(None)
        pq.write_table(table, path, compression="zstd", write_statistics=False)
    os.chmod(path, 0o644)
