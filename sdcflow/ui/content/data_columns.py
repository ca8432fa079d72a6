"""The data of the open recipe as the Data page shows them: every column's text, read by
the same readers ``sdcflow run`` uses (the recipe's ``data`` section: a file beside the
recipe or a shipped data set, CSV with its dialect, Parquet, SPSS, Stata or SAS), with the
declared variable, the starter's guess (:func:`sdcflow.cli.starter.guess_column`), distinct
and missing counts and a few example values. Identifiers' values are never shown."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ...cli.starter import guess_column
from ...data.csv_input import read_csv_text
from ...data.dataset import Variable
from ...data.io import resolve_source, table_format
from ...data.parquet_input import read_parquet_text
from ...data.recipe_files import RecipeFiles
from ...data.stat_files import STAT_FORMATS, read_stat_text
from ...data.text import text_column

EXAMPLES = 4
HIDDEN = "identifier: hidden"


@dataclass
class Column:
    """One column of the data, or a declared variable the data lack."""

    name: str
    declared: dict  # the recipe's declaration ({} when undeclared)
    guessed_role: str = ""
    guessed_type: str = ""
    why: str = ""
    distinct: int | None = None
    missing: int | None = None
    examples: list[str] = field(default_factory=list)
    in_data: bool = True

    @property
    def role(self) -> str:
        return self.declared.get("role", "")

    @property
    def identifier(self) -> bool:
        """Declared an identifier, or guessed one (an identifier-like name or one value
        per record) while the recipe declares it otherwise: released unless dropped."""
        return self.role == "identifier" or (self.guessed_role == "identifier"
                                              and self.role not in ("", "identifier"))

    @property
    def hidden(self) -> bool:
        """Its values are not shown: an identifier (declared or guessed) or a household
        id."""
        return self.identifier or self.guessed_role == "identifier" or "household" in (
            self.role, self.guessed_role)

    @property
    def released_identifier(self) -> bool:
        """Guessed an identifier but declared with a role that releases it."""
        return self.guessed_role == "identifier" and self.role not in ("", "identifier")


def read_text_columns(spec: Mapping, recipe_dir: Path) -> tuple[pd.DataFrame | None, list[str]]:
    """The columns of the data ``spec`` (a recipe's ``data`` section) names, as text
    (missing values NaN), and the problems found reading them."""
    if not isinstance(spec, Mapping):
        return None, ["the recipe has no data section"]
    files = RecipeFiles(recipe_dir)
    try:
        file, findings = resolve_source(spec, files)
    except (KeyError, TypeError):
        return None, [("the data section names no file ('path') or shipped data set "
                      "('builtin')")]
    if file is None:
        return None, [f.message for f in findings]
    fmt = table_format(spec, Path(file.name))

    def read(wanted):
        if fmt == "csv":
            return read_csv_text(file, spec, wanted)
        variables = {n: Variable(n, "key", "categorical") for n in wanted}
        if fmt in STAT_FORMATS:
            table, _, found = read_stat_text(file, fmt, variables)
            return table, found
        return read_parquet_text(file, variables)

    try:
        header, findings = read([])
        raw, more = read(header.names) if header is not None else (None, [])
    except OSError as exc:
        return None, [f"cannot read the data file {file.name}: {exc.strerror or exc}"]
    problems = [f.message for f in findings + more]
    if raw is None:
        return None, problems or ["the data are not a table"]
    frame = pd.DataFrame({n: raw.columns[n] for n in raw.names if n in raw.columns})
    return frame, problems


def columns_of(frame: pd.DataFrame | None, declared: Mapping[str, dict]) -> list[Column]:
    """The table rows: the data's columns in file order, then declared variables the data
    lack (``in_data`` false)."""
    rows = []
    names = [str(c) for c in frame.columns] if frame is not None else []
    for name in names:
        values = frame[name]
        text = text_column(values).str.strip()
        text = text.where(text != "")
        guess = guess_column(name, text)
        present = text.dropna()
        col = Column(name, dict(declared.get(name) or {}), guess.role, guess.type, guess.why,
                     int(present.nunique()), int(text.isna().sum()))
        if not col.hidden:
            col.examples = [str(v) for v in present.value_counts(sort=True).index[:EXAMPLES]]
        rows.append(col)
    for name, spec in declared.items():
        if name not in names:
            rows.append(Column(name, dict(spec or {}), in_data=False))
    return rows
