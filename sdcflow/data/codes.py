"""Columns as the arrays the NumPy kernels take: integer codes of categorical columns,
float matrices of numeric ones."""

from __future__ import annotations

import numpy as np
import pandas as pd


def key_codes(frame: pd.DataFrame, keys: list[str]) -> np.ndarray:
    """Integer codes of the columns ``keys`` (n x m, int64): each column's distinct values
    numbered in sorted order, -1 for a missing value."""
    if not keys:
        return np.empty((len(frame), 0), dtype=np.int64)
    return np.column_stack([pd.factorize(frame[k], sort=True)[0] for k in keys]).astype(np.int64)


def numeric_matrix(frame: pd.DataFrame, names: list[str]) -> np.ndarray:
    """The columns as an ``n x p`` float array (column-major: each column contiguous),
    missing values as NaN."""
    out = np.empty((len(frame), len(names)), order="F")
    for j, name in enumerate(names):
        out[:, j] = frame[name].to_numpy(dtype=float, na_value=np.nan)
    return out


def ordered_values(column: pd.Series, var) -> np.ndarray:
    """The column as floats to order, rank or measure by: numbers as they are, an ordinal
    variable (``var``) as the position of its category in the declared order; missing
    values (and categories outside the order) as NaN."""
    if var is not None and var.type == "ordinal":
        codes = pd.Categorical(column, categories=list(var.order or ()), ordered=True).codes
        return np.where(codes < 0, np.nan, codes.astype(float))
    return column.to_numpy(dtype=float, na_value=np.nan)


def numeric_column(values: np.ndarray, index: pd.Index, var) -> tuple[pd.Series, object]:
    """New values of a numeric variable ``var`` as a column and its declaration: an
    integer variable stays integer (``Int64``, NaN as missing) while every value is whole,
    otherwise the variable becomes continuous. Whole values beyond 2**53 make it continuous
    too: a float there stands for many integers, and beyond 2**63 no Int64 holds it."""
    with np.errstate(invalid="ignore"):
        whole = np.isnan(values) | ((values == np.round(values)) & (np.abs(values) <= 2 ** 53))
    if var.type == "integer" and np.all(whole):
        return pd.Series(values, index=index).round().astype("Int64"), var
    return pd.Series(values, index=index), var.evolve(type="continuous")
