"""``microaggregation_gower``: microaggregation of mixed (numeric, ordinal, categorical)
data with a Gower distance, as sdcMicro's ``microaggrGower`` (Templ, Kowarik & Meindl,
"Statistical disclosure control for micro-data using the R package sdcMicro", Journal of
Statistical Software 67(4), 2015; J. C. Gower, "A general coefficient of similarity and
some of its properties", Biometrics 27, 1971). Every record is replaced by the aggregate
of itself and its k - 1 nearest records: see
:mod:`sdcflow.kernels.perturbative.microaggregation.gower`."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ....data.codes import numeric_column, ordered_values
from ....data.strata import stratum_codes, stratum_members
from ....data.text import text_column
from ....kernels.perturbative.microaggregation.gower import (
    gower_neighbours,
    neighbourhood_mean,
    neighbourhood_median,
    neighbourhood_sample,
)
from ....plugins.limits import MAX_CELLS, over
from ....plugins.registry import (
    Method,
    MethodResult,
    Output,
    numeric_output,
    register,
    strata_param,
    variables_param,
)


@register
class MicroaggregationGower(Method):
    name = "microaggregation_gower"
    public_params = ("k", "variables", "distance_variables", "weights", "aggregation", "strata")
    protects = True
    summary = ("Replace every record's values by the aggregate of its k nearest records "
               "by a Gower distance (mixed data, as sdcMicro's microaggrGower).")
    roles = ("numeric", "key", "sensitive")
    types = ("integer", "continuous", "ordinal", "categorical")
    stratified = True
    default_roles = ("numeric", "key")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "k": {"type": "integer", "minimum": 1, "default": 3,
                  "description": "Records aggregated: each record and its k - 1 nearest "
                                 "(sdcMicro's aggr)."},
            "variables": variables_param("Variables aggregated (default: every variable "
                                         "with role numeric or key)."),
            "distance_variables": variables_param("Variables of the distance (default: "
                                                  "the aggregated ones; sdcMicro's "
                                                  "dist_var)."),
            "weights": {"type": "array", "minItems": 1,
                        "items": {"type": "number", "minimum": 0},
                        "description": "One weight per distance variable (default: equal)."},
            "aggregation": {"enum": ["mean", "median"], "default": "mean",
                            "description": "Aggregate of the numeric variables (sdcMicro's "
                                           "numFun); categories: one drawn from the "
                                           "neighbourhood (sampleCat)."},
            "strata": strata_param("Microaggregate within strata (sdcMicro's by)"),
        },
    }

    def _distance(self, params, meta) -> list[str]:
        return list(params.get("distance_variables") or self.variables(params, meta))

    def reads(self, params, meta):
        return super().reads(params, meta) | set(self._distance(params, meta))

    def outputs(self, params, meta):
        out = {}
        for name in self.variables(params, meta):
            var = meta.variables.get(name)
            if var is not None:
                out[name] = (numeric_output(var)
                             if var.type in ("integer", "continuous") else Output(var))
        return out

    def check(self, params, meta):
        if not self.variables(params, meta):
            yield ("variables",), "no variables: name them or declare numeric or key variables"
        distance = self._distance(params, meta)
        for i, name in enumerate(params.get("distance_variables") or []):
            var = meta.variables.get(name)
            if var is None:
                yield ("distance_variables", i), f"'{name}' is not a declared variable"
            elif var.type == "ordinal" and not var.order:
                yield ("distance_variables", i), (f"the ordinal variable '{name}' has no "
                                                  "declared order")
        if "weights" in params and len(params["weights"]) != len(distance):
            yield ("weights",), (f"{len(params['weights'])} weights for {len(distance)} "
                                 "distance variables: give one per variable")
        elif "weights" in params and not any(params["weights"]):
            yield ("weights",), "the weights are all 0"
        for name in self.variables(params, meta):
            var = meta.variables.get(name)
            if var is not None and var.type == "ordinal" and not var.order:
                yield ("variables",), f"the ordinal variable '{name}' has no declared order"
        yield from self.check_strata(params, meta)

    def check_data(self, params, data):
        names = list(dict.fromkeys(self.variables(params, data.meta)
                                   + self._distance(params, data.meta)))
        if not len(data):
            yield ("variables",), "the data have no records"
        groups, _ = stratum_codes(data.frame, self.strata(params, data.meta))
        largest = int(np.bincount(groups).max()) if len(groups) else 0
        if largest ** 2 > MAX_CELLS:
            yield ("k",), ("the nearest records of every record are searched among all "
                           "those of its stratum: " + over(largest ** 2, "distances",
                                                           MAX_CELLS) + " (use strata)")
        for v in names:
            if v in data.frame and data.frame[v].isna().any():
                missing = data.frame[v].isna().to_numpy()
                rows = ", ".join(str(r + 1) for r in np.flatnonzero(missing)[:5])
                yield ("variables",), (f"'{v}' has {int(missing.sum())} missing values "
                                       f"(records {rows}); the Gower distance needs "
                                       "complete values")

    def apply(self, data, params, rng):
        frame, meta = data.frame, data.meta
        names = self.variables(params, meta)
        distance = self._distance(params, meta)
        numeric_d = [v for v in distance if meta.variables[v].type != "categorical"]
        categorical_d = [v for v in distance if meta.variables[v].type == "categorical"]
        weights = params.get("weights")
        if weights is not None:  # reordered: numeric distance variables first
            by_name = dict(zip(distance, weights, strict=True))
            weights = np.array([by_name[v] for v in numeric_d + categorical_d])
        codes = {v: pd.factorize(frame[v], sort=True) for v in
                 set(categorical_d) | {v for v in names
                                       if meta.variables[v].type == "categorical"}}
        values = {v: codes[v][0] if v in codes else ordered_values(frame[v], meta.variables[v])
                  for v in set(names) | set(distance)}
        groups, labels = stratum_codes(frame, self.strata(params, meta))
        out = {v: np.empty(len(frame)) for v in names}
        for rows in stratum_members(groups, len(labels)):
            if not len(rows):
                continue
            num = np.column_stack([values[v][rows] for v in numeric_d]) if numeric_d \
                else np.zeros((len(rows), 0))
            cat = np.column_stack([values[v][rows] for v in categorical_d]) \
                if categorical_d else np.zeros((len(rows), 0), dtype=np.int64)
            near = gower_neighbours(num, cat, params["k"], weights)
            for v in names:
                var = meta.variables[v]
                if var.type in ("categorical", "ordinal"):
                    out[v][rows] = neighbourhood_sample(values[v][rows], near, rng)
                elif params["aggregation"] == "median":
                    out[v][rows] = neighbourhood_median(values[v][rows], near)
                else:
                    out[v][rows] = neighbourhood_mean(values[v][rows], near)
        columns, new_vars = {}, []
        for v in names:
            var = meta.variables[v]
            if var.type == "categorical":
                col = text_column(np.asarray(codes[v][1], dtype=object)[out[v].astype(int)],
                                  index=frame.index)
            elif var.type == "ordinal":
                col = text_column(np.asarray(var.order, dtype=object)[out[v].astype(int)],
                                  index=frame.index)
            else:
                col, var = numeric_column(out[v], frame.index, var)
            columns[v] = col
            new_vars.append(var)
        info = {"k": params["k"], "variables": names, "distance_variables": distance,
                "aggregation": params["aggregation"], "categories": "sampled",
                "strata": len(labels)}
        return MethodResult(data.with_columns(columns, new_vars), info)
