"""Post-processing of a table with noisy cells into a consistent one: non-negative whole
numbers, every subtotal and total the sum of its parts, across every hierarchy level --
the two stages of the US Census Bureau's TopDown algorithm for the 2020 Census (J. M.
Abowd, R. Ashmead, R. Cumings-Menon, S. Garfinkel, M. Heineck, C. Heiss, R. Johns,
D. Kifer, P. Leclerc, A. Machanavajjhala, B. Moran, W. Sexton, M. Spence and P. Zhuravlev,
"The 2020 Census Disclosure Avoidance System TopDown Algorithm", *Harvard Data Science
Review*, Special Issue 2, 2022): first the non-negative table nearest the noisy one in
weighted least squares (each cell weighted by the inverse variance of its noise), then
a rounding to whole numbers that keeps every total additive (sdcflow's controlled
rounding to base 1, :mod:`sdcflow.tabular.controlled_rounding`).

The non-negative additive tables are parametrised by their leaf cells ``l >= 0``: the
table is ``A l`` where ``A`` (cells x leaf cells) says which cells each leaf cell counts
in -- the Kronecker product, over the dimensions, of each dimension's code x leaf
ancestry. The first stage is the bounded least-squares problem
``min || W^(1/2) (A l - y) ||^2, l >= 0``, solved exactly by the active-set method of
C. L. Lawson and R. J. Hanson (*Solving Least Squares Problems*, Prentice-Hall, 1974;
``scipy.optimize.nnls``), or, for tables too large for a dense matrix, approximately by
a trust-region method (``scipy.optimize.lsq_linear``).

Post-processing uses only the noisy answers and public structure, so it spends no privacy
(Dwork, McSherry, Nissim & Smith 2006: any function of a DP release is DP).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import lsq_linear, nnls

from .controlled_rounding import NoControlledRounding, controlled_rounding
from .hierarchy import Dimension

__all__ = ["ConsistentTable", "consistent_table", "leaf_aggregation", "slice_ids"]

# entries of A (8 bytes each) up to which the exact active-set solver of Lawson & Hanson
# runs on the dense matrix (scipy.optimize.nnls: 0.3 s for a 941 x 2 table with its
# margins, 2,826 cells); beyond, the trust-region solver with LSMR, which keeps memory
# to the sparse matrix but only approaches the optimum (its leaves rounded to 1e-6 so
# that the last bits of an iterative solution do not decide a rounding)
_DENSE_LIMIT = 16_000_000


def _ancestry(dim: Dimension) -> sp.csr_matrix:
    """Codes x leaves of one dimension: 1 where the code is the leaf or one of its
    ancestors."""
    leaves = np.flatnonzero(dim.is_leaf)
    rows, cols = [], []
    for j, leaf in enumerate(leaves):
        node = int(leaf)
        while node >= 0:
            rows.append(node)
            cols.append(j)
            node = int(dim.parent[node])
    return sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(dim.size, len(leaves)))


def leaf_aggregation(dimensions: Sequence[Dimension]) -> sp.csr_matrix:
    """``A``: cells x leaf cells, ``A[c, l] = 1`` when leaf cell ``l`` counts in cell
    ``c`` (cells in the table's C order, leaf cells likewise)."""
    out = sp.csr_matrix(np.ones((1, 1)))
    for dim in dimensions:
        out = sp.kron(out, _ancestry(dim), format="csr")
    return out


def slice_ids(dimensions: Sequence[Dimension]) -> np.ndarray:
    """Each cell's slice: the combination of the depths of its codes (a number in C
    order over the dimensions' depth ranges). The cells of one slice are disjoint, so a
    record counts in at most one of them."""
    shape = tuple(d.size for d in dimensions)
    codes = np.unravel_index(np.arange(int(np.prod(shape))), shape)
    depths = [d.depth[c] for d, c in zip(dimensions, codes, strict=True)]
    levels = tuple(int(d.depth.max()) + 1 for d in dimensions)
    return np.ravel_multi_index(tuple(depths), levels).astype(np.int64)


@dataclass
class ConsistentTable:
    """The post-processed cells (whole numbers, non-negative, additive), the first
    stage's fractional solution, and how the rounding was done (``"controlled"``: the
    least total change keeping every total; ``"leaves"``: the leaf cells rounded keeping
    the grand total, the margins their sums, when no controlled rounding exists)."""

    values: np.ndarray
    fitted: np.ndarray
    rounding: str


def consistent_table(noisy: np.ndarray, dimensions: Sequence[Dimension],
                     relations: sp.spmatrix, variances: np.ndarray | None = None, *,
                     time_limit: float | None = 60.0) -> ConsistentTable:
    """The consistent table nearest the ``noisy`` cells (see the module docstring);
    ``variances``: each cell's noise variance (default equal)."""
    y = np.asarray(noisy, dtype=float)
    a = leaf_aggregation(dimensions)
    w = np.ones_like(y) if variances is None else 1.0 / np.asarray(variances, dtype=float)
    root = np.sqrt(w)
    weighted = sp.diags(root) @ a
    if weighted.shape[0] * weighted.shape[1] <= _DENSE_LIMIT:
        x, _ = nnls(weighted.toarray(), root * y, maxiter=50 * weighted.shape[1])
    else:
        res = lsq_linear(weighted.tocsr(), root * y, bounds=(0.0, np.inf), method="trf",
                         lsq_solver="lsmr", tol=1e-12, lsmr_tol="auto")
        x = np.round(res.x, 6)
    leaves = np.clip(x, 0.0, None)
    fitted = a @ leaves
    try:
        rounded = controlled_rounding(fitted, relations, 1.0, time_limit=time_limit).values
        how = "controlled"
    except NoControlledRounding:
        rounded = a @ _round_keeping_total(leaves)
        how = "leaves"
    return ConsistentTable(np.rint(rounded), fitted, how)


def _round_keeping_total(x: np.ndarray) -> np.ndarray:
    """Non-negative values rounded to whole numbers with their (rounded) sum kept: the
    largest fractional parts go up (ties by position)."""
    low = np.floor(x)
    missing = round(float(x.sum())) - int(low.sum())
    order = np.lexsort((np.arange(len(x)), -(x - low)))
    up = np.zeros(len(x))
    up[order[:max(missing, 0)]] = 1.0
    return low + up
