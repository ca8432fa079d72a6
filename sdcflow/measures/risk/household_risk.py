"""``household_risk``: the hierarchical risk of sdcMicro's ``measure_risk`` (with
``hid``): a household is re-identified when at least one of its members is, so every
member of household h gets r_h = 1 - prod_{i in h} (1 - r_i) from the individual risks
r_i (Franconi & Polettini 2004, who assume re-identifications independent within a
household)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import ClassVar

import pandas as pd

from ...data.codes import key_codes
from ...data.dataset import Metadata
from ...kernels.risk.risk import household_risk
from ...plugins.plain_words import figure
from ...plugins.registry import Finding, MeasureResult, register
from ...plugins.results import COUNT, NUMBER, TEXT, Record
from .frequencies import single_role
from .individual_risk import RISK_PARAMS, RiskMeasure, above_threshold, risk_fields


@register
class HouseholdRisk(RiskMeasure):
    name = "household_risk"
    public_params = ("variables", "alpha", "method", "qual", "threshold")
    risk_measure = True
    counts_combinations = True
    summary = "Household (hierarchical) risk: 1 - prod(1 - r_i) over each household's members."
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": RISK_PARAMS,
    }

    def explain(self, params, result):
        if not isinstance(result, dict) or "percent" not in result:
            return self.summary
        return ("A household is re-identified when any of its members is: expected "
                f"{figure(result.get('expected_reidentifications'))} re-identifications "
                f"({figure(result['percent'])}% of the records).")

    def household(self, meta: Metadata) -> str | None:
        return single_role(meta, "household")

    def reads(self, params: Mapping, meta: Metadata) -> set[str]:
        household = self.household(meta)
        return super().reads(params, meta) | ({household} if household else set())

    def check(self, params: Mapping, meta: Metadata) -> Iterator[Finding]:
        yield from super().check(params, meta)
        households = meta.names("household")
        if not households:
            yield (), ("no household variable: declare the household id with role "
                       "'household' (e.g. ori_hid: {role: household})")
        elif len(households) > 1:
            yield (), (f"several variables have role household ({', '.join(households)}); "
                       "household_risk needs one household id")

    def result_shape(self, params, meta):
        return Record({**risk_fields(self, params, meta), "household": TEXT,
                       "households": COUNT, "expected_reidentifications": NUMBER,
                       "risk": NUMBER, "percent": NUMBER, "max": NUMBER.with_null()})

    def evaluate(self, data, params, rng, *, original):
        """``household_risk`` per record; ``expected_reidentifications`` = sum over the
        records of their household's risk (sdcMicro's ``hier_risk_ER``), ``risk`` = that
        sum / n and ``percent`` = 100 * sum / n (``hier_risk_pct``), the number of
        ``households`` and the largest household risk; with a ``threshold``, the records
        whose household risk is above it. A record with a missing household id is a
        household of its own."""
        r, how = self.risk(data, params)
        household = self.household(data.meta)
        ids = key_codes(data.frame, [household])[:, 0]
        hr = household_risk(r, ids)
        n = hr.size
        expected = float(hr.sum())
        # the codes of the ids are 0..U-1; each record without an id is its own household
        households = int(ids.max(initial=-1)) + 1 + int((ids < 0).sum())
        summary = {
            **how,
            "household": household,
            "records": n,
            "households": households,
            "expected_reidentifications": expected,
            "risk": expected / n if n else 0.0,
            "percent": 100.0 * expected / n if n else 0.0,
            "max": float(hr.max()) if n else None,
            **above_threshold(hr, params),
        }
        per_record = pd.DataFrame({"household_risk": hr}, index=data.frame.index)
        return MeasureResult(summary, per_record)
