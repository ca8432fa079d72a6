"""Generalisation hierarchies built from a column's values, as ARX's hierarchy wizards
build them (Prasser & Kohlmayer, "Putting statistical disclosure control into practice:
the ARX data anonymization tool", 2015): intervals, masking of trailing characters, and
groups of categories named level by level.

A :class:`Hierarchy` gives every distinct value of the column (level 0) its label at each
level, finest first, and is written to the recipe in the form the recipe language
declares hierarchies (``variables.NAME.hierarchy``: levels finest first, each mapping a
value of the level below to its parent), which ``anonymize`` uses (``declared``, its
default for a variable with one) and ``global_recode`` too (``level: NAME``). The interval
builder also gives its limits per level, the ``breaks`` form of ``anonymize``'s
``hierarchies`` parameter. No web code here: :mod:`sdcflow.ui.pages.hierarchies` shows
these."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ...errors import SdcflowError
from ...kernels.non_perturbative.hierarchies import (
    TOP,
    HierarchyError,
    hierarchy_maps,
    interval_levels,
    mask_levels,
)
from ...kernels.non_perturbative.recode import number_text

MAX_LEVELS = 20  # as anonymize's hierarchies (its levels and breaks)
MAX_INTERVALS = 10_000  # intervals of the finest level: more is no generalisation
TOP_LEVEL = "top"


class BuilderError(SdcflowError):
    """Builder settings that make no hierarchy (the message says which and why)."""


@dataclass(frozen=True)
class Hierarchy:
    """``values`` (level 0, as text) and, per level ``names[l]``, the label of each value
    (``labels[l][i]`` the label of ``values[i]``); ``breaks``: the interval limits of each
    level (the interval builder's, for ``anonymize``'s ``breaks``)."""

    values: list[str]
    names: list[str]
    labels: list[list[str]]
    breaks: list[list[float | int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        try:  # each level a function of the one below (the check anonymize makes)
            hierarchy_maps([self.values, *self.labels])
        except HierarchyError as exc:
            raise BuilderError(str(exc)) from None

    def levels(self) -> dict[str, dict[str, str]]:
        """The recipe's form: level name -> {value of the level below: its parent}, finest
        level first, in the order the values first appear."""
        out: dict[str, dict[str, str]] = {}
        below = self.values
        for name, labels in zip(self.names, self.labels, strict=True):
            out[name] = dict(zip(below, labels, strict=True))
            below = labels
        return out

    def paths(self, counts: Mapping[str, int] | None = None) -> list[dict]:
        """One row per value: its ``path`` up the levels (the value first) and, with
        ``counts`` (records per value), ``records``: per level the number of records
        holding the path's generalised value."""
        counts = counts or {}
        per_level = []
        for labels in [self.values, *self.labels]:
            tally: dict[str, int] = {}
            for value, label in zip(self.values, labels, strict=True):
                tally[label] = tally.get(label, 0) + int(counts.get(value, 0))
            per_level.append(tally)
        # the values of one group together, groups in the order they first appear (the
        # values' order within them), so that a generalised value spans adjacent rows
        first = [{label: i for i, label in reversed(list(enumerate(labels)))}
                 for labels in self.labels]
        order = sorted(range(len(self.values)), key=lambda i: (
            *(first[lv][self.labels[lv][i]] for lv in reversed(range(len(self.labels)))), i))
        rows = []
        for i in order:
            path = [self.values[i]] + [labels[i] for labels in self.labels]
            rows.append({"path": path,
                         "records": [tally[label] for tally, label in
                                     zip(per_level, path, strict=True)],
                         "span": [1] * len(path)})
        # rows a generalised value spans (0: covered by the row above)
        for lv in range(1, len(self.labels) + 1):
            start = 0
            for r in range(1, len(rows) + 1):
                if r == len(rows) or rows[r]["path"][lv] != rows[start]["path"][lv]:
                    for k in range(start + 1, r):
                        rows[k]["span"][lv] = 0
                    rows[start]["span"][lv] = r - start
                    start = r
        return rows


def _whole(x: float) -> float | int:
    """A limit as the recipe writes it: 5, not 5.0."""
    return int(x) if float(x).is_integer() else float(x)


def _with_top(names: list[str], labels: list[list[str]], top: bool, n: int):
    if top and not (labels and len(set(labels[-1])) == 1):
        return [*names, TOP_LEVEL], [*labels, [TOP] * n]
    return names, labels


def number_values(values: Sequence) -> np.ndarray:
    """The distinct numbers of a column, sorted (missing values left out); raises
    :class:`BuilderError` for a value that is not a number."""
    out = []
    for v in values:
        if v is None or (isinstance(v, float) and math.isnan(v)):
            continue
        try:
            out.append(float(v))
        except (TypeError, ValueError):
            raise BuilderError(f"intervals need numbers: {v!r} is not one") from None
    x = np.unique(np.asarray(out, dtype=float))
    return x[~np.isnan(x)]


def intervals(values: Sequence, lower: float, width: float, levels: int,
              merge: int | Sequence[int] = 2, top: bool = True) -> Hierarchy:
    """ARX's interval wizard: the values from ``lower`` on cut into intervals ``[a,b)``
    of ``width`` (level 1), and each further level merging ``merge`` adjacent intervals
    of the level below (a number, or one per level above the first), all aligned at
    ``lower``, so that each interval lies in one of the level above. Each level's last
    interval reaches past the largest value (the intervals stay ``[a,b)`` at every level
    and nest). Labels as ``anonymize``'s ``breaks`` (``[0,5)``; the last interval of a
    level closed, ``[95,100]``). Ends with a level ``*`` unless ``top`` is false."""
    x = number_values(values)
    if len(x) == 0:
        raise BuilderError("the column holds no number")
    if not (math.isfinite(lower) and math.isfinite(width) and width > 0):
        raise BuilderError("the width must be a number above 0 and the lower bound a number")
    if not 1 <= levels <= MAX_LEVELS:
        raise BuilderError(f"the number of interval levels must be 1 to {MAX_LEVELS}")
    if x[0] < lower:
        raise BuilderError(f"the lower bound {number_text(lower)} is above the smallest "
                           f"value, {number_text(x[0])}")
    factors = [merge] * (levels - 1) if isinstance(merge, int) else list(merge)
    if len(factors) != levels - 1 or any(not isinstance(m, int) or m < 2 for m in factors):
        raise BuilderError("each level above the first merges 2 or more intervals of the "
                           "level below (one number per level above the first)")
    if (x[-1] - lower) / width >= MAX_INTERVALS:
        raise BuilderError(f"a width of {number_text(width)} cuts the values into more than "
                           f"{MAX_INTERVALS:,} intervals: choose a wider one")
    breaks = []
    w = width
    for lv in range(levels):
        if lv:
            w *= factors[lv - 1]
        count = math.floor((x[-1] - lower) / w) + 1  # the last interval holds the max
        breaks.append([_whole(lower + j * w) for j in range(count + 1)])
    labels = interval_levels(x, breaks)
    names = [f"width_{number_text(b[1] - b[0])}" for b in breaks]
    names, labels = _with_top(names, labels, top, len(x))
    return Hierarchy([number_text(v) for v in x], names, labels, breaks)


def masking(values: Sequence, levels: int | None = None, top: bool = True,
            pad: bool = False) -> Hierarchy:
    """ARX's masking (redaction) wizard, from the right: level l replaces the last l
    characters of each code by ``*``, as ``anonymize``'s ``mask`` does (a shorter code
    becomes all ``*`` of its own length); with ``pad``, as ARX by default, shorter codes
    are first padded on the right with ``*`` to the longest code's length (so ``101``
    meets ``10115`` at ``101**``). ``levels`` defaults to the longest code's length. Ends
    with a level ``*`` unless ``top`` is false (or the last level is one value already)."""
    texts = sorted({str(v) for v in values if v is not None and str(v) != "nan"})
    if not texts:
        raise BuilderError("the column holds no value")
    longest = max(len(t) for t in texts)
    if levels is not None and not 1 <= levels <= min(longest, MAX_LEVELS):
        raise BuilderError(f"the number of masked characters must be 1 to "
                           f"{min(longest, MAX_LEVELS)} (the longest code has {longest})")
    labels = mask_levels([t.ljust(longest, TOP) if pad else t for t in texts], levels)
    names = [f"mask_{lv}" for lv in range(1, len(labels) + 1)]
    names, labels = _with_top(names, labels, top, len(texts))
    return Hierarchy(texts, names, labels)


def parse_groups(text: str) -> dict[str, list[str]]:
    """Groups as typed, one a line: ``name: member, member, ...``; raises
    :class:`BuilderError` naming the line that is not of that form."""
    groups: dict[str, list[str]] = {}
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        name, sep, members = line.partition(":")
        name = name.strip()
        items = [m.strip() for m in members.split(",") if m.strip()]
        if not sep or not name or not items:
            raise BuilderError(f"line {n}: write a group as 'name: member, member, ...'")
        if name in groups:
            raise BuilderError(f"line {n}: the group '{name}' is named twice")
        groups[name] = items
    return groups


def grouping(values: Sequence, levels: Sequence[tuple[str, Mapping[str, Sequence[str]]]],
             top: bool = True) -> Hierarchy:
    """ARX's grouping (taxonomy) wizard: ``levels`` (finest first) are ``(name, groups)``,
    each group a name and the values of the level below it merges; every value of the
    level below must be in exactly one group (the column's categories at level 1, the
    groups of the level below above it). Ends with a level ``*`` unless ``top`` is
    false (or the last level is one group)."""
    texts = sorted({str(v) for v in values if v is not None and str(v) != "nan"})
    if not texts:
        raise BuilderError("the column holds no value")
    if not 1 <= len(levels) <= MAX_LEVELS:
        raise BuilderError(f"give 1 to {MAX_LEVELS} levels of groups")
    below = list(texts)
    labels: list[list[str]] = []
    names = []
    for name, groups in levels:
        name = str(name).strip()
        if not name or name in names:
            raise BuilderError(f"each level needs a name of its own ({name!r})")
        parent: dict[str, str] = {}
        for group, members in groups.items():
            for m in members:
                if m in parent:
                    raise BuilderError(f"level '{name}': '{m}' is in two groups "
                                       f"('{parent[m]}' and '{group}')")
                parent[m] = group
        known = set(below)
        unknown = [m for m in parent if m not in known]
        if unknown:
            raise BuilderError(f"level '{name}': {', '.join(map(repr, unknown))} "
                               f"{'is' if len(unknown) == 1 else 'are'} not a value of the "
                               "level below")
        missing = [b for b in dict.fromkeys(below) if b not in parent]
        if missing:
            raise BuilderError(f"level '{name}': put {', '.join(map(repr, missing))} in a "
                               "group")
        below = [parent[b] for b in below]
        labels.append(below)
        names.append(name)
    names, labels = _with_top(names, labels, top, len(texts))
    return Hierarchy(texts, names, labels)
