"""Original and protected files compared record by record (linkage and disclosure risk
kernels)."""

from __future__ import annotations

import numpy as np


def paired_files(original: np.ndarray, protected: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The two files as float arrays, checked to hold the same number of records: the
    protected record at a position comes from the original record at that position."""
    original = np.asarray(original, dtype=float)
    protected = np.asarray(protected, dtype=float)
    if len(original) != len(protected):
        raise ValueError(f"the protected file has {len(protected)} records and the original "
                         f"{len(original)}: records are linked by position")
    return original, protected
