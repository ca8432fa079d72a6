"""Information loss on subdomains: Winkler's analytic validity ("Re-identification methods
for evaluating the confidentiality of analytically valid microdata", Research in Official
Statistics 1(2), 1998) asks that a masked file preserve "means and covariances on a small
set of subdomains", not only on the whole file: an office publishes figures by region,
sex or age group, and a release that keeps the national mean may still move a region's.

For each subdomain d (a combination of values of the subdomain variables) the means and
sample covariances (divisor ``n_d - 1``) of the variables are computed on the original
records of d and on the protected records of d, each file's subdomain read from its own
values (as an analyst of the release would select it), over the records complete in the
variables; they are compared by the divergences of Torra's (2013) table (mean square error,
mean absolute error, mean variation: :func:`.continuous_information_loss.divergence`):

* ``means``: the vector of means (p cells);
* ``V``: the covariance matrix, upper triangle with the diagonal (p (p + 1) / 2 cells);
* ``R``: the correlation matrix, strictly upper triangle (p (p - 1) / 2 cells; none for
  one variable or a constant variable).

A subdomain with fewer than ``min_records`` complete records in either file is not
compared: its statistics would be those of a handful of records (and its figures would
come close to publishing them). The file-level figures are the largest and the mean over
the compared subdomains of each divergence.
"""

from __future__ import annotations

import numpy as np

from .continuous_information_loss import _correlation, divergence

ROWS = ("means", "V", "R")
KINDS = ("mse", "mae", "mv")


def subdomain_statistics(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Means and sample covariance matrix (divisor n - 1) of the rows of ``x`` (n x p,
    n >= 2, no missing values)."""
    means = x.mean(axis=0)
    centred = x - means
    return means, centred.T @ centred / (len(x) - 1)


def compare(x: np.ndarray, y: np.ndarray) -> dict:
    """The ``means``, ``V`` and ``R`` divergences (module docstring) between the records
    ``x`` (original) and ``y`` (protected) of one subdomain (each at least 2 complete
    rows; the numbers of rows may differ)."""
    mx, vx = subdomain_statistics(x)
    my, vy = subdomain_statistics(y)
    p = x.shape[1]
    iu = np.triu_indices(p)
    out = {"means": divergence(mx, my), "V": divergence(vx[iu], vy[iu]), "R": None}
    rx, ry = _correlation(vx), _correlation(vy)
    if p > 1 and rx is not None and ry is not None:
        iu1 = np.triu_indices(p, 1)
        out["R"] = divergence(rx[iu1], ry[iu1])
    return out


def subdomain_information_loss(x: np.ndarray, codes_x: np.ndarray, y: np.ndarray,
                               codes_y: np.ndarray, subdomains: int,
                               min_records: int) -> tuple[list[dict | None], dict]:
    """Per subdomain 0 .. ``subdomains``-1 the divergences of :func:`compare` with the
    numbers of complete records on each side (``records_original``,
    ``records_protected``), or None where a side has fewer than ``min_records`` complete
    records; and the largest and mean of each divergence over the compared subdomains
    (``{"worst": {row: {kind: ...}}, "mean": ...}``). ``x``, ``y``: n x p and n' x p float
    arrays (NaN for missing); ``codes_x``, ``codes_y``: each record's subdomain
    (-1: none, e.g. a missing subdomain value)."""
    if min_records < 2:
        raise ValueError("min_records must be at least 2 (a covariance needs two records)")
    per: list[dict | None] = []
    ok_x = ~np.isnan(x).any(axis=1) & (codes_x >= 0)
    ok_y = ~np.isnan(y).any(axis=1) & (codes_y >= 0)
    count_x = np.bincount(codes_x[ok_x], minlength=subdomains)
    count_y = np.bincount(codes_y[ok_y], minlength=subdomains)
    rows_x = _members(codes_x, ok_x, subdomains)
    rows_y = _members(codes_y, ok_y, subdomains)
    for d in range(subdomains):
        if min(count_x[d], count_y[d]) < min_records:
            per.append(None)
            continue
        found = compare(x[rows_x[d]], y[rows_y[d]])
        per.append({"records_original": int(count_x[d]),
                    "records_protected": int(count_y[d]), **found})
    return per, _overall(per)


def _members(codes: np.ndarray, ok: np.ndarray, count: int) -> list[np.ndarray]:
    positions = np.flatnonzero(ok)
    order = positions[np.argsort(codes[positions], kind="stable")]
    bounds = np.searchsorted(codes[order], np.arange(count + 1))
    return [order[bounds[d]:bounds[d + 1]] for d in range(count)]


def _overall(per: list[dict | None]) -> dict:
    worst: dict = {}
    mean: dict = {}
    for row in ROWS:
        worst[row], mean[row] = {}, {}
        for kind in KINDS:
            values = [r[row][kind] for r in per
                      if r is not None and r[row] is not None and r[row][kind] is not None]
            worst[row][kind] = max(values) if values else None
            mean[row][kind] = float(np.mean(values)) if values else None
    return {"worst": worst, "mean": mean}
