"""Utility of a perturbed frequency table against the original, as the R package
``cellKey`` measures it (``ck_cnt_measures``, following Eurostat's "Methods for
protecting census data", 2015/2018 census guidelines of the ESSnet on SDC), plus the
distances of the whole table:

* per cell, ``d1 = |p - o|`` (absolute deviation), ``d2 = |p - o| / o`` (relative
  absolute deviation; 0 for ``o = p = 0``) and ``d3 = |sqrt(p) - sqrt(o)|`` (absolute
  deviation of square roots), each summarised by its minimum, quantiles (10 % .. 99 %,
  R's default type 7), mean, median and maximum; as in cellKey, with ``exclude_zeros``
  the cells whose perturbed value is 0 are left out of these summaries;
* ``false_zero``: cells perturbed to 0 that were not 0; ``false_nonzero``: zeros
  perturbed to a non-zero value;
* the distribution of the perturbation ``p - o`` (count of cells per value);
* the table's distances: L1 ``sum |p - o|``, L2 ``sqrt(sum (p - o)^2)`` and the Hellinger
  distance ``sqrt(sum (sqrt(p) - sqrt(o))^2 / 2)`` (Shlomo, Tudor & Groom, "Data swapping
  for protecting census tables", PSD 2010), and the share of cells changed.
"""

from __future__ import annotations

import numpy as np

QUANTILES = {"q10": 0.1, "q20": 0.2, "q30": 0.3, "q40": 0.4, "q60": 0.6, "q70": 0.7,
             "q80": 0.8, "q90": 0.9, "q95": 0.95, "q99": 0.99}


def _summary(d: np.ndarray) -> dict[str, float | None]:
    if not len(d):
        return {k: None for k in ("min", *QUANTILES, "mean", "median", "max")}
    out = {"min": float(d.min())}
    out.update({k: float(np.quantile(d, q)) for k, q in QUANTILES.items()})
    out.update({"mean": float(d.mean()), "median": float(np.median(d)), "max": float(d.max())})
    return out


def count_table_utility(original: np.ndarray, perturbed: np.ndarray,
                        exclude_zeros: bool = True) -> dict:
    """The measures of the module docstring for the cells' ``original`` and
    ``perturbed`` counts (non-negative)."""
    o = np.asarray(original, dtype=float)
    p = np.asarray(perturbed, dtype=float)
    if o.shape != p.shape or o.ndim != 1:
        raise ValueError("original and perturbed counts must be two vectors of one length")
    if not (np.isfinite(o).all() and np.isfinite(p).all()) or (o < 0).any() or (p < 0).any():
        raise ValueError("counts must be finite and non-negative")
    keep = p != 0 if exclude_zeros else np.ones(len(p), dtype=bool)
    ok, pk = o[keep], p[keep]
    d1 = np.abs(pk - ok)
    d2 = np.divide(d1, ok, out=np.zeros(len(ok)), where=ok > 0)
    d2[(ok == 0) & (d1 > 0)] = np.inf
    d3 = np.abs(np.sqrt(pk) - np.sqrt(ok))
    noise = p - o
    values, counts = np.unique(noise, return_counts=True)
    n = len(o)
    return {
        "cells": n,
        "changed": int((noise != 0).sum()),
        "share_changed": float((noise != 0).mean()) if n else 0.0,
        "d1": _summary(d1),
        "d2": _summary(d2[np.isfinite(d2)]),
        "d3": _summary(d3),
        "false_zero": int(((p == 0) & (o != 0)).sum()),
        "false_nonzero": int(((o == 0) & (p != 0)).sum()),
        "l1": float(np.abs(noise).sum()),
        "l2": float(np.sqrt((noise ** 2).sum())),
        "hellinger": float(np.sqrt(((np.sqrt(p) - np.sqrt(o)) ** 2).sum() / 2)),
        "perturbations": {f"{v:g}": int(c) for v, c in zip(values, counts, strict=True)},
    }
