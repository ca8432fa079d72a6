"""The probabilistic information loss PIL of continuous data (Mateo-Sanz, Domingo-Ferrer &
Sebe, "Probabilistic information loss measures in confidentiality protection of continuous
microdata", DMKD 11, 2005): for the quantiles, means, variances, covariances and
correlations, the probability that a standard normal lies closer to 0 than the protected
statistic's standardised discrepancy from the original one; with the sample moments
(up to the fourth order) that their variances need.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import erf, ndtri

# Quantile levels compared by PIL: 5%, 10%, ..., 95%.
PIL_QUANTILES = tuple(round(0.05 * i, 2) for i in range(1, 20))


def moments(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Means, second central moments ``m_ij`` and fourth-order ``m_(ii)(jj)`` (divisor n) of
    complete records x (n x p), with one centred copy of x at a time."""
    n = len(x)
    mean = x.mean(axis=0)
    d = x - mean
    m11 = d.T @ d / n
    np.multiply(d, d, out=d)
    m22 = d.T @ d / n
    return mean, m11, m22


def pil_probabilities(estimate: np.ndarray, protected: np.ndarray,
                      variance: np.ndarray) -> np.ndarray:
    """``PIL = 2 (Phi(|z|) - 1/2)`` with ``z = (theta' - theta) / sqrt(Var(theta))``
    (Mateo-Sanz, Domingo-Ferrer & Sebe 2005): the probability that a standard normal lies
    closer to 0 than the standardised discrepancy. A zero variance gives 0 for an unchanged
    statistic and 1 otherwise."""
    diff = np.abs(np.asarray(protected, float) - np.asarray(estimate, float))
    var = np.asarray(variance, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(var > 0, diff / np.sqrt(np.where(var > 0, var, 1.0)), np.inf)
    z = np.where(diff == 0, 0.0, z)
    return erf(z / math.sqrt(2.0))


def _sorted_quantiles(sorted_col: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Quantiles of an already sorted column (R's type 7 / NumPy's default linear)."""
    n = sorted_col.size
    h = (n - 1) * np.asarray(probs, float)
    lo = np.floor(h).astype(np.int64)
    hi = np.minimum(lo + 1, n - 1)
    return sorted_col[lo] + (h - lo) * (sorted_col[hi] - sorted_col[lo])


def quantile_variance(sorted_col: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Asymptotic variance of the sample quantile ``alpha (1 - alpha) / (n f(Q_alpha)^2)``,
    the density estimated by the difference quotient ``2h / (Q(alpha+h) - Q(alpha-h))``
    with Bofinger's bandwidth ``h = n^(-1/5) (4.5 phi(z)^4 / (2 z^2 + 1)^2)^(1/5)``,
    ``z = Phi^-1(alpha)`` (the levels clipped to [0, 1])."""
    n = sorted_col.size
    a = np.asarray(probs, float)
    z = ndtri(a)
    phi = np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
    h = n ** -0.2 * (4.5 * phi ** 4 / (2 * z * z + 1) ** 2) ** 0.2
    lo, hi = np.clip(a - h, 0.0, 1.0), np.clip(a + h, 0.0, 1.0)
    sparsity = (_sorted_quantiles(sorted_col, hi) - _sorted_quantiles(sorted_col, lo)) / (hi - lo)
    return a * (1 - a) * sparsity ** 2 / n


def probabilistic_information_loss(x: np.ndarray, y: np.ndarray,
                                   quantiles=PIL_QUANTILES) -> dict:
    """PIL (Mateo-Sanz, Domingo-Ferrer & Sebe, "Probabilistic information loss measures in
    confidentiality protection of continuous microdata", DMKD 11, 2005) on complete records
    x, y (n x p): for each statistic, the mean over its components of
    :func:`pil_probabilities`, in percent, and ``total`` their average (0 .. 100). The
    variances of the original estimates (plug-in sample moments, ``mu`` central moments
    with divisor n):

    * quantiles (5%, 10%, ..., 95%): :func:`quantile_variance`;
    * means: ``S^2 / n``;
    * variances ``m2``: ``(n-1)^2 / n^3 (mu4 - mu2^2) + 2 (n-1) / n^3 mu2^2``;
    * covariances ``m11`` (i < j): ``(n-1)^2 / n^3 (mu22 - mu11^2) + (n-1) / n^3 (mu11^2 +
      mu20 mu02)`` (the exact variance of the divisor-n covariance);
    * Pearson correlations (i < j): ``(1 - r^2)^2 / n``.

    With one variable there are no covariances or correlations: the total averages three."""
    if len(x) < 2:
        return {"total": None}
    return _pil(x, y, moments(x), moments(y), quantiles)


def _pil(x, y, mom_x, mom_y, quantiles=PIL_QUANTILES) -> dict:
    n, p = x.shape
    probs = np.asarray(quantiles, float)
    pq = []
    for j in range(p):
        sx, sy = np.sort(x[:, j]), np.sort(y[:, j])
        pq.append(pil_probabilities(_sorted_quantiles(sx, probs), _sorted_quantiles(sy, probs),
                                    quantile_variance(sx, probs)))
    (mx, m11x, m22), (my, m11y, _) = mom_x, mom_y  # m22: mu22 per pair, mu4 on the diagonal
    m2 = np.diag(m11x)
    out = {
        "quantiles": float(np.mean(pq)),
        "means": float(pil_probabilities(mx, my, m2 * n / (n - 1) / n).mean()),
    }
    c1, c2 = (n - 1) ** 2 / n ** 3, (n - 1) / n ** 3
    var_m2 = c1 * (np.diag(m22) - m2 ** 2) + 2 * c2 * m2 ** 2
    out["variances"] = float(pil_probabilities(m2, np.diag(m11y), var_m2).mean())
    if p > 1:
        iu = np.triu_indices(p, 1)
        var_m11 = c1 * (m22 - m11x ** 2) + c2 * (m11x ** 2 + np.outer(m2, m2))
        out["covariances"] = float(pil_probabilities(m11x[iu], m11y[iu], var_m11[iu]).mean())
        sx, sy = np.sqrt(m2), np.sqrt(np.diag(m11y))
        if (sx > 0).all() and (sy > 0).all():
            rx, ry = m11x / np.outer(sx, sx), m11y / np.outer(sy, sy)
            out["correlations"] = float(
                pil_probabilities(rx[iu], ry[iu], (1 - rx[iu] ** 2) ** 2 / n).mean())
        else:
            out["correlations"] = None
    parts = {k: 100.0 * v if v is not None else None for k, v in out.items()}
    defined = [v for v in parts.values() if v is not None]
    parts["total"] = float(np.mean(defined)) if defined else None
    return parts
