"""The global table of key combinations, built by map-reduce over partitions: each
distinct combination of the key variables (and strata) with its number of records and
the sum of their weights. Every frequency-based figure (fk, Fk, violations of
k-anonymity, the individual risk) depends on a record only through its combination and
this table: with the records' counts as weights, the weighted frequency of a combination
in the table is the fk of each of its records, under the same missing-value convention
(:func:`sdcflow.kernels.risk.frequencies.frequencies`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...data.codes import key_codes
from ...kernels.risk.frequencies import frequencies

MISSING_STRATUM = "\x00missing"  # a missing stratum value is a stratum of its own


def stratum_column(name: str) -> str:
    """The table's column of stratum variable ``name`` (apart from the keys: a variable
    can be a key and a stratum)."""
    return f"\x00stratum:{name}"


def partial_table(frame: pd.DataFrame, keys: list[str], strata: list[str],
                  weight: str | None) -> pd.DataFrame:
    """One partition's distinct combinations of ``keys`` + ``strata`` (as text, missing
    keys as None) with their records ``n`` and weight sum ``w``."""
    cols = {}
    for k in keys:
        col = frame[k]
        cols[k] = col.astype("object").where(col.notna(), None).map(
            lambda v: None if v is None else str(v))
    for s in strata:
        col = frame[s]
        cols[stratum_column(s)] = col.astype("object").where(col.notna(),
                                                             MISSING_STRATUM).map(str)
    table = pd.DataFrame(cols, index=pd.RangeIndex(len(frame)))
    table["n"] = 1.0
    table["w"] = frame[weight].to_numpy(dtype=float, na_value=np.nan) if weight else 1.0
    names = keys + [stratum_column(s) for s in strata]
    if not names:
        return pd.DataFrame({"n": [float(len(frame))], "w": [table["w"].sum()]})
    return table.groupby(names, dropna=False, sort=False)[["n", "w"]].sum().reset_index()


def combine_tables(parts: list[pd.DataFrame], keys: list[str], strata: list[str]
                   ) -> pd.DataFrame:
    """The partitions' tables added up, in a fixed order (sorted combinations)."""
    names = keys + [stratum_column(s) for s in strata]
    table = pd.concat(parts, ignore_index=True)
    if not names:
        return table.sum().to_frame().T
    table = table.groupby(names, dropna=False, sort=True)[["n", "w"]].sum().reset_index()
    return table


def table_frequencies(table: pd.DataFrame, keys: list[str], strata: list[str],
                      alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """fk and Fk of each combination of the table (the values of its records)."""
    codes = key_codes(table, keys + [stratum_column(s) for s in strata])
    _, fk = frequencies(codes, table["n"].to_numpy(float), alpha)
    _, Fk = frequencies(codes, table["w"].to_numpy(float), alpha)
    return fk, Fk
