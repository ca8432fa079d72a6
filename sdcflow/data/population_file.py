"""Population files (of delta-presence, Nergiz et al. 2007): a CSV file of the
population's records with the key variables as columns, named in a step's parameters and
read through :mod:`.recipe_files` (allowed, regular, bounded, a CSV table)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..errors import did_you_mean
from .csv_input import csv_frame
from .recipe_files import RecipeFiles, as_files, quotable


def read_population(files: RecipeFiles | Path, name: str, where: tuple) -> pd.DataFrame:
    """The population file ``name`` (relative to the recipe, at recipe position
    ``where``) as text columns, missing values NaN; RecipeFileError says why it cannot
    serve."""
    file = as_files(files).check(name, where, "population file", "population")
    return csv_frame(file, dtype=object, keep_default_na=True)


def missing_column(name: str, columns: list[str]) -> str:
    """A key variable the population lacks. Its other columns are not listed (a file
    that is not a population has no columns to list: its first line would be quoted);
    the nearest plain one is suggested."""
    return (f"the population has no column '{name}'"
            f"{did_you_mean(name, [c for c in columns if quotable(c)])}")
