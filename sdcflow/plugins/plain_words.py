"""Figures and lists in plain words, for what plugins say of their steps in the report
(:meth:`sdcflow.plugins.registry.Plugin.explain`)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping


def figure(value) -> str:
    """A number for people: integers as they are (thin spaces between thousands from
    10 000), other numbers to 4 significant digits, missing as an em dash. Numbers from
    10 000 to 10^15 are written out, rounded to a whole number (``11\u202f234\u202f567\u202f890``,
    not ``1.123e+10``); only smaller than 0.0001 or larger still take an exponent."""
    if value is None:
        return "\u2014"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}".replace(",", "\u202f") if abs(value) >= 10000 else str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "\u2014"
        if math.isinf(value):
            return "-\u221e" if value < 0 else "\u221e"
        if abs(value) < 1e15 and (value == int(value) or abs(value) >= 1e4):
            return figure(round(value))
        return f"{value:.4g}"
    return str(value)


def names(items: Iterable) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = [str(i) for i in items]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def total(value) -> int | None:
    """A count, or the sum of a mapping of counts (one per variable), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, Mapping) and value and all(
            isinstance(v, int) and not isinstance(v, bool) for v in value.values()):
        return sum(value.values())
    return None


def get(result, key, default=None):
    """``result[key]`` when ``result`` is a mapping that has it."""
    return result.get(key, default) if isinstance(result, Mapping) else default


def households(result) -> int | None:
    """The number of households a step ran on when it acted once per household (the
    engine adds it to the step's info, :func:`sdcflow.engine.execution`): its counts are
    then of households, not of records."""
    count = get(result, "households")
    return count if isinstance(count, int) and not isinstance(count, bool) else None


def values_changed(count: int, result, verb: str = "changed") -> str:
    """``"21 values changed."``, or, for a step that acted once per household, what the
    count counts: ``"21 households' values changed (of 1000 households; every member
    has the household's value)."``."""
    units = households(result)
    if units is None:
        return f"{figure(count)} values {verb}."
    return (f"{figure(count)} households' values {verb} (of {figure(units)} households; "
            "every member has the household's value).")
