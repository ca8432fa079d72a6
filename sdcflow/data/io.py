"""Reading the input data (CSV, Parquet, SPSS, Stata and SAS files, shipped data sets)
and writing releases.

Reading checks every declared variable against the data and reports, all at once, the
columns that do not exist and the records whose values do not fit the declared type,
naming the column and the first records (1-based, in file order). A file that cannot be
read at all (missing, unreadable, not a table, not in the declared encoding, too long a
line) is one finding that says why; nothing is read into memory beyond a bounded block
before a file is known to be a table (see :mod:`.csv_input`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping
from pathlib import Path

import pandas as pd

from ..errors import did_you_mean
from .convert import convert_column
from .csv_input import TextTable, read_csv_text
from .dataset import Dataset, Variable
from .findings import Finding, records_text
from .parquet_input import read_parquet_text
from .recipe_files import CheckedFile, RecipeFileError, RecipeFiles, as_files, quotable
from .stat_files import STAT_FORMATS, STAT_SUFFIXES, read_stat_text, write_stat_file

__all__ = ["BUILTIN_DATASETS", "Finding", "read_data", "records_text", "resolve_source",
           "sha256_file", "table_format", "write_table"]

DATASETS_DIR = Path(__file__).parent / "datasets"
BUILTIN_DATASETS = {
    "testdata": "testdata.csv",
    "casc_census": "CASCrefmicrodata.csv",
    "francdat": "francdat.csv",
    "synthetic_census": "synthetic_census.csv",
    "search_log": "search_log.csv",
}


def builtin_path(name: str) -> Path:
    return DATASETS_DIR / BUILTIN_DATASETS[name]


def resolve_source(spec: Mapping, files: RecipeFiles | Path) -> tuple[CheckedFile | None,
                                                                      list[Finding]]:
    """The file the ``data`` section points to (checked by :mod:`.recipe_files`: allowed,
    regular), or findings saying why there is none."""
    if "builtin" in spec:
        name = spec["builtin"]
        if name not in BUILTIN_DATASETS:
            shipped = ", ".join(sorted(BUILTIN_DATASETS))
            return None, [Finding(("data", "builtin"), (
                f"unknown shipped data set '{name}'{did_you_mean(name, BUILTIN_DATASETS)};"
                f" shipped: {shipped}"))]
        name, where = str(builtin_path(name)), ("data", "builtin")
    else:
        name, where = str(spec["path"]), ("data", "path")
    try:
        return as_files(files).check(name, where, "data file", "data"), []
    except RecipeFileError as exc:
        return None, [Finding(exc.where, exc.message)]


def table_format(spec: Mapping, path: Path) -> str:
    """The file format of a data or release spec: its ``format``, else by the suffix."""
    if "format" in spec:
        return spec["format"]
    suffix = path.suffix.lower()
    if suffix in STAT_SUFFIXES:
        return STAT_SUFFIXES[suffix]
    return "parquet" if suffix in (".parquet", ".pq") else "csv"


# Shares of reading the data in the fraction reported: hashing the file, reading it (one
# call of pyarrow's, reported when done), converting the variables (one by one); about
# what each takes on a census file (CSV or Parquet).
_HASH, _READ = 0.1, 0.35


def read_data(
    spec: Mapping, files: RecipeFiles | Path, variables: Mapping[str, Variable],
    progress: Callable[[float], None] | None = None,
) -> tuple[Dataset | None, dict, list[Finding]]:
    """Read the data declared by ``spec`` (its path relative to the recipe's folder, as
    ``files`` allows: :mod:`.recipe_files`) and convert the declared variables.

    Returns the dataset (``None`` when it cannot be used), a description of the source
    (file and sha256, for the manifest), and the findings. ``progress`` (if given) is
    called with the fraction of the reading done, now and then."""
    report = progress or (lambda fraction: None)
    path, findings = resolve_source(spec, files)
    if path is None:
        return None, {}, findings
    fmt = table_format(spec, Path(path.name))
    try:
        digest = sha256_file(path, lambda f: report(_HASH * f))
        source = {"file": str(spec.get("builtin") or spec["path"]), "sha256": digest}
        if fmt == "csv":
            raw, findings = read_csv_text(path, spec, variables)
        elif fmt in STAT_FORMATS:
            raw, metadata, findings = read_stat_text(path, fmt, variables)
            source.update((k, v) for k, v in metadata.items() if v)
        else:
            raw, findings = read_parquet_text(path, variables)
        report(_HASH + _READ)
    except OSError as exc:  # e.g. no permission to read, or the file vanished
        return None, {}, [Finding(path.where, f"cannot read the data file {path.name}:"
                                              f" {exc.strerror or exc}")]
    except RecipeFileError as exc:  # (it changed since it was checked)
        return None, {}, [Finding(exc.where, exc.message)]
    if raw is None:
        return None, source, findings
    findings = _columns_problems(raw, variables)
    if findings:
        return None, source, findings

    # (a number in a Parquet or statistics file is a number: its text has a '.')
    keys = ("decimal", "thousands", "na_values") if fmt == "csv" else ("na_values",)
    dialect = {k: spec[k] for k in keys if k in spec}
    columns = {}
    for i, (name, var) in enumerate(variables.items(), 1):
        text = raw.columns[name]
        if spec.get("value_labels") == "labels" and not var.is_numeric:
            text = _labelled(text, {**{str(k): str(v) for k, v in (var.labels or {}).items()},
                                    **source.get("value_labels", {}).get(name, {})})
        col, problems = convert_column(text, var, is_csv=(fmt == "csv"),
                                       dialect=dialect)
        findings.extend(Finding(("variables", name), p) for p in problems)
        columns[name] = col
        report(_HASH + _READ + (1 - _HASH - _READ) * i / len(variables))
    if findings:
        return None, source, findings
    frame = pd.DataFrame(columns, index=pd.RangeIndex(raw.records))
    source["records"] = len(frame)
    if spec.get("value_labels") == "labels":
        source["categories"] = "labels"
    source["undeclared_columns"] = [str(c) for c in raw.names if c not in variables]
    return Dataset(frame, dict(variables)), source, []


def _labelled(text: pd.Series, labels: Mapping[str, str]) -> pd.Series:
    """A text column with each labelled code replaced by its label (others as they are)."""
    if not labels:
        return text
    stripped = text.str.strip()
    return stripped.map(labels).fillna(stripped).where(text.notna()).astype(text.dtype)


def _columns_problems(raw: TextTable, variables: Mapping[str, Variable]) -> list[Finding]:
    """Duplicate column names, declared variables that are not columns, no records."""
    out = []
    seen: dict[str, int] = {}
    for name in raw.names:
        seen[name] = seen.get(name, 0) + 1
    dup = sorted(name for name, count in seen.items() if count > 1)
    if dup:
        # (names a message may quote: a file that is no table has no column names)
        shown = [n for n in dup if quotable(n) or n in variables]
        more = len(dup) - len(shown)
        out.append(Finding(None, "the data have duplicate column names" + (
            f": {shown}" if shown else "") + (f" ({more} more)" if shown and more else "")))
    plain = [n for n in raw.names if quotable(n)]
    for name in variables:
        if name not in seen:
            out.append(Finding(("variables", name), (
                f"variable '{name}' is not a column of the data"
                f"{did_you_mean(name, plain)}"), key=True))
    if raw.records == 0:
        out.append(Finding(None, "the data have no records"))
    return out


def sha256_file(path: Path | CheckedFile,
                progress: Callable[[float], None] | None = None) -> str:
    """The SHA-256 of the file's bytes (hex): a file a recipe names (checked), or one
    sdcflow wrote; ``progress`` hears the fraction read."""
    h = hashlib.sha256()
    with (path.opened() if isinstance(path, CheckedFile) else open(path, "rb")) as fh:
        size = os.fstat(fh.fileno()).st_size
        done = 0
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
            if progress is not None:
                done += len(chunk)
                progress(min(done / size, 1.0) if size else 1.0)
    return h.hexdigest()


def write_table(frame: pd.DataFrame, path: Path, fmt: str,
                metadata: Mapping | None = None) -> None:
    """Write ``frame`` byte-stably: CSV with '\\n' line ends and shortest round-trip
    floats, or Parquet without pandas/pyarrow creator metadata that varies by version;
    or as an SPSS, Stata or SAS transport file with the value and variable labels of
    ``metadata`` (the input's, see :mod:`.stat_files`; these files record the time they
    were written, so their bytes differ from run to run)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt in STAT_FORMATS:
        write_stat_file(frame, path, fmt, metadata)
    elif fmt == "csv":
        frame.to_csv(path, index=False, lineterminator="\n")
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pandas(frame, preserve_index=False).replace_schema_metadata(None)
        # text is large_string whether pandas held it as str (pandas 3, or TEXT) or as
        # Python objects (pandas 2 after a round trip): the same bytes either way
        table = table.cast(pa.schema([
            f.with_type(pa.large_string()) if pa.types.is_string(f.type) else f
            for f in table.schema]))
        pq.write_table(table, path, compression="zstd", write_statistics=False)
    os.chmod(path, 0o644)
