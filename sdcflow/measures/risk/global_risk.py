"""``global_risk``: the expected number of re-identifications in the data, the sum of the
individual risks, and its percentage of the records (sdcMicro's ``measure_risk``:
``global_risk_ER`` and ``global_risk_pct``); in a household survey (a variable with role
household) also the hierarchical figures of ``measure_risk(..., hid)``: the expected
number of re-identified records when a household is re-identified as soon as one of its
members is (``hier_risk_ER``, ``hier_risk_pct``; Franconi & Polettini 2004)."""

from __future__ import annotations

from typing import ClassVar

from ...data.codes import key_codes
from ...kernels.risk.risk import household_risk
from ...plugins.plain_words import figure
from ...plugins.registry import MeasureResult, register
from ...plugins.results import COUNT, NUMBER, TEXT, Record, record
from .frequencies import single_role
from .individual_risk import RISK_PARAMS, RiskMeasure, above_threshold, risk_fields


@register
class GlobalRisk(RiskMeasure):
    name = "global_risk"
    public_params = ("variables", "alpha", "method", "qual", "threshold")
    risk_measure = True
    counts_combinations = True
    summary = "Expected number of re-identifications (sum of the individual risks) and percent."
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": RISK_PARAMS,
    }

    version = "2"  # 2: household (hierarchical) risk in household surveys

    def explain(self, params, result):
        if not isinstance(result, dict) or "expected_reidentifications" not in result:
            return self.summary
        text = (f"The expected number of records an intruder re-identifies is "
                f"{figure(result['expected_reidentifications'])} "
                f"({figure(result.get('percent'))}% of the records).")
        household = result.get("household")
        if isinstance(household, dict) and "percent" in household:
            text += (f" Counting a household as re-identified when one of its members is: "
                     f"{figure(household.get('expected_reidentifications'))} "
                     f"({figure(household['percent'])}%).")
        return text

    def reads(self, params, meta):
        household = single_role(meta, "household")
        return super().reads(params, meta) | ({household} if household else set())

    def result_shape(self, params, meta):
        fields = {**risk_fields(self, params, meta), "expected_reidentifications": NUMBER,
                  "risk": NUMBER, "percent": NUMBER}
        if single_role(meta, "household"):
            fields["household"] = record(variable=TEXT, households=COUNT,
                                         expected_reidentifications=NUMBER, risk=NUMBER,
                                         percent=NUMBER)
        return Record(fields)

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
        household = single_role(data.meta, "household")
        if household is not None and household in data.frame:
            ids = key_codes(data.frame, [household])[:, 0]
            hier = float(household_risk(r, ids).sum())
            summary["household"] = {
                "variable": household,
                "households": int(ids.max(initial=-1)) + 1 + int((ids < 0).sum()),
                "expected_reidentifications": hier,
                "risk": hier / n if n else 0.0,
                "percent": 100.0 * hier / n if n else 0.0,
            }
        return MeasureResult(summary)
