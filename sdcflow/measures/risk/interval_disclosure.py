"""``interval_disclosure``: the share of protected values so close to the original value that
publishing them discloses it approximately (seed 003_fc14c51a27fe5611.txt, "Disclosure
risk assessment": interval disclosure, quantitative attribute disclosure; seed
000_1eece6b9d3791e64.txt, "Rank swapping: Example II", ID; Domingo-Ferrer & Torra 2001,
"A quantitative comparison of disclosure control methods for microdata").

A value is disclosed when (``kind: value``) the protected value is within ``p`` percent
of the original value, or (``kind: rank``) their ranks among the original values differ
by at most half of ``p`` percent of the records (a rank interval holding p% of the
records centred on the original's rank). Reported per variable and over all values.
Values missing in the original are not counted; a protected value that is missing (e.g.
suppressed) is counted as not disclosed."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ...kernels.risk.interval_disclosure import interval_disclosure
from ...registry import Measure, MeasureResult, register
from ...results import COUNT, NAMES, NUMBER, TEXT, Text, by_variable, record
from ..linkage.record_linkage import VARIABLES, check_variables, values
from ..reference import REFERENCE, same_records


@register
class IntervalDisclosure(Measure):
    name = "interval_disclosure"
    summary = "Share of protected values within p% (of the value, or of the ranks) of the original."
    types = ("integer", "continuous")
    default_roles = ("numeric",)
    default_numeric = True
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "p": {"type": "number", "exclusiveMinimum": 0, "default": 10,
                  "description": "Width of the interval, in percent (of the original value, "
                                 "or of the number of records for kind rank)."},
            "kind": {"enum": ["value", "rank"], "default": "value",
                     "description": "value: |x' - x| <= p% of |x|; rank: rank distance at most "
                                    "p% of the records / 2."},
            "variables": VARIABLES,
            "reference": REFERENCE,
        },
    }

    def check(self, params, meta):
        return check_variables(params, self.variables(params, meta))

    pairs_records = True

    def result_shape(self, params, meta):
        return record(p=NUMBER, kind=Text(("value", "rank")), reference=TEXT,
                      variables=NAMES, percent=NUMBER, disclosed=COUNT, values=COUNT,
                      per_variable=by_variable(self.variables(params, meta)))

    def evaluate(self, data, params, rng, *, original):
        names = self.variables(params, data.meta)
        same_records(data, original, self.name)
        disclosed, counted = interval_disclosure(values(original, names), values(data, names),
                                                 params["p"], params["kind"])
        per_var = {}
        for j, name in enumerate(names):
            k = int(counted[:, j].sum())
            per_var[name] = round(100.0 * disclosed[:, j].sum() / k, 6) if k else 0.0
        total = int(counted.sum())
        hits = int(disclosed.sum())
        summary = {
            "p": params["p"],
            "kind": params["kind"],
            "reference": params["reference"],
            "variables": names,
            "percent": round(100.0 * hits / total, 6) if total else 0.0,
            "disclosed": hits,
            "values": total,
            "per_variable": per_var,
        }
        frame = pd.DataFrame({name: disclosed[:, j] for j, name in enumerate(names)})
        frame["values_disclosed"] = disclosed.sum(axis=1).astype(np.int64)
        return MeasureResult(summary, frame)
