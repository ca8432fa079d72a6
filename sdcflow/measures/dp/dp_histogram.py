"""``dp_histogram``: the differentially private counts of a variable's categories (and of
the records in none of them), for publication: OpenDP's ``make_count_by_categories`` and
its integer Laplace or Gaussian mechanism at the scale OpenDP calibrates for the step's
spend (Dwork, McSherry, Nissim & Smith 2006; Canonne, Kamath & Steinke 2020), the noise
drawn by sdcflow from the step's seed (:mod:`sdcflow.kernels.privacy.dp_noise`). The
categories are declared, never read from the data: a category list taken from the data
would itself disclose which values occur."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ...dp.accounting import Part
from ...dp.steps import SPEND_PARAMS, UNIT_PARAM, DPMeasureMixin
from ...errors import PluginError
from ...plugins.registry import Measure, MeasureResult, register
from ...plugins.results import COUNT, NUMBER, TEXT, by_values, record


@register
class DPHistogram(DPMeasureMixin, Measure):
    name = "dp_histogram"
    risk_measure = False  # a DP statistic to publish, not a measure of risk
    public_params = ("variable", "categories", "epsilon", "rho", "non_negative",
                     "privacy_unit_records")
    summary = ("Differentially private counts of a variable's declared categories "
               "(OpenDP's accounting), publishable.")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["variable"],
        "properties": {
            "variable": {"type": "string", "description": "The variable counted."},
            "categories": {"type": "array", "minItems": 1, "maxItems": 100000,
                           "uniqueItems": True,
                           "items": {"type": ["string", "integer"]},
                           "description": "The categories counted (default: the declared "
                                          "order of an ordinal variable); records in none "
                                          "of them (or missing) are counted as 'other'."},
            **SPEND_PARAMS,
            **UNIT_PARAM,
            "non_negative": {"type": "boolean", "default": True,
                             "description": "Publish negative noisy counts as 0 (post-"
                                            "processing: spends nothing)."},
        },
    }

    def check(self, params, meta):
        yield from self.check_spend(params)
        var = meta.variables.get(params.get("variable"))
        if var is None:
            yield ("variable",), f"'{params.get('variable')}' is not a declared variable"
        elif "categories" not in params and not var.order:
            yield ("categories",), ("declare the categories to count (a list taken from the "
                                    "data would disclose which values occur), or give the "
                                    "variable an order")

    def categories(self, params, meta) -> list[str]:
        given = params.get("categories")
        if given is not None:
            return [str(c) for c in given]
        var = meta.variables.get(params["variable"])
        return [str(c) for c in (var.order or [])] if var is not None else []

    def dp_parts(self, params, recipe, step):
        n = len(self.categories(params, recipe.meta())) + 1  # (with 'other')
        return (Part("counts", (n,)),)

    def result_shape(self, params, meta):
        cats = self.categories(params, meta)
        return record(counts=by_values("categories", cats + ["other"], COUNT),
                      total=COUNT, scale=NUMBER, spent=NUMBER, mechanism=TEXT)

    def explain(self, params, result):
        what = self.spend_text(params)
        return (f"The counts of {params.get('variable')} by category were published with "
                f"differentially private noise spending {what}.")

    def evaluate(self, data, params, rng, *, original):
        from ...kernels.privacy.dp_noise import dp_noise

        frame = self.kept(data, params)
        cats = self.categories(params, data.meta)
        if params["variable"] not in frame:
            raise PluginError(self.name, f"no column {params['variable']!r}")
        values = frame[params["variable"]].astype(object).where(
            frame[params["variable"]].notna(), None).map(
                lambda v: None if v is None else str(v)).to_numpy(dtype=object)
        index = {c: i for i, c in enumerate(cats)}
        pos = np.fromiter((index.get(v, len(cats)) for v in values), dtype=np.int64,
                          count=len(values))
        counts = np.bincount(pos, minlength=len(cats) + 1)
        cal = self.calibrated(params, (Part("counts", (len(cats) + 1,)),),
                              self.unit_records(params))
        noisy = counts + dp_noise(rng, len(counts), cal.mechanism, cal.scales[0])
        if params.get("non_negative", True):
            noisy = np.maximum(noisy, 0)
        out = {c: int(v) for c, v in zip(cats + ["other"], noisy, strict=True)}
        return MeasureResult({"counts": out, "total": int(noisy.sum()),
                              "scale": float(cal.scales[0]), "spent": cal.spent,
                              "mechanism": f"discrete {cal.mechanism}"})
