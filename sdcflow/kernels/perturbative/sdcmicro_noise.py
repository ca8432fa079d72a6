"""R sdcMicro's ``addNoise`` conventions (M. Templ, A. Kowarik & B. Meindl, "Statistical
Disclosure Control for Micro-Data Using the R Package sdcMicro", Journal of Statistical
Software 67(4), 2015; sdcMicro 5.8.1, ``R/addNoise.r``), exactly:

* sdcMicro's ``noise`` is a percentage whose meaning depends on the method: for
  ``"additive"`` the noise's standard deviation is ``noise/100`` times the variable's
  (``rnorm(N, 0, noise/100 * sd(x))``), i.e. the noise variance is ``(noise/100)^2`` times
  the variable's; for ``"correlated"`` the noise covariance is ``noise/100`` times the
  covariance matrix of the complete records (``mvrnorm(N, 0, noise/100 * cov(na.omit(x)))``).
  :func:`k_from_noise` turns it into sdcflow's noise level ``k`` (the noise variance as a
  fraction of the variance, or of the covariance matrix).
* ``"correlated2"`` (:func:`correlated2_noise`) takes ``delta`` instead: each variable
  becomes ``sqrt(1 - delta^2) x + (1 - sqrt(1 - delta^2)) mean(x) + delta sd(x) e`` with
  ``e`` standard normal, independent between records and variables (sdcMicro's
  ``addNoise_correlated2``: ``x * d1 + delta * rnorm(N, (1 - d1)/delta * mean(x),
  sd(x))``). This is the noise-and-linear-transformation idea of J. J. Kim ("A method for
  limiting disclosure in microdata based on random noise and transformation", ASA
  Proceedings of the Section on Survey Research Methods, 1986) applied variable by
  variable: in expectation each variable keeps its mean and its variance
  (``(1 - delta^2) Var + delta^2 Var``), while covariances shrink to ``(1 - delta^2)``
  times theirs (the noise is independent between variables) and so do correlations.
"""

from __future__ import annotations

import math

import numpy as np

# sdcMicro's methods whose parameter is its percentage ``noise`` and how it maps to k
NOISE_METHODS = ("additive", "correlated")
DELTA = 0.1  # sdcMicro's default delta


def k_from_noise(method: str, noise: float) -> float:
    """sdcflow's ``k`` of sdcMicro's ``noise`` (percent) for ``method``: ``(noise/100)^2``
    for ``additive`` (noise is a percentage of the standard deviation), ``noise/100`` for
    ``correlated`` (a percentage of the covariance matrix)."""
    if method == "additive":
        return (noise / 100.0) ** 2
    if method == "correlated":
        return noise / 100.0
    raise ValueError(f"sdcMicro's noise applies to methods {NOISE_METHODS}, not {method!r}")


def column_means_and_sds(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The mean and the sample standard deviation (divisor m - 1) of the observed values
    of each column of ``x`` (NaN for a column with none, and 0 sd with fewer than 2)."""
    observed = ~np.isnan(x)
    counts = observed.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(observed, x, 0.0).sum(axis=0) / counts
        dev = np.where(observed, x - means, 0.0)
        variances = (dev * dev).sum(axis=0) / np.maximum(counts - 1, 1)
    return means, np.sqrt(np.where(counts >= 2, variances, 0.0))


def correlated2_noise(x: np.ndarray, delta: float, rng: np.random.Generator, *,
                      means: np.ndarray | None = None,
                      sds: np.ndarray | None = None) -> np.ndarray:
    """sdcMicro's ``addNoise(method = "correlated2", delta)`` (module docstring):
    ``sqrt(1 - delta^2) x + (1 - sqrt(1 - delta^2)) m_j + delta s_j e`` with ``m_j`` and
    ``s_j`` the mean and sample standard deviation of the observed values of column j
    (unless ``means`` and ``sds`` are given) and ``e`` standard normal, drawn variable by
    variable (column-major). ``0 < delta <= 1``; missing values stay missing."""
    if not 0 < delta <= 1:
        raise ValueError(f"delta must be in (0, 1], not {delta}")
    x = np.asarray(x, dtype=float)
    n, p = x.shape
    if means is None or sds is None:
        means, sds = column_means_and_sds(x)
    d1 = math.sqrt(1.0 - delta * delta)
    out = rng.standard_normal((p, n)).T
    out *= delta * np.asarray(sds, dtype=float)
    out += d1 * x + (1.0 - d1) * np.asarray(means, dtype=float)
    return out


NOISE_DEFAULT = 150.0  # sdcMicro's default noise (percent)
OUTLIER_QUANTILE = 0.99  # outdect: values above this quantile of their variable
OUTLIER_CHI2 = 0.975  # outdect: robust distances beyond sqrt(chi2_p(0.975))


def outliers(x: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
    """The outliers of sdcMicro's ``addNoise(method = "outdect")`` (``addNoise_outdect``),
    as a boolean mask of the rows of ``x``: a record with a value above the 0.99 quantile
    of its variable (R's default quantile, type 7, of the observed values), or whose
    robust Mahalanobis distance from the MCD centre exceeds ``sqrt(chi2_p^{-1}(0.975))``
    (robustbase's ``covMcd(na.omit(x), alpha = 1/2)``: its reweighted centre and
    covariance, :func:`sdcflow.kernels.risk.robust_covariance.mcd`, whose random starts
    come from ``rng``; Templ & Meindl, "Robustification of microdata masking methods and
    the comparison with existing methods", 2008). A record with a missing value has no
    distance (R's ``mahalanobis`` gives NA) and is an outlier only by its quantiles.
    ValueError from the MCD when too few complete records or more than half on a
    hyperplane."""
    from ..risk.robust_covariance import mcd

    x = np.asarray(x, dtype=float)
    n, p = x.shape
    out = np.zeros(n, dtype=bool)
    for j in range(p):
        observed = x[:, j][~np.isnan(x[:, j])]
        if len(observed):
            with np.errstate(invalid="ignore"):
                out |= x[:, j] > np.quantile(observed, OUTLIER_QUANTILE)
    complete = ~np.isnan(x).any(axis=1)
    fit = mcd(x[complete], rng)
    centred = x[complete] - fit.center
    try:
        inverse = np.linalg.inv(fit.cov)
    except np.linalg.LinAlgError:
        raise ValueError("the records' robust covariance (MCD) is singular: they lie on a "
                         "hyperplane (robustbase's exact fit)") from None
    distance2 = np.einsum("ij,ij->i", centred @ inverse, centred)
    limit = math.sqrt(_chi2_ppf(OUTLIER_CHI2, p))
    with np.errstate(invalid="ignore"):
        out[np.flatnonzero(complete)[np.sqrt(distance2) > limit]] = True
    return out


def _chi2_ppf(q: float, p: int) -> float:
    from scipy import stats

    return float(stats.chi2.ppf(q, p))


def outlier_noise(x: np.ndarray, noise: float, rng: np.random.Generator, *,
                  mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """sdcMicro's ``addNoise(method = "outdect", noise)``: normal noise with standard
    deviation ``1.96 sd(x_j) / sqrt(N) * noise / 100`` added to every variable of the
    :func:`outliers` records only (``mask``, if given, instead), the others unchanged;
    drawn variable by variable, in record order. Returns the masked values and the mask.
    Missing values stay missing."""
    x = np.asarray(x, dtype=float)
    n, p = x.shape
    if mask is None:
        mask = outliers(x, rng)
    _, sds = column_means_and_sds(x)
    rows = np.flatnonzero(mask)
    out = x.copy()
    scale = 1.96 * sds / math.sqrt(n) * (noise / 100.0) if n else sds
    for j in range(p):
        out[rows, j] += rng.normal(0.0, 1.0, len(rows)) * scale[j]
    return out, mask
