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


def clip_categories(positions: np.ndarray, low: int | None, high: int | None) -> tuple[
        np.ndarray, int, int]:
    """Top and bottom coding of an ordinal variable by its declared order: ``positions``
    are the records' categories as positions in the order (NaN: missing); those above
    the top category ``high`` are recoded to it, those below the bottom category ``low``
    to it (top and bottom coding are global recodings of variables that can be ranked,
    continuous or ordinal: Domingo-Ferrer & Torra, "Disclosure control methods and
    information loss for microdata", 2001; Torra, "Masking methods", 2013). Returns the new
    positions (missing stay missing) and the numbers of records recoded down from above
    and up from below."""
    x = np.asarray(positions, dtype=float)
    with np.errstate(invalid="ignore"):
        above = int((x > high).sum()) if high is not None else 0
        below = int((x < low).sum()) if low is not None else 0
    return np.clip(x, low, high), below, above


def coded_order(order: tuple[str, ...], low: int | None, high: int | None,
                low_label: str | None = None, high_label: str | None = None) -> tuple[str, ...]:
    """The order after :func:`clip_categories`: the categories from ``low`` to ``high``,
    the end categories renamed by their labels when given (a label names the end
    category together with those merged into it, e.g. "65+")."""
    start = 0 if low is None else low
    stop = len(order) - 1 if high is None else high
    kept = list(order[start:stop + 1])
    if low_label is not None and low is not None:
        kept[0] = low_label
    if high_label is not None and high is not None:
        kept[-1] = high_label
    return tuple(kept)
