"""``sampling``: release a simple or stratified random subsample, with the sampling
weight multiplied by the inverse sampling fraction of each stratum (Torra 2013,
"Sampling")."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ...data.households import first_members, household_units
from ...data.strata import stratum_codes
from ...kernels.non_perturbative.sampling import allocate, stratified_sample
from ...plugins.plain_words import figure, get, names
from ...plugins.registry import (
    Method,
    MethodResult,
    numeric_output,
    register,
    strata_param,
    unchanged,
)


@register
class Sampling(Method):
    distribution = None  # it changes the records themselves
    name = "sampling"
    public_params = ("fraction", "size", "strata", "adjust_weights", "unit")
    protects = True
    summary = "Draw a simple or stratified random subsample and adjust the weights."

    def explain(self, params, result):
        # what this step drew, not the alternatives its summary names
        unit = get(result, "unit") or params.get("unit")
        what = {"household": "whole households (every member kept)",
                "record": "records"}.get(unit, "records (whole households where the "
                                               "data have a household id)")
        if params.get("fraction") is not None:
            how = f"{figure(100 * params['fraction'])}% of them"
        elif params.get("size") is not None:
            how = f"{figure(params['size'])} of them"
        else:
            how = "a share of them"
        strata = [str(s) for s in params.get("strata") or ()]
        text = f"A random sample of {what} was kept: {how}"
        if strata:
            text += f", in each stratum of {names(strata)}"
        if params.get("adjust_weights", True):
            text += "; the weights were raised to stand for the records left out"
        text += "."
        if isinstance(get(result, "records"), int) and isinstance(get(result, "of"), int):
            text += f" {figure(result['records'])} of the {figure(result['of'])} records kept."
        return text
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "fraction": {"type": "number", "exclusiveMinimum": 0, "maximum": 1,
                         "description": "Share of the records of each stratum to keep."},
            "size": {"type": "integer", "minimum": 1,
                     "description": "Number of records to keep (allocated to strata "
                                    "proportionally)."},
            "strata": strata_param("Stratify by these variables"),
            "adjust_weights": {"type": "boolean", "default": True,
                               "description": "Multiply the weight variable by N_h / n_h."},
            "unit": {"enum": ["record", "household"],
                     "description": "What is drawn: records, or whole households (every "
                                    "member kept together; fraction, size and N_h / n_h "
                                    "count households). Default: household when the recipe "
                                    "declares a household id, else record."},
        },
        "oneOf": [{"required": ["fraction"], "not": {"required": ["size"]}},
                  {"required": ["size"], "not": {"required": ["fraction"]}}],
        "x-error": "give exactly one of 'fraction' or 'size'",
    }

    stratified = True
    version = "2"  # 2: whole households by default when a household id is declared
    households = "own"

    @staticmethod
    def unit(params, meta) -> str:
        return params.get("unit") or ("household" if meta.names("household") else "record")

    def variables(self, params, meta):
        return self.strata(params, meta)

    def reads(self, params, meta):
        return None  # every column is carried into the sample

    def writes(self, params, meta):
        return None  # the records change

    def check(self, params, meta):
        yield from self.check_strata(params, meta)
        if self.unit(params, meta) != "household":
            return
        ids = meta.names("household")
        if len(ids) != 1:
            yield ("unit",), ("sampling households needs one household id (a variable with "
                              "role household)")
            return
        for i, name in enumerate(self.strata(params, meta)):
            var = meta.variables.get(name)
            if var is not None and var.level != "household" and name != ids[0]:
                yield ("strata", i), (f"whole households are drawn, so the strata must be the "
                                      f"same for every member: declare '{name}' level: "
                                      "household, or draw records (unit: record)")

    def check_data(self, params, data):
        if self.unit(params, data.meta) == "household":
            ids = data.meta.names("household")
            units = int(data.frame[ids[0]].nunique(dropna=True) +
                        data.frame[ids[0]].isna().sum()) if len(ids) == 1 else len(data)
            noun = "households"
        else:
            units, noun = len(data), "records"
        if params.get("size", 0) > units:
            yield ("size",), (f"size = {params['size']} is larger than the number of {noun}"
                              f" ({units})")

    def outputs(self, params, meta):
        # every variable is carried into the sample as it is, but the weight is scaled:
        # an integer weight stays integer while the scaled weights are whole
        out = unchanged(meta.variables, meta)
        for name in meta.names("weight"):
            if params.get("adjust_weights", True):
                out[name] = numeric_output(meta.variables[name])
        return out

    def apply(self, data, params, rng):
        strata = self.strata(params, data.meta)
        by_household = self.unit(params, data.meta) == "household"
        if by_household:  # draw households: one unit per household, all members kept
            units, count = household_units(data.frame[data.meta.names("household")[0]])
            firsts = first_members(units, count)
            unit_groups, names = stratum_codes(data.frame.iloc[firsts], strata)
        else:
            unit_groups, names = stratum_codes(data.frame, strata)
        sizes = np.bincount(unit_groups, minlength=len(names))
        n_h = allocate(sizes, fraction=params.get("fraction"), total=params.get("size"))
        drawn = stratified_sample(unit_groups, n_h, rng)
        if by_household:
            chosen = np.flatnonzero(np.isin(units, drawn))
            groups = unit_groups[units]
        else:
            chosen, groups = drawn, unit_groups
        frame = data.frame.iloc[chosen].reset_index(drop=True)
        weights = data.meta.names("weight")
        if weights and params["adjust_weights"]:
            factor = np.divide(sizes, n_h, out=np.zeros(len(sizes)), where=n_h > 0)
            name = weights[0]
            adjusted = frame[name].to_numpy(dtype=float) * factor[groups[chosen]]
            frame[name] = adjusted
            var = data.variables[name]
            if var.type == "integer" and not np.all(adjusted == np.round(adjusted)):
                data = data.with_columns({}, [var.evolve(type="continuous")])
            elif var.type == "integer":
                frame[name] = pd.Series(adjusted, dtype="float64").round().astype("Int64")
        info = {"records": len(chosen), "of": len(data), "unit": "household" if by_household
                else "record",
                "by_stratum": {str(s): {"sampled": int(k), "of": int(N)}
                               for s, k, N in zip(names, n_h, sizes)}}
        return MethodResult(type(data)(frame, dict(data.variables), data.constraints), info)
