"""``constraints``: violations of the recipe's edit constraints on a dataset (seed
001_84b47752373bceeb.txt, edit constraints); ``domain`` constraints are checked against
the original data."""

from __future__ import annotations

from typing import ClassVar

from ..registry import Measure, MeasureResult, register
from ..suggest import did_you_mean


@register
class ConstraintViolations(Measure):
    name = "constraints"
    summary = "Violations of the recipe's edit constraints (counts and first records)."
    # 2: exact integer arithmetic, records without a value counted with a reason
    version = "2"
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "constraints": {
                "type": "array", "minItems": 1, "items": {"type": "string"},
                "description": "Ids of the constraints to check (default: all).",
            },
        },
    }

    def selected(self, params, constraints):
        wanted = params.get("constraints")
        return [c for c in constraints if wanted is None or c.id in wanted]

    def reads(self, params, meta):
        return set().union(*(c.variables for c in self.selected(params, meta.constraints)))

    def check(self, params, meta):
        known = [c.id for c in meta.constraints]
        if not known and not meta.broken:
            yield (), "the recipe declares no constraints"
        for i, cid in enumerate(params.get("constraints", [])):
            if cid not in known and cid not in meta.broken:
                yield ("constraints", i), f"unknown constraint '{cid}'{did_you_mean(cid, known)}"

    def evaluate(self, data, params, rng, *, original):
        results = {
            c.id: c.violations(data.frame, original.frame)
            for c in self.selected(params, data.constraints)
        }
        return MeasureResult({
            "constraints": results,
            "total": sum(r["violations"] for r in results.values()),
        })
