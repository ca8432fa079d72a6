"""``l_diversity``: how diverse the sensitive values are within each equivalence class
of the key variables (Machanavajjhala, Kifer, Gehrke & Venkitasubramaniam (2007),
"l-Diversity: Privacy Beyond k-Anonymity"; sdcMicro's ``ldiversity``): distinct and
entropy l-diversity per record, for each sensitive variable, and with ``c`` recursive
(c, l)-diversity. The formulas are in :mod:`sdcflow.kernels.privacy.models`.

An equivalence class is the set of records with exactly the same key combination; a
missing key value is a category of its own here (two records with a missing age are
in one class, a record with a missing age is not in the class of age 30), unlike
``fk``, where a missing value matches any value."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import ClassVar

import numpy as np
import pandas as pd

from ...data.codes import key_codes
from ...data.dataset import Metadata
from ...errors import did_you_mean
from ...kernels.privacy.models import recursive_l_diversity
from ...kernels.risk.frequencies import row_ids
from ...kernels.risk.risk import l_diversity
from ...plugins.plain_words import figure
from ...plugins.registry import Finding, Measure, MeasureResult, register, variables_param
from ...plugins.results import COUNT, NAMES, NUMBER, Record, by_variable
from .frequencies import VARIABLES_PARAM, key_variables

# the sensitive variables of the class measures (l-diversity, t-closeness, beta-likeness)
SENSITIVE_PARAM = variables_param("Sensitive variables (default: every variable with role "
                                  "sensitive).", unique=False)

@register
class LDiversity(Measure):
    name = "l_diversity"
    public_params = ("variables", "sensitive", "l", "c")
    risk_measure = True
    counts_combinations = True
    summary = "Distinct and entropy l-diversity of sensitive variables within key combinations."
    roles = ("key",)
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": VARIABLES_PARAM,
            "sensitive": SENSITIVE_PARAM,
            "l": {
                "type": "integer", "minimum": 1,
                "description": "Also count the records whose distinct l-diversity is "
                               "below l.",
            },
            "c": {
                "type": "number", "exclusiveMinimum": 0,
                "description": "With l: also test recursive (c, l)-diversity, r_1 < c (r_l + "
                               "... + r_m) over the counts of a class's sensitive values "
                               "sorted descending, and count the records whose class fails.",
            },
        },
    }

    def explain(self, params, result):
        if not isinstance(result, dict) or "below_l" not in result:
            return self.summary
        return (f"{figure(result['below_l'])} records ({figure(result.get('below_l_percent'))}%) "
                f"are in groups of equal key values with fewer than {result.get('l')} "
                "distinct values of the sensitive variable: for them the sensitive value can "
                "be guessed (l-diversity; Machanavajjhala et al. 2007).")

    def named_variables(self, params: Mapping) -> list[tuple[tuple, str]]:
        out = super().named_variables(params)
        if isinstance(params.get("sensitive"), list):
            out.extend((("sensitive", i), v) for i, v in enumerate(params["sensitive"])
                       if isinstance(v, str))
        return out

    def variables(self, params: Mapping, meta: Metadata) -> list[str]:
        return key_variables(params, meta)

    def sensitive(self, params: Mapping, meta: Metadata) -> list[str]:
        """The sensitive variables: ``params["sensitive"]``, else those with role sensitive."""
        if params.get("sensitive"):
            return list(params["sensitive"])
        return meta.names("sensitive")

    def reads(self, params: Mapping, meta: Metadata) -> set[str]:
        return set(self.variables(params, meta)) | set(self.sensitive(params, meta))

    def check(self, params: Mapping, meta: Metadata) -> Iterator[Finding]:
        yield from self.check_recursive(params)
        keys = self.variables(params, meta)
        if not keys:
            yield ("variables",), "no key variables: declare variables with role 'key'"
        if not params.get("sensitive"):
            if not self.sensitive(params, meta):
                yield (), ("no sensitive variables: declare variables with role 'sensitive' "
                           "or name them in 'sensitive'")
            return
        for i, name in enumerate(params["sensitive"]):
            if name not in meta.variables:
                if name not in meta.broken:  # already reported where it is declared
                    yield ("sensitive", i), (f"'{name}' is not a declared variable"
                                             f"{did_you_mean(name, meta.variables)}")
            elif name in keys:
                # sdcMicro refuses this too: the class would always have one value
                yield ("sensitive", i), (f"'{name}' is a key variable; a sensitive variable "
                                         "must not be one of the keys")

    def check_recursive(self, params: Mapping) -> Iterator[Finding]:
        """``c`` needs ``l`` (recursive (c, l)-diversity)."""
        if params.get("c") is not None and params.get("l") is None:
            yield ("c",), ("recursive (c, l)-diversity needs l too: give 'l' (the number of "
                           "values whose counts r_l + ... + r_m must outweigh r_1 / c)")

    def result_shape(self, params, meta):
        l_wanted = params.get("l")
        # (the minima are null without records)
        stats = {"distinct_min": COUNT.with_null(), "entropy_min": NUMBER.with_null()}
        fields = {"variables": NAMES, "records": COUNT, "classes": COUNT}
        if l_wanted is not None:
            stats["below_l"] = COUNT
            fields.update(l=COUNT, below_l=COUNT, below_l_percent=NUMBER)
        if params.get("c") is not None:
            stats["not_recursive"] = COUNT
            fields.update(c=NUMBER, not_recursive=COUNT, not_recursive_percent=NUMBER)
        fields["sensitive"] = by_variable(self.sensitive(params, meta), Record(stats))
        return Record(fields)

    def evaluate(self, data, params, rng, *, original):
        """Per record ``l_distinct_<var>`` and ``l_entropy_<var>``; in the summary, the
        number of equivalence ``classes`` and, for each sensitive variable, the smallest
        distinct and entropy l over the records and, with ``l``, the number of records
        whose distinct l is below it (``below_l``; overall: below l for at least one
        sensitive variable). With ``c`` too, per record ``l_recursive_<var>``, the ratio
        ``r_1 / (r_l + ... + r_m)`` of its class (infinite with fewer than l values; the
        class is (c, l)-diverse when it is below c) and the records whose class is not
        (``not_recursive``, per variable and overall)."""
        keys = self.variables(params, data.meta)
        sensitive = self.sensitive(params, data.meta)
        classes, rep = row_ids(key_codes(data.frame, keys))
        n = len(data)
        l_wanted = params.get("l")
        columns: dict[str, np.ndarray] = {}
        by_variable: dict[str, dict] = {}
        c = params.get("c")
        below_any = np.zeros(n, dtype=bool)
        not_recursive_any = np.zeros(n, dtype=bool)
        for var in sensitive:
            codes = key_codes(data.frame, [var])[:, 0]
            distinct, entropy = l_diversity(classes, codes)
            columns[f"l_distinct_{var}"] = distinct
            columns[f"l_entropy_{var}"] = entropy
            stats: dict = {
                "distinct_min": int(distinct.min()) if n else None,
                "entropy_min": float(entropy.min()) if n else None,
            }
            if l_wanted is not None:
                below = distinct < l_wanted
                below_any |= below
                stats["below_l"] = int(below.sum())
            if c is not None and l_wanted is not None:
                ratio = (recursive_l_diversity(classes, codes, l_wanted)[classes] if n
                         else np.zeros(0))
                columns[f"l_recursive_{var}"] = ratio
                failed = ~(ratio < c)
                not_recursive_any |= failed
                stats["not_recursive"] = int(failed.sum())
            by_variable[var] = stats
        summary: dict = {
            "variables": keys,
            "records": n,
            "classes": int(rep.size) if n else 0,
            "sensitive": by_variable,
        }
        if l_wanted is not None:
            summary["l"] = l_wanted
            summary["below_l"] = int(below_any.sum())
            summary["below_l_percent"] = round(100.0 * below_any.sum() / n, 3) if n else 0.0
        if c is not None and l_wanted is not None:
            summary["c"] = c
            summary["not_recursive"] = int(not_recursive_any.sum())
            summary["not_recursive_percent"] = (round(100.0 * not_recursive_any.sum() / n, 3)
                                                if n else 0.0)
        return MeasureResult(summary, pd.DataFrame(columns, index=data.frame.index))
