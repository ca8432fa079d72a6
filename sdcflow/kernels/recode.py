"""Global recoding kernels (seed 004_149321b221e875f3.txt, "Recoding categorical key
variables" / "Recoding continuous variables"; seed 000, non-perturbative methods)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

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


def interval_labels(breaks: Sequence[float], *, right: bool = True,
                    include_lowest: bool = True) -> list[str]:
    """R-style labels such as ``(0,9]``, ``[0,9]`` for the intervals of ``breaks``."""
    def fmt(v: float) -> str:
        return str(int(v)) if float(v).is_integer() else repr(float(v))

    out = []
    last = len(breaks) - 2
    for i in range(len(breaks) - 1):
        lo, hi = fmt(breaks[i]), fmt(breaks[i + 1])
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
