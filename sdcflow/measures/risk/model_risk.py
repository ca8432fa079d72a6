"""``model_risk``: re-identification risk of the sample uniques from a Poisson log-linear
model of the key-combination counts, R sdcMicro's ``modRisk`` under its conventions
(Skinner & Holmes (1998), "Estimating the re-identification risk per record in
microdata"; Skinner & Shlomo (2008), "Assessing identification risk in survey microdata
using log-linear models", JASA 103). The formulas are in
:mod:`sdcflow.kernels.risk.model_risk`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np
import pandas as pd

from ...data.codes import key_codes
from ...kernels.risk.model_risk import MAX_CELLS, MAX_DESIGN, METHODS, grid_size, model_risk
from ...registry import MeasureResult, register
from ...results import COUNT, NAMES, NUMBER, Text, record
from ...suggest import did_you_mean
from .frequencies import VARIABLES_PARAM, KeyFrequencyMeasure, weight_shape


@register
class ModelRisk(KeyFrequencyMeasure):
    name = "model_risk"
    summary = ("sdcMicro's modRisk: risk of the sample uniques from a Poisson log-linear "
               "model of the key-combination counts.")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": VARIABLES_PARAM,
            "method": {
                "enum": list(METHODS), "default": "default",
                "description": "sdcMicro's method: default (the counts), CE (Clogg-Eliason "
                               "offset log(f/w + 0.1)), PML (pseudo-likelihood on the rounded "
                               "rescaled weight sums), weightedLLM (the weight sums as a "
                               "covariate).",
            },
            "interactions": {
                "type": "array",
                "items": {"type": "array", "minItems": 2, "uniqueItems": True,
                          "items": {"type": "string"}},
                "description": "Interaction terms of the model, each a list of key variables "
                               "(default: main effects only).",
            },
            "bound": {
                "type": "number", "exclusiveMinimum": 0,
                "description": "Count only cells with a sample frequency up to this "
                               "(sdcMicro's bound; default: every non-empty cell).",
            },
        },
    }

    def check(self, params: Mapping, meta):
        yield from super().check(params, meta)
        keys = self.variables(params, meta)
        for i, term in enumerate(params.get("interactions") or []):
            for j, name in enumerate(term):
                if name not in keys:
                    yield ("interactions", i, j), (f"'{name}' is not one of the key variables"
                                                   f"{did_you_mean(name, keys)}")

    def check_data(self, params: Mapping, data):
        yield from super().check_data(params, data)
        weight = self.weight(data.meta)
        if weight is not None and weight in data.frame:
            w = data.frame[weight].to_numpy(dtype=float, na_value=np.nan)
            if (w == 0).any():
                yield (), (f"the weight variable '{weight}' has {int((w == 0).sum())} zero "
                           "value(s): the inclusion probabilities 1/w need positive weights")
        keys = [k for k in self.variables(params, data.meta) if k in data.frame]
        terms = [tuple(keys.index(v) for v in term if v in keys)
                 for term in params.get("interactions") or []]
        cells, parameters = grid_size(key_codes(data.frame, keys), terms)
        if cells > MAX_CELLS:
            yield ("variables",), (f"the categories of the keys span {cells:,} cells (at most "
                                   f"{MAX_CELLS:,}): use fewer keys or recode them")
        elif cells * parameters > MAX_DESIGN:
            yield ("interactions" if terms else "variables",), (
                f"{cells:,} cells x {parameters:,} parameters make a design matrix of "
                f"{cells * parameters:,} values (at most {MAX_DESIGN:,}): use fewer keys or "
                "interactions, or recode them")

    def result_shape(self, params, meta):
        weight = self.weight(meta)
        return record(variables=NAMES, weight=weight_shape(weight),
                      method=Text(tuple(METHODS)), interactions=NAMES,
                      bound=NUMBER.with_null(), records=COUNT, sample_uniques=COUNT,
                      cells=COUNT, counted_cells=COUNT, tau1=NUMBER, tau2=NUMBER,
                      gr1=NUMBER, gr2=NUMBER, gr1_percent=NUMBER, gr2_percent=NUMBER)

    def evaluate(self, data, params, rng, *, original):
        """Skinner & Shlomo's ``tau1`` (expected number of sample uniques that are
        population unique) and ``tau2`` (expected number of correct matches of sample
        uniques), sdcMicro's ``gr1``, ``gr2`` (the same sums divided by the number of
        cells counted) and their percentages; per record ``model_risk1`` and
        ``model_risk2`` (0 for a record that is not sample unique)."""
        keys = self.variables(params, data.meta)
        weight = self.weight(data.meta)
        n = len(data)
        w = (data.frame[weight].to_numpy(dtype=float, na_value=np.nan) if weight
             else np.ones(n))
        terms = [tuple(keys.index(v) for v in term) for term in params.get("interactions") or []]
        bound = params.get("bound")
        result = model_risk(key_codes(data.frame, keys), w, params["method"], terms,
                            np.inf if bound is None else bound)
        summary = {
            "variables": keys, "weight": weight, "method": params["method"],
            "interactions": [":".join(t) for t in params.get("interactions") or []],
            "bound": bound, "records": n,
            "sample_uniques": result.sample_uniques,
            "cells": result.cells, "counted_cells": result.counted_cells,
            "tau1": result.tau1, "tau2": result.tau2, "gr1": result.gr1, "gr2": result.gr2,
            "gr1_percent": 100.0 * result.gr1, "gr2_percent": 100.0 * result.gr2,
        }
        per_record = pd.DataFrame({"model_risk1": result.risk1, "model_risk2": result.risk2},
                                  index=data.frame.index)
        return MeasureResult(summary, per_record)
