"""``dp_mean``: the differentially private mean of a numeric variable, for publication:
each record's value rounded to a whole number and clamped to ``[lower, upper]``; a noisy
sum and a noisy count, each spending half of the step's spend (OpenDP's ``make_clamp`` +
``make_sum`` and ``make_count`` with its integer Laplace or Gaussian mechanism, composed),
their ratio published (post-processing). Dwork, McSherry, Nissim & Smith (2006); Canonne,
Kamath & Steinke (2020) for the discrete noise, drawn by sdcflow from the step's seed."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ...dp.accounting import Part
from ...dp.steps import SPEND_PARAMS, UNIT_PARAM, DPMeasureMixin
from ...errors import PluginError
from ...plugins.plain_words import figure
from ...plugins.registry import Measure, MeasureResult, register
from ...plugins.results import NUMBER, TEXT, record

_BOUND = {"type": "integer", "minimum": -10**12, "maximum": 10**12}


@register
class DPMean(DPMeasureMixin, Measure):
    name = "dp_mean"
    risk_measure = False  # a DP statistic to publish, not a measure of risk
    public_params = ("variable", "lower", "upper", "epsilon", "rho", "privacy_unit_records")
    summary = ("Differentially private mean of a numeric variable clamped to declared "
               "bounds (noisy sum / noisy count, OpenDP's accounting), publishable.")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["variable", "lower", "upper"],
        "properties": {
            "variable": {"type": "string", "description": "The numeric variable."},
            "lower": {**_BOUND, "description": "Clamping bound below: values under it count "
                                               "as it (whole units of the variable)."},
            "upper": {**_BOUND, "description": "Clamping bound above: values over it count "
                                               "as it (whole units of the variable)."},
            **SPEND_PARAMS,
            **UNIT_PARAM,
        },
    }

    def check(self, params, meta):
        yield from self.check_spend(params)
        var = meta.variables.get(params.get("variable"))
        if var is None:
            yield ("variable",), f"'{params.get('variable')}' is not a declared variable"
        elif not var.is_numeric:
            yield ("variable",), f"'{var.name}' must be integer or continuous"
        if params.get("lower", 0) >= params.get("upper", 1):
            yield ("upper",), "upper must be above lower"

    def parts(self, params) -> tuple[Part, ...]:
        return (Part("sum", lower=int(params["lower"]), upper=int(params["upper"]),
                     share=0.5), Part("count", share=0.5))

    def dp_parts(self, params, recipe, step):
        return self.parts(params)

    def result_shape(self, params, meta):
        return record(optional={"mean": NUMBER}, sum=NUMBER, count=NUMBER, sum_scale=NUMBER,
                      count_scale=NUMBER, spent=NUMBER, mechanism=TEXT)

    def explain(self, params, result):
        what = self.spend_text(params)
        mean = f" ({figure(result['mean'])})" if isinstance(result, dict) and \
            result.get("mean") is not None else ""
        return (f"The mean of {params.get('variable')}{mean}, its values clamped to "
                f"[{params.get('lower')}, {params.get('upper')}], was published with "
                f"differentially private noise spending {what}.")

    def evaluate(self, data, params, rng, *, original):
        from ...kernels.privacy.dp_noise import dp_noise

        frame = self.kept(data, params)
        name = params["variable"]
        if name not in frame:
            raise PluginError(self.name, f"no column {name!r}")
        lo, hi = int(params["lower"]), int(params["upper"])
        x = frame[name].to_numpy(dtype=float, na_value=np.nan)
        # a missing value counts as the lower bound: the count is of records, and what a
        # record adds must not depend on the data beyond the clamping bounds
        whole = np.clip(np.rint(np.where(np.isnan(x), lo, x)), lo, hi).astype(np.int64)
        cal = self.calibrated(params, self.parts(params), self.unit_records(params))
        total = int(whole.sum()) + int(dp_noise(rng, 1, cal.mechanism, cal.scales[0])[0])
        count = len(whole) + int(dp_noise(rng, 1, cal.mechanism, cal.scales[1])[0])
        out = {"sum": float(total), "count": float(count),
               "sum_scale": float(cal.scales[0]), "count_scale": float(cal.scales[1]),
               "spent": cal.spent, "mechanism": f"discrete {cal.mechanism}"}
        if count > 0:  # (no mean of a noisy count of 0 or less: it is left out)
            out["mean"] = float(np.clip(total / count, lo, hi))
        return MeasureResult(out)
