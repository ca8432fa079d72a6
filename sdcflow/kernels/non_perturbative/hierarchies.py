"""Generalisation hierarchies for full-domain generalisation: for each distinct original
value (level 0), its generalised value at every level, finest first (P. Samarati,
"Protecting respondents' identities in microdata release", IEEE TKDE 13(6), 2001: domain
generalisation hierarchies; the generated kinds are those of ARX's hierarchy builders:
intervals for numbers, masking of trailing characters for codes).

A hierarchy is given as one array of labels per level, each holding the label of every
level-0 value; :func:`hierarchy_maps` turns it into the integer maps the lattice search
takes and checks that each level is a function of the level below (a value's parent
determines its grandparent).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .recode import interval_codes, number_text

TOP = "*"


class HierarchyError(ValueError):
    """A hierarchy whose levels do not nest, or values outside its intervals."""


def hierarchy_maps(levels: Sequence[Sequence[str]]) -> tuple[np.ndarray, list[list[str]]]:
    """(maps, names): ``maps[l, c]`` is the code at level l of level-0 value c, codes
    numbered by first appearance; ``names[l]`` the labels of level l's codes."""
    maps, names = [], []
    for labels in levels:
        index: dict[str, int] = {}
        maps.append(np.array([index.setdefault(str(v), len(index)) for v in labels],
                             dtype=np.int64))
        names.append(list(index))
    out = np.array(maps, dtype=np.int64).reshape(len(levels), -1)
    for lv in range(1, len(out)):
        parent: dict[int, int] = {}
        for c, (lo, hi) in enumerate(zip(out[lv - 1], out[lv], strict=True)):
            if parent.setdefault(int(lo), int(hi)) != hi:
                raise HierarchyError(
                    f"level {lv} is not a generalisation of level {lv - 1}: "
                    f"'{names[lv - 1][lo]}' would become both '{names[lv][parent[int(lo)]]}' "
                    f"and '{names[lv][hi]}' (value '{names[0][out[0][c]]}')")
    return out, names


def with_top(levels: list[list[str]]) -> list[list[str]]:
    """The levels with a last level where every value is ``*``, unless the last level
    already holds one value."""
    if len(set(levels[-1])) <= 1 and len(levels) > 1:
        return levels
    return [*levels, [TOP] * len(levels[0])]


def interval_levels(values: np.ndarray, breaks: Sequence[Sequence[float]]) -> list[list[str]]:
    """Levels 1.. of numbers: the interval ``[a,b)`` of each level's breaks holding each
    value (the last interval closed). Raises :class:`HierarchyError` for a value outside."""
    x = np.asarray(values, dtype=float)
    out = []
    for lv, b in enumerate(breaks, start=1):
        codes = interval_codes(x, b, right=False, include_lowest=True)
        if (codes < 0).any():
            bad = x[codes < 0][0]
            raise HierarchyError(f"the value {number_text(bad)} lies outside the breaks of "
                                 f"level {lv} ({number_text(b[0])} to {number_text(b[-1])})")
        labels = [_interval(b[i], b[i + 1], i == len(b) - 2) for i in range(len(b) - 1)]
        out.append([labels[c] for c in codes])
    return out


def width_levels(values: np.ndarray, width: float, count: int, origin: float = 0.0,
                 integer: bool = False) -> list[list[str]]:
    """Levels 1..count of numbers: intervals of widths ``width``, ``2 width``, ``4
    width``... starting at multiples of them from ``origin`` (so each level nests in the
    next), labelled ``0-9`` for integers and whole widths (``-10 to -1``, ``0 to 9`` when a
    value is below zero), else ``[0,2.5)``."""
    x = np.asarray(values, dtype=float)
    out = []
    for lv in range(count):
        w = width * 2 ** lv
        lo = origin + w * np.floor((x - origin) / w)
        if integer and float(w).is_integer():
            # "-10--1" would read as a minus: below zero every class says "to"
            dash = " to " if np.nanmin(x, initial=np.inf) < 0 else "-"
            out.append([f"{number_text(a)}{dash}{number_text(a + w - 1)}" for a in lo])
        else:
            out.append([f"[{number_text(a)},{number_text(a + w)})" for a in lo])
    return out


def mask_levels(values: Sequence[str], count: int | None = None) -> list[list[str]]:
    """Levels 1..count of codes: level l replaces the last l characters by ``*`` (a
    shorter code becomes all ``*`` of its length); count defaults to the longest code."""
    texts = [str(v) for v in values]
    count = max((len(t) for t in texts), default=0) if count is None else count
    out = []
    for lv in range(1, count + 1):
        out.append([t[:max(len(t) - lv, 0)] + TOP * min(lv, len(t)) for t in texts])
    return out


def _interval(a: float, b: float, last: bool) -> str:
    return f"[{number_text(a)},{number_text(b)}{']' if last else ')'}"
