"""Global recoding kernels (Templ, "Advanced Survey Statistics: Disclosure Control", 2019,
"Recoding categorical key variables" / "Recoding continuous variables"; Torra 2013,
non-perturbative methods)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import pairwise

import numpy as np


def interval_codes(
    values: np.ndarray, breaks: Sequence[float], *, right: bool = True,
    include_lowest: bool = True,
) -> np.ndarray:
    """Index of the interval of ``breaks`` holding each value; -1 if outside or missing.

    As R's ``cut``: with ``right`` the intervals are (b[i], b[i+1]], else [b[i], b[i+1]);
    ``include_lowest`` closes the first interval at its lower end (the last one at its
    upper end when ``right`` is false). sdcMicro's ``globalRecode`` is ``right=True,
    include_lowest=False``: a value equal to the lowest break falls outside."""
    x = np.asarray(values, dtype=float)
    b = np.asarray(breaks, dtype=float)
    side = "left" if right else "right"
    idx = np.searchsorted(b, x, side=side) - 1
    if include_lowest:
        if right:
            idx[x == b[0]] = 0
        else:
            idx[x == b[-1]] = len(b) - 2
    idx[(idx < 0) | (idx > len(b) - 2) | np.isnan(x)] = -1
    return idx


def number_text(v: float) -> str:
    """A number as a label shows it: whole numbers without a decimal point."""
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def interval_labels(breaks: Sequence[float], *, right: bool = True,
                    include_lowest: bool = True) -> list[str]:
    """R-style labels such as ``(0,9]``, ``[0,9]`` for the intervals of ``breaks``."""
    out = []
    last = len(breaks) - 2
    for i in range(len(breaks) - 1):
        lo, hi = number_text(breaks[i]), number_text(breaks[i + 1])
        if right:
            left = "[" if include_lowest and i == 0 else "("
            out.append(f"{left}{lo},{hi}]")
        else:
            closing = "]" if include_lowest and i == last else ")"
            out.append(f"[{lo},{hi}{closing}")
    return out


def category_mapping(categories: Sequence[str], groups: Mapping[str, Sequence[str]]) -> dict:
    """Old category -> new label for every category listed in a group (sdcMicro's
    ``groupAndRename``); categories in no group keep their value."""
    listed = {old: new for new, olds in groups.items() for old in olds}
    return {c: listed[c] for c in categories if c in listed}


def hierarchy_mapping(levels: Mapping[str, Mapping[str, str]], level: str) -> dict:
    """Value -> ancestor at ``level`` for a hierarchy given finest level first, each
    level mapping a value of the level below to its parent."""
    names = list(levels)
    mapping: dict = {}
    for name in names[: names.index(level) + 1]:
        parent = {str(k): str(v) for k, v in levels[name].items()}
        if not mapping:
            mapping = dict(parent)
        else:
            mapping = {k: parent.get(v, v) for k, v in mapping.items()}
    return mapping


def width_count(values: np.ndarray, width: float, origin: float = 0.0) -> tuple[float, float]:
    """The first break and the number of intervals of :func:`width_breaks` (the count as
    a float: it may be astronomically large, or infinite, for a tiny width)."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if len(x) == 0:
        return float(origin), 1.0
    with np.errstate(over="ignore", invalid="ignore"):
        lo = origin + width * np.floor((x.min() - origin) / width)
        return float(lo), float(np.floor((x.max() - lo) / width)) + 1.0


def width_breaks(values: np.ndarray, width: float, origin: float = 0.0, *,
                 integer: bool = False,
                 max_intervals: float = math.inf) -> tuple[list[float], list[str]]:
    """Breaks of the equal-width intervals [a, a + width) that cover ``values`` (starting
    at a multiple of ``width`` from ``origin``), and their labels: ``0-9``, ``10-19`` for
    integers and a whole width (``-10 to -1``, ``0 to 9`` when a class reaches below
    zero), else ``[0,2.5)``."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if len(x) == 0:
        return [origin, origin + width], _width_labels([origin, origin + width], width, integer)
    lo, count = width_count(x, width, origin)
    if not count <= max_intervals:  # (NaN too) refused before allocating the breaks
        raise ValueError(f"width {width:g} makes {count:.3g} intervals, more than "
                         f"{max_intervals:.3g}")
    count = int(count)
    breaks = [float(lo + i * width) for i in range(count + 1)]
    return breaks, _width_labels(breaks, width, integer)


def _width_labels(breaks: list[float], width: float, integer: bool) -> list[str]:
    """``0-9``, ``10-19`` for whole numbers; when a class reaches below zero a hyphen
    would read as a minus (``-10--1``), so every class of the variable is written ``-10
    to -1``, ``0 to 9``; other widths as half-open intervals ``[0,2.5)``."""
    if integer and float(width).is_integer() and all(float(b).is_integer() for b in breaks):
        dash = " to " if breaks[0] < 0 else "-"
        return [f"{number_text(a)}{dash}{number_text(b - 1)}" for a, b in pairwise(breaks)]
    return [f"[{number_text(a)},{number_text(b)})" for a, b in pairwise(breaks)]
