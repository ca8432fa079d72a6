"""Coordinates for record linkage: the two files transformed so that the squared Euclidean
distance is the one wanted (z-scores, weighted, Mahalanobis) for distance-based linkage,
and the coordinates in which two values *agree* (differ by at most 1) for probabilistic
linkage. NumPy only.
"""

from __future__ import annotations

import numpy as np


def standardize(original: np.ndarray, protected: np.ndarray, how: str = "original"
                ) -> tuple[np.ndarray, np.ndarray]:
    """Z-scores of both files (columns = variables; NaN stays NaN).

    ``how="original"``: both files with the original's means and standard deviations
    (sample sd, ``ddof=1``), so that a value keeps its position whatever the protected
    file's spread; ``how="each"``: each file with its own, as the ``diff_i`` of Torra 2016
    ("Worst-case scenario": ``((a_i - mean(a_i))/sd(a_i) - (b_i - mean(b_i))/sd(b_i))^2``).
    A standard deviation of 0 (or undefined) is taken as 1."""
    original = np.asarray(original, dtype=float)
    protected = np.asarray(protected, dtype=float)

    def moments(x):
        with np.errstate(invalid="ignore", over="ignore"), _quiet():
            mean = np.nanmean(x, axis=0) if len(x) else np.zeros(x.shape[1])
            sd = np.nanstd(x, axis=0, ddof=1) if len(x) > 1 else np.ones(x.shape[1])
            # values near the float range (1e300) overflow the moments: those columns
            # in units of their largest |value| (mean and sd then stay finite)
            big = ~(np.isfinite(mean) & np.isfinite(sd)) & ~np.isnan(x).all(axis=0)
            if big.any():
                scale = np.nanmax(np.abs(x[:, big]), axis=0)
                y = x[:, big] / scale
                mean[big] = np.nanmean(y, axis=0) * scale
                sd[big] = np.nanstd(y, axis=0, ddof=1) * scale
        mean = np.where(np.isfinite(mean), mean, 0.0)
        sd = np.where(np.isfinite(sd) & (sd > 0), sd, 1.0)
        return mean, sd

    mo, so = moments(original)
    if how == "original":
        mp, sp = mo, so
    elif how == "each":
        mp, sp = moments(protected)
    else:
        raise ValueError(f"unknown standardisation {how!r}")
    with np.errstate(over="ignore"):  # (a z-score beyond the float range: infinite)
        return (original - mo) / so, (protected - mp) / sp


def weighted(z: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Coordinates whose squared Euclidean distance is the weighted one,
    ``sum_j w_j (a_j - b_j)^2`` (Torra 2016, "weighted mean distance")."""
    weights = np.asarray(weights, dtype=float)
    if np.any(weights < 0) or not np.all(np.isfinite(weights)):
        raise ValueError("weights must be finite and non-negative")
    return z * np.sqrt(weights)


def mahalanobis_transform(original: np.ndarray, protected: np.ndarray,
                          covariance: str = "cov0") -> tuple[np.ndarray, np.ndarray, dict]:
    """Coordinates whose squared Euclidean distance is the Mahalanobis distance
    ``(a - b)' S^+ (a - b)``, with ``S`` the pooled covariance of the two files
    (``((n-1) S_original + (m-1) S_protected) / (n + m - 2)``, each file centred on its own
    means, over its complete records) and ``S^+`` its Moore-Penrose pseudo-inverse
    (eigenvalues below ``1e-10`` times the largest count as 0, so collinear variables do
    not blow the distance up). Returns the two transformed files and ``{"rank": ...}``.

    ``covariance``: ``"cov0"`` (the above: ``Var[V] + Var[V']`` up to a factor, which
    does not change the links, the cross-covariance taken as 0: the DBRLM-COV0 of
    Torra, Abowd & Domingo-Ferrer, "Using Mahalanobis distance-based record linkage for
    disclosure risk assessment", PSD 2006) or ``"cov"`` (``Var[V] + Var[V'] -
    2 Cov[V, V']``, the covariance of the differences ``V - V'`` over the records complete
    in both files, record ``i`` paired with record ``i``: their DBRLM-COV, which needs
    the pairing, i.e. the worst case where the intruder knows it)."""
    original = np.asarray(original, dtype=float)
    protected = np.asarray(protected, dtype=float)
    c = original.shape[1]
    scatter = np.zeros((c, c))
    dof = 0
    if covariance == "cov":
        diff = original - protected
        files = (diff[~np.isnan(diff).any(axis=1)],)
    elif covariance == "cov0":
        files = (original, protected)
    else:
        raise ValueError(f"unknown covariance {covariance!r}")
    for x in files:
        x = x[~np.isnan(x).any(axis=1)]
        if len(x) > 1:
            xc = x - x.mean(axis=0)
            scatter += xc.T @ xc
            dof += len(x) - 1
    if dof == 0:
        return original, protected, {"rank": c}
    cov = scatter / dof
    values, vectors = np.linalg.eigh(cov)
    keep = values > 1e-10 * max(values.max(), 0.0)
    if not keep.any():
        return original * 0.0, protected * 0.0, {"rank": 0}
    transform = vectors[:, keep] / np.sqrt(values[keep])
    return original @ transform, protected @ transform, {"rank": int(keep.sum())}


def agreement_coordinates(original: np.ndarray, protected: np.ndarray, tolerance: float
                          ) -> tuple[np.ndarray, np.ndarray]:
    """Coordinates in which two values *agree* when they differ by at most 1.

    Variable ``j`` agrees for a pair when ``|x - x'| <= tolerance * sd_j`` (``sd_j`` the
    original's sample standard deviation): the coordinates are the values divided by the
    tolerance, and agreement is decided on them, ``|x/t - x'/t| <= 1``, by every route.
    Where the tolerance is 0 (``tolerance = 0`` or a constant variable) agreement is
    equality: the coordinates are twice the rank of the value among the distinct values
    of both files."""
    original = np.asarray(original, dtype=float)
    protected = np.asarray(protected, dtype=float)
    so = np.empty_like(original)
    sp = np.empty_like(protected)
    for j in range(original.shape[1]):
        x, y = original[:, j], protected[:, j]
        with _quiet():
            sd = np.nanstd(x, ddof=1) if np.count_nonzero(~np.isnan(x)) > 1 else 0.0
        t = tolerance * sd if np.isfinite(sd) else 0.0
        if t > 0:
            so[:, j], sp[:, j] = x / t, y / t
        else:
            both = np.concatenate([x, y])
            values = np.unique(both[~np.isnan(both)])
            for src, dst in ((x, so), (y, sp)):
                code = np.searchsorted(values, src).astype(float) * 2.0
                code[np.isnan(src)] = np.nan
                dst[:, j] = code
    return so, sp


class _quiet:
    """Silence numpy's warnings for all-NaN columns (their moments are replaced)."""

    def __enter__(self):
        import warnings

        self._ctx = warnings.catch_warnings()
        self._ctx.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)
        return self

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)
