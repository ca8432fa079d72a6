"""``resampling``: replace each numeric variable by the position-wise average of t sorted
bootstrap samples of its values (Torra, "Masking methods", 2013, "Resampling"). The kernel
is :func:`sdcflow.kernels.perturbative.resampling.resample`."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ...data.codes import numeric_column
from ...data.strata import stratum_codes, stratum_members
from ...kernels.changes import changed_values
from ...kernels.perturbative.resampling import resample
from ...plugins.limits import MAX_DRAWS, over
from ...plugins.registry import (
    Method,
    MethodResult,
    numeric_output,
    register,
    strata_param,
    variables_param,
)


@register
class Resampling(Method):
    """Resampling (Torra 2013, "Resampling"), variable by variable and per stratum: t
    samples of size n are drawn with replacement from the n values, each is sorted, the
    sorted samples are averaged position by position, and the record whose value has
    rank r gets the r-th average (tied records get the mean of the averages at their
    ranks). The released values keep the rank order of the records. Missing values stay
    missing and are left out (n counts the present values of the stratum). An integer
    variable stays integer only if every released value is whole."""

    name = "resampling"
    public_params = ("variables", "t", "strata")
    protects = True
    summary = "Replace values by the rank-wise average of t sorted bootstrap samples."
    version = "1"
    roles = ("numeric", "key", "sensitive")
    types = ("integer", "continuous")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": variables_param("Variables resampled, each on its own (default: "
                                         "every integer or continuous variable with role "
                                         "numeric)."),
            "t": {"type": "integer", "minimum": 1, "default": 5,
                  "description": "Number of bootstrap samples averaged."},
            "strata": strata_param("Resample within each stratum"),
        },
    }

    default_roles = ("numeric",)
    default_numeric = True
    stratified = True
    strata_conflict = "'{name}' cannot both be resampled and define strata"

    def check(self, params, meta):
        chosen = self.variables(params, meta)
        if not chosen:
            yield ("variables",), ("no variables: name them or declare integer or continuous "
                                   "variables with role numeric")
        yield from self.check_strata(params, meta)

    def outputs(self, params, meta):
        # averaged bootstrap values: an integer variable stays integer while they are whole
        return {n: numeric_output(meta.variables[n])
                for n in self.variables(params, meta) if n in meta.variables}

    def check_data(self, params, data):
        names = [n for n in self.variables(params, data.meta) if n in data.frame]
        draws = params["t"] * sum(int(data.frame[n].notna().sum()) for n in names)
        if draws > MAX_DRAWS:
            yield ("t",), (f"t = {params['t']} bootstrap samples of every value of "
                           f"{', '.join(names)} would draw "
                           f"{over(draws, 'random numbers', MAX_DRAWS)}")

    def apply(self, data, params, rng):
        frame = data.frame
        t = int(params["t"])
        groups, labels = stratum_codes(frame, self.strata(params, data.meta))
        strata = stratum_members(groups, len(labels))
        columns, new_vars, changed = {}, [], {}
        for name in self.variables(params, data.meta):
            x = frame[name].to_numpy(dtype=float, na_value=np.nan)
            out = x.copy()
            present = ~np.isnan(x)
            for rows in strata:
                rows = rows[present[rows]]
                out[rows] = resample(x[rows], t, rng)
            changed[name] = int(changed_values(out, x))
            columns[name], var = numeric_column(out, frame.index, data.variables[name])
            new_vars.append(var)
        info = {"t": t, "strata": len(strata), "changed": changed,
                "missing_kept": {name: int(frame[name].isna().sum()) for name in changed}}
        return MethodResult(data.with_columns(columns, new_vars), info)
