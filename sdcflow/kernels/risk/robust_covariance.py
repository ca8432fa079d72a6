"""The Minimum Covariance Determinant (MCD) estimate of scatter (Rousseeuw (1984), "Least
median of squares regression", JASA 79; Rousseeuw & Van Driessen (1999), "A fast
algorithm for the minimum covariance determinant estimator", Technometrics 41), found
deterministically from the starts of DetMCD (Hubert, Rousseeuw & Verdonck (2012), "A
deterministic algorithm for robust location and scatter", JCGS 21) refined by C-steps,
then made consistent at the normal and reweighted as R robustbase's ``covMcd``. NumPy and
SciPy only.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

_MAX_CSTEPS = 200


def mcd_covariance(x: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
    """The reweighted MCD covariance of ``x`` (n x p, complete, n > p), with
    ``h = floor((n + p + 1) / 2)`` (robustbase's default ``alpha = 1/2``).

    1. Six starts (DetMCD's, with the MAD as the scale): the correlations of tanh of the
       robust z-scores, the Spearman correlations, the correlations of the normal scores,
       the spatial sign covariance, the covariance of the half of the records nearest the
       median, and the raw orthogonalised Gnanadesikan-Kettenring (OGK-like) estimate
       on the eigenvectors of the first; each gives the h records of smallest distance.
    2. C-steps (Rousseeuw & Van Driessen 1999) from each until the determinant stops
       decreasing; the h-subset of smallest determinant is the raw MCD.
    3. The raw covariance times ``(h/n) / F_{p+2}(chi2_p^{-1}(h/n))`` (consistency at the
       normal), then the records with squared distance at most ``chi2_p^{-1}(0.975)``
       reweighted into the final covariance, times ``0.975 / F_{p+2}(chi2_p^{-1}(0.975))``
       (robustbase's ``wgtFUN = "01.original"``). Robustbase's small-sample correction
       factors (Pison, Van Aelst & Willems 2002) are not applied; they tend to 1 with n.

    ``rng`` is not used: the result is deterministic."""
    x = np.asarray(x, dtype=float)
    n, p = x.shape
    if n <= p:
        raise ValueError(f"the MCD needs more records than variables ({n} records, {p} "
                         "variables)")
    h = (n + p + 1) // 2
    med = np.median(x, axis=0)
    mad = stats.median_abs_deviation(x, axis=0, scale="normal")
    mad = np.where(mad > 0, mad, x.std(axis=0) + (x.std(axis=0) == 0))
    z = (x - med) / mad
    best_det, best_set = np.inf, None
    for subset in _starts(z, h):
        det, subset = _c_steps(z, subset, h)
        if det < best_det:
            best_det, best_set = det, subset
    if best_set is None:
        raise ValueError("the MCD found no h-subset with a regular covariance matrix")
    raw_center = x[best_set].mean(axis=0)
    raw_cov = np.cov(x[best_set], rowvar=False).reshape(p, p) * _consistency(p, h / n)
    d2 = _mahalanobis2(x, raw_center, raw_cov)
    keep = d2 <= stats.chi2.ppf(0.975, p)
    # robustbase's cov.wt with 0/1 weights: the n - 1 denominator of the kept records
    cov = np.cov(x[keep], rowvar=False).reshape(p, p)
    return cov * _consistency(p, 0.975)


def _consistency(p: int, alpha: float) -> float:
    """``alpha / F_{p+2}(chi2_p^{-1}(alpha))``: the covariance of the fraction alpha of a
    normal sample nearest its centre, made consistent (robustbase's ``MCDcons``)."""
    if alpha >= 1:
        return 1.0
    return alpha / stats.chi2.cdf(stats.chi2.ppf(alpha, p), p + 2)


def _mahalanobis2(x: np.ndarray, center: np.ndarray, cov: np.ndarray) -> np.ndarray:
    c = x - center
    return np.einsum("ij,ij->i", c, np.linalg.solve(cov, c.T).T)


def _starts(z: np.ndarray, h: int):
    """The h-subsets of DetMCD's initial estimates, on the robust z-scores ``z``."""
    n, p = z.shape
    ranks = stats.rankdata(z, axis=0)
    normal_scores = stats.norm.ppf((ranks - 1 / 3) / (n + 1 / 3))
    norms = np.linalg.norm(z, axis=1)
    signs = z / np.where(norms > 0, norms, 1.0)[:, None]
    half = np.argsort(norms, kind="stable")[: (n + 1) // 2]
    scatters = [
        _corr(np.tanh(z)),
        _corr(ranks),
        _corr(normal_scores),
        signs.T @ signs / n,
        np.cov(z[half], rowvar=False).reshape(p, p),
    ]
    for s in scatters:
        if not np.all(np.isfinite(s)):
            continue
        _, vectors = np.linalg.eigh(s)
        b = z @ vectors
        scale = stats.median_abs_deviation(b, axis=0, scale="normal")
        if (scale <= 0).any():
            continue
        # sigma = E L E' with L the squared scales; centre = sigma^{1/2} med(z sigma^{-1/2})
        sigma = (vectors * scale ** 2) @ vectors.T
        inv_root = (vectors / scale) @ vectors.T
        root = (vectors * scale) @ vectors.T
        centre = root @ np.median(z @ inv_root, axis=0)
        yield np.argsort(_mahalanobis2(z, centre, sigma), kind="stable")[:h]


def _corr(a: np.ndarray) -> np.ndarray:
    sd = a.std(axis=0)
    if (sd == 0).any():
        return np.full((a.shape[1], a.shape[1]), np.nan)
    return np.atleast_2d(np.corrcoef(a, rowvar=False))


def _c_steps(z: np.ndarray, subset: np.ndarray, h: int) -> tuple[float, np.ndarray]:
    """C-steps from ``subset``: the h records nearest the mean and covariance of the
    current subset, until the determinant no longer decreases."""
    det = np.inf
    for _ in range(_MAX_CSTEPS):
        sub = z[subset]
        center = sub.mean(axis=0)
        cov = np.atleast_2d(np.cov(sub, rowvar=False))
        sign, logdet = np.linalg.slogdet(cov)
        if sign <= 0:
            return np.inf, subset  # an exact fit: not a usable start here
        if logdet >= det - 1e-12:
            break
        det = logdet
        subset = np.sort(np.argsort(_mahalanobis2(z, center, cov), kind="stable")[:h])
    return det, subset
