"""Columns as the arrays the NumPy kernels take: integer codes of categorical columns,
float matrices of numeric ones."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from ..kernels.string_codes import first_seen_codes
from .text import is_text, text_column


def key_codes(frame: pd.DataFrame, keys: list[str]) -> np.ndarray:
    """Integer codes of the columns ``keys`` (n x m, int64): each column's distinct values
    numbered in sorted order, -1 for a missing value."""
    if not keys:
        return np.empty((len(frame), 0), dtype=np.int64)
    return np.column_stack([sorted_text_codes(frame[k])[0] if is_text(frame[k])
                            else pd.factorize(frame[k], sort=True)[0]
                            for k in keys]).astype(np.int64)


def sorted_text_codes(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize(text_column(column), sort=True)``: the int64 code of each value
    (-1 for a missing one) and the distinct values sorted (an object array of str), the
    same arrays; for text held in Arrow without missing values, by one hashing pass over
    its bytes (:func:`~sdcflow.kernels.string_codes.first_seen_codes`) and a sort of the
    distinct values only, several times faster than pandas' factorize."""
    text = text_column(column)
    strings = _arrow_strings(text)
    if strings is None:
        codes, uniques = pd.factorize(text, sort=True)
        return codes.astype(np.int64), np.asarray(uniques, dtype=object)
    array, offsets, data = strings
    seen, first = first_seen_codes(offsets, data)
    values = array.take(pa.array(first)).to_pylist()
    # sorted as Python sorts str (by code points: the order of their UTF-8 bytes, as
    # pandas sorts Arrow strings)
    order = sorted(range(len(values)), key=values.__getitem__)
    rank = np.empty(len(values), dtype=np.int64)
    rank[order] = np.arange(len(values))
    return rank[seen], np.array([values[k] for k in order] or [], dtype=object)


def _arrow_strings(text: pd.Series) -> tuple[pa.Array, np.ndarray, np.ndarray] | None:
    """The Arrow array of a text column, its offsets (int64) and its bytes, or None when
    the column is not held in an Arrow string array without missing values."""
    to_arrow = getattr(text.array, "__arrow_array__", None)
    if to_arrow is None:
        return None
    chunked = to_arrow()
    if not isinstance(chunked, pa.ChunkedArray | pa.Array) or chunked.null_count:
        return None
    array = chunked.combine_chunks() if isinstance(chunked, pa.ChunkedArray) else chunked
    width = {pa.string(): np.int32, pa.large_string(): np.int64}.get(array.type)
    if width is None:  # (string views, dictionaries: pandas' factorize)
        return None
    _, offset_buffer, data_buffer = array.buffers()
    if offset_buffer is None:
        return None
    offsets = np.asarray(np.frombuffer(offset_buffer, dtype=width)[
        array.offset:array.offset + len(array) + 1], dtype=np.int64)
    data = (np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None
            else np.zeros(0, dtype=np.uint8))
    return array, offsets, data


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
