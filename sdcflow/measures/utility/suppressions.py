"""``suppressions``: how many values are missing now that were present in the reference
data (the original, or the data after the step named in ``reference``), per variable:
the count sdcMicro prints after ``kAnon`` (Templ 2019, "Local suppression"). Records are
compared by position, so both must hold the same records (not after sampling)."""

from __future__ import annotations

from typing import ClassVar

from ...plugins.plain_words import figure
from ...plugins.registry import Measure, MeasureResult, register, variables_param
from ...plugins.results import COUNT, NUMBER, TEXT, by_variable, record
from ..reference import REFERENCE, same_records


@register
class Suppressions(Measure):
    name = "suppressions"
    public_params = ("variables", "reference")
    risk_measure = False
    summary = "Values suppressed (missing now, present originally), per variable."
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": variables_param(
                "Variables to count (default: every key variable).", unique=False),
            "reference": REFERENCE,
        },
    }

    default_roles = ("key",)

    pairs_records = True

    def explain(self, params, result):
        if not isinstance(result, dict) or "total" not in result:
            return self.summary
        return (f"{figure(result['total'])} values are missing in the release that were "
                "present before the masking; per variable in the picture.")

    def result_shape(self, params, meta):
        names = self.variables(params, meta)
        return record(reference=TEXT, suppressions=by_variable(names, COUNT),
                      percent=by_variable(names, NUMBER), total=COUNT)

    def evaluate(self, data, params, rng, *, original):
        names = self.variables(params, data.meta)
        same_records(data, original, self.name)
        n = len(data)
        counts = {}
        for name in names:
            now = data.frame[name].isna().to_numpy()
            before = original.frame[name].isna().to_numpy()
            counts[name] = int((now & ~before).sum())
        return MeasureResult({
            "reference": params["reference"],
            "suppressions": counts,
            "percent": {k: round(100.0 * v / n, 3) if n else 0.0 for k, v in counts.items()},
            "total": sum(counts.values()),
        })
