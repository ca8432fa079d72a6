"""``top_bottom_code``: replace values above (top) or below (bottom) a threshold given as a
value or a quantile (Templ, "Advanced Survey Statistics: Disclosure Control", 2019, "Top-
and Bottom Coding")."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ...data.codes import numeric_column
from ...data.text import text_column
from ...distribution import Rows
from ...kernels.non_perturbative.recode import number_text
from ...kernels.non_perturbative.top_bottom import code_tail, tail_mask
from ...plain_words import figure, get
from ...registry import Method, MethodResult, Output, numeric_output, register

_TAIL = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "value": {"type": "number", "description": "Threshold."},
        "quantile": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1,
                     "description": "Threshold as a quantile of the variable (R type 7)."},
        "replace": {
            "description": "'threshold' (default), 'mean' of the coded values, or a number.",
            "anyOf": [{"enum": ["threshold", "mean"]}, {"type": "number"}],
        },
        "label": {
            "type": "string", "minLength": 1,
            "description": "Replace by this label instead (e.g. '85+'): the variable becomes "
                           "ordinal text.",
        },
    },
    "oneOf": [
        {"required": ["value"], "not": {"required": ["quantile"]}},
        {"required": ["quantile"], "not": {"required": ["value"]}},
    ],
    "not": {"required": ["replace", "label"]},
    "x-error": "give the threshold as exactly one of 'value' or 'quantile', and at most one of "
               "'replace' or 'label'",
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
    summary = "Replace values beyond a threshold (value or quantile) by it, the tail mean or a number."
    version = "2"  # 2: a quantile of a column without values is null (was NaN), nothing coded
    roles = ("key", "numeric", "sensitive")
    types = ("integer", "continuous")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["variable"],
        "anyOf": [{"required": ["top"]}, {"required": ["bottom"]}],
        "x-error": "give 'top', 'bottom' or both",
        "properties": {
            "variable": {"type": "string", "description": "The numeric variable to code."},
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

    def outputs(self, params, meta):
        var = meta.variables.get(params["variable"])
        if var is None:
            return {}
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
