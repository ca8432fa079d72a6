"""Counting the values a masking method changed."""

from __future__ import annotations

import numpy as np

# rows per block: the boolean temporaries stay at 65,536 x p
_BLOCK = 1 << 16


def changed_values(new: np.ndarray, old: np.ndarray) -> np.ndarray:
    """Per column of ``old`` (n x p, or n), the number of observed values (not NaN) that
    ``new`` (same shape) holds differently, counted by blocks of rows so that no n x p
    temporary is made."""
    new, old = np.asarray(new), np.asarray(old)
    counts = np.zeros(old.shape[1:], dtype=np.int64)
    for start in range(0, len(old), _BLOCK):
        a, b = old[start:start + _BLOCK], new[start:start + _BLOCK]
        # NaN != NaN, and a value put where a NaN was is no change of an observed one
        counts += np.count_nonzero((a != b) & ~np.isnan(a), axis=0)
    return counts
