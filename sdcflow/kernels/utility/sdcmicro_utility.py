"""The utility figures of R sdcMicro's ``dUtility`` (M. Templ, A. Kowarik & B. Meindl,
"Statistical Disclosure Control for Micro-Data Using the R Package sdcMicro", Journal of
Statistical Software 67(4), 2015; sdcMicro 5.8.1, ``R/dUtility.R``), each exactly as
sdcMicro computes it and under its sdcMicro name, for original ``x`` and protected ``y``
(n x p float arrays, the same records in the same order, NaN for a missing value):

* ``IL1``: ``sum over the cells of 100 |x - y| / |x|``, the cells with a missing value
  and those with ``x = 0`` left out (sdcMicro turns their ``Inf`` and ``NaN`` into
  ``NA`` and sums with ``na.rm``). A sum, not a mean: it grows with the number of
  records (384,097.5 on sdcMicro's ``testdata`` after MDAV with ``aggr = 3`` on
  ``expend``, ``income`` and ``savings``). It is what an ``sdcMicroObj`` prints as
  "IL1" and what sdcMicro's report calls "Criteria IL1".
* ``IL1s``: ``sum over the cells of |x - y| / (sqrt(2) S_j)``, ``S_j`` the sample standard
  deviation (divisor n - 1) of the observed original values of variable j; cells with a
  missing value left out. Also a sum.
* ``IL1old``: the same sum divided by ``n p``, the number of all cells (missing ones
  included). For complete data this is the IL1s of W. E. Yancey, W. E. Winkler & R. H.
  Creecy ("Disclosure risk assessment in perturbative microdata protection", Inference
  Control in Statistical Databases, LNCS 2316, 2002), the mean standardised distance.
* ``eigen``: ``sum_i |e_i - e'_i| / e_i`` over the eigenvalues (decreasing) of
  ``var(scale(x), use = "pairwise.complete.obs")`` and of the same for ``y``: each
  variable standardised by the mean and standard deviation of its observed values, then
  the covariance of each pair over the records where both are observed (the correlation
  matrix for complete data). sdcMicro prints it times 100 as "Difference of
  Eigenvalues: ...%".

Where sdcMicro's figure is not a finite number, these give ``None``: ``IL1s`` and
``IL1old`` when a variable constant in ``x`` (``S_j = 0``) changed (sdcMicro: ``Inf``);
``eigen`` when a standardisation or a pairwise covariance is undefined (a constant
variable, fewer than two records; sdcMicro: ``NA``) or when an eigenvalue of the original
is zero up to rounding (an exact linear relation among the variables; sdcMicro divides by
that rounding residue). sdcMicro's ``"robeigen"`` (MCD eigenvalues) is not offered.
"""

from __future__ import annotations

import math

import numpy as np

# An original eigenvalue at most this fraction of the largest is zero up to rounding.
_ZERO_EIGENVALUE = 1e-10


def il1(x: np.ndarray, y: np.ndarray) -> float:
    """sdcMicro's ``dUtility(method = "IL1")`` (module docstring): ``100 sum |x - y| / |x|``
    over the cells observed in both with ``x != 0``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        a = 100.0 * np.abs(x - y) / np.abs(x)
    return float(a[np.isfinite(a)].sum())


def _standardised_distances(x: np.ndarray, y: np.ndarray) -> float | None:
    """``sum |x - y| / (sqrt(2) S_j)`` over the cells observed in both (``S_j`` from the
    observed values of ``x``; a variable with fewer than two of them contributes nothing,
    as R's ``sd`` is then NA); None if a cell is infinite (``S_j = 0``, ``x != y``)."""
    total = 0.0
    for j in range(x.shape[1]):
        a = x[:, j]
        observed = a[~np.isnan(a)]
        if observed.size < 2:
            continue
        s = float(np.std(observed, ddof=1))
        with np.errstate(divide="ignore", invalid="ignore"):
            d = np.abs(a - y[:, j]) / (s * math.sqrt(2.0))
        if np.isinf(d).any():
            return None
        total += float(d[~np.isnan(d)].sum())
    return total


def il1s(x: np.ndarray, y: np.ndarray) -> float | None:
    """sdcMicro's ``dUtility(method = "IL1s")`` (module docstring): the sum, not the mean,
    of the standardised distances."""
    return _standardised_distances(x, y)


def il1old(x: np.ndarray, y: np.ndarray) -> float | None:
    """sdcMicro's ``dUtility(method = "IL1old")`` (module docstring): the standardised
    distances summed and divided by the number of all cells ``n p``."""
    total = _standardised_distances(x, y)
    if total is None or x.size == 0:
        return None
    return total / x.size


def pairwise_scaled_covariance(x: np.ndarray) -> np.ndarray | None:
    """R's ``var(scale(x), use = "pairwise.complete.obs")``: each column standardised by
    the mean and standard deviation of its observed values, then the sample covariance
    (divisor m - 1) of each pair of columns over the m records where both are observed.
    None where R gives NA (a constant column, fewer than two records for a pair)."""
    p = x.shape[1]
    z = np.empty_like(x, dtype=float)
    for j in range(p):
        observed = x[~np.isnan(x[:, j]), j]
        if observed.size < 2:
            return None
        s = float(np.std(observed, ddof=1))
        if not s > 0:
            return None
        z[:, j] = (x[:, j] - observed.mean()) / s
    present = ~np.isnan(z)
    if present.all():
        return np.cov(z, rowvar=False).reshape(p, p)
    out = np.empty((p, p))
    for i in range(p):
        for j in range(i, p):
            both = present[:, i] & present[:, j]
            if both.sum() < 2:
                return None
            out[i, j] = out[j, i] = np.cov(z[both, i], z[both, j])[0, 1]
    return out


def eigen(x: np.ndarray, y: np.ndarray) -> float | None:
    """sdcMicro's ``dUtility(method = "eigen")`` (module docstring): ``sum |e - e'| / e``
    over the decreasing eigenvalues of the pairwise covariances of the standardised
    variables of ``x`` and ``y``."""
    if x.shape[1] == 0:
        return None
    vx, vy = pairwise_scaled_covariance(x), pairwise_scaled_covariance(y)
    if vx is None or vy is None:
        return None
    e1 = np.linalg.eigvalsh(vx)[::-1]
    e2 = np.linalg.eigvalsh(vy)[::-1]
    if not (e1 > _ZERO_EIGENVALUE * abs(float(e1[0]))).all():
        return None
    return float((np.abs(e1 - e2) / e1).sum())


def sdcmicro_utility(x: np.ndarray, y: np.ndarray) -> dict:
    """Every figure of sdcMicro's ``dUtility`` under its sdcMicro name: ``IL1``, ``IL1s``,
    ``IL1old`` and ``eigen`` (see the module docstring)."""
    return {"IL1": il1(x, y), "IL1s": il1s(x, y), "IL1old": il1old(x, y),
            "eigen": eigen(x, y)}
