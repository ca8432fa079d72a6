"""Top and bottom coding (Templ, "Advanced Survey Statistics: Disclosure Control", 2019,
"Top- and Bottom Coding"; Torra 2013, non-perturbative methods): values beyond a threshold
are replaced, e.g. by the threshold or by the mean of the values beyond it."""

from __future__ import annotations

import numpy as np


def tail_mask(x: np.ndarray, threshold: float, upper: bool) -> np.ndarray:
    """Values strictly above (``upper``) or below the threshold; missing never."""
    with np.errstate(invalid="ignore"):
        return (x > threshold) if upper else (x < threshold)


def code_tail(x: np.ndarray, threshold: float, upper: bool, replacement: str | float) -> tuple[
        np.ndarray, int, float | None]:
    """Replace the tail beyond ``threshold`` by ``replacement``: ``"threshold"``,
    ``"mean"`` (of the replaced values) or a number. Returns (values, count, value used)."""
    x = np.asarray(x, dtype=float).copy()
    mask = tail_mask(x, threshold, upper)
    count = int(mask.sum())
    if count == 0:
        return x, 0, None
    if replacement == "threshold":
        value = float(threshold)
    elif replacement == "mean":
        value = float(x[mask].mean())
    else:
        value = float(replacement)
    x[mask] = value
    return x, count, value
