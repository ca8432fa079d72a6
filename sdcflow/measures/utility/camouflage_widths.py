"""``camouflage_widths``: the information lost by camouflage (Gopal, Garfinkel & Goes,
"Confidentiality via camouflage", Operations Research 2002): a point answer becomes an
interval answer. For each camouflaged variable ``v`` (released as ``v_lo``, ``v_hi`` by
the ``camouflage`` method) it reports the widths of the record intervals, absolute and
relative to the true values (those of the original data, read although ``v`` is gone
from the data measured), and checks that every interval holds its value; ``queries`` are answered as intervals over the camouflage set by linear
programming (:func:`sdcflow.kernels.perturbative.camouflage.query_interval`), with their
width and the exact answer, which each must contain.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ...kernels.perturbative.camouflage import STATISTICS, interval_widths, query_interval
from ...methods.perturbative.camouflage import bound_names
from ...plugins.registry import Measure, MeasureResult, register
from ...plugins.results import COUNT, FLAG, NUMBER, TEXT, Keyed, ListOf, record
from ..reference import same_records

_QUERY = {
    "type": "object",
    "additionalProperties": False,
    "required": ["variable"],
    "properties": {
        "variable": {"type": "string", "description": "The camouflaged variable queried."},
        "statistic": {"enum": list(STATISTICS), "default": "sum",
                      "description": "The statistic of the variable the query asks for."},
        "where": {"type": "object", "additionalProperties": {
                      "anyOf": [{"type": ["string", "number"]},
                                {"type": "array", "minItems": 1,
                                 "items": {"type": ["string", "number"]}}]},
                  "description": "The records queried: variable -> value or list of "
                                 "values (default: every record)."},
    },
}
_WIDTHS = record(records=COUNT, mean_width=NUMBER.with_null(),
                 mean_relative_width=NUMBER.with_null(),
                 median_relative_width=NUMBER.with_null(), contained=COUNT)
_ANSWER = record(variable=TEXT, statistic=TEXT, records=COUNT, low=NUMBER.with_null(),
                 high=NUMBER.with_null(), width=NUMBER.with_null(),
                 relative_width=NUMBER.with_null(), exact=NUMBER.with_null(),
                 contains_exact=FLAG.with_null())


@register
class CamouflageWidths(Measure):
    name = "camouflage_widths"
    public_params = ("camouflaged", "queries", "total_known")
    risk_measure = False
    summary = ("Widths of camouflage intervals and interval answers to sum/mean queries "
               "(by linear programming).")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["camouflaged"],
        "properties": {
            "camouflaged": {"type": "array", "minItems": 1, "uniqueItems": True,
                            "items": {"type": "string"},
                            "description": "The variables the camouflage step replaced by "
                                           "<v>_lo and <v>_hi."},
            "queries": {"type": "array", "items": _QUERY, "default": [],
                        "description": "Sum or mean queries answered as intervals."},
            "total_known": {"type": "boolean", "default": False,
                            "description": "Answer queries as if each variable's exact "
                                           "total were published too (a linear fact that "
                                           "narrows the camouflage set)."},
        },
    }

    pairs_records = True

    def variables(self, params, meta):
        return []  # the camouflaged variables are gone from the data: see reads()

    def reads(self, params, meta):
        out = {b for name in params.get("camouflaged", []) for b in bound_names(name)}
        for query in params.get("queries", []):
            out |= set(query.get("where", {}))
        return out

    def reference_reads(self, params):
        return set(params.get("camouflaged", []))

    def check(self, params, meta):
        names = params.get("camouflaged", [])
        for i, name in enumerate(names):
            missing = [b for b in bound_names(name) if b not in meta.variables]
            if missing:
                yield ("camouflaged", i), (f"no variable {' or '.join(repr(m) for m in missing)}"
                                           f": '{name}' is not camouflaged before this step")
        for i, query in enumerate(params.get("queries", [])):
            if query.get("variable") not in names:
                yield ("queries", i, "variable"), (f"'{query.get('variable')}' is not among "
                                                   "the camouflaged variables")
            for column in query.get("where", {}):
                if column not in meta.variables:
                    yield ("queries", i, "where", column), (f"'{column}' is not a variable "
                                                            "at this step")

    def result_shape(self, params, meta):
        return record(total_known=FLAG,
                      variables=Keyed(_WIDTHS, "variable",
                                      tuple(params.get("camouflaged", []))),
                      queries=ListOf(_ANSWER))

    def evaluate(self, data, params, rng, *, original):
        same_records(data, original, self.name)
        bounds, widths = {}, {}
        for name in params["camouflaged"]:
            lo_name, hi_name = bound_names(name)
            lo = data.frame[lo_name].to_numpy(dtype=float, na_value=np.nan)
            hi = data.frame[hi_name].to_numpy(dtype=float, na_value=np.nan)
            x = original.frame[name].to_numpy(dtype=float, na_value=np.nan)
            bounds[name] = (lo, hi, x)
            widths[name] = interval_widths(lo, hi, x)
        answers = [self._answer(data, query, bounds, params["total_known"])
                   for query in params["queries"]]
        return MeasureResult({"total_known": params["total_known"],
                              "variables": widths, "queries": answers})

    @staticmethod
    def _answer(data, query, bounds, total_known) -> dict:
        name, statistic = query["variable"], query.get("statistic", "sum")
        lo, hi, x = bounds[name]
        selected = np.ones(len(lo), dtype=bool)
        for column, wanted in query.get("where", {}).items():
            selected &= _matches(data.frame[column], wanted)
        known = ~(np.isnan(lo) | np.isnan(hi) | np.isnan(x))
        chosen = selected & known
        if not chosen.any():  # no answer: nothing to hide nor to bound
            return {"variable": name, "statistic": statistic, "records": 0, "low": None,
                    "high": None, "width": None, "relative_width": None, "exact": None,
                    "contains_exact": None}
        total = float(x[known].sum()) if total_known else None
        low, high = query_interval(np.where(known, lo, np.nan), np.where(known, hi, np.nan),
                                   chosen, statistic=statistic, total=total)
        exact = float(x[chosen].sum() if statistic == "sum" else x[chosen].mean())
        return {"variable": name, "statistic": statistic, "records": int(chosen.sum()),
                "low": low, "high": high, "width": high - low,
                "relative_width": (high - low) / abs(exact) if exact else None,
                "exact": exact, "contains_exact": bool(low <= exact <= high)}

    def public_summary(self, summary, params):
        """Without the exact answers (they are what camouflage hides)."""
        queries = [{k: v for k, v in q.items() if k not in ("exact", "relative_width")}
                   for q in summary["queries"]]
        return {**summary, "queries": queries}


def _matches(col: pd.Series, wanted) -> np.ndarray:
    """The records whose value of ``col`` is ``wanted`` or one of a list of values: a
    numeric column compares numbers (``"3"`` and ``3.0`` are 3), a text column text
    (``1`` and ``1.0`` are ``"1"``); a missing value matches nothing."""
    values = wanted if isinstance(wanted, list) else [wanted]
    if pd.api.types.is_numeric_dtype(col.dtype):
        numbers = []
        for v in values:
            try:
                numbers.append(float(v))
            except ValueError:
                continue  # text that is no number matches no number
        return np.isin(col.to_numpy(dtype=float, na_value=np.nan), numbers)
    texts = [str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)
             for v in values]
    return col.isin(texts).fillna(False).to_numpy(dtype=bool)
