"""``individual_risk``: each record's risk of re-identification from the frequencies of
its key combination (sdcMicro's ``indivRisk``/``measure_risk``; Franconi & Polettini
(2004), "Individual risk estimation in mu-Argus: a review"). The formulas are in
:func:`sdcflow.kernels.risk.risk.individual_risk`.

Also the base of the measures built on the individual risk (:class:`RiskMeasure`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np
import pandas as pd

from ...data.dataset import Dataset
from ...data.key_table import combine_tables, partial_table, table_frequencies
from ...kernels.risk.risk import METHODS, class_individual_risk, individual_risk
from ...plugins.distribution import MapReduce
from ...plugins.plain_words import figure
from ...plugins.registry import MeasureResult, register
from ...plugins.results import COUNT, NAMES, NUMBER, TEXT, ListOf, Record, Text
from .frequencies import ALPHA_PARAM, VARIABLES_PARAM, KeyFrequencyMeasure, weight_shape

RISK_PARAMS: dict = {
    "variables": VARIABLES_PARAM,
    "alpha": ALPHA_PARAM,
    "method": {
        "enum": list(METHODS), "default": "approx",
        "description": "Formula for fk > 2: the approximation p/(fk - (1-p)) or the exact "
                       "series (sdcMicro's indivRisk method).",
    },
    "qual": {
        "type": "number", "exclusiveMinimum": 0, "default": 1,
        "description": "Final correction factor the risk is multiplied by (sdcMicro's "
                       "qual; not applied without a weight variable).",
    },
    "threshold": {
        "type": "number", "minimum": 0,
        "description": "Also count the records whose risk is above this value.",
    },
}
UNWEIGHTED_NOTE = "no weight variable: the data are the population and the risk is 1/fk"


class RiskMeasure(KeyFrequencyMeasure):
    """A measure built on the individual risk of the key variables."""

    def risk(self, data: Dataset, params: Mapping) -> tuple[np.ndarray, dict]:
        """The individual risk per record and the summary fields that describe how it was
        computed (variables, alpha, weight, method, qual)."""
        # the risk once per key combination, spread to the records
        classes, fk, Fk, weight = self.class_key_frequencies(data, params)
        if weight is None:
            r = class_individual_risk(classes, fk)
        else:
            r = class_individual_risk(classes, fk, Fk, params["method"], float(params["qual"]))
        how = {
            "variables": self.variables(params, data.meta),
            "alpha": params["alpha"],
            "weight": weight,
            "method": params["method"] if weight else None,
            "qual": params["qual"] if weight else None,
        }
        if weight is None:
            how["note"] = UNWEIGHTED_NOTE
        return r, how


def risk_fields(plugin: KeyFrequencyMeasure, params: Mapping, meta) -> dict:
    """The shapes of the fields :meth:`RiskMeasure.risk` describes the risk with, and of
    :func:`above_threshold`'s."""
    weight = plugin.weight(meta)
    out = {"variables": NAMES, "alpha": NUMBER, "weight": weight_shape(weight),
           "method": weight_shape(weight, Text(tuple(METHODS))),
           "qual": weight_shape(weight, NUMBER), "records": COUNT}
    if weight is None:
        out["note"] = TEXT
    if params.get("threshold") is not None:
        out.update(threshold=NUMBER, above_threshold=COUNT, above_threshold_percent=NUMBER)
    return out


def above_threshold(values: np.ndarray, params: Mapping) -> dict:
    """``threshold`` and the number (and percent) of records whose value is above it,
    when the parameter is given."""
    if params.get("threshold") is None:
        return {}
    count = int((values > params["threshold"]).sum())
    n = values.size
    return {"threshold": params["threshold"], "above_threshold": count,
            "above_threshold_percent": round(100.0 * count / n, 3) if n else 0.0}


# ---------------------------------------------------------------- partitioned data
def _order_statistic(values: np.ndarray, counts: np.ndarray, k: int) -> float:
    """The k-th smallest (0-based) of the records, each value counted ``counts`` times."""
    order = np.argsort(values, kind="stable")
    cum = np.cumsum(counts[order])
    return float(values[order][np.searchsorted(cum, k + 1)])


def weighted_median(values: np.ndarray, counts: np.ndarray) -> float:
    """``np.median`` of the records, each value counted ``counts`` times (the mean of
    the two middle values for an even number)."""
    n = int(counts.sum())
    return 0.5 * (_order_statistic(values, counts, (n - 1) // 2)
                  + _order_statistic(values, counts, n // 2))


class _PartitionedRisk:
    """The individual risk on partitioned data: map-reduce of the table of key
    combinations (:mod:`sdcflow.data.key_table`)."""

    distribution = MapReduce(rounds=1)

    def partial(self, rnd, data, params, state, *, original=None):
        keys = self.variables(params, data.meta)
        weight = self.weight(data.meta)
        return partial_table(data.frame, keys, [], weight), keys, weight

    def combine(self, rnd, partials, params, state):
        keys, weight = partials[0][1], partials[0][2]
        return combine_tables([p[0] for p in partials], keys, []), keys, weight

    def finish(self, state, params) -> MeasureResult:
        return _risk_finish(state, params)


RISK_BANDS = (0.0, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)


def risk_bands(risk: np.ndarray, count: np.ndarray) -> dict:
    """The records in each band [a, b) of risk (the last band [0.5, 1] closed): the
    distribution the report draws, as sdcMicro's plot of individual risk does."""
    edges = np.array(RISK_BANDS)
    band = np.clip(np.searchsorted(edges, risk, side="right") - 1, 0, len(edges) - 2)
    records = np.bincount(band, weights=count, minlength=len(edges) - 1)
    return {"edges": list(RISK_BANDS), "records": [int(c) for c in np.rint(records)]}


def _risk_finish(state, params) -> MeasureResult:
    """The summary of :meth:`IndividualRisk.evaluate` from the global table of key
    combinations: the risk of a record is that of its combination, and the figures are
    counted over the records (each combination as many times as it has records)."""
    table, keys, weight = state
    fk, Fk = table_frequencies(table, keys, [], float(params["alpha"]))
    count = table["n"].to_numpy(float)
    keep = count > 0
    fk, Fk, count = fk[keep], Fk[keep], count[keep]
    if weight is None:
        r = individual_risk(fk)
    else:
        r = individual_risk(fk, Fk, params["method"], float(params["qual"]))
    n = int(count.sum())
    how = {"variables": keys, "alpha": params["alpha"], "weight": weight,
           "method": params["method"] if weight else None,
           "qual": params["qual"] if weight else None}
    if weight is None:
        how["note"] = UNWEIGHTED_NOTE
    summary = {**how, "records": n}
    if n:
        median = weighted_median(r, count)
        mad = 1.4826 * weighted_median(np.abs(r - median), count)
        summary.update({"max": float(r.max()), "mean": float(np.dot(r, count) / n),
                        "median": median,
                        "high_risk": int(count[(r > median + 3 * mad) & (r > 0.1)].sum())})
    else:
        summary.update({"max": None, "mean": None, "median": None, "high_risk": 0})
    summary["distribution"] = risk_bands(r, count)
    if params.get("threshold") is not None:
        above = int(count[r > params["threshold"]].sum())
        summary.update({"threshold": params["threshold"], "above_threshold": above,
                        "above_threshold_percent": round(100.0 * above / n, 3) if n else 0.0})
    return MeasureResult(summary, None)



@register
class IndividualRisk(_PartitionedRisk, RiskMeasure):
    name = "individual_risk"
    public_params = ("variables", "alpha", "method", "qual", "threshold")
    risk_measure = True
    counts_combinations = True
    summary = "Individual re-identification risk of each record (sdcMicro's indivRisk)."
    version = "2"  # 2: the distribution of the risk in bands (for the report)
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": RISK_PARAMS,
    }

    def explain(self, params, result):
        if not isinstance(result, dict) or result.get("max") is None:
            return self.summary
        text = ("The risk that an intruder who knows a record's key values re-identifies it "
                "(Benedetti & Franconi 1998, as sdcMicro's indivRisk): highest "
                f"{figure(result['max'])}, mean {figure(result.get('mean'))}.")
        if "above_threshold" in result:
            text += (f" {figure(result['above_threshold'])} records lie above the threshold "
                     f"{figure(result.get('threshold'))}.")
        return text

    def result_shape(self, params, meta):
        # (max, mean and median are null without records)
        return Record({**risk_fields(self, params, meta), "max": NUMBER.with_null(),
                       "mean": NUMBER.with_null(), "median": NUMBER.with_null(),
                       "high_risk": COUNT, "distribution": Record(
                           {"edges": ListOf(NUMBER), "records": ListOf(COUNT)})})

    def evaluate(self, data, params, rng, *, original):
        """The risk per record and its distribution: ``max``, ``mean``, ``median``,
        ``high_risk`` (records with risk above both median + 3 MAD and 0.1, the rule of
        sdcMicro's ``print.indivRisk``; MAD scaled by 1.4826 as R's ``mad``), and with a
        ``threshold`` the records above it."""
        r, how = self.risk(data, params)
        n = r.size
        summary = {**how, "records": n}
        if n:
            median = float(np.median(r))
            mad = 1.4826 * float(np.median(np.abs(r - median)))
            summary.update({
                "max": float(r.max()), "mean": float(r.mean()), "median": median,
                "high_risk": int(((r > median + 3 * mad) & (r > 0.1)).sum()),
            })
        else:
            summary.update({"max": None, "mean": None, "median": None, "high_risk": 0})
        summary["distribution"] = risk_bands(r, np.ones(n))
        summary.update(above_threshold(r, params))
        return MeasureResult(summary, pd.DataFrame({"risk": r}, index=data.frame.index))

