"""The input every table adjustment checks first (controlled rounding, controlled
tabular adjustment): finite cell values and the table's additive relations as a sparse
matrix, one column per cell, that the values satisfy."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def checked_relations(a: np.ndarray, relations) -> sp.csr_matrix:
    """``relations`` as a CSR matrix, after checking that the cell values ``a`` are
    finite, that there is one column per cell and that ``relations @ a == 0`` (up to
    rounding error relative to the largest value). Raises ``ValueError`` otherwise."""
    n = len(a)
    if not np.all(np.isfinite(a)):
        raise ValueError("the table has missing or infinite values")
    mat = sp.csr_matrix(relations, dtype=float)
    if mat.shape[1] != n:
        raise ValueError("the relations must have one column per cell")
    scale = max(1.0, float(np.abs(a).max(initial=0.0)))
    if np.any(np.abs(mat @ a) > 1e-9 * scale * max(1, n)):
        raise ValueError("the table's cells do not add up to its totals")
    return mat
