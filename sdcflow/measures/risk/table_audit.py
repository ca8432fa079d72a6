"""``table_audit``: for every suppressed cell, the interval an intruder can derive by
linear programming from the published cells and the table's relations, checked against
the protection required for primary cells (:func:`sdcflow.tabular.audit`)."""

from __future__ import annotations

from typing import ClassVar

from ...plugins.plain_words import figure
from ...plugins.registry import MeasureResult, TableMeasure, register
from ...plugins.results import COUNT, FLAG, NUMBER, TEXT, ListOf, record


@register
class TableAudit(TableMeasure):
    name = "table_audit"
    public_params = ("cells",)
    # it audits a suppression pattern; on a table no rule marked, it finds nothing
    risk_measure = False
    summary = "Audit a table's suppression pattern: intruder intervals by LP, protection."
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "cells": {"type": "integer", "minimum": 0, "default": 50,
                      "description": "How many suppressed cells to list with their "
                                     "interval."},
        },
    }

    def explain(self, params, result):
        if not isinstance(result, dict) or "unprotected" not in result:
            return self.summary
        return ("The audit computes, by linear programming, the range an intruder can "
                "deduce for each suppressed cell from the published cells: "
                f"{figure(result['unprotected'])} sensitive cells are not protected.")

    def public_summary(self, summary, params):
        """Only the verdict and the counts: the listed cells hold the original values of
        suppressed cells."""
        return {k: v for k, v in summary.items() if k != "cells"}

    def result_shape(self, params, meta):
        cell = record(cell=TEXT, status=TEXT, value=NUMBER.with_null(), lower=NUMBER,
                      upper=NUMBER, protected=FLAG)
        return record(passed=FLAG, suppressed=COUNT, unprotected=COUNT, cells=ListOf(cell))

    def evaluate(self, data, params, rng, *, original=None):
        from ...tabular import audit

        result = audit(data)
        report = result.report
        dims = list(data.dims)
        listed = []
        for _, row in report.head(params["cells"]).iterrows():
            listed.append({"cell": " x ".join(str(row[d]) for d in dims) if set(dims) <=
                           set(report.columns) else str(row.name),
                           "status": str(row.get("status", "")),
                           "value": float(row["value"]) if "value" in row else None,
                           "lower": float(row["lower"]), "upper": float(row["upper"]),
                           "protected": bool(row["protected"])})
        unprotected = int((~report["protected"]).sum())
        return MeasureResult({
            "passed": bool(result.passed),
            "suppressed": len(report),
            "unprotected": unprotected,
            "cells": listed,
        })
