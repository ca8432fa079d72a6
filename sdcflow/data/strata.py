"""Strata: the groups of records that methods and measures treat separately."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..kernels.risk.frequencies import row_ids


def value_codes(column: pd.Series) -> tuple[np.ndarray, list[str]]:
    """Codes 0..U-1 of a column's values in the order of their text, a missing value
    last as "nan", and the texts. Only the U distinct values are turned into text (a
    text copy of the column would take many times its memory)."""
    codes, uniques = pd.factorize(column)
    text = [str(u) for u in uniques]
    order = sorted(range(len(text)), key=text.__getitem__)
    # rank[-1], the last entry, is where the missing values (code -1) go
    rank = np.empty(len(text) + 1, dtype=np.int64)
    rank[order] = np.arange(len(text))
    rank[-1] = len(text)
    codes = np.take(rank, codes, out=codes.astype(np.int64, copy=False))
    labels = [text[k] for k in order]
    if len(codes) and codes.max() == len(text):
        labels.append("nan")
    return codes, labels


def stratum_codes(frame: pd.DataFrame, names: list[str]) -> tuple[np.ndarray, list[str]]:
    """The stratum of every record (0..S-1) and the stratum labels ("a / b" for several
    variables; one stratum "all" without any). Strata are ordered by the text of the
    values of each variable in turn; a missing value is a value of its own ("nan", last).
    Vectorised: only the distinct values are turned into labels."""
    if not names:
        return np.zeros(len(frame), dtype=np.int64), ["all"]
    per = [value_codes(frame[n]) for n in names]
    if len(per) == 1:
        return per[0]
    codes = np.column_stack([c for c, _ in per])
    ids, rep = row_ids(codes)
    labels = [" / ".join(per[j][1][codes[r, j]] for j in range(len(names))) for r in rep]
    return ids, labels


def stratum_members(codes: np.ndarray, count: int) -> list[np.ndarray]:
    """The record positions of each stratum 0 .. count-1 (``codes`` as from
    :func:`stratum_codes`), each in record order."""
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(count + 1))
    return [order[bounds[g]:bounds[g + 1]] for g in range(count)]
