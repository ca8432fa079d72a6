"""IPSO, information preserving statistical obfuscation (Burridge 2003; seed
000_1eece6b9d3791e64.txt, "Synthetic Data Generators: The IPSO family"), and the least
squares machinery shared by the regression-based synthesisers (shuffling, sequential
regression imputation).

With X the non-confidential attributes (the design, an intercept added) and Y the n x m
confidential ones, the multivariate regression Y = X B + E, rows of E ~ N(0, Sigma), has
the maximum likelihood estimates B_hat = X^+ Y and Sigma_hat = S / n, where
S = (Y - X B_hat)'(Y - X B_hat) is the residual sum of squares and products matrix.

* IPSO-A releases Y_A = X B_hat + E_A with E_A ~ N(0, Sigma_hat): the model, not the data,
  is preserved (in distribution).
* IPSO-B makes the errors orthogonal to X: Y_B = X B_hat + (I - H) E_A, with H the
  projection on the column space of X; the regression of Y_B on X gives B_hat exactly.
* IPSO-C also rescales the errors: Y_C = X B_hat + E_B (E_B'E_B)^{-1/2} S^{1/2}, so both
  B_hat and S (hence Sigma_hat) are those of the original data, i.e. the sufficient
  statistics X'Y and Y'Y of the regression are preserved; with an intercept the means
  and the covariance matrix of (X, Y_C) are those of (X, Y).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import lapack

VARIANTS = ("A", "B", "C")


class TooFewRecords(ValueError):
    """The records cannot support the model (fewer records than it has parameters)."""


# Products of a tall matrix are computed by blocks of rows. A block this small runs on
# one OpenBLAS thread: as fast as one large call on an idle machine, and many times
# faster on a busy one, where OpenBLAS threads oversubscribe the cores.
def _block_rows(cols: int) -> int:
    return max(256, min(4096, 65536 // max(cols, 1)))


def cross(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """A'B for tall A (n x p) and B (n x m), by blocks of rows."""
    A = np.asarray(A, dtype=float)
    B = np.asarray(B, dtype=float)
    out = np.zeros((A.shape[1], B.shape[1]))
    step = _block_rows(A.shape[1] * B.shape[1])
    for start in range(0, len(A), step):
        out += A[start:start + step].T @ B[start:start + step]
    return out


def product(A: np.ndarray, M: np.ndarray) -> np.ndarray:
    """A M for tall A (n x p) and small M (p x m or p), by blocks of rows."""
    A = np.asarray(A, dtype=float)
    M = np.asarray(M, dtype=float)
    out = np.empty((len(A),) + M.shape[1:])
    step = _block_rows(A.shape[1])
    for start in range(0, len(A), step):
        np.matmul(A[start:start + step], M, out=out[start:start + step])
    return out


def triangular_factor(X: np.ndarray, block: int | None = None) -> np.ndarray:
    """R of the QR decomposition X = QR (Householder; Q is not formed), min(n, p) x p.
    The factor of the first k columns of X is ``R[:, :k]``.

    Computed by blocks of rows (the R of [R; next block] is the R of all rows so far),
    so that the memory needed is one block, not a copy of X (small blocks also keep
    LAPACK on one thread, see :func:`cross`)."""
    X = np.asarray(X, dtype=float)
    n, p = X.shape
    if n == 0 or p == 0:
        return np.zeros((0, p))
    if block is None:
        block = max(2 * p, min(4096, 8192 // p))
    buf = np.empty((block + p, p), order="F")
    k = 0  # rows of R at the top of buf
    for start in range(0, n, block):
        rows = X[start:start + block]
        end = k + len(rows)
        buf[k:end] = rows
        qr, _, _, info = lapack.dgeqrf(buf[:end], overwrite_a=True)
        if info != 0:  # pragma: no cover - LAPACK argument error
            raise np.linalg.LinAlgError(f"dgeqrf failed ({info})")
        k = min(end, p)
        buf[:k] = np.triu(qr[:k])
    return buf[:k].copy()


class LeastSquares:
    """Least squares on a fixed design ``X`` (n x p), rank-revealing.

    The triangular factor R of X = QR is computed (Q is never formed), its SVD
    R = U S V' gives the rank r (singular values above ``s_max * max(n, p) * eps``, as
    ``numpy.linalg.lstsq``) and the pseudo-inverse X^+ = V S^-2 V' X' restricted to the
    rank; every solve is refined once (corrected semi-normal equations, Bjorck 1987), which
    makes the residuals orthogonal to X to working precision. Columns are scaled to unit
    norm first (the column space, hence fitted values and residuals, do not change); for
    a rank-deficient X the coefficients are the minimum-norm ones of the scaled design."""

    def __init__(self, X: np.ndarray, R: np.ndarray | None = None):
        """``R``: the triangular factor of X if known (e.g. the first columns of the
        factor of a wider design whose leading columns are X)."""
        X = np.asarray(X, dtype=float)
        if X.ndim != 2:
            raise ValueError("the design must be a 2-d array")
        self.X = X
        n, p = X.shape
        norms = np.sqrt(np.einsum("ij,ij->j", X, X))
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

    def _scaled_solve(self, Y: np.ndarray) -> np.ndarray:
        Bs = self._pinv_gram(cross(self.X, Y) / self._scale[:, None])
        # one refinement step on the residual: the semi-normal equations alone lose
        # accuracy with the square of the condition number
        resid = product(self.X, Bs / self._scale[:, None])
        np.subtract(Y, resid, out=resid)
        return Bs + self._pinv_gram(cross(self.X, resid) / self._scale[:, None])

    def solve(self, Y: np.ndarray) -> np.ndarray:
        """Least squares coefficients of ``Y`` (n x m) on X: p x m."""
        Y = np.asarray(Y, dtype=float)
        return self._scaled_solve(Y.reshape(len(Y), -1)) / self._scale[:, None]

    def residuals(self, Y: np.ndarray, overwrite: bool = False) -> np.ndarray:
        """Y minus its projection on the column space of X, orthogonal to X to working
        precision (the refined solve suffices: |X'r| is about 1e-15 of |X|'|r| even for
        condition numbers near 1e7); ``overwrite``: in place in Y (a float array)."""
        Y = np.asarray(Y, dtype=float) if overwrite else np.array(Y, dtype=float)
        Y = Y.reshape(len(Y), -1)
        Y -= product(self.X, self.solve(Y))
        return Y

    def coefficient_root(self) -> np.ndarray:
        """A p x r matrix L with L L' = (X'X)^+ (the posterior covariance of the
        coefficients is sigma^2 L L' under a flat prior)."""
        return (self._v * self._inv_s) / self._scale[:, None]


def with_intercept(X: np.ndarray) -> np.ndarray:
    """The design [1, X - mean(X)]: an intercept and the :func:`centred` predictors
    (centring is a reparametrisation when the intercept is present; it improves the
    conditioning)."""
    X = np.asarray(X, dtype=float).reshape(len(X), -1)
    out = np.empty((len(X), X.shape[1] + 1), order="F")  # columns contiguous for LAPACK
    out[:, 0] = 1.0
    if len(X):
        out[:, 1:] = centred(X)
    return out


def centred(X: np.ndarray, mean: np.ndarray | None = None) -> np.ndarray:
    """X minus its column means (or ``mean``); a column that is constant up to rounding
    becomes exactly zero, so that it cannot pass for a predictor once scaled."""
    X = np.asarray(X, dtype=float)
    out = X - (X.mean(axis=0) if mean is None else mean)
    if len(out):
        def size(a):  # max |a| per column, without a temporary |a|
            return np.maximum(a.max(axis=0), -a.min(axis=0))

        flat = size(out) <= 1e-12 * size(X)
        if out.ndim == 1:
            return np.zeros_like(out) if flat else out
        out[:, flat] = 0.0
    return out


def _sym_root(A: np.ndarray, inverse: bool = False) -> np.ndarray:
    """Symmetric square root (or inverse square root) of a positive semi-definite
    matrix; eigenvalues at rounding level count as zero."""
    w, U = np.linalg.eigh((A + A.T) / 2)
    tol = max(w.max(initial=0.0), 0.0) * len(w) * np.finfo(float).eps * 10
    if inverse:
        if (w <= tol).any():
            raise TooFewRecords("the error matrix is singular")
        d = 1.0 / np.sqrt(w)
    else:
        d = np.sqrt(np.where(w > tol, w, 0.0))
    return (U * d) @ U.T


def normal_errors(n: int, sigma: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """n rows drawn from N(0, sigma) (sigma may be singular)."""
    root = _sym_root(sigma)
    return product(rng.standard_normal((n, len(sigma))), root)


def ipso(X: np.ndarray, Y: np.ndarray, rng: np.random.Generator, *, variant: str = "C",
         intercept: bool = True) -> np.ndarray:
    """Synthetic confidential attributes by IPSO-A, -B or -C (seed 000, "The IPSO
    family"; Burridge, "Information preserving statistical obfuscation", Statistics and
    Computing 13, 2003).

    ``X``: n x q non-confidential attributes (numbers; categories as dummy columns);
    ``Y``: n x m confidential attributes (no missing values); ``intercept``: add a
    column of ones to X. Returns the n x m synthetic Y' (see the module docstring for
    what each variant preserves). Raises :class:`TooFewRecords` when the records cannot
    support the regression (n <= rank of X, or for C n - rank < m)."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, not {variant!r}")
    Y = np.asarray(Y, dtype=float)
    squeeze = Y.ndim == 1
    Y = Y.reshape(len(Y), -1)
    n, m = Y.shape
    design = with_intercept(X) if intercept else np.asarray(X, dtype=float).reshape(n, -1)
    fit = LeastSquares(design)
    if n <= fit.rank:
        raise TooFewRecords(f"{n} records cannot support a regression on {fit.rank} "
                            "parameters")
    if variant == "C" and n - fit.rank < m:
        raise TooFewRecords(f"{n} records and {fit.rank} parameters leave {n - fit.rank} "
                            f"residual degrees of freedom; IPSO-C needs {m}, one per "
                            "variable")
    out = product(design, fit.solve(Y))  # the fitted values X B_hat
    resid = Y - out
    S = cross(resid, resid)
    del resid
    E = normal_errors(n, S / n, rng)  # ML estimate Sigma_hat = S / n
    if variant != "A":
        E = fit.residuals(E, overwrite=True)
    if variant == "C":
        # E_C = E_B (E_B'E_B)^{-1/2} S^{1/2}: E_C'E_C = S, and E_C stays orthogonal to X
        E = product(E, _sym_root(cross(E, E), inverse=True) @ _sym_root(S))
    out += E
    return out[:, 0] if squeeze else out
