"""``reidentification_risk``: the prosecutor risk of re-identification as ARX reports it
(Prasser, Kohlmayer, Lautenschläger & Kuhn (2014), "ARX - A Comprehensive Tool for
Anonymizing Biomedical Data", AMIA Annual Symposium; El Emam (2013), "Guide to the
De-Identification of Personal Health Information"): an intruder who knows a record is in
the data picks one of the f records of its equivalence class, so the record is
re-identified with probability 1 / f. Reported: the average over the records (the
number of classes over the number of records), the largest, and the records whose risk
is above a threshold. The risk uses the sample class sizes, not a population model
(``individual_risk`` estimates that one).

Equivalence classes are formed as in ``l_diversity``: records with exactly the same key
combination, a missing key value being a category of its own."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import ClassVar

import numpy as np
import pandas as pd

from ...data.codes import key_codes
from ...data.dataset import Metadata
from ...kernels.privacy.models import reidentification_risk
from ...kernels.risk.frequencies import row_ids
from ...plugins.plain_words import figure
from ...plugins.registry import Finding, Measure, MeasureResult, register
from ...plugins.results import COUNT, NAMES, NUMBER, Record
from .frequencies import VARIABLES_PARAM, key_variables


@register
class ReidentificationRisk(Measure):
    name = "reidentification_risk"
    public_params = ("variables", "threshold")
    risk_measure = True
    counts_combinations = True
    summary = ("Prosecutor re-identification risk 1/f of each record in a class of f: the "
               "average, the largest and the records above a threshold.")
    roles = ("key",)
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": VARIABLES_PARAM,
            "threshold": {
                "type": "number", "exclusiveMinimum": 0, "maximum": 1,
                "description": "Also count the records whose risk is above this (e.g. 0.2: "
                               "in classes of fewer than 5 records).",
            },
        },
    }

    def explain(self, params, result):
        if not isinstance(result, dict) or "average" not in result:
            return self.summary
        return (f"An intruder who knows a person is in the data re-identifies on average "
                f"{figure(100 * result['average'])}% of the records by their key values (at "
                f"most {figure(100 * result['max'])}% for one record).")

    def variables(self, params: Mapping, meta: Metadata) -> list[str]:
        return key_variables(params, meta)

    def check(self, params: Mapping, meta: Metadata) -> Iterator[Finding]:
        if not self.variables(params, meta):
            yield ("variables",), "no key variables: declare variables with role 'key'"

    def result_shape(self, params, meta):
        fields = {"variables": NAMES, "records": COUNT, "classes": COUNT, "average": NUMBER,
                  "max": NUMBER}
        if params.get("threshold") is not None:
            fields.update(threshold=NUMBER, above_threshold=COUNT,
                          above_threshold_percent=NUMBER)
        return Record(fields)

    def evaluate(self, data, params, rng, *, original):
        """Per record ``reidentification_risk`` (1 / the size of its class); in the
        summary the ``average`` over the records, the ``max`` and, with ``threshold``,
        the records above it (``above_threshold``, ``above_threshold_percent``)."""
        keys = self.variables(params, data.meta)
        n = len(data)
        classes, rep = row_ids(key_codes(data.frame, keys))
        risk = reidentification_risk(classes)[classes] if n else np.zeros(0)
        summary: dict = {"variables": keys, "records": n,
                         "classes": int(rep.size) if n else 0,
                         "average": float(rep.size / n) if n else 0.0,
                         "max": float(risk.max()) if n else 0.0}
        threshold = params.get("threshold")
        if threshold is not None:
            above = risk > threshold * (1 + 1e-12)  # a risk exactly at it is not above
            summary["threshold"] = threshold
            summary["above_threshold"] = int(above.sum())
            summary["above_threshold_percent"] = (round(100.0 * above.sum() / n, 3)
                                                  if n else 0.0)
        return MeasureResult(summary, pd.DataFrame({"reidentification_risk": risk},
                                                   index=data.frame.index))
