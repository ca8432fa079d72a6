"""``global_recode``: intervals for numeric variables, merged categories, or a level of the
variable's declared hierarchy (Templ, "Advanced Survey Statistics: Disclosure Control",
2019, ``globalRecode`` and ``groupAndRename``; Torra 2013, global recoding)."""

from __future__ import annotations

from itertools import pairwise
from typing import ClassVar

import numpy as np
import pandas as pd

from ...data.text import text_column
from ...errors import declare_numeric
from ...kernels.non_perturbative.recode import (
    category_mapping,
    hierarchy_mapping,
    interval_codes,
    interval_labels,
    width_breaks,
    width_count,
)
from ...plugins.distribution import Rows
from ...plugins.limits import MAX_INTERVALS, over
from ...plugins.plain_words import figure, get, names, total, values_changed
from ...plugins.registry import Method, MethodResult, Output, register


@register
class GlobalRecode(Method):
    def distributes(self, params, meta):
        if "width" in params:
            return ("intervals of a width are labelled from the values each partition holds;"
                    " give 'breaks' instead")
        return Rows()  # fixed breaks or groups: each value recoded on its own

    distribution = Rows()  # except with 'width' (see distributes)
    name = "global_recode"
    public_params = (
        "variable", "breaks", "labels", "right", "include_lowest", "groups", "level", "width",
        "origin",
    )
    protects = True
    summary = "Recode a variable into intervals, merged categories or a hierarchy level."
    makes_missing = True  # values outside the breaks become missing (counted in info)
    # 2: groups merge an ordinal order whether or not the data hold each member;
    # 3: width classes reaching below zero are labelled "-10 to -1" (was "-10--1")
    version = "3"
    roles = ("key", "numeric", "sensitive", "pram", "strata")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["variable"],
        "properties": {
            "variable": {"type": "string", "description": "The variable to recode."},
            "breaks": {
                "type": "array", "minItems": 2, "items": {"type": "number"},
                "description": "Interval limits, increasing (numeric variables).",
            },
            "labels": {
                "type": "array", "items": {"type": "string"},
                "description": "One label per interval (default: '(a,b]' style).",
            },
            "right": {"type": "boolean", "default": True,
                      "description": "Intervals closed on the right, (a,b]."},
            "include_lowest": {
                "type": "boolean", "default": True,
                "description": "Close the first interval at its lowest break (false: as sdcMicro).",
            },
            "groups": {
                "type": "object", "minProperties": 1,
                "additionalProperties": {
                    "type": "array", "minItems": 1,
                    "items": {"type": ["string", "number"]},
                },
                "description": "New category -> the old categories it merges.",
            },
            "level": {"type": "string", "description": "A level of the variable's hierarchy."},
            "width": {"type": "number", "exclusiveMinimum": 0,
                      "description": "Intervals of equal width [a, a+width) (numeric "
                                     "variables), e.g. 5-, 10- or 20-year age groups."},
            "origin": {"type": "number", "default": 0,
                       "description": "With width: where the intervals start (a multiple)."},
        },
        "oneOf": [
            {"required": ["breaks"], "not": {"anyOf": [{"required": [k]} for k in
                                                       ("groups", "level", "width")]}},
            {"required": ["groups"], "not": {"anyOf": [{"required": [k]} for k in
                                                       ("breaks", "level", "width", "labels")]}},
            {"required": ["level"], "not": {"anyOf": [{"required": [k]} for k in
                                                      ("breaks", "groups", "width", "labels")]}},
            {"required": ["width"], "not": {"anyOf": [{"required": [k]} for k in
                                                      ("breaks", "groups", "level", "labels")]}},
        ],
        "x-error": "give exactly one of 'breaks' (with optional 'labels'), 'width', 'groups' "
                   "or 'level'",
    }

    def explain(self, params, result):
        var = params.get("variable", "?")
        if params.get("groups"):
            merged = "; ".join(f"{new} from {names(old)}" for new, old in
                               params["groups"].items())
            text = f"Categories of {var} were merged: {merged}."
        elif params.get("breaks"):
            text = (f"The variable {var} was recoded into {len(params['breaks']) - 1} classes "
                    "between the "
                    f"breaks {names(figure(b) for b in params['breaks'])}.")
        elif params.get("width"):
            text = (f"The variable {var} was recoded into classes of width "
                    f"{figure(params['width'])}.")
        else:
            text = f"{var} was recoded to a level of its hierarchy ({params.get('level')})."
        changed = total(get(result, "changed", get(result, "recoded")))
        if changed is not None:
            text += " " + values_changed(changed, result)
        if get(result, "outside_breaks"):
            text += (f" {figure(result['outside_breaks'])} values outside the breaks became "
                     "missing.")
        return text

    def check(self, params, meta):
        var = meta.variables.get(params["variable"])
        if var is None:
            return
        if "width" in params and not var.is_numeric:
            yield ("width",), (f"width needs a numeric variable; '{var.name}' is {var.type}: "
                               f"{declare_numeric(var.name)}")
        if "breaks" in params:
            breaks = params["breaks"]
            if not var.is_numeric:
                yield ("breaks",), (f"breaks need a numeric variable; '{var.name}' is {var.type}"
                                    f": {declare_numeric(var.name)}; to merge its categories "
                                    "instead, use 'groups'")
            if any(hi <= lo for lo, hi in pairwise(breaks)):
                yield ("breaks",), "breaks must be strictly increasing"
            labels = params.get("labels")
            if labels is not None:
                if len(labels) != len(breaks) - 1:
                    yield ("labels",), (f"{len(breaks) - 1} intervals need {len(breaks) - 1}"
                                        f" labels, got {len(labels)}")
                elif len(set(labels)) != len(labels):
                    yield ("labels",), "labels must be distinct"
        if "groups" in params:
            if var.is_numeric:
                yield ("groups",), (f"groups merge categories; '{var.name}' is {var.type}"
                                    " (declare it categorical, or use 'breaks')")
            seen: dict[str, str] = {}
            for new, olds in params["groups"].items():
                for i, old in enumerate(olds):
                    old = _text(old)
                    if old in seen and seen[old] != new:
                        yield ("groups", new, i), (f"category '{old}' is in two groups"
                                                   f" ('{seen[old]}' and '{new}')")
                    seen[old] = new
        if "level" in params:
            levels = var.hierarchy or {}
            if params["level"] not in levels:
                have = ", ".join(levels) or "none declared"
                yield ("level",), (f"'{var.name}' has no hierarchy level '{params['level']}'"
                                   f" (levels: {have})")

    def outputs(self, params, meta):
        var = meta.variables.get(params["variable"])
        if var is None:
            return {}
        if "breaks" in params:  # intervals: ordinal, labelled as given or as R's cut
            labels = params.get("labels") or interval_labels(
                params["breaks"], right=params["right"], include_lowest=params["include_lowest"])
            return {var.name: Output(var.evolve(type="ordinal", order=tuple(labels),
                                                hierarchy=None))}
        if "width" in params:  # the intervals cover the data: their labels come from them
            return {var.name: Output(var.evolve(type="ordinal", order=None, hierarchy=None),
                                     order_from_data=True)}
        if "groups" in params:
            order = var.order
            if order is not None:
                merged = {_text(o): new for new, olds in params["groups"].items() for o in olds}
                order = tuple(dict.fromkeys(merged.get(c, c) for c in order))
            return {var.name: Output(var.evolve(order=order, hierarchy=None,
                                                taxonomy=None))}
        levels = list(var.hierarchy or {})
        level = params.get("level")
        rest = {k: v for k, v in (var.hierarchy or {}).items()
                if level in levels and levels.index(k) > levels.index(level)}
        # (merged categories or hierarchy levels are not concepts of a declared taxonomy)
        return {var.name: Output(var.evolve(type="categorical", order=None,
                                            hierarchy=rest or None, taxonomy=None))}

    def check_data(self, params, data):
        var = data.variables[params["variable"]]
        if "width" in params and var.is_numeric:
            yield from _width_problems(data.frame[var.name], float(params["width"]),
                                       float(params["origin"]))
        if "level" in params and var.hierarchy:
            first = next(iter(var.hierarchy.values()))
            known = {str(k) for k in first}
            unknown = sorted(set(data.frame[var.name].dropna().unique()) - known)
            if unknown:
                yield ("level",), (f"values of '{var.name}' missing from its hierarchy:"
                                   f" {unknown[:5]}")

    def apply(self, data, params, rng):
        name = params["variable"]
        var = data.variables[name]
        col = data.frame[name]
        x = (col.to_numpy(dtype=float, na_value=np.nan)
             if "width" in params or "breaks" in params else None)
        if "width" in params:
            breaks, labels = width_breaks(x, params["width"], params["origin"],
                                          integer=(var.type == "integer"),
                                          max_intervals=MAX_INTERVALS)
            params = {**params, "breaks": breaks, "labels": labels, "right": False,
                      "include_lowest": False}
        if "breaks" in params:
            right, lowest = params["right"], params["include_lowest"]
            labels = params.get("labels") or interval_labels(
                params["breaks"], right=right, include_lowest=lowest)
            codes = interval_codes(x, params["breaks"], right=right, include_lowest=lowest)
            text = np.asarray(labels, dtype=object)[np.maximum(codes, 0)]
            text[codes < 0] = None
            out = text_column(text)
            outside = int(((codes < 0) & col.notna().to_numpy()).sum())
            new_var = var.evolve(type="ordinal", order=tuple(labels), hierarchy=None)
            info = {"recoded": int((codes >= 0).sum()), "outside_breaks": outside}
            if outside:
                info["note"] = (f"{outside} values of '{name}' lie outside the breaks"
                                " and became missing")
            return MethodResult(data.with_columns({name: out.set_axis(col.index)}, [new_var]), info)
        if "groups" in params:
            groups = {new: [_text(o) for o in olds] for new, olds in params["groups"].items()}
            mapping = category_mapping(col.dropna().unique().tolist(), groups)
            order = var.order
            if order is not None:
                # every listed category, whether or not the data hold it, takes its
                # group's place (not only those observed, or the order would depend on
                # the data and keep categories the groups merged)
                merged = category_mapping(order, groups)
                order = tuple(dict.fromkeys(merged.get(c, c) for c in order))
            new_var = var.evolve(order=order, hierarchy=None, taxonomy=None)
        else:
            mapping = hierarchy_mapping(var.hierarchy, params["level"])
            levels = list(var.hierarchy)
            rest = {k: v for k, v in var.hierarchy.items()
                    if levels.index(k) > levels.index(params["level"])}
            new_var = var.evolve(type="categorical", order=None, hierarchy=rest or None,
                                 taxonomy=None)
        out = text_column(col.map(lambda v: mapping.get(v, v) if isinstance(v, str) else v))
        changed = int(((out != col) & col.notna()).sum())
        return MethodResult(data.with_columns({name: out}, [new_var]), {"changed": changed})


def _width_problems(col: pd.Series, width: float, origin: float):
    """Widths that would make more intervals than MAX_INTERVALS, or intervals that 64-bit
    floats cannot tell apart at the magnitude of the values."""
    x = col.to_numpy(dtype=float, na_value=np.nan)
    lo, count = width_count(x, width, origin)
    if not count <= MAX_INTERVALS:
        low, high = np.nanmin(x), np.nanmax(x)
        yield ("width",), (f"width {width:g} would cut the values of '{col.name}' ({low:g} "
                           f"to {high:g}) into {over(count, 'intervals', MAX_INTERVALS)}")
        return
    if len(x) and not np.isnan(x).all():
        top = max(abs(lo), abs(lo + count * width))
        if width < 4 * np.spacing(top):
            yield ("width",), (f"width {width:g} is below the precision of 64-bit floats "
                               f"at the magnitude of the intervals ({top:g}): their limits "
                               f"would not be distinct; choose an origin near the values")


def _text(value) -> str:
    """Categories are text: write 6 or 6.0 as '6'."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
