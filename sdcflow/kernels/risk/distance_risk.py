"""Distance-based disclosure risk of masked continuous variables, as R sdcMicro's
``dRisk`` and ``dRiskRMD`` (Templ & Meindl (2008), "Robust statistics meets SDC: new
disclosure risk measures for continuous microdata masking", PSD 2008, LNCS 5262). NumPy
and SciPy only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial import cKDTree

from .robust_covariance import mcd_covariance


def d_risk(original: np.ndarray, masked: np.ndarray, k: float = 0.05) -> np.ndarray:
    """Which records sdcMicro's ``dRisk`` counts as at risk: every original value lies in
    the interval ``[x' - k s', x' + k s']`` around its masked value ``x'``, with ``s'``
    the standard deviation (n - 1 denominator) of the masked variable. The risk is the
    share of such records (``mean`` of the result).

    As sdcMicro, a comparison with a missing value (original or masked) is left out, so a
    record with no comparable value counts as at risk; a masked variable with fewer than
    two values (no standard deviation) leaves its comparisons out as well."""
    original, masked = _pair(original, masked)
    n, p = original.shape
    if n == 0:
        return np.zeros(0, dtype=bool)
    sd = np.full(p, np.nan)
    for j in range(p):
        col = masked[~np.isnan(masked[:, j]), j]
        if col.size >= 2:
            sd[j] = col.std(ddof=1)
    with np.errstate(invalid="ignore"):
        outside = (original < masked - k * sd) | (original > masked + k * sd)
    return ~outside.any(axis=1)


@dataclass
class RmdRisk:
    """What :func:`d_risk_rmd` returns: ``rmd`` the scaled robust Mahalanobis distance of
    each record (n), ``close`` the records with a masked value inside its interval,
    ``isolated`` those of them whose masked record is farther than ``k2`` from every
    other masked record; ``robust`` False when the MCD found no regular h-subset (more
    than half the records on a hyperplane, e.g. sharing a value) and the classical
    covariance was used instead."""

    rmd: np.ndarray
    close: np.ndarray
    isolated: np.ndarray
    robust: bool = True

    def summary(self) -> dict[str, float]:
        """sdcMicro's ``risk1``, ``risk2`` (shares of close and isolated records) and
        ``wrisk1``, ``wrisk2`` (``count * sum(rmd over them) / n``, as sdcMicro)."""
        n = self.rmd.size
        if n == 0:
            return {"risk1": 0.0, "risk2": 0.0, "wrisk1": 0.0, "wrisk2": 0.0}
        c, i = int(self.close.sum()), int(self.isolated.sum())
        return {"risk1": c / n, "risk2": i / n,
                "wrisk1": c * float(self.rmd[self.close].sum()) / n,
                "wrisk2": i * float(self.rmd[self.isolated].sum()) / n}


def d_risk_rmd(original: np.ndarray, masked: np.ndarray, k: float = 0.01, k2: float = 0.05,
               rng: np.random.Generator | None = None) -> RmdRisk:
    """sdcMicro's ``dRiskRMD``: both files standardised (each by its own means and
    standard deviations), ``rmd_i = 0.05 sqrt((x_i - mean)' C^{-1} (x_i - mean))`` with C
    the robust MCD covariance of the standardised original data (robustbase's ``covMcd``
    with its defaults, as sdcMicro calls it: :func:`sdcflow.kernels.risk.robust_covariance.mcd`,
    its random starts drawn from ``rng``) and, as sdcMicro, the plain column means; record i is *close* when some standardised masked value lies
    strictly inside ``x_ij +- k rmd_i``, and *isolated* when, besides, its masked record's
    Euclidean distance to every other masked record is above ``k2``.

    Missing values: the standardisation and the MCD use the observed values (the MCD the
    complete original records); a record with a missing original value has no distance
    (NaN) and is not close; a missing masked value is never inside its interval; the
    isolation distances are taken among the complete masked records (a close record whose
    masked record is incomplete is not isolated). When more than half the records lie on
    a hyperplane the MCD has no regular h-subset and the classical covariance is used
    (``robust`` False). A masked variable without variation is
    only centred (sdcMicro's ``scale`` would give NaN); the original variables must vary."""
    original, masked = _pair(original, masked)
    n = original.shape[0]
    if n == 0:
        empty = np.zeros(0, dtype=bool)
        return RmdRisk(np.zeros(0), empty, empty)
    if any(np.unique(col[~np.isnan(col)]).size < 2 for col in original.T):
        raise ValueError("a variable of the original data has no variation: it cannot be "
                         "standardised")
    x = _standardise(original)  # centred: the column means are now 0
    xm = _standardise(masked)
    complete = ~np.isnan(x).any(axis=1)
    robust = True
    try:
        cov = mcd_covariance(x[complete], rng)
    except ValueError:
        # an exact fit (robustbase warns and returns a singular matrix, with which the
        # distances are undefined): the classical covariance instead, said in the result
        robust = False
        cov = np.atleast_2d(np.cov(x[complete], rowvar=False))
        cov = cov + np.eye(len(cov)) * 1e-12 * max(float(np.trace(cov)), 1e-300)
    rmd = np.full(n, np.nan)
    c = x[complete]
    d2 = np.einsum("ij,ij->i", c, np.linalg.solve(cov, c.T).T)
    rmd[complete] = np.sqrt(np.maximum(d2, 0.0)) * 0.05
    half = np.where(complete, k * rmd, 0.0)[:, None]
    with np.errstate(invalid="ignore"):
        close = complete & ((xm > x - half) & (xm < x + half)).any(axis=1)
    isolated = np.zeros(n, dtype=bool)
    whole = ~np.isnan(xm).any(axis=1)
    idx = np.flatnonzero(close & whole)
    if idx.size and whole.sum() > 1:
        dist, _ = cKDTree(xm[whole]).query(xm[idx], k=2)
        isolated[idx] = dist[:, 1] > k2
    elif idx.size:
        isolated[idx] = True  # no other record: the minimum over nothing is +inf in R
    return RmdRisk(rmd, close, isolated, robust)


def _standardise(x: np.ndarray) -> np.ndarray:
    """R's ``scale`` on the observed values: centred by the column means, divided by the
    standard deviations (n - 1); a column without variation only centred."""
    out = np.full(x.shape, np.nan)
    for j in range(x.shape[1]):
        seen = ~np.isnan(x[:, j])
        col = x[seen, j]
        if col.size == 0:
            continue
        sd = col.std(ddof=1) if col.size > 1 else 0.0
        out[seen, j] = (col - col.mean()) / (sd if sd > 0 else 1.0)
    return out


def _pair(original, masked) -> tuple[np.ndarray, np.ndarray]:
    original = np.asarray(original, dtype=float)
    masked = np.asarray(masked, dtype=float)
    if original.ndim == 1:
        original, masked = original[:, None], masked.reshape(-1, 1)
    if original.shape != masked.shape:
        raise ValueError(f"the masked data have shape {masked.shape} and the original "
                         f"{original.shape}: records are compared by position")
    return original, masked
