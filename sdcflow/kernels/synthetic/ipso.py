"""IPSO, information preserving statistical obfuscation (Burridge 2003; 
Torra, "Masking methods", 2013, "Synthetic Data Generators: The IPSO family"). The least squares
are those of :mod:`sdcflow.kernels.synthetic.least_squares`, by blocks of rows.

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

from .design import Design, as_columns
from .least_squares import LeastSquares, TooFewRecords, cross, product, transform_rows

VARIANTS = ("A", "B", "C")


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
    """n rows drawn from N(0, sigma) (sigma may be singular), as an n x m column-major
    array (the standard normals are drawn column by column)."""
    out = rng.standard_normal((len(sigma), n)).T
    return transform_rows(out, _sym_root(sigma))


def ipso(X: np.ndarray | Design, Y: np.ndarray, rng: np.random.Generator, *,
         variant: str = "C", intercept: bool = True) -> np.ndarray:
    """Synthetic confidential attributes by IPSO-A, -B or -C (Torra 2013, "The IPSO
    family"; Burridge, "Information preserving statistical obfuscation", Statistics and
    Computing 13, 2003).

    ``X``: n x q non-confidential attributes (numbers; categories as dummy columns), or
    a :class:`~sdcflow.kernels.synthetic.design.Design`; ``Y``: n x m confidential attributes (no
    missing values); ``intercept``: add a column of ones to X. Returns the n x m
    synthetic Y' (see the module docstring for what each variant preserves); beside Y and
    the result, the memory used is a block of the design. Raises :class:`TooFewRecords`
    when the records cannot support the regression (n <= rank of X, or for C
    n - rank < m)."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, not {variant!r}")
    Y = np.asarray(Y, dtype=float)
    squeeze = Y.ndim == 1
    Y = as_columns(Y)
    n, m = Y.shape
    design = Design.of(X, intercept)
    fit = LeastSquares(design)
    if n <= fit.rank:
        raise TooFewRecords(f"{n} records cannot support a regression on {fit.rank} "
                            "parameters")
    if variant == "C" and n - fit.rank < m:
        raise TooFewRecords(f"{n} records and {fit.rank} parameters leave {n - fit.rank} "
                            f"residual degrees of freedom; IPSO-C needs {m}, one per "
                            "variable")
    B = fit.solve(Y)
    S = fit.residual_products(Y, B)
    out = normal_errors(n, S / n, rng)  # E_A; ML estimate Sigma_hat = S / n
    if variant != "A":
        fit.residuals(out, overwrite=True)  # E_B
    if variant == "C":
        # E_C = E_B (E_B'E_B)^{-1/2} S^{1/2}: E_C'E_C = S, and E_C stays orthogonal to X
        transform_rows(out, _sym_root(cross(out, out), inverse=True) @ _sym_root(S))
    product(design, B, out=out, add=True)  # the fitted values X B_hat
    return out[:, 0] if squeeze else out
