"""Generic information loss measures (seed 000_1eece6b9d3791e64.txt, V. Torra, "Masking
Methods", section 4 "Information loss measures"): for continuous data the divergences
between the original values X and the protected X', their covariance matrices V and V',
correlation matrices R and R', variable-component correlations RF, communalities C and
component score coefficients F (each as mean square error, mean absolute error and mean
variation), the probabilistic information loss PIL (Mateo-Sanz, Domingo-Ferrer & Sebe
2005), sdcMicro's IL1s and difference of eigenvalues (``dUtility``); for categorical data
the direct distance, the contingency-table based CTBIL, the entropy-based EBIL and the
per-record PRIL.

Conventions fixed here, where the seed is silent:

* **Mean variation and zeros.** The seed divides ``|a - a'|`` by ``|a|`` (the original).
  A cell with ``a = 0`` and ``a' = 0`` contributes 0 (no variation); a cell with
  ``a = 0`` and ``a' != 0`` has an undefined (infinite) variation: it is left out of the
  sum *and* of the divisor (so the result is the mean over the defined cells), and the
  number of such cells is reported as ``mv_left_out``.
* **PCA** is that of the correlation matrix (standardised variables), components sorted by
  decreasing eigenvalue; eigenvectors are sign-indeterminate, so each protected component
  is oriented to have a non-negative inner product with the original one. ``RF`` are the
  correlations between variables and components (loadings ``v_ij sqrt(lambda_j)``),
  ``C`` the communalities with the first component (``rf_i1**2``, the share of variable
  i's variance it explains, as a fraction), ``F`` the score coefficients (the eigenvectors:
  what multiplies each standardised variable to give its projection on each component).
  The weights ``w_j`` of the seed's RF and F rows are the original's variance shares
  ``lambda_j / sum(lambda)``.
* **Covariances** are sample covariances (divisor n - 1).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.special import erf, ndtri

# Quantile levels compared by PIL: 5%, 10%, ..., 95%.
PIL_QUANTILES = tuple(round(0.05 * i, 2) for i in range(1, 20))


# ----------------------------------------------------------------------------------------
# continuous data
# ----------------------------------------------------------------------------------------

def divergence(a: np.ndarray, b: np.ndarray, weights: np.ndarray | None = None,
               divisor: float | None = None) -> dict:
    """Mean square error, mean absolute error and mean variation between the cells of
    ``a`` (original) and ``b`` (protected), as the seed's table: ``sum w * d**2 / divisor``,
    ``sum w * |d| / divisor`` and ``sum w * |d| / |a| / divisor`` (``weights``: one per
    cell, default 1; ``divisor`` default the number of cells). Cells with ``a = 0 != b`` are left out of
    the mean variation (see the module docstring); ``mv_left_out`` counts them."""
    a = np.asarray(a, dtype=float).ravel()
    b = np.asarray(b, dtype=float).ravel()
    if weights is not None and np.size(weights) != a.size:
        raise ValueError("weights must have one value per cell")
    w = np.ones_like(a) if weights is None else np.asarray(weights, dtype=float).ravel()
    divisor = float(a.size if divisor is None else divisor)
    if a.size == 0 or divisor == 0:
        return {"mse": None, "mae": None, "mv": None, "mv_left_out": 0}
    d = np.abs(a - b)
    zero = a == 0
    undefined = zero & (d != 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(zero, 0.0, d / np.abs(np.where(zero, 1.0, a)))
    kept = w[~undefined].sum()
    mv = float((w * ratio)[~undefined].sum() / (divisor * kept / w.sum())) if kept > 0 else None
    return {"mse": float((w * d * d).sum() / divisor), "mae": float((w * d).sum() / divisor),
            "mv": mv, "mv_left_out": int(undefined.sum())}


def value_divergence(x: np.ndarray, y: np.ndarray) -> dict:
    """The seed's ``X - X'`` row over the cells present in both (n x p arrays, NaN for a
    missing value), computed column by column to keep memory at a few columns."""
    sq = ab = mv = 0.0
    cells = mv_cells = left_out = 0
    for j in range(x.shape[1]):
        a, b = x[:, j], y[:, j]
        ok = ~(np.isnan(a) | np.isnan(b))
        if not ok.all():
            a, b = a[ok], b[ok]
        d = np.abs(a - b)
        sq += float(np.dot(d, d))
        ab += float(d.sum())
        cells += a.size
        zero = a == 0
        undefined = zero & (d != 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = d / np.abs(a)
        r[zero] = 0.0
        mv += float(r[~undefined].sum())
        mv_cells += int(a.size - undefined.sum())
        left_out += int(undefined.sum())
    if cells == 0:
        return {"mse": None, "mae": None, "mv": None, "mv_left_out": 0, "cells": 0}
    return {"mse": sq / cells, "mae": ab / cells, "mv": mv / mv_cells if mv_cells else None,
            "mv_left_out": left_out, "cells": cells}


def pca(r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues (decreasing, negatives from rounding set to 0) and eigenvectors (columns)
    of a correlation matrix."""
    lam, vec = np.linalg.eigh(r)
    order = np.argsort(lam, kind="stable")[::-1]
    return np.clip(lam[order], 0.0, None), vec[:, order]


def pca_divergences(r_x: np.ndarray, r_y: np.ndarray) -> dict:
    """The seed's RF, C and F rows from the correlation matrices of X and X' (conventions in
    the module docstring)."""
    p = r_x.shape[0]
    lx, vx = pca(r_x)
    ly, vy = pca(r_y)
    # align each protected component's sign with the original's (eigh's sign is arbitrary)
    signs = np.where((vx * vy).sum(axis=0) < 0, -1.0, 1.0)
    vy = vy * signs
    rf_x, rf_y = vx * np.sqrt(lx), vy * np.sqrt(ly)
    w = lx / lx.sum()
    return {
        "RF": divergence(rf_x, rf_y, weights=np.broadcast_to(w, (p, p)), divisor=p * p),
        "C": divergence(rf_x[:, 0] ** 2, rf_y[:, 0] ** 2),
        "F": divergence(vx, vy, weights=np.broadcast_to(w, (p, p)), divisor=p * p),
    }


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


def _matrix_rows(vx: np.ndarray, vy: np.ndarray) -> dict:
    """V, R, RF, C and F rows from the sample covariance matrices."""
    p = vx.shape[0]
    iu = np.triu_indices(p)
    out = {"V": divergence(vx[iu], vy[iu])}
    rx, ry = _correlation(vx), _correlation(vy)
    if rx is not None and ry is not None:
        iu1 = np.triu_indices(p, 1)
        out["R"] = divergence(rx[iu1], ry[iu1]) if p > 1 else None
        out.update(pca_divergences(rx, ry))
    else:
        out.update({"R": None, "RF": None, "C": None, "F": None})
    return out


def _correlation(v: np.ndarray) -> np.ndarray | None:
    s = np.sqrt(np.diag(v))
    return v / np.outer(s, s) if (s > 0).all() else None


def il1s(x: np.ndarray, y: np.ndarray) -> tuple[float | None, np.ndarray, list[int]]:
    """IL1s (Yancey, Winkler & Creecy 2002, as documented for sdcMicro's ``dUtility``):
    the mean over the compared cells of ``|x_ij - x'_ij| / (sqrt(2) S_j)``, ``S_j`` the
    sample standard deviation of original variable j. Cells missing in either data set are
    skipped; variables constant in X (``S_j = 0``) are left out (their indices returned).
    Also returns each record's mean over its compared cells (NaN if none).

    sdcMicro's code computes ``abs((x - xm) / sd(x) * sqrt(2))``, i.e. twice this value
    (and divides by all n p cells); its printed "IL1" is ``2 * il1s`` for complete data."""
    n, p = x.shape
    total = np.zeros(n)
    count = np.zeros(n)
    constant = []
    for j in range(p):
        a, b = x[:, j], y[:, j]
        s = np.nanstd(a, ddof=1) if np.count_nonzero(~np.isnan(a)) > 1 else 0.0
        if not s > 0:
            constant.append(j)
            continue
        t = np.abs(a - b) / (math.sqrt(2.0) * s)
        ok = ~np.isnan(t)
        total += np.where(ok, t, 0.0)
        count += ok
    cells = count.sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        per_record = total / count
    return (float(total.sum() / cells) if cells else None), per_record, constant


def eigen_difference(x: np.ndarray, y: np.ndarray) -> float | None:
    """sdcMicro's ``dUtility(method = "eigen")``: ``sum(|e - e'| / e)`` over the eigenvalues
    (decreasing) of the correlation matrices of X and X' (complete records). sdcMicro
    prints it times 100 as "Difference of Eigenvalues: ...%". Eigenvalues ``e`` that are 0
    (a singular correlation matrix) are skipped; ``None`` if a variable is constant."""
    if len(x) < 2:
        return None
    return _eigen_rows(moments(x)[1], moments(y)[1])


def _eigen_rows(vx: np.ndarray, vy: np.ndarray) -> float | None:
    rx, ry = _correlation(vx), _correlation(vy)
    if rx is None or ry is None:
        return None
    e1, e2 = pca(rx)[0], pca(ry)[0]
    ok = e1 > 1e-12 * e1.max()
    return float((np.abs(e1 - e2)[ok] / e1[ok]).sum())


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


def continuous_information_loss(x: np.ndarray, y: np.ndarray) -> tuple[dict, np.ndarray]:
    """Every continuous measure of this module for original ``x`` and protected ``y``
    (n x p float arrays, same records in the same order, NaN for missing). The value rows
    (``X``, IL1s) use the cells present in both; the statistics (V, R, RF, C, F, PIL,
    eigenvalues) the records complete in both. Returns the summary and IL1s per record."""
    if x.shape != y.shape:
        raise ValueError(f"original and protected data differ in shape: {x.shape} vs {y.shape}")
    complete = ~(np.isnan(x).any(axis=1) | np.isnan(y).any(axis=1))
    xc, yc = (x, y) if complete.all() else (x[complete], y[complete])
    il1, per_record, constant = il1s(x, y)
    out: dict = {"records_complete": int(complete.sum()), "X": value_divergence(x, y)}
    if len(xc) >= 2:
        n = len(xc)
        mom_x, mom_y = moments(xc), moments(yc)
        vx, vy = mom_x[1] * n / (n - 1), mom_y[1] * n / (n - 1)
        out.update(_matrix_rows(vx, vy))
        pil = _pil(xc, yc, mom_x, mom_y)
        out["eigen"] = _eigen_rows(vx, vy)
    else:
        out.update(dict.fromkeys(("V", "R", "RF", "C", "F", "eigen")))
        pil = {"total": None}
    out["pil"] = pil.pop("total")
    out["pil_by_statistic"] = pil
    out["il1s"] = il1
    out["il1_sdcmicro"] = 2 * il1 if il1 is not None else None
    out["il1_constant_variables"] = constant
    out["eigen_percent"] = 100 * out["eigen"] if out["eigen"] is not None else None
    return out, per_record


# ----------------------------------------------------------------------------------------
# categorical data
# ----------------------------------------------------------------------------------------

def direct_distance(f: np.ndarray, g: np.ndarray, ranks: np.ndarray | None = None,
                    domain_size: int | None = None) -> np.ndarray:
    """Per-record distance between original codes ``f`` and protected codes ``g`` (shared
    code numbering): the direct distance of Domingo-Ferrer & Torra ("Disclosure control
    methods and information loss for microdata", 2001). Nominal (``ranks`` None): 0 if
    equal, else 1. Ordinal: ``|rank(c) - rank(c')| / (|D(V)| - 1)`` with ``ranks[code]``
    the position of each category in the variable's domain D(V) of ``domain_size``
    categories (its declared order: categories not observed count too), or -1 for a
    value outside it (a missing value, an undeclared category), which is at distance 1
    from any other value. Always within [0, 1].

    The seed writes the ordinal distance as the number of categories between c and c'
    *inclusive* over |D(V)|, which gives 1/|D(V)| for c = c' and breaks its own requirement
    divergence(X, X) = 0; the rank difference over |D(V)| - 1 is 0 for equal values, 1 for
    the two extremes."""
    f = np.asarray(f)
    g = np.asarray(g)
    d = (f != g).astype(float)
    if ranks is not None:
        if domain_size is None:
            raise ValueError("the ordinal distance needs the size of the domain D(V)")
        ranks = np.asarray(ranks)
        if ranks.size and ranks.max() >= domain_size:
            raise ValueError(f"rank {int(ranks.max())} is outside a domain of {domain_size} "
                             "categories")
        rf, rg = ranks[f], ranks[g]
        inside = (rf >= 0) & (rg >= 0)
        if domain_size > 1:
            d[inside] = np.abs(rf[inside] - rg[inside]) / (domain_size - 1)
    return d


def _combine(keys: np.ndarray, codes: np.ndarray, card: int, bound: int) -> tuple[np.ndarray, int]:
    """Mixed-radix combination of two code columns, renumbered densely when the number of
    possible cells would overflow int64."""
    if bound * card >= 2 ** 62:
        uniq, keys = np.unique(keys, return_inverse=True)
        bound = len(uniq)
    return keys * card + codes, bound * card


def contingency_difference(f: np.ndarray, g: np.ndarray, cards: list[int]) -> int:
    """``sum_cells |x^F - x^G|`` for the contingency table of the code columns of ``f``
    (n_f x t) and ``g`` (n_g x t); ``cards[k]`` is the number of codes of column k."""
    both = np.concatenate([f, g])
    keys = both[:, 0].astype(np.int64)
    bound = cards[0]
    for k in range(1, both.shape[1]):
        keys, bound = _combine(keys, both[:, k].astype(np.int64), cards[k], bound)
    nf = len(f)
    if bound > 4 * len(both) + 1024:
        _, keys = np.unique(keys, return_inverse=True)
        bound = int(keys.max()) + 1 if keys.size else 0
    cf = np.bincount(keys[:nf], minlength=bound)
    cg = np.bincount(keys[nf:], minlength=bound)
    return int(np.abs(cf - cg).sum())


def ctbil(f: np.ndarray, g: np.ndarray, cards: list[int], max_order: int) -> dict:
    """CTBIL(F, G; W, K) (seed 000, "Comparison of contingency tables"): the sum, over every
    set of at most K of the variables, of the absolute differences between the cells of
    the contingency tables of F and G. ``f``, ``g``: code columns (shared numbering per
    variable, n_f x p and n_g x p). Returns the total, the total by table order and by
    table (keyed by variable index tuples)."""
    p = f.shape[1]
    tables = {}
    for t in range(1, min(max_order, p) + 1):
        for subset in itertools.combinations(range(p), t):
            cols = list(subset)
            tables[subset] = contingency_difference(f[:, cols], g[:, cols],
                                                    [cards[c] for c in cols])
    by_order = {t: sum(v for s, v in tables.items() if len(s) == t)
                for t in range(1, min(max_order, p) + 1)}
    return {"total": int(sum(tables.values())), "by_order": by_order, "tables": tables}


def posterior_from_data(f: np.ndarray, g: np.ndarray, k: int) -> np.ndarray:
    """``P(V = i | V' = j)`` estimated from the cross-tabulation of original (``f``) and
    protected (``g``) codes: ``n_ij / n_.j`` (a k x k array, rows i; columns of categories
    never published are 0)."""
    table = np.bincount(np.asarray(f, np.int64) * k + g, minlength=k * k).reshape(k, k)
    table = table.astype(float)
    col = table.sum(axis=0)
    return np.divide(table, col, out=np.zeros_like(table), where=col > 0)


def posterior_from_matrix(transition: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """``P(V = i | V' = j) = pi_i p_ij / sum_k pi_k p_kj`` (Bayes) from the PRAM matrix
    ``p_ij = P(V' = j | V = i)`` and the original category shares ``pi``."""
    joint = np.asarray(prior, float)[:, None] * np.asarray(transition, float)
    col = joint.sum(axis=0)
    return np.divide(joint, col, out=np.zeros_like(joint), where=col > 0)


def entropy_losses(f: np.ndarray, g: np.ndarray, posterior: np.ndarray) -> tuple[
        np.ndarray, np.ndarray]:
    """Per record, the seed's EBIL term ``H(V | V' = j_r) = -sum_i P(i|j_r) log P(i|j_r)``
    and PRIL ``-log P(V = i_r | V' = j_r)`` (natural logarithms, nats). A record whose
    change has probability 0 under ``posterior`` gets an infinite PRIL."""
    with np.errstate(divide="ignore", invalid="ignore"):
        logp = np.where(posterior > 0, np.log(np.where(posterior > 0, posterior, 1.0)), 0.0)
        h = -(posterior * logp).sum(axis=0)
        p = posterior[f, g]
        pril = np.where(p > 0, -np.log(np.where(p > 0, p, 1.0)), np.inf)
    return h[g], pril
