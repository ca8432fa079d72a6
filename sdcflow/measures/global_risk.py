"""``global_risk``: the expected number of re-identifications in the data, the sum of the
individual risks, and its percentage of the records (sdcMicro's ``measure_risk``:
``global_risk_ER`` and ``global_risk_pct``)."""

from __future__ import annotations

from typing import ClassVar

from ..registry import MeasureResult, register
from ..results import NUMBER, Record
from .individual_risk import RISK_PARAMS, RiskMeasure, above_threshold, risk_fields


@register
class GlobalRisk(RiskMeasure):
    name = "global_risk"
    summary = "Expected number of re-identifications (sum of the individual risks) and percent."
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": RISK_PARAMS,
    }

    def result_shape(self, params, meta):
        return Record({**risk_fields(self, params, meta), "expected_reidentifications": NUMBER,
                       "risk": NUMBER, "percent": NUMBER})

    def evaluate(self, data, params, rng, *, original):
        """``expected_reidentifications`` = sum of the individual risks r_i (sdcMicro's
        ``risk_ER``), ``risk`` = that sum / n and ``percent`` = 100 * sum / n
        (``risk_pct``); with a ``threshold``, the records whose risk is above it. The
        per-record risks are those of ``individual_risk`` (not repeated here)."""
        r, how = self.risk(data, params)
        n = r.size
        expected = float(r.sum())
        summary = {
            **how,
            "records": n,
            "expected_reidentifications": expected,
            "risk": expected / n if n else 0.0,
            "percent": 100.0 * expected / n if n else 0.0,
            **above_threshold(r, params),
        }
        return MeasureResult(summary)
