"""``constraints``: violations of the recipe's edit constraints on a dataset (Torra,
"Towards knowledge intensive data privacy", 2011, edit constraints); ``domain`` constraints
are checked against the original data."""

from __future__ import annotations

from typing import ClassVar

import pandas as pd

from ...data.text import text_column
from ...errors import did_you_mean
from ...plugins.plain_words import figure
from ...plugins.registry import Measure, MeasureResult, register
from ...plugins.results import COUNT, FLAG, TEXT, Keyed, ListOf, Record, record


@register
class ConstraintViolations(Measure):
    name = "constraints"
    public_params = ("constraints",)
    risk_measure = False
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

    def explain(self, params, result):
        if not isinstance(result, dict) or "total" not in result:
            return self.summary
        return (f"The edit constraints were checked on the data: {figure(result['total'])} "
                "violations.")

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

    def public_summary(self, summary, params):
        """The counts, without the numbers of the violating records."""
        return {"total": summary["total"],
                "constraints": {cid: {k: v for k, v in r.items() if k != "first_records"}
                                for cid, r in summary["constraints"].items()}}

    def result_shape(self, params, meta):
        one = Record({"kind": TEXT, "applicable": FLAG, "violations": COUNT,
                      "not_checked": COUNT, "first_records": ListOf(COUNT)},
                     {"reason": TEXT})  # why it could not be checked (not applicable)
        ids = [c.id for c in self.selected(params, meta.constraints)]
        return record(constraints=Keyed(one, "constraint", tuple(ids)), total=COUNT)

    def warnings(self, params, meta):
        # a constraint that orders or computes with a variable made text by an earlier
        # step cannot be checked: it would count no violations (applicable: false)
        for c in self.selected(params, meta.constraints):
            if c.kind == "domain" or not c.variables <= set(meta.variables):
                continue
            sample = pd.DataFrame({
                n: text_column(pd.Series(["1"])) if not meta.variables[n].is_numeric
                else pd.Series([1.0]) for n in sorted(c.variables)})
            result = c.violations(sample)
            if not result["applicable"]:
                names = ", ".join(f"'{n}'" for n in sorted(c.variables))
                path = ("constraints", params["constraints"].index(c.id)) \
                    if "constraints" in params else ()
                yield path, (f"constraint '{c.id}' on {names} cannot be checked on the data "
                             f"this step sees ({result['reason']}): it will count no "
                             "violations; check it before the recode, or leave it out with "
                             "'constraints'")

    def evaluate(self, data, params, rng, *, original):
        results = {
            c.id: c.violations(data.frame, original.frame)
            for c in self.selected(params, data.constraints)
        }
        return MeasureResult({
            "constraints": results,
            "total": sum(r["violations"] for r in results.values()),
        })
