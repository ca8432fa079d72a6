"""``top_bottom_code``: replace values above (top) or below (bottom) a threshold given as a
value or a quantile (Templ, "Advanced Survey Statistics: Disclosure Control", 2019, "Top-
and Bottom Coding")."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ...data.codes import numeric_column, ordered_values
from ...data.text import text_column
from ...kernels.non_perturbative.recode import number_text
from ...kernels.non_perturbative.top_bottom import (
    clip_categories,
    code_tail,
    coded_order,
    tail_mask,
)
from ...plugins._plugin_results import DataOrder
from ...plugins.distribution import Rows
from ...plugins.plain_words import figure, get
from ...plugins.registry import Method, MethodResult, Output, numeric_output, register

_TAIL = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "value": {"type": "number", "description": "Threshold."},
        "quantile": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1,
                     "description": "Threshold as a quantile of the variable (R type 7)."},
        "category": {"type": "string", "minLength": 1,
                     "description": "Ordinal variables: the end category in the declared "
                                    "order; the categories beyond it are recoded to it."},
        "replace": {
            "description": "'threshold' (default), 'mean' of the coded values, or a number.",
            "anyOf": [{"enum": ["threshold", "mean"]}, {"type": "number"}],
        },
        "label": {
            "type": "string", "minLength": 1,
            "description": "Replace by this label instead (e.g. '85+'): the variable becomes "
                           "ordinal text. With 'category': the name of the end category "
                           "and those recoded to it.",
        },
    },
    "oneOf": [
        {"required": ["value"], "not": {"anyOf": [{"required": ["quantile"]},
                                                  {"required": ["category"]}]}},
        {"required": ["quantile"], "not": {"anyOf": [{"required": ["value"]},
                                                     {"required": ["category"]}]}},
        {"required": ["category"], "not": {"anyOf": [{"required": ["value"]},
                                                     {"required": ["quantile"]},
                                                     {"required": ["replace"]}]}},
    ],
    "not": {"required": ["replace", "label"]},
    "x-error": "give the threshold as exactly one of 'value', 'quantile' or 'category' (an "
               "ordinal's end category: no 'replace'), and at most one of 'replace' or "
               "'label'",
}


@register
class TopBottomCode(Method):
    def distributes(self, params, meta):
        for side in ("top", "bottom"):
            spec = params.get(side) or {}
            if "quantile" in spec:
                return (f"the {side} code at a quantile needs the quantile of the whole data"
                        " (not on the Dask engine yet): give the threshold as 'value'")
            if spec.get("replace") == "mean":
                return f"the {side} code replaced by the mean of the coded values needs that "\
                       "mean over the whole data (not on the Dask engine yet)"
        return Rows()  # fixed thresholds: each value coded on its own

    distribution = Rows()  # with threshold values (see distributes)
    name = "top_bottom_code"
    public_params = ("variable", "top", "bottom")
    protects = True
    summary = ("Replace values beyond a threshold (value or quantile) by it, the tail mean or a "
               "number; an ordinal's categories beyond an end category by it.")
    version = "2"  # 2: a quantile of a column without values is null (was NaN), nothing coded
    roles = ("key", "numeric", "sensitive")
    types = ("integer", "continuous", "ordinal")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["variable"],
        "anyOf": [{"required": ["top"]}, {"required": ["bottom"]}],
        "x-error": "give 'top', 'bottom' or both",
        "properties": {
            "variable": {"type": "string", "description": "The numeric or ordinal variable "
                                                          "to code."},
            "top": {**_TAIL, "description": "Code the values above a threshold: value or "
                                            "quantile, and what replaces them."},
            "bottom": {**_TAIL, "description": "Code the values below a threshold: value or "
                                               "quantile, and what replaces them."},
        },
    }

    def explain(self, params, result):
        var = params.get("variable", "?")
        parts = []
        for side, word in (("top", "above"), ("bottom", "below")):
            spec, done = params.get(side), get(result, side)
            if not isinstance(spec, dict):
                continue
            where = (f"the {figure(100 * spec['quantile'])}th percentile" if "quantile" in spec
                     else f"category {spec['category']}" if "category" in spec
                     else figure(spec.get("value")))
            text = f"values of {var} {word} {where}"
            if isinstance(done, dict):
                text += (f" ({figure(done.get('threshold'))}) were replaced by "
                         f"{figure(done.get('replaced_by'))}: {figure(done.get('coded'))} "
                         "records")
            else:
                text += f" were replaced by the {spec.get('replace', 'threshold')}"
            parts.append(text)
        return ("Top and bottom coding: " + "; ".join(parts) + ".") if parts else self.summary

    def check(self, params, meta):
        top, bottom = params.get("top", {}), params.get("bottom", {})
        if "value" in top and "value" in bottom and bottom["value"] > top["value"]:
            yield ("bottom", "value"), "the bottom threshold is above the top threshold"
        var = meta.variables.get(params.get("variable")) if meta is not None else None
        if var is not None:
            yield from _ordinal_problems(params, var, var.order if
                                         not isinstance(var.order, DataOrder) else None)

    def check_data(self, params, data):
        var = data.variables.get(params.get("variable"))
        if var is not None and var.type == "ordinal":
            # an order decided by an earlier step's data (a recode to intervals) is known
            # only now
            yield from _ordinal_problems(params, var, tuple(var.order or ()))

    def outputs(self, params, meta):
        var = meta.variables.get(params["variable"])
        if var is None:
            return {}
        if var.type == "ordinal":
            return {var.name: _ordinal_output(params, var)}
        sides = [params[s] for s in ("bottom", "top") if s in params]
        labels = [s["label"] for s in sides if "label" in s]
        if labels:  # ordinal text: the labels and the values left between them
            return {var.name: Output(var.evolve(type="ordinal", order=tuple(labels)),
                                     order_from_data=True)}
        # an integer variable stays integer while the replacements are whole numbers
        return {var.name: numeric_output(var)}

    def apply(self, data, params, rng):
        name = params["variable"]
        var = data.variables[name]
        col = data.frame[name]
        if var.type == "ordinal":
            return _code_ordinal(data, params, var)
        x = col.to_numpy(dtype=float, na_value=np.nan)
        info = {}
        labelled = {}  # side -> (mask of coded values, label)
        for side in ("bottom", "top"):
            spec = params.get(side)
            if spec is None:
                continue
            if "value" in spec:
                threshold = float(spec["value"])
            elif np.isnan(x).all():
                threshold = None  # no observed value: no quantile, nothing beyond it
            else:
                threshold = float(np.nanquantile(x, spec["quantile"]))
            if threshold is None:
                if "label" in spec:
                    labelled[side] = (np.zeros(len(x), dtype=bool), spec["label"])
                info[side] = {"threshold": None, "coded": 0,
                              "replaced_by": spec.get("label")}
                continue
            if "label" in spec:
                mask = tail_mask(x, threshold, side == "top")
                labelled[side] = (mask, spec["label"])
                info[side] = {"threshold": threshold, "coded": int(mask.sum()),
                              "replaced_by": spec["label"]}
                continue
            x, count, value = code_tail(x, threshold, side == "top", spec.get("replace", "threshold"))
            info[side] = {"threshold": threshold, "coded": count, "replaced_by": value}
        if labelled:
            out, new_var = _with_labels(x, var, labelled)
            return MethodResult(data.with_columns({name: out.set_axis(col.index)}, [new_var]),
                                info)
        out, new_var = numeric_column(x, col.index, var)
        return MethodResult(data.with_columns({name: out}, [new_var]), info)


def _with_labels(x: np.ndarray, var, labelled: dict):
    """The variable as ordinal text: coded tails become their labels, other values their
    number; the order is bottom label, the values in numeric order, top label."""
    coded = np.zeros(len(x), dtype=bool)
    for mask, _ in labelled.values():
        coded |= mask
    middle = np.unique(x[~coded & ~np.isnan(x)])
    text = np.array([None if np.isnan(v) else number_text(v) for v in x], dtype=object)
    for mask, label in labelled.values():
        text[mask] = label
    order = ([labelled["bottom"][1]] if "bottom" in labelled else []) + \
        [number_text(v) for v in middle] + ([labelled["top"][1]] if "top" in labelled else [])
    return text_column(text), var.evolve(type="ordinal",
                                                     order=tuple(dict.fromkeys(order)))


def _ends(params) -> dict:
    """The ordinal sides asked for: side -> (category, label or None)."""
    return {side: (params[side]["category"], params[side].get("label"))
            for side in ("bottom", "top") if "category" in params.get(side, {})}


def _ordinal_problems(params, var, order: tuple | None):
    """What does not fit the variable: a category for a number, a number for an ordinal,
    a category not in the declared ``order`` (None: decided by the data, not yet known),
    the bottom above the top, a label that is another category kept."""
    for side in ("bottom", "top"):
        spec = params.get(side) or {}
        if var.type != "ordinal" and "category" in spec:
            yield (side, "category"), (f"'category' codes an ordinal variable by its order; "
                                       f"'{var.name}' is {var.type}: give 'value' or "
                                       "'quantile'")
        if var.type == "ordinal":
            for key in ("value", "quantile"):
                if key in spec:
                    yield (side, key), (f"'{var.name}' is ordinal: give its {side} category "
                                        f"in the declared order as 'category', not '{key}'")
    if var.type != "ordinal" or order is None:
        return
    ends = _ends(params)
    position = {c: i for i, c in enumerate(order)}
    for side, (category, _) in ends.items():
        if category not in position:
            shown = ", ".join(repr(c) for c in order[:8]) + (", ..." if len(order) > 8 else "")
            yield (side, "category"), (f"'{category}' is not a category of '{var.name}' "
                                       f"(its order: {shown})")
    if all(c in position for c, _ in ends.values()) and len(ends) == 2 and \
            position[ends["bottom"][0]] > position[ends["top"][0]]:
        yield ("bottom", "category"), (f"the bottom category '{ends['bottom'][0]}' comes after "
                                       f"the top category '{ends['top'][0]}' in the order")
    if any(c not in position for c, _ in ends.values()):
        return
    kept = coded_order(tuple(order), *_positions(ends, position))
    for side, (_, label) in ends.items():
        if label is not None and kept.count(label) > 1:
            yield (side, "label"), (f"the label '{label}' is another category of "
                                    f"'{var.name}' that stays")


def _positions(ends: dict, position: dict) -> tuple:
    low = position[ends["bottom"][0]] if "bottom" in ends else None
    high = position[ends["top"][0]] if "top" in ends else None
    return (low, high, ends.get("bottom", (None, None))[1], ends.get("top", (None, None))[1])


def _ordinal_output(params, var) -> Output:
    ends = _ends(params)
    order = var.order
    if isinstance(order, DataOrder) or not all(c in order for c, _ in ends.values()):
        labels = [label or category for category, label in ends.values()]
        return Output(var.evolve(order=tuple(labels)), order_from_data=True)
    position = {c: i for i, c in enumerate(order)}
    return Output(var.evolve(order=coded_order(tuple(order), *_positions(ends, position))))


def _code_ordinal(data, params, var) -> MethodResult:
    """An ordinal variable coded by its declared order (:func:`clip_categories`)."""
    name = var.name
    col = data.frame[name]
    order = tuple(var.order or ())
    ends = _ends(params)
    position = {c: i for i, c in enumerate(order)}
    low, high, low_label, high_label = _positions(ends, position)
    x = ordered_values(col, var)
    clipped, below, above = clip_categories(x, low, high)
    new_order = coded_order(order, low, high, low_label, high_label)
    start = 0 if low is None else low
    present = ~np.isnan(clipped)
    text = np.full(len(x), None, dtype=object)
    text[present] = np.asarray(new_order, dtype=object)[clipped[present].astype(int) - start]
    info = {}
    for side, count, end in (("bottom", below, low), ("top", above, high)):
        if side not in ends:
            continue
        category, label = ends[side]
        renamed = int((x == end).sum()) if label is not None else 0
        info[side] = {"category": category, "coded": count + renamed,
                      "replaced_by": label or category}
    return MethodResult(data.with_columns({name: text_column(text, index=col.index)},
                                          [var.evolve(order=new_order)]), info)
