"""``interval_disclosure``: the share of protected values so close to the original value
that publishing them discloses it approximately (Torra, "Data privacy: supervised approaches
for disclosure risk assessment", 2016, "Disclosure risk assessment": interval disclosure,
quantitative attribute disclosure; Torra, "Masking methods", 2013, "Rank swapping: Example
II", ID; Domingo-Ferrer & Torra 2001, "A quantitative comparison of disclosure control
methods for microdata").

A value is disclosed when (``kind: value``) the protected value is within ``p`` percent
of the original value, or (``kind: rank``) their ranks among the original values differ
by at most half of ``p`` percent of the records (a rank interval holding p% of the
records centred on the original's rank). Reported per variable and over all values.
Values missing in the original are not counted; a protected value that is missing (e.g.
suppressed) is counted as not disclosed.

``p`` may be a list: the measure is then averaged over its values, as the interval
disclosure ID of Domingo-Ferrer & Torra's SDC score (rank intervals for p = 1 .. 10 %:
``p: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], kind: rank``); ``by_p`` gives each p's figure and
the per-record columns the share of the p values at which each value is disclosed."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ...kernels.risk.interval_disclosure import interval_disclosure
from ...registry import Measure, MeasureResult, register
from ...results import COUNT, NAMES, NUMBER, TEXT, ListOf, Text, by_values, by_variable, record
from ..linkage.record_linkage import VARIABLES, check_variables, values
from ..reference import REFERENCE, same_records


@register
class IntervalDisclosure(Measure):
    name = "interval_disclosure"
    public_params = ("p", "kind", "variables", "reference")
    summary = "Share of protected values within p% (of the value, or of the ranks) of the original."
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
                  "default": 10,
                  "description": "Width of the interval, in percent (of the original value, "
                                 "or of the number of records for kind rank); a list: the "
                                 "figures are averaged over its values."},
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
        names = self.variables(params, meta)
        if isinstance(params.get("p"), list):
            return record(p=ListOf(NUMBER), kind=Text(("value", "rank")), reference=TEXT,
                          variables=NAMES, percent=NUMBER, disclosed=NUMBER, values=COUNT,
                          per_variable=by_variable(names),
                          by_p=by_values("p", params["p"], record(
                              percent=NUMBER, disclosed=COUNT, per_variable=by_variable(names))))
        return record(p=NUMBER, kind=Text(("value", "rank")), reference=TEXT,
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
            by_p={_p_key(p): f for p, f in zip(widths, figures)})
        frame = pd.DataFrame({name: share[:, j] for j, name in enumerate(names)})
        frame["values_disclosed"] = share.sum(axis=1)
        return MeasureResult(summary, frame)


def _p_key(p: float) -> str:
    """A p as the key of ``by_p`` (as ``by_values`` names it: 2.0 -> '2')."""
    return str(int(p)) if float(p).is_integer() else str(p)


def _figures(disclosed: np.ndarray, counted: np.ndarray, names: list[str]) -> dict:
    """Percent and count of disclosed values, overall and per variable, for one p."""
    per_var = {}
    for j, name in enumerate(names):
        k = int(counted[:, j].sum())
        per_var[name] = round(100.0 * float(disclosed[:, j].sum()) / k, 6) if k else 0.0
    total, hits = int(counted.sum()), int(disclosed.sum())
    return {"percent": round(100.0 * hits / total, 6) if total else 0.0,
            "disclosed": hits, "per_variable": per_var}
