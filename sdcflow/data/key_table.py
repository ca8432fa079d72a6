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

from ..kernels.risk.frequencies import frequencies
from .codes import key_codes


def stratum_column(name: str) -> str:
    """The table's column of stratum variable ``name`` (apart from the keys: a variable
    can be a key and a stratum)."""
    return f"\x00stratum:{name}"


def _names(keys: list[str], strata: list[str]) -> list[str]:
    return keys + [stratum_column(s) for s in strata]


def partial_table(frame: pd.DataFrame, keys: list[str], strata: list[str],
                  weight: str | None) -> pd.DataFrame:
    """One partition's distinct combinations of ``keys`` + ``strata`` (their own values
    and types, so that their codes sort as in the whole data) with their records ``n``
    and weight sum ``w``."""
    names = _names(keys, strata)
    table = pd.DataFrame({n: frame[c].reset_index(drop=True)
                          for n, c in zip(names, keys + strata)})
    table["n"] = 1.0
    table["w"] = frame[weight].to_numpy(dtype=float, na_value=np.nan) if weight else 1.0
    if not names:
        return pd.DataFrame({"n": [float(len(frame))], "w": [table["w"].sum()]})
    return table.groupby(names, dropna=False, sort=False)[["n", "w"]].sum().reset_index()


def combine_tables(parts: list[pd.DataFrame], keys: list[str], strata: list[str]
                   ) -> pd.DataFrame:
    """The partitions' tables added up, in a fixed order (sorted combinations)."""
    names = _names(keys, strata)
    table = pd.concat(parts, ignore_index=True)
    if not names:
        return table.sum().to_frame().T
    return table.groupby(names, dropna=False, sort=True)[["n", "w"]].sum().reset_index()


def table_codes(table: pd.DataFrame, keys: list[str], strata: list[str]) -> np.ndarray:
    """Integer codes of the table's combinations as :func:`key_codes` gives them on the
    whole data (-1: a missing key, which matches any value); a missing stratum is a
    stratum of its own."""
    codes = [key_codes(table, keys)]
    for s in strata:
        codes.append(pd.factorize(table[stratum_column(s)], sort=True,
                                  use_na_sentinel=False)[0][:, None].astype(np.int64))
    return np.column_stack(codes) if codes else np.zeros((len(table), 0), dtype=np.int64)


def table_frequencies(table: pd.DataFrame, keys: list[str], strata: list[str],
                      alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """fk and Fk of each combination of the table (the values of its records)."""
    codes = table_codes(table, keys, strata)
    _, fk = frequencies(codes, table["n"].to_numpy(float), alpha)
    _, Fk = frequencies(codes, table["w"].to_numpy(float), alpha)
    return fk, Fk


def strata_values(table: pd.DataFrame, strata: list[str]) -> pd.DataFrame:
    """The table's strata columns under their variables' names."""
    return pd.DataFrame({s: table[stratum_column(s)] for s in strata})
