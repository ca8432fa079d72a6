"""``interval_disclosure``: the share of original values an intruder can bracket from the
protected values (Torra, "Data privacy: supervised approaches for disclosure risk
assessment", 2016, "Disclosure risk assessment": interval disclosure, quantitative
attribute disclosure; Torra, "Masking methods", 2013, "Rank swapping: Example II", ID;
Domingo-Ferrer & Torra 2001, "A quantitative comparison of disclosure control methods for
microdata").

A value is disclosed when (``kind: rank``, Domingo-Ferrer & Torra's rank intervals) the
original value falls into the interval of the protected values whose ranks differ by less
than ``p`` percent of the records from the rank of its protected value, or (``kind:
value``) the protected value is within ``p`` percent of the original value. Reported per
variable and over all values. Values missing in the original are not counted; a
protected value that is missing (e.g. suppressed) is counted as not disclosed.

``p`` may be a list: the measure is then averaged over its values, as the interval
disclosure ID of Domingo-Ferrer & Torra's SDC score (rank intervals for p = 1 .. 10 %),
which is the default: on the CASC Census file rank-swapped with p = 2, 4, 6, 8 % it
gives 94.5, 84.0, 73.6, 63.0 where Torra's table (CASC Census, "rs 2" .. "rs 8") prints
93.98, 83.09, 72.12, 62.11 (the swaps are random). ``by_p`` gives each p's figure and the
per-record columns the share of the p values at which each value is disclosed."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ...kernels.risk.interval_disclosure import interval_disclosure
from ...plugins.registry import Measure, MeasureResult, register
from ...plugins.results import (
    COUNT,
    NAMES,
    NUMBER,
    TEXT,
    ListOf,
    Text,
    by_values,
    by_variable,
    record,
    value_key,
)
from ..linkage.record_linkage import VARIABLES, check_variables, values
from ..reference import REFERENCE, same_records

ID_P = list(range(1, 11))  # Domingo-Ferrer & Torra's ID: rank intervals of 1 .. 10 %


@register
class IntervalDisclosure(Measure):
    name = "interval_disclosure"
    public_params = ("p", "kind", "variables", "reference")
    summary = ("Share of original values within an interval around their protected value "
               "(rank intervals of p% of the records, Domingo-Ferrer & Torra's ID, or p% of "
               "the value).")
    # 2: kind rank is Domingo-Ferrer & Torra's (the interval around the protected value,
    # ranks within p% of the records; was: ranks of both within p/2%); the default is
    # their ID, kind rank averaged over p = 1 .. 10 (was kind value, p = 10)
    version = "2"
    risk_measure = True
    types = ("integer", "continuous")
    default_roles = ("numeric",)
    default_numeric = True
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "p": {"anyOf": [
                      {"type": "number", "exclusiveMinimum": 0},
                      {"type": "array", "minItems": 1, "uniqueItems": True,
                       "items": {"type": "number", "exclusiveMinimum": 0}}],
                  "default": ID_P,
                  "description": "Width of the interval, in percent (of the number of "
                                 "records each side of the protected value's rank for kind "
                                 "rank, of the original value for kind value); a list: the "
                                 "figures are averaged over its values (default 1 .. 10: "
                                 "Domingo-Ferrer & Torra's ID)."},
            "kind": {"enum": ["rank", "value"], "default": "rank",
                     "description": "rank: the original value lies between the protected "
                                    "values whose ranks differ from the protected value's by "
                                    "less than p% of the records; value: |x' - x| <= p% of "
                                    "|x|."},
            "variables": VARIABLES,
            "reference": REFERENCE,
        },
    }

    def check(self, params, meta):
        return check_variables(params, self.variables(params, meta))

    pairs_records = True

    def result_shape(self, params, meta):
        names = self.variables(params, meta)
        if isinstance(params.get("p"), list):
            return record(p=ListOf(NUMBER), kind=Text(("rank", "value")), reference=TEXT,
                          variables=NAMES, percent=NUMBER, disclosed=NUMBER, values=COUNT,
                          per_variable=by_variable(names),
                          by_p=by_values("p", params["p"], record(
                              percent=NUMBER, disclosed=COUNT, per_variable=by_variable(names))))
        return record(p=NUMBER, kind=Text(("rank", "value")), reference=TEXT,
                      variables=NAMES, percent=NUMBER, disclosed=COUNT, values=COUNT,
                      per_variable=by_variable(names))

    def evaluate(self, data, params, rng, *, original):
        names = self.variables(params, data.meta)
        same_records(data, original, self.name)
        x, y = values(original, names), values(data, names)
        widths = params["p"] if isinstance(params["p"], list) else [params["p"]]
        runs = [interval_disclosure(x, y, p, params["kind"]) for p in widths]
        counted = runs[0][1]
        total = int(counted.sum())
        figures = [_figures(disclosed, counted, names) for disclosed, _ in runs]
        summary = {"p": params["p"], "kind": params["kind"],
                   "reference": params["reference"], "variables": names}
        if len(runs) == 1 and not isinstance(params["p"], list):
            summary.update(figures[0], values=total)
            frame = pd.DataFrame({name: runs[0][0][:, j] for j, name in enumerate(names)})
            frame["values_disclosed"] = runs[0][0].sum(axis=1).astype(np.int64)
            return MeasureResult(summary, frame)
        # averaged over p (Domingo-Ferrer & Torra 2001: ID over p = 1 .. 10 %)
        share = np.mean([d for d, _ in runs], axis=0)
        summary.update(
            percent=round(float(np.mean([f["percent"] for f in figures])), 6),
            disclosed=float(np.mean([f["disclosed"] for f in figures])),
            values=total,
            per_variable={name: round(float(np.mean([f["per_variable"][name]
                                                     for f in figures])), 6)
                          for name in names},
            by_p={value_key(p): f for p, f in zip(widths, figures)})
        frame = pd.DataFrame({name: share[:, j] for j, name in enumerate(names)})
        frame["values_disclosed"] = share.sum(axis=1)
        return MeasureResult(summary, frame)


def _figures(disclosed: np.ndarray, counted: np.ndarray, names: list[str]) -> dict:
    """Percent and count of disclosed values, overall and per variable, for one p."""
    per_var = {}
    for j, name in enumerate(names):
        k = int(counted[:, j].sum())
        per_var[name] = round(100.0 * float(disclosed[:, j].sum()) / k, 6) if k else 0.0
    total, hits = int(counted.sum()), int(disclosed.sum())
    return {"percent": round(100.0 * hits / total, 6) if total else 0.0,
            "disclosed": hits, "per_variable": per_var}
