"""``distribution_distortion``: data distortion by probability distribution (Liew, Choi &
Liew, "A data distortion by probability distribution", ACM TODS 10(3), 1985): each
variable's law is fitted to its values (per stratum), a series of the same size is drawn
from it, and the series replaces the values rank for rank. The kernel and the fitted
laws are in :mod:`sdcflow.kernels.perturbative.distribution_distortion`.

Missing values stay missing and are left out of the fit. A stratum whose values are all
equal (or that has fewer than two) keeps them. An integer variable becomes continuous
unless every released value is whole (``empirical`` on integers rarely is).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ...data.codes import numeric_column
from ...data.strata import stratum_codes, stratum_members
from ...kernels.changes import changed_values
from ...kernels.perturbative.distribution_distortion import (
    DISTRIBUTIONS,
    SUPPORT,
    best_fit,
    distort,
    fit,
    outside,
)
from ...plugins.limits import FLOAT_MAX
from ...plugins.registry import (
    Method,
    MethodResult,
    numeric_output,
    register,
    strata_param,
    variables_param,
)

# the extreme uniforms drawn (rng.random gives [0, 1 - 2**-53]; 0 is moved to tiny)
_EXTREMES = np.array([np.finfo(float).tiny, 1 - 2.0 ** -53])


@register
class DistributionDistortion(Method):
    name = "distribution_distortion"
    public_params = ("variables", "distribution", "strata")
    version = "2"  # best chooses among Poisson, Weibull, chi-square and triangular too
    protects = True
    summary = ("Replace each numeric variable, rank for rank, by a sample of the probability "
               "distribution fitted to it.")
    roles = ("numeric", "key", "sensitive")
    types = ("integer", "continuous")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": variables_param("Variables distorted, each on its own (default: "
                                         "every integer or continuous variable with role "
                                         "numeric)."),
            "distribution": {"enum": [*DISTRIBUTIONS, "best"], "default": "best",
                             "description": "The law fitted: " + ", ".join(DISTRIBUTIONS)
                                            + ", or best (the parametric law with the "
                                              "smallest Kolmogorov-Smirnov statistic)."},
            "strata": strata_param("Fit and distort within each stratum"),
        },
    }

    default_roles = ("numeric",)
    default_numeric = True
    stratified = True
    strata_conflict = "'{name}' cannot both be distorted and define strata"

    def check(self, params, meta):
        if not self.variables(params, meta):
            yield ("variables",), ("no variables: name them or declare integer or continuous "
                                   "variables with role numeric")
        yield from self.check_strata(params, meta)

    def outputs(self, params, meta):
        # drawn values: an integer variable stays integer only while they are whole
        return {n: numeric_output(meta.variables[n])
                for n in self.variables(params, meta) if n in meta.variables}

    def check_data(self, params, data):
        name = params.get("distribution", "best")
        frame = data.frame
        strata = [s for s in self.strata(params, data.meta) if s in frame]
        codes, labels = stratum_codes(frame, strata)
        members = stratum_members(codes, len(labels))
        for var in self.variables(params, data.meta):
            if var not in frame:
                continue
            x = frame[var].to_numpy(dtype=float, na_value=np.nan)
            observed = x[~np.isnan(x)]
            bad = int(outside(name, observed).sum()) if name in SUPPORT else 0
            if bad:
                yield ("distribution",), (f"the {name} law needs {SUPPORT[name]} values: "
                                          f"'{var}' has {bad} that are not")
                continue
            for rows, label in zip(members, labels, strict=True):
                values = x[rows][~np.isnan(x[rows])]
                if len(values) < 2 or values.min() == values.max() or name == "empirical":
                    continue
                try:
                    found = best_fit(values)[0] if name == "best" else fit(values, name)
                except ValueError as exc:
                    where = "" if len(labels) == 1 else f" in stratum {label}"
                    yield ("distribution",), (f"the {name} law cannot be fitted to "
                                              f"'{var}'{where}: {exc}")
                    continue
                with np.errstate(all="ignore"):
                    ends = found.law().ppf(_EXTREMES)
                if not np.all(np.abs(ends) <= FLOAT_MAX):
                    where = "" if len(labels) == 1 else f" in stratum {label}"
                    yield ("distribution",), (f"the {found.name} law fitted to '{var}'{where} "
                                              "can give values beyond the range of 64-bit "
                                              "floats")

    def apply(self, data, params, rng):
        frame = data.frame
        name = params["distribution"]
        codes, labels = stratum_codes(frame, self.strata(params, data.meta))
        members = stratum_members(codes, len(labels))
        columns, new_vars, details = {}, [], {}
        for var in self.variables(params, data.meta):
            x = frame[var].to_numpy(dtype=float, na_value=np.nan)
            out = x.copy()
            present = ~np.isnan(x)
            fits = []
            for rows, label in zip(members, labels, strict=True):
                rows = rows[present[rows]]
                out[rows], found = distort(x[rows], name, rng)
                fits.append({"stratum": label, **found} if len(labels) > 1 else found)
            details[var] = {"changed": int(changed_values(out, x)),
                            "fit": fits if len(labels) > 1 else fits[0]}
            columns[var], new_var = numeric_column(out, frame.index, data.variables[var])
            new_vars.append(new_var)
        info = {"distribution": name, "strata": len(labels), "variables": details}
        return MethodResult(data.with_columns(columns, new_vars), info)

