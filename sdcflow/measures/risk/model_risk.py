"""``model_risk``: re-identification risk of the sample uniques from a Poisson log-linear
model of the key-combination counts, R sdcMicro's ``modRisk`` (Skinner & Holmes (1998),
"Estimating the re-identification risk per record in microdata"; Skinner & Shlomo (2008), "Assessing identification risk in survey microdata
using log-linear models", JASA 103). The formulas are in
:mod:`sdcflow.kernels.risk.model_risk`.

How a key enters the model: as a factor (a parameter per category, the log-linear model
of Skinner & Shlomo; ``convention: factor``, the default), or as one linear term (its
values as numbers), as sdcMicro's ``glm`` enters every column R holds as numbers (integer
codes such as those of sdcMicro's ``testdata``): ``linear`` lists such keys, and
``convention: sdcmicro`` makes it default to the keys whose values are all numbers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np
import pandas as pd

from ...data.codes import key_codes
from ...errors import did_you_mean
from ...kernels.risk.model_risk import MAX_CELLS, MAX_DESIGN, METHODS, grid_size, model_risk
from ...plugins.registry import MeasureResult, register
from ...plugins.results import COUNT, NAMES, NUMBER, Text, record
from .frequencies import VARIABLES_PARAM, KeyFrequencyMeasure, weight_shape


@register
class ModelRisk(KeyFrequencyMeasure):
    name = "model_risk"
    version = "2"  # linear keys, convention sdcmicro, method IPF
    public_params = ("variables", "method", "convention", "linear", "interactions", "bound")
    risk_measure = True
    counts_combinations = True
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
                               "covariate), IPF (main effects, every key a factor, as "
                               "sdcMicro's loglm).",
            },
            "convention": {
                "enum": ["factor", "sdcmicro"], "default": "factor",
                "description": "How keys enter the model unless 'linear' says: factor (a "
                               "parameter per category) or sdcmicro (as sdcMicro's glm on "
                               "data held by R: a key whose values are all numbers, such "
                               "as integer codes, is one linear term; other keys are "
                               "factors).",
            },
            "linear": {
                "type": "array", "uniqueItems": True, "items": {"type": "string"},
                "description": "Keys entered as one linear term, their values as numbers "
                               "(as R's glm enters a numeric column); the others are "
                               "factors. Default: none (convention factor), the keys whose "
                               "values are all numbers (convention sdcmicro).",
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
        for i, name in enumerate(params.get("linear") or []):
            if name not in keys:
                yield ("linear", i), (f"'{name}' is not one of the key variables"
                                      f"{did_you_mean(name, keys)}")
        if params.get("method") == "IPF":
            for name in ("interactions", "linear"):
                if params.get(name):
                    yield (name,), ("method IPF fits the main effects with every key a "
                                    f"factor, as sdcMicro's loglm: no {name}")

    def check_data(self, params: Mapping, data):
        yield from super().check_data(params, data)
        weight = self.weight(data.meta)
        if weight is not None and weight in data.frame:
            w = data.frame[weight].to_numpy(dtype=float, na_value=np.nan)
            if (w == 0).any():
                yield (), (f"the weight variable '{weight}' has {int((w == 0).sum())} zero "
                           "value(s): the inclusion probabilities 1/w need positive weights")
        keys = [k for k in self.variables(params, data.meta) if k in data.frame]
        for name in params.get("linear") or []:
            if name in data.frame and numbers_of(data.frame[name]) is None:
                yield ("linear",), (f"'{name}' has values that are not numbers: a linear "
                                    "term needs numbers (leave it out of 'linear' to fit "
                                    "it as a factor)")
        terms = [tuple(keys.index(v) for v in term if v in keys)
                 for term in params.get("interactions") or []]
        linear = [keys.index(v) for v in linear_keys(params, data.frame, keys)]
        cells, parameters = grid_size(key_codes(data.frame, keys), terms, linear)
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
                      convention=Text(("factor", "sdcmicro")), linear=NAMES,
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
        linear = linear_keys(params, data.frame, keys)
        result = model_risk(key_codes(data.frame, keys), w, params["method"], terms,
                            np.inf if bound is None else bound,
                            {keys.index(k): numbers_of(data.frame[k]) for k in linear})
        summary = {
            "variables": keys, "weight": weight, "method": params["method"],
            "interactions": [":".join(t) for t in params.get("interactions") or []],
            "convention": params["convention"], "linear": linear,
            "bound": bound, "records": n,
            "sample_uniques": result.sample_uniques,
            "cells": result.cells, "counted_cells": result.counted_cells,
            "tau1": result.tau1, "tau2": result.tau2, "gr1": result.gr1, "gr2": result.gr2,
            "gr1_percent": 100.0 * result.gr1, "gr2_percent": 100.0 * result.gr2,
        }
        per_record = pd.DataFrame({"model_risk1": result.risk1, "model_risk2": result.risk2},
                                  index=data.frame.index)
        return MeasureResult(summary, per_record)


def numbers_of(column: pd.Series) -> np.ndarray | None:
    """The number each code of ``column`` stands for (its codes as
    :func:`sdcflow.data.codes.key_codes` numbers them: the distinct values in sorted
    order), or None if a value is not a number. Text such as "1", "9" reads as numbers,
    as R reads such codes from a file."""
    uniques = pd.factorize(column, sort=True)[1]
    values = pd.to_numeric(pd.Series(np.asarray(uniques, dtype=object)), errors="coerce")
    values = values.to_numpy(dtype=float, na_value=np.nan)
    return values if np.isfinite(values).all() else None


def linear_keys(params: Mapping, frame: pd.DataFrame, keys: list[str]) -> list[str]:
    """The keys entered as one linear term: ``linear`` if given; under ``convention:
    sdcmicro`` the keys whose values are all numbers (sdcMicro's glm on R's integer
    columns); none otherwise, or for method IPF."""
    if params.get("method") == "IPF":
        return []
    if "linear" in params:
        return [k for k in keys if k in params["linear"]]
    if params.get("convention") == "sdcmicro":
        return [k for k in keys if k in frame and numbers_of(frame[k]) is not None]
    return []
