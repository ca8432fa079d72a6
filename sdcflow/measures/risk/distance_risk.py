"""``d_risk`` and ``d_risk_rmd``: distance-based disclosure risk of masked continuous
variables, R sdcMicro's ``dRisk`` and ``dRiskRMD`` under their names and conventions
(Templ & Meindl (2008), "Robust statistics meets SDC: new disclosure risk measures for
continuous microdata masking", PSD 2008, LNCS 5262). The formulas are in
:mod:`sdcflow.kernels.risk.distance_risk`."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ...kernels.risk.distance_risk import d_risk, d_risk_rmd
from ...plugins.registry import Measure, MeasureResult, register
from ...plugins.results import COUNT, NAMES, NUMBER, TEXT, Text, record
from ..linkage.record_linkage import VARIABLES, values
from ..reference import REFERENCE, same_records


class _DistanceRisk(Measure):
    types = ("integer", "continuous")
    default_roles = ("numeric",)
    default_numeric = True
    pairs_records = True

    def check(self, params, meta):
        if not self.variables(params, meta):
            yield ("variables",), "no variables: name them or declare numeric variables"


@register
class DRisk(_DistanceRisk):
    name = "d_risk"
    public_params = ("k", "variables", "reference")
    risk_measure = True
    summary = ("sdcMicro's dRisk: share of records whose original values all lie within k "
               "standard deviations of their masked values.")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "k": {"type": "number", "exclusiveMinimum": 0, "default": 0.05,
                  "description": "Half-width of the interval around each masked value, in "
                                 "standard deviations of the masked variable."},
            "variables": VARIABLES,
            "reference": REFERENCE,
        },
    }

    def result_shape(self, params, meta):
        return record(k=NUMBER, reference=TEXT, variables=NAMES, risk=NUMBER, percent=NUMBER,
                      at_risk=COUNT, records=COUNT)

    def evaluate(self, data, params, rng, *, original):
        """``risk``: the share of records whose every original value lies in ``[x' - k s',
        x' + k s']`` (sdcMicro's ``dRisk``); per record ``at_risk``."""
        names = self.variables(params, data.meta)
        same_records(data, original, self.name)
        at_risk = d_risk(values(original, names), values(data, names), params["k"])
        n = at_risk.size
        risk = float(at_risk.mean()) if n else 0.0
        summary = {"k": params["k"], "reference": params["reference"], "variables": names,
                   "risk": risk, "percent": round(100.0 * risk, 6),
                   "at_risk": int(at_risk.sum()), "records": n}
        return MeasureResult(summary, pd.DataFrame({"at_risk": at_risk},
                                                   index=data.frame.index))


@register
class DRiskRMD(_DistanceRisk):
    name = "d_risk_rmd"
    # 2: robustbase's finite-sample correction factors; FAST-MCD's random starts (from the
    # step's generator) besides DetMCD's six, refined by C-steps and swaps
    version = "2"
    public_params = ("k", "k2", "variables", "reference")
    risk_measure = True
    summary = ("sdcMicro's dRiskRMD: records whose masked values fall within intervals "
               "sized by the robust Mahalanobis distance, and those also isolated.")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "k": {"type": "number", "exclusiveMinimum": 0, "default": 0.01,
                  "description": "Interval half-width, in multiples of the record's scaled "
                                 "robust Mahalanobis distance (sdcMicro's k)."},
            "k2": {"type": "number", "minimum": 0, "default": 0.05,
                   "description": "A close record is also at risk when its masked record is "
                                  "farther than k2 (standardised Euclidean distance) from "
                                  "every other masked record."},
            "variables": VARIABLES,
            "reference": REFERENCE,
        },
    }

    def check_data(self, params, data):
        names = self.variables(params, data.meta)
        x = values(data, names)
        complete = int((~np.isnan(x).any(axis=1)).sum())
        if complete <= len(names) + 1:
            yield ("variables",), (f"{complete} complete records for {len(names)} variables: "
                                   "the robust covariance needs more than variables + 1")
            return
        flat = [n for j, n in enumerate(names)
                if np.unique(x[~np.isnan(x[:, j]), j]).size < 2]
        if flat:
            yield ("variables",), (f"{', '.join(map(repr, flat))} has a single value: it "
                                   "cannot be standardised")

    def result_shape(self, params, meta):
        return record(k=NUMBER, k2=NUMBER, reference=TEXT, variables=NAMES, risk1=NUMBER,
                      risk2=NUMBER, wrisk1=NUMBER, wrisk2=NUMBER, close=COUNT,
                      isolated=COUNT, records=COUNT, covariance=Text(("mcd", "classical")))

    def evaluate(self, data, params, rng, *, original):
        """sdcMicro's ``risk1`` (share of close records), ``risk2`` (close and isolated),
        ``wrisk1``, ``wrisk2`` (weighted by the scaled robust distances); per record
        ``rmd``, ``close``, ``isolated``."""
        names = self.variables(params, data.meta)
        same_records(data, original, self.name)
        result = d_risk_rmd(values(original, names), values(data, names), params["k"],
                            params["k2"], rng=rng)
        summary = {"k": params["k"], "k2": params["k2"], "reference": params["reference"],
                   "variables": names, **result.summary(),
                   "close": int(result.close.sum()), "isolated": int(result.isolated.sum()),
                   "records": len(data),
                   "covariance": "mcd" if result.robust else "classical"}
        frame = pd.DataFrame({"rmd": result.rmd, "close": result.close,
                              "isolated": result.isolated}, index=data.frame.index)
        return MeasureResult(summary, frame)
