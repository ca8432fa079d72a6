"""Integer codes of categorical columns, the input of the NumPy kernels."""

from __future__ import annotations

import numpy as np
import pandas as pd


def key_codes(frame: pd.DataFrame, keys: list[str]) -> np.ndarray:
    """Integer codes of the columns ``keys`` (n x m, int64): each column's distinct values
    numbered in sorted order, -1 for a missing value."""
    if not keys:
        return np.empty((len(frame), 0), dtype=np.int64)
    return np.column_stack([pd.factorize(frame[k], sort=True)[0] for k in keys]).astype(np.int64)
