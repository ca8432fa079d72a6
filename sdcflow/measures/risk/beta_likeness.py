"""``beta_likeness``: how much more frequent a sensitive value is within an equivalence
class of the key variables than in the whole table, relative to its overall frequency
(Cao & Karras (2012), "Publishing Microdata with a Robust Privacy Guarantee", PVLDB
5(11), basic beta-likeness): a class satisfies it when for every sensitive value with
overall frequency p and class frequency q > p, ``(q - p) / p <= beta``. The formula is in
:func:`sdcflow.kernels.privacy.models.beta_likeness`.

Equivalence classes are formed as in ``l_diversity``: records with exactly the same key
combination, a missing key value being a category of its own; each distinct sensitive
value is a category (missing values are left out)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ...data.codes import key_codes
from ...kernels.privacy.models import beta_likeness
from ...kernels.risk.frequencies import row_ids
from ...plugins.plain_words import figure
from ...plugins.registry import MeasureResult, register
from ...plugins.results import COUNT, NAMES, NUMBER, Record, by_variable
from ._class_summary import class_summary, score_stats
from .frequencies import VARIABLES_PARAM
from .l_diversity import SENSITIVE_PARAM, LDiversity


@register
class BetaLikeness(LDiversity):
    name = "beta_likeness"
    public_params = ("variables", "sensitive", "beta")
    risk_measure = True
    counts_combinations = True
    summary = ("Basic beta-likeness: the largest relative gain in frequency of a sensitive "
               "value within a key combination over the whole table.")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": VARIABLES_PARAM,
            "sensitive": SENSITIVE_PARAM,
            "beta": {
                "type": "number", "exclusiveMinimum": 0,
                "description": "Also count the records whose class gains more than beta.",
            },
        },
    }

    def explain(self, params, result):
        if not isinstance(result, dict) or "above_beta" not in result:
            return self.summary
        return (f"{figure(result['above_beta'])} records ({figure(result.get('above_beta_percent'))}"
                "%) are in groups of equal key values where a sensitive value is more than "
                f"{result.get('beta')} times more frequent, relatively, than in the whole "
                "table (beta-likeness; Cao & Karras 2012).")

    def result_shape(self, params, meta):
        stats = {"max": NUMBER, "mean": NUMBER}
        fields = {"variables": NAMES, "records": COUNT, "classes": COUNT}
        if params.get("beta") is not None:
            stats["above_beta"] = COUNT
            fields.update(beta=NUMBER, above_beta=COUNT, above_beta_percent=NUMBER)
        fields["sensitive"] = by_variable(self.sensitive(params, meta), Record(stats))
        return Record(fields)

    def evaluate(self, data, params, rng, *, original):
        """Per record ``beta_likeness_<var>``, the largest relative gain of its class; in
        the summary, per sensitive variable the largest (the table satisfies beta-likeness
        for every beta at least this) and the mean over the records and, with ``beta``,
        the records whose class gains more (``above_beta``; overall: on any sensitive
        variable)."""
        keys = self.variables(params, data.meta)
        sensitive = self.sensitive(params, data.meta)
        n = len(data)
        classes, rep = row_ids(key_codes(data.frame, keys))
        beta = params.get("beta")
        columns: dict[str, np.ndarray] = {}
        per_var: dict[str, dict] = {}
        above_any = np.zeros(n, dtype=bool)
        for name in sensitive:
            gain = (beta_likeness(classes, key_codes(data.frame, [name])[:, 0])[classes]
                    if n else np.zeros(0))
            columns[f"beta_likeness_{name}"] = gain
            above = None
            if beta is not None:
                above = gain > beta * (1 + 1e-12)  # a class exactly at beta satisfies it
                above_any |= above
            per_var[name] = score_stats(gain, above, "beta")
        summary = class_summary(keys, n, int(rep.size), per_var, "beta", beta, above_any)
        return MeasureResult(summary, pd.DataFrame(columns, index=data.frame.index))
