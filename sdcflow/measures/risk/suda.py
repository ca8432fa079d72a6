"""``suda``: special uniques by the SUDA2 score (Manning, Haglin & Keane 2008; R
sdcMicro's ``suda2`` with its default ``original_scores = TRUE``).

A record's minimal sample uniques (MSUs) are the smallest sets of key variables on which
no other record shares its values; each MSU of k of the m keys adds ``(m - k)!`` to the
record's score (``prod_{i=k}^{M-1} (m - i)`` with MSUs limited to ``max_size = M``
variables). The summary also gives the attribute contribution of each key variable, and
each record gets its DIS-SUDA score (Elliot, Manning & Ford 2002; sdcMicro's
``disScore``), which turns the SUDA scores into probabilities of being a population
unique given the sampling fraction. A missing value matches any value; sampling weights
play no part (SUDA is about sample uniqueness). The computations are
:func:`sdcflow.kernels.risk.suda.suda_scores` and
:func:`sdcflow.kernels.risk.suda.dis_suda_scores`."""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
import pandas as pd

from ...data.codes import key_codes
from ...kernels.risk.suda import dis_probability, dis_suda_scores, suda_scores
from ...plugins.plain_words import figure
from ...plugins.registry import Measure, MeasureResult, register, variables_param
from ...plugins.results import COUNT, NAMES, NUMBER, Keyed, Record, by_values, by_variable

# The level-wise search visits every subset of at most max_size keys; beyond this many it
# would run for hours, so the recipe is refused with a hint instead.
MAX_SUBSETS = 1 << 16
# sdcMicro's print.suda2 table of DIS-SUDA scores: 0, then (0, 0.1], ..., (0.6, 0.7], > 0.7
DIS_BANDS = ("0", "(0, 0.1]", "(0.1, 0.2]", "(0.2, 0.3]", "(0.3, 0.4]", "(0.4, 0.5]",
             "(0.5, 0.6]", "(0.6, 0.7]", "> 0.7")


@register
class Suda(Measure):
    name = "suda"
    public_params = ("variables", "max_size", "threshold", "dis_fraction")
    risk_measure = True
    counts_combinations = True
    summary = "SUDA2 scores: minimal sample uniques per record and attribute contributions."
    roles = ("key",)
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": variables_param("Key variables (default: every variable with role key)."),
            "max_size": {
                "type": "integer", "minimum": 1,
                "description": "Largest MSU size searched (default: the number of variables).",
            },
            "threshold": {
                "type": "number",
                "description": "Also count the records whose score is above this value.",
            },
            "dis_fraction": {
                "type": "number", "exclusiveMinimum": 0, "maximum": 1, "default": 0.01,
                "description": "Sampling fraction of the DIS-SUDA score (sdcMicro's "
                               "DisFraction).",
            },
        },
    }

    default_roles = ("key",)
    version = "2"  # 2: DIS-SUDA scores added to the results

    def explain(self, params, result):
        if not isinstance(result, dict) or "records_with_msu" not in result:
            return self.summary
        return (f"{figure(result['records_with_msu'])} records have a minimal sample unique: a "
                "small combination of key values no other record shares (SUDA; Elliot, "
                "Manning & Ford 2002).")

    def check(self, params, meta):
        keys = self.variables(params, meta)
        if not keys:
            yield ("variables",), "no key variables: declare variables with role 'key'"
            return
        max_size = params.get("max_size")
        if max_size is not None and max_size > len(keys):
            yield ("max_size",), (f"max_size = {max_size} is larger than the number of "
                                  f"variables ({len(keys)})")
            return
        m = len(keys)
        subsets = sum(math.comb(m, k) for k in range(1, (max_size or m) + 1))
        if subsets > MAX_SUBSETS:
            yield ("max_size" if max_size else "variables",), (
                f"{m} variables with MSUs of up to {max_size or m} variables means "
                f"{subsets:,} variable subsets to search (at most {MAX_SUBSETS:,}): "
                "lower max_size or use fewer variables")

    def result_shape(self, params, meta):
        keys = self.variables(params, meta)
        fields = {"variables": NAMES, "max_size": COUNT, "records": COUNT,
                  "records_with_msu": COUNT,
                  "msu_by_size": Keyed(COUNT, "MSU size"),  # the sizes found in the data
                  "total_score": NUMBER, "mean_score": NUMBER, "max_score": NUMBER,
                  "contributions": by_variable(keys),
                  "dis_fraction": NUMBER, "dis": NUMBER, "max_dis_score": NUMBER,
                  "mean_dis_score": NUMBER,
                  "dis_score_bands": by_values("DIS-score interval", DIS_BANDS, COUNT)}
        if params.get("threshold") is not None:
            fields.update(threshold=NUMBER, above_threshold=COUNT)
        return Record(fields)

    def evaluate(self, data, params, rng, *, original):
        keys = self.variables(params, data.meta)
        result = suda_scores(key_codes(data.frame, keys), params.get("max_size"))
        score, n = result.score, len(data)
        codes = key_codes(data.frame, keys)
        dis_score = dis_suda_scores(score, codes, params["dis_fraction"])
        summary = {
            "variables": keys,
            "max_size": result.max_size,
            "records": n,
            "records_with_msu": int((result.msu_count > 0).sum()),
            "msu_by_size": {str(k): int(v) for k, v in result.msu_by_size.items()},
            "total_score": float(score.sum()),
            "mean_score": float(score.mean()) if n else 0.0,
            "max_score": float(score.max()) if n else 0.0,
            "contributions": {k: round(float(c), 3) for k, c in zip(keys, result.contribution)},
            "dis_fraction": params["dis_fraction"],
            "dis": dis_probability(codes, params["dis_fraction"]),
            "max_dis_score": float(dis_score.max()) if n else 0.0,
            "mean_dis_score": float(dis_score.mean()) if n else 0.0,
            "dis_score_bands": dis_bands(dis_score),
        }
        if params.get("threshold") is not None:
            summary["threshold"] = params["threshold"]
            summary["above_threshold"] = int((score > params["threshold"]).sum())
        per_record = pd.DataFrame({"suda_score": score, "msu_count": result.msu_count,
                                   "dis_score": dis_score}, index=data.frame.index)
        return MeasureResult(summary, per_record)


def dis_bands(dis_score: np.ndarray) -> dict[str, int]:
    """How many records fall in each band of sdcMicro's DIS-SUDA table."""
    band = np.where(dis_score <= 0, 0,
                    np.minimum(np.ceil(dis_score * 10 - 1e-9).astype(np.int64), 8))
    counts = np.bincount(band, minlength=len(DIS_BANDS))
    return {label: int(c) for label, c in zip(DIS_BANDS, counts)}
