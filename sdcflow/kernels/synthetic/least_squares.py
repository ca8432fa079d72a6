"""Least squares on a tall design by blocks of rows: the machinery shared by the
regression-based synthesisers (IPSO, shuffling, sequential regression imputation).

The design is an array or a :class:`~sdcflow.kernels.synthetic.design.Design` (materialised a block
at a time); every operation here touches it only block by block, so the memory it needs
is one block beside the inputs and outputs, whatever the number of records.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from scipy.linalg import lapack

from .design import Design, as_columns, block_rows


class TooFewRecords(ValueError):
    """The records cannot support the model (fewer records than it has parameters)."""


Tall = np.ndarray | Design


def row_blocks(A: Tall, rows: int | None = None) -> Iterator[tuple[int, int, np.ndarray]]:
    """``(start, stop, A[start:stop])`` covering the rows of ``A`` (for a design, the
    block array is reused: valid until the next one)."""
    if isinstance(A, Design):
        yield from A.blocks(rows)
        return
    rows = rows or block_rows(A.shape[1] if A.ndim > 1 else 1)
    for start in range(0, len(A), rows):
        yield start, min(start + rows, len(A)), A[start:start + rows]


def _tall(A: Tall) -> tuple[Tall, int, int]:
    """``(A, n, p)`` with an array made n x p."""
    if isinstance(A, Design):
        return A, A.n, A.p
    A = as_columns(A)
    return A, A.shape[0], A.shape[1]


def cross(A: Tall, B: np.ndarray) -> np.ndarray:
    """A'B for tall A (n x p) and B (n x m, or n), by blocks of rows."""
    B = as_columns(B)
    A, _, p = _tall(A)
    out = np.zeros((p, B.shape[1]))
    for start, stop, block in row_blocks(A, block_rows(p * B.shape[1])):
        out += block.T @ B[start:stop]
    return out


def product(A: Tall, M: np.ndarray, out: np.ndarray | None = None,
            add: bool = False) -> np.ndarray:
    """A M for tall A (n x p) and small M (p x m or p), by blocks of rows; into ``out``
    if given (``add``: added to it)."""
    M = np.asarray(M, dtype=float)
    A, n, _ = _tall(A)
    if out is None:
        out = np.zeros((n,) + M.shape[1:]) if add else np.empty((n,) + M.shape[1:])
    for start, stop, block in row_blocks(A):
        if add:
            out[start:stop] += block @ M
        else:
            np.matmul(block, M, out=out[start:stop])
    return out


def transform_rows(Y: np.ndarray, M: np.ndarray) -> np.ndarray:
    """Y <- Y M in place, for tall Y (n x m) and a square M, by blocks of rows."""
    for start, stop, block in row_blocks(Y):
        Y[start:stop] = block @ M
    return Y


def residual_products(A: Tall, Y: np.ndarray, B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(A'R, R'R)`` for the residuals R = Y - A B, by blocks (R is never held)."""
    Y = as_columns(Y)
    B = B.reshape(B.shape[0], -1)
    A, _, p = _tall(A)
    m = Y.shape[1]
    AR, RR = np.zeros((p, m)), np.zeros((m, m))
    for start, stop, block in row_blocks(A):
        R = Y[start:stop] - block @ B
        AR += block.T @ R
        RR += R.T @ R
    return AR, RR


def column_norms(A: Tall) -> np.ndarray:
    """The Euclidean norm of every column of ``A``."""
    A, _, p = _tall(A)
    total = np.zeros(p)
    for _, _, block in row_blocks(A):
        total += np.einsum("ij,ij->j", block, block)
    return np.sqrt(total)


def triangular_factor(X: Tall, block: int | None = None) -> np.ndarray:
    """R of the QR decomposition X = QR (Householder; Q is not formed), min(n, p) x p.
    The factor of the first k columns of X is ``R[:, :k]``.

    Computed by blocks of rows (the R of [R; next block] is the R of all rows so far),
    so that the memory needed is one block, not a copy of X (small blocks also keep
    LAPACK on one thread, see :func:`~sdcflow.kernels.synthetic.design.block_rows`)."""
    X, n, p = _tall(X)
    if n == 0 or p == 0:
        return np.zeros((0, p))
    if block is None:
        block = max(2 * p, min(4096, 8192 // p))
    buf = np.empty((block + p, p), order="F")
    k = 0  # rows of R at the top of buf
    for _, _, rows in row_blocks(X, block):
        end = k + len(rows)
        buf[k:end] = rows
        qr, _, _, info = lapack.dgeqrf(buf[:end], overwrite_a=True)
        if info != 0:  # pragma: no cover - LAPACK argument error
            raise np.linalg.LinAlgError(f"dgeqrf failed ({info})")
        k = min(end, p)
        buf[:k] = np.triu(qr[:k])
    return buf[:k].copy()


class LeastSquares:
    """Least squares on a fixed design ``X`` (n x p, an array or a
    :class:`~sdcflow.kernels.synthetic.design.Design`), rank-revealing.

    The triangular factor R of X = QR is computed (Q is never formed), its SVD
    R = U S V' gives the rank r (singular values above ``s_max * max(n, p) * eps``, as
    ``numpy.linalg.lstsq``) and the pseudo-inverse X^+ = V S^-2 V' X' restricted to the
    rank; every solve is refined once (corrected semi-normal equations, Bjorck 1987), which
    makes the residuals orthogonal to X to working precision. Columns are scaled to unit
    norm first (the column space, hence fitted values and residuals, do not change); for
    a rank-deficient X the coefficients are the minimum-norm ones of the scaled design."""

    def __init__(self, X: Tall, R: np.ndarray | None = None):
        """``R``: the triangular factor of X if known (e.g. the first columns of the
        factor of a wider design whose leading columns are X)."""
        if not isinstance(X, Design):
            X = np.asarray(X, dtype=float)
            if X.ndim != 2:
                raise ValueError("the design must be a 2-d array")
        self.X = X
        n, p = X.shape
        norms = column_norms(X)
        self._scale = np.where(norms > 0, norms, 1.0)
        if R is None:
            R = triangular_factor(X)
        # Householder QR is column-wise backward stable, so R of the scaled design is R
        # with its columns scaled
        R = R / self._scale
        if R.shape[0] == 0:
            s, vt = np.zeros(0), np.zeros((0, p))
        else:
            _, s, vt = np.linalg.svd(R, full_matrices=False)
        tol = (s[0] if s.size else 0.0) * max(n, p) * np.finfo(float).eps
        keep = s > tol
        self.rank = int(keep.sum())
        self._v = vt[keep].T  # p x r, in the scaled parametrisation
        self._inv_s = 1.0 / s[keep]

    def _pinv_gram(self, G: np.ndarray) -> np.ndarray:
        """(Xs'Xs)^+ G for the scaled design Xs."""
        return self._v @ ((self._v.T @ G) * (self._inv_s ** 2)[:, None])

    def solve(self, Y: np.ndarray) -> np.ndarray:
        """Least squares coefficients of ``Y`` (n x m, or n) on X: p x m."""
        Y = as_columns(Y)
        Bs = self._pinv_gram(cross(self.X, Y) / self._scale[:, None])
        # one refinement step on the residual: the semi-normal equations alone lose
        # accuracy with the square of the condition number
        XR, _ = residual_products(self.X, Y, Bs / self._scale[:, None])
        Bs += self._pinv_gram(XR / self._scale[:, None])
        return Bs / self._scale[:, None]

    def residual_products(self, Y: np.ndarray, B: np.ndarray) -> np.ndarray:
        """R'R for the residuals R = Y - X B (the residual sum of squares and products
        of the fit B, e.g. ``solve(Y)``)."""
        return residual_products(self.X, Y, B)[1]

    def residuals(self, Y: np.ndarray, overwrite: bool = False) -> np.ndarray:
        """Y minus its projection on the column space of X, orthogonal to X to working
        precision (the refined solve suffices: |X'r| is about 1e-15 of |X|'|r| even for
        condition numbers near 1e7); ``overwrite``: in place in Y (a float array)."""
        Y = np.asarray(Y, dtype=float) if overwrite else np.array(Y, dtype=float)
        Y = as_columns(Y)
        return product(self.X, -self.solve(Y), out=Y, add=True)

    def coefficient_root(self) -> np.ndarray:
        """A p x r matrix L with L L' = (X'X)^+ (the posterior covariance of the
        coefficients is sigma^2 L L' under a flat prior)."""
        return (self._v * self._inv_s) / self._scale[:, None]
