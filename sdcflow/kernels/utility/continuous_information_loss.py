"""Generic information loss measures for continuous data (Torra, "Masking methods", 2013,
V. Torra, "Masking Methods", section 4 "Information loss measures"): the divergences
between the original values X and the protected X', their covariance matrices V and V',
correlation matrices R and R', variable-component correlations RF, communalities C and
component score coefficients F (each as mean square error, mean absolute error and mean
variation), the variances S (the diagonal of V), the composite information loss of
Domingo-Ferrer & Torra (2001), the IL1s of Yancey, Winkler & Creecy (2002), and with them
the probabilistic information loss PIL (:mod:`.probabilistic_information_loss`) and the
figures of sdcMicro's ``dUtility`` under their sdcMicro names (:mod:`.sdcmicro_utility`).

Conventions fixed here, where Torra (2013) is silent:

* **Mean variation and zeros.** Torra (2013) divides ``|a - a'|`` by ``|a|`` (the original).
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
  The weights ``w_j`` of Torra's (2013) RF and F rows are the original's variance shares
  ``lambda_j / sum(lambda)``.
* **Covariances** are sample covariances (divisor n - 1).
"""

from __future__ import annotations

import math

import numpy as np

from .probabilistic_information_loss import _pil, moments
from .sdcmicro_utility import sdcmicro_utility


def divergence(a: np.ndarray, b: np.ndarray, weights: np.ndarray | None = None,
               divisor: float | None = None) -> dict:
    """Mean square error, mean absolute error and mean variation between the cells of
    ``a`` (original) and ``b`` (protected), as Torra's (2013) table: ``sum w * d**2 / divisor``,
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
    """Torra's (2013) ``X - X'`` row over the cells present in both (n x p arrays, NaN for a
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
    """Torra's (2013) RF, C and F rows from the correlation matrices of X and X' (conventions in
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


def _matrix_rows(vx: np.ndarray, vy: np.ndarray) -> dict:
    """V, R, RF, C and F rows from the sample covariance matrices."""
    p = vx.shape[0]
    iu = np.triu_indices(p)
    out = {"V": divergence(vx[iu], vy[iu]), "S": divergence(np.diag(vx), np.diag(vy))}
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
    """IL1s of W. E. Yancey, W. E. Winkler & R. H. Creecy ("Disclosure risk assessment in
    perturbative microdata protection", 2002): the mean over the compared cells of
    ``|x_ij - x'_ij| / (sqrt(2) S_j)``, ``S_j`` the sample standard deviation of original
    variable j. Cells missing in either data set are skipped; variables constant in X
    (``S_j = 0``) are left out (their indices returned). Also returns each record's mean
    over its compared cells (NaN if none).

    sdcMicro's ``dUtility(method = "IL1s")`` is not this mean but the sum over the cells
    (:func:`.sdcmicro_utility.il1s`); for complete data this mean is sdcMicro's
    ``"IL1old"``."""
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


def continuous_information_loss(x: np.ndarray, y: np.ndarray) -> tuple[dict, np.ndarray]:
    """Every continuous measure of this module for original ``x`` and protected ``y``
    (n x p float arrays, same records in the same order, NaN for missing). The value rows
    (``X``, IL1s) use the cells present in both; the statistics (V, R, RF, C, F, PIL) the
    records complete in both; ``sdcmicro`` holds sdcMicro's ``dUtility`` figures, each
    with sdcMicro's own handling of missing values (:mod:`.sdcmicro_utility`). Returns
    the summary and IL1s per record."""
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
    else:
        out.update(dict.fromkeys(("V", "S", "R", "RF", "C", "F")))
        pil = {"total": None}
    out["pil"] = pil.pop("total")
    out["pil_by_statistic"] = pil
    out["il1s"] = il1
    out["il1_constant_variables"] = constant
    out["sdcmicro"] = sdcmicro_utility(x, y)
    out["composite"], out["composite_terms"] = composite(out)
    return out, per_record


# The composite information loss of Domingo-Ferrer & Torra (2001): its terms, each with
# weight 1/5 (the row of the summary and the divergence taken)
COMPOSITE = (("X", "mv"), ("V", "mv"), ("S", "mv"), ("R", "mae"), ("RF", "mae"))


def composite(summary: dict) -> tuple[float | None, dict]:
    """The composite information loss of J. Domingo-Ferrer & V. Torra, "A quantitative
    comparison of disclosure control methods for microdata" (2001), on a 0..100 scale:
    ``100 * (IL_X + IL_V + IL_S + IL_R + IL_RF) / 5``, the mean variation of the values
    (X), of the covariances (V) and of the variances (S), and the mean absolute error of
    the correlations (R) and of the variable-component correlations (RF), rows of the
    table above. A term that is undefined (R and RF need two variables and non-constant
    ones; a mean variation needs non-zero originals) is left out and the others
    averaged; None when none is defined. Returns the value and the terms used."""
    terms = {f"{row}_{kind}": summary[row][kind] for row, kind in COMPOSITE
             if summary.get(row) is not None and summary[row].get(kind) is not None}
    if not terms:
        return None, {}
    return 100.0 * sum(terms.values()) / len(terms), terms
