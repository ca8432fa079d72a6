"""``k_anonymity``: how many records violate k-anonymity on the key variables, with the
per-record sample frequency ``fk`` (Torra, "Data privacy: supervised approaches for
disclosure risk assessment", 2016, k-anonymity; Templ, "Advanced Survey Statistics:
Disclosure Control", 2019, "Infos on 2/3-Anonymity").

A record violates k-anonymity when fewer than k records (itself included) share its key
combination, a missing value matching any value (see :mod:`sdcflow.kernels.risk.frequencies`
for the exact convention and sdcMicro's ``alpha``)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ...data.codes import key_codes
from ...data.key_table import (
    combine_tables,
    partial_table,
    strata_values,
    table_frequencies,
)
from ...data.strata import stratum_codes
from ...kernels.risk.frequencies import frequencies
from ...plugins.distribution import MapReduce
from ...plugins.plain_words import figure, get
from ...plugins.registry import Measure, MeasureResult, register, strata_param
from ...plugins.results import COUNT, NAMES, NUMBER, Keyed, Record, by_values
from .frequencies import ALPHA_PARAM, VARIABLES_PARAM, single_role


@register
class KAnonymity(Measure):
    name = "k_anonymity"
    public_params = ("k", "variables", "alpha", "strata")
    risk_measure = True
    counts_combinations = True
    summary = "Records violating k-anonymity on the key variables, with fk per record."
    roles = ("key",)
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "k": {
                "description": "The k (or several) to count violations for.",
                "anyOf": [
                    {"type": "integer", "minimum": 1},
                    {"type": "array", "minItems": 1, "items": {"type": "integer", "minimum": 1}},
                ],
                "default": [2, 3, 5],
            },
            "variables": VARIABLES_PARAM,
            "alpha": ALPHA_PARAM,
            "strata": strata_param("Count within each stratum and report violations per "
                                   "stratum"),
        },
    }

    default_roles = ("key",)
    stratified = True
    distribution = MapReduce(rounds=1)  # from the global table of key combinations

    def explain(self, params, result):
        violations = get(result, "violations")
        if not isinstance(violations, dict):
            return self.summary
        percent = get(result, "percent", {}) or {}
        parts = [f"{figure(v)} records ({figure(percent.get(k))}%) violate {k}-anonymity"
                 for k, v in violations.items()]
        return ("Records whose combination of key values is shared by fewer than k records "
                "can be singled out: " + "; ".join(parts) + ".")

    def reads(self, params, meta):
        return super().reads(params, meta) | set(meta.names("weight"))

    def check(self, params, meta):
        if not self.variables(params, meta):
            yield ("variables",), "no key variables: declare variables with role 'key'"
        yield from self.check_strata(params, meta)

    def check_data(self, params, data):
        ks = params["k"] if isinstance(params["k"], list) else [params["k"]]
        for i, k in enumerate(ks):
            if k > len(data):
                where = ("k", i) if isinstance(params["k"], list) else ("k",)
                yield where, f"k = {k} is larger than the number of records ({len(data)})"

    def result_shape(self, params, meta):
        ks = sorted(set(params["k"] if isinstance(params["k"], list) else [params["k"]]))
        fields = {"variables": NAMES, "alpha": NUMBER, "records": COUNT,
                  "violations": by_values("k", ks, COUNT),
                  "percent": by_values("k", ks, NUMBER)}
        if self.strata(params, meta):
            fields["strata"] = NAMES
            fields["by_stratum"] = Keyed(by_values("k", ks, COUNT), "stratum")
        return Record(fields)

    def evaluate(self, data, params, rng, *, original):
        keys = self.variables(params, data.meta)
        ks = sorted(set(params["k"] if isinstance(params["k"], list) else [params["k"]]))
        weight = single_role(data.meta, "weight")
        w = data.frame[weight].to_numpy(dtype=float, na_value=np.nan) if weight else None
        codes = key_codes(data.frame, keys)
        strata = self.strata(params, data.meta)
        if strata:
            # the stratum is part of every record's key: counts never cross strata
            stratum, names = stratum_codes(data.frame, strata)
            codes = np.column_stack([codes, stratum])
        fk, Fk = frequencies(codes, w, alpha=float(params["alpha"]))
        n = len(data)
        violations = {str(k): int((fk < k).sum()) for k in ks}
        summary = {
            "variables": keys,
            "alpha": params["alpha"],
            "records": n,
            "violations": violations,
            "percent": {k: round(100.0 * v / n, 3) if n else 0.0 for k, v in violations.items()},
        }
        if strata:
            summary["strata"] = strata
            # violations per stratum, by one count over the records for each k
            counts = {k: np.bincount(stratum, weights=fk < k, minlength=len(names)) for k in ks}
            summary["by_stratum"] = {str(name): {str(k): int(counts[k][i]) for k in ks}
                                     for i, name in enumerate(names)}
        per_record = pd.DataFrame({"fk": fk, "Fk": Fk}, index=data.frame.index)
        return MeasureResult(summary, per_record)

    # ------------------------------------------------------------ partitioned data
    def _names(self, params, meta):
        return self.variables(params, meta), self.strata(params, meta)

    def partial(self, rnd, data, params, state, *, original=None):
        keys, strata = self._names(params, data.meta)
        table = partial_table(data.frame, keys, strata, single_role(data.meta, "weight"))
        return table, len(data), keys, strata

    def combine(self, rnd, partials, params, state):
        keys, strata = partials[0][2], partials[0][3]
        table = combine_tables([p[0] for p in partials], keys, strata)
        return table, sum(p[1] for p in partials), keys, strata

    def finish(self, state, params):
        """The summary :meth:`evaluate` gives, from the global table of combinations."""
        table, n, keys, strata = state
        ks = sorted(set(params["k"] if isinstance(params["k"], list) else [params["k"]]))
        fk, _ = table_frequencies(table, keys, strata, float(params["alpha"]))
        count = table["n"].to_numpy(float)
        violations = {str(k): int(count[fk < k].sum()) for k in ks}
        summary = {
            "variables": keys, "alpha": params["alpha"], "records": n,
            "violations": violations,
            "percent": {k: round(100.0 * v / n, 3) if n else 0.0 for k, v in violations.items()},
        }
        if strata:
            stratum, names = stratum_codes(strata_values(table, strata), strata)
            summary["strata"] = strata
            counts = {k: np.bincount(stratum, weights=count * (fk < k), minlength=len(names))
                      for k in ks}
            summary["by_stratum"] = {str(name): {str(k): int(counts[k][i]) for k in ks}
                                     for i, name in enumerate(names)}
        return MeasureResult(summary, None)
