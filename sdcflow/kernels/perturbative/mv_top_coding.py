"""Multivariate top coding, as sdcMicro's ``mvTopCoding`` (Gussenbauer & Templ; sdcMicro
5.x, ``R/mvTopCoding.R``): records whose squared Mahalanobis distance from the centre
exceeds ``d = chi2_p^{-1}(1 - alpha)`` are outliers, and each outlier is pulled along the
line to the centre onto the ellipsoid of squared distance ``d``:

    x' = c + sqrt(d / D2(x)) (x - c),    D2(x) = (x - c)' S^{-1} (x - c).

sdcMicro's default centre ``c`` and scatter ``S`` are robustbase's ``covMcd(x)`` with its
defaults (the reweighted MCD: Rousseeuw & Van Driessen (1999), "A fast algorithm for the
minimum covariance determinant estimator", Technometrics 41), on the records without a
missing value; its example "by hand (non-robust)" passes the column means and the
covariance matrix of the complete records instead (``estimator="classical"`` here). A
record with a missing value has no distance (R's ``mahalanobis`` gives NA, and
``which(NA > d)`` skips it) and is left as it is. Winsorising onto the ellipsoid rather
than removing keeps every record while the extreme combinations of values, the ones an
intruder recognises, are brought back among the others (Templ, Kowarik & Meindl (2015),
"Statistical disclosure control for micro-data using the R package sdcMicro", JSS 67)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

ALPHA = 0.025  # sdcMicro's default significance level
ESTIMATORS = ("mcd", "classical")


@dataclass
class TopCoded:
    """The coded matrix, the mask of the coded (outlying) records, the squared distance
    limit ``d`` and the number of records with a missing value (no distance)."""

    values: np.ndarray
    coded: np.ndarray
    limit: float
    incomplete: int


def location_scatter(x: np.ndarray, estimator: str = "mcd",
                     rng: np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The centre and scatter matrix of the complete rows of ``x``: robustbase's
    ``covMcd`` with its defaults (``"mcd"``, sdcMicro's default; the random starts from
    ``rng``) or the column means and the covariance matrix with denominator n - 1
    (``"classical"``, R's ``colMeans`` and ``cov(use = "complete.obs")``). ValueError when
    too few complete rows or the scatter is singular."""
    x = np.asarray(x, dtype=float)
    p = x.shape[1]
    complete = x[~np.isnan(x).any(axis=1)]
    if estimator == "mcd":
        from ..risk.robust_covariance import mcd

        fit = mcd(complete, rng)
        center, cov = fit.center, fit.cov
    elif estimator == "classical":
        if len(complete) <= p:
            raise ValueError(f"the covariance matrix of {p} variables needs more than {p} "
                             f"records without a missing value ({len(complete)})")
        center = complete.mean(axis=0)
        cov = np.cov(complete, rowvar=False).reshape(p, p)
    else:
        raise ValueError(f"unknown estimator {estimator!r}: one of {', '.join(ESTIMATORS)}")
    # singular on the scale-free correlation matrix (incomes in millions beside ages)
    sd = np.sqrt(np.diag(cov))
    if not (sd > 0).all() or not np.linalg.eigvalsh(cov / np.outer(sd, sd))[0] > 1e-12:
        raise ValueError("the covariance matrix is singular: the records lie on a hyperplane")
    return center, cov


def squared_distances(x: np.ndarray, center: np.ndarray, cov: np.ndarray) -> np.ndarray:
    """R's ``mahalanobis(x, center, cov)``: ``(x - c)' S^{-1} (x - c)`` per row; NaN for a
    row with a missing value."""
    centred = np.asarray(x, dtype=float) - center
    return np.einsum("ij,ij->i", centred @ np.linalg.inv(cov), centred)


def mv_top_code(x: np.ndarray, alpha: float = ALPHA, estimator: str = "mcd",
                rng: np.random.Generator | None = None) -> TopCoded:
    """sdcMicro's ``mvTopCoding(x, alpha)`` (see the module docstring): the rows of
    ``x`` (n x p) beyond the squared Mahalanobis distance ``chi2_p^{-1}(1 - alpha)`` from
    the centre moved onto that ellipsoid towards the centre; the others unchanged."""
    x = np.asarray(x, dtype=float)
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie strictly between 0 and 1 ({alpha})")
    p = x.shape[1]
    limit = float(stats.chi2.ppf(1 - alpha, p))
    center, cov = location_scatter(x, estimator, rng)
    distance2 = squared_distances(x, center, cov)
    with np.errstate(invalid="ignore"):
        coded = distance2 > limit  # NaN (a missing value) is never beyond it
    out = x.copy()
    shrink = np.sqrt(limit / distance2[coded])[:, None]
    out[coded] = center + shrink * (x[coded] - center)
    return TopCoded(out, coded, limit, int(np.isnan(x).any(axis=1).sum()))
