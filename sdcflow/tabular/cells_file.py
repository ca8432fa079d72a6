"""Aggregated tables read from a file (a recipe's ``tables[i].from``): one row per cell,
the dimensions' codes, the frequency, the value and the largest contributions. The file
is read when the recipe is read, through :mod:`sdcflow.data.recipe_files` (allowed,
regular, bounded, a CSV table), and checked here cell by cell, so that a file that
cannot make a table is an error at its declaration, not a failed run: missing columns,
text or missing values where numbers belong, frequencies that are not counts, cells
given twice, missing codes, and what :func:`sdcflow.tabular.table.table_from_cells`
refuses (codes outside a hierarchy, too many cells). Problems name lines of the file
(the header is line 1) and the columns the recipe names, never the file's values, until
the file has every column the recipe expects."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from ..data.csv_input import csv_frame
from ..data.recipe_files import (
    CheckedFile,
    RecipeFileError,
    RecipeFiles,
    as_files,
    file_lines,
)


def source_columns(source: Mapping, dims: list[str]) -> dict[str, list[str]]:
    """The columns a table file must have, by the ``from`` key naming them (``dims``:
    the table's dimensions)."""
    return {"dims": list(dims), "freq": [source.get("freq", "freq")],
            "value": [source.get("value", "value")],
            "top": list(source.get("top", ["top1", "top2"]))}


def read_cells(files: RecipeFiles | Path, source: Mapping, dims: list[str],
               hierarchies: Mapping[str, Mapping[str, str]] | None, total: str,
               where: tuple) -> pd.DataFrame:
    """The cells of the table file ``source["path"]`` (recipe position ``where``: its
    ``from``) as pandas reads them for :func:`table_from_cells`, checked to make a
    table with the given ``hierarchies`` and ``total``; RecipeFileError (at ``where``
    plus the key naming the offending column) says why they cannot."""
    file = as_files(files).check(source["path"], (*where, "path"), "table file", "table")
    wanted = source_columns(source, dims)
    frame = csv_frame(file, dtype={d: str for d in dims}, keep_default_na=False,
                      na_values=[""])
    for key, names in wanted.items():  # (at the key naming them, if the recipe does)
        file.lacks(names, [str(c) for c in frame.columns],
                   (*where, key) if key in source else None)
    if frame.empty:
        raise file.refuse("it has no cells (a header only)")
    for key in ("freq", "value", "top"):
        for column in wanted[key]:
            frame[column] = _numbers(file, frame[column], column, key == "freq",
                                     (*where, key) if key in source else None)
    for d in dims:
        missing = frame[d].isna().to_numpy()
        if missing.any():
            raise file.refuse(f"cells without a code of '{d}' ({file_lines(missing)})")
    for d in dims:
        if d not in (hierarchies or {}) and frame[d].eq(total).all():
            raise file.refuse(f"it has no cells below the total of '{d}' (every code of "
                              f"'{d}' is '{total}')")
    twice = frame.duplicated(subset=dims, keep=False).to_numpy()
    if twice.any():
        raise file.refuse(f"cells given twice, the same codes on {file_lines(twice)}")
    from .table import table_from_cells

    try:
        table = table_from_cells(frame, dims, hierarchies or None, freq=wanted["freq"][0],
                                 value=wanted["value"][0], contributions=wanted["top"],
                                 total=total)
    except ValueError as exc:  # (its messages name dimensions and codes: the file has
        raise file.refuse(str(exc)) from None  # every column the recipe expects)
    # a total may be left empty (the table computes it); a cell of the table may not
    leaf = np.ones(len(frame), dtype=bool)
    for d, dim in zip(dims, table.dimensions, strict=True):
        leaf &= frame[d].isin([c for c, is_leaf in zip(dim.codes, dim.is_leaf, strict=True)
                               if is_leaf]).to_numpy()
    for column in (wanted["freq"][0], wanted["value"][0]):
        empty = leaf & frame[column].isna().to_numpy()
        if empty.any():
            raise file.refuse(f"cells without a value of '{column}' ({file_lines(empty)})")
    return frame


def _numbers(file: CheckedFile, column: pd.Series, name: str, count: bool,
             where: tuple | None) -> pd.Series:
    """A column of numbers (missing values NaN): text is refused (by line), so are
    infinite values and (``count``) frequencies that are not whole numbers at least 0."""
    def refuse(message: str) -> RecipeFileError:
        exc = file.refuse(message)
        return RecipeFileError(where, exc.message) if where is not None else exc

    values = pd.to_numeric(column, errors="coerce")
    text = (values.isna() & column.notna()).to_numpy()
    if text.any():
        raise refuse(f"column '{name}' holds text where numbers belong ({file_lines(text)})")
    x = values.to_numpy(dtype=float)
    bad = np.isinf(x)
    if bad.any():
        raise refuse(f"column '{name}' has infinite values ({file_lines(bad)})")
    if count:
        bad = ~np.isnan(x) & ((x < 0) | (x != np.round(x)))
        if bad.any():
            raise refuse(f"column '{name}' holds frequencies that are not whole numbers of "
                         f"at least 0 ({file_lines(bad)})")
    return values.astype(float)
