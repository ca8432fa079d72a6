"""Text columns: the one dtype that categorical and ordinal variables are held in, and the
conversion to it that keeps missing values missing.

``TEXT`` is pandas' string dtype with NaN as its missing value: exactly the default
``str`` dtype of pandas 3, and available under that name-less spelling from pandas 2.3
on. Writing ``astype("str")`` instead is wrong on pandas 2.x, where ``"str"`` means
Python objects and a missing value becomes the three letters ``'nan'``.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable

import numpy as np
import pandas as pd

TEXT = pd.StringDtype(na_value=np.nan)


def text_column(values: pd.Series | np.ndarray | Iterable, index: pd.Index | None = None,
                name: Hashable | None = None) -> pd.Series:
    """``values`` as a :data:`TEXT` column: each value as ``str()`` writes it, a missing
    value (``None``, ``NaN``, ``pd.NA``) missing. A Series keeps its index unless
    ``index`` is given."""
    if isinstance(values, pd.Series):
        out = values.astype(TEXT)
        if index is not None:
            out = out.set_axis(index)
        return out.rename(name) if name is not None else out
    array = np.asarray(values, dtype=object) if not isinstance(values, np.ndarray) else values
    return pd.Series(array, index=index, name=name, dtype=object).astype(TEXT)


def is_text(series: pd.Series) -> bool:
    """Whether ``series`` is held as :data:`TEXT` (the storage of categorical data)."""
    dtype = series.dtype
    return isinstance(dtype, pd.StringDtype) and dtype.na_value is not pd.NA
