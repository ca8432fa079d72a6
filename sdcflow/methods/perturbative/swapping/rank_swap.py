"""``rank_swap``: rank swapping of numeric and ordinal variables, each variable separately,
and the p-buckets and p-distribution variants that resist the transparency attack (Torra,
"Data privacy: supervised approaches for disclosure risk assessment", 2016, "Rank swapping",
"Avoiding Transparency Attack in Rank Swapping"; Torra, "Masking methods", 2013, "Rank
swapping"). The algorithm is :mod:`sdcflow.kernels.perturbative.swapping.rank_swap`.

Ranks: by value (an ordinal variable by the position of its category in the declared
order), ties broken by record position. Missing values are not ranked, not swapped and
stay missing; ``p`` is a percentage of the non-missing values (of the stratum).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ....data.codes import ordered_values
from ....data.strata import stratum_codes, stratum_members
from ....kernels.perturbative.swapping.rank_swap import VARIANTS, rank_swap, rank_window
from ....plugins.plain_words import figure, get, names, total, values_changed
from ....plugins.registry import (
    Method,
    MethodResult,
    register,
    strata_param,
    unchanged,
    variables_param,
)

_MAX_LISTED_STRATA = 50
# what limits the partner choice, per variant, as reported in the manifest
_REACH = {"standard": "rank_window", "p_buckets": "bucket_size",
          "p_distribution": "offset_mean_and_sd"}


@register
class RankSwap(Method):
    name = "rank_swap"
    # p stays internal: it bounds how far a value moved, which is what the transparency
    # attack on rank swapping uses (Nin, Herranz & Torra 2008; rank_swap_attack assumes
    # the worst, an intruder who knows it), and analysts need no p to use the data
    public_params = ("variables", "variant", "strata")
    protects = True
    permutes = True  # values move between records; each column keeps its values
    summary = "Swap each value with another whose rank differs by at most p% of the records."
    version = "2"  # 2: uniforms drawn in bounded pools (the stream after the first variable moved)
    roles = ("numeric", "key", "sensitive")
    types = ("integer", "continuous", "ordinal")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": variables_param("Variables swapped, each separately (default: "
                                         "every variable with role numeric)."),
            "p": {"type": "number", "exclusiveMinimum": 0, "maximum": 100, "default": 5,
                  "description": "Largest rank distance of a swap, in percent of the "
                                 "records (Torra 2016); p_buckets: the bucket size; "
                                 "p_distribution: twice the mean rank distance."},
            "variant": {"enum": list(VARIANTS), "default": "standard",
                        "description": "standard (partner within p% of the ranks above), "
                                       "p_buckets or p_distribution (Torra 2016: every rank "
                                       "reachable, against the transparency attack)."},
            "strata": strata_param("Swap within strata"),
        },
    }

    default_roles = ("numeric",)
    stratified = True
    strata_conflict = "'{name}' is swapped, so it cannot also define strata"

    def explain(self, params, result):
        variables = params.get("variables") or list(get(result, "changed", {}) or {})
        # (the external report knows no p: it is internal)
        reach = (f"at most {figure(params['p'])}% of the records" if "p" in params
                 else "at most p% of the records (p is kept internal)")
        text = (f"Values of {names(variables) or 'the numeric variables'} were swapped between "
                f"records whose ranks differ by {reach} (rank swapping; Moore 1996).")
        changed = total(get(result, "changed"))
        if changed is not None:
            text += " " + values_changed(changed, result)
        return text

    def check(self, params, meta):
        names = self.variables(params, meta)
        if not names:
            yield ("variables",), "no variables: name them or declare variables with role numeric"
        yield from self.check_strata(params, meta)
        for name in names:
            var = meta.variables.get(name)
            if var is not None and var.type == "ordinal" and not var.order:
                yield ("variables",), f"the ordinal variable '{name}' has no declared order"

    def check_data(self, params, data):
        if params.get("variant", "standard") != "standard":
            return
        groups, _ = stratum_codes(data.frame, self.strata(params, data.meta))
        for name in self.variables(params, data.meta):
            if name not in data.frame:
                continue
            valid = data.frame[name].notna().to_numpy()
            largest = int(np.bincount(groups[valid]).max()) if valid.any() else 0
            if largest >= 2 and rank_window(largest, params["p"]) < 1:
                yield ("p",), (f"p = {params['p']:g}% of at most {largest} values of '{name}'"
                               " (per stratum) is less than one rank: no value can be "
                               f"swapped; p must be at least {100 / largest:.4g}")

    def outputs(self, params, meta):
        return unchanged(self.variables(params, meta), meta)  # values swapped, not changed

    def apply(self, data, params, rng):
        frame = data.frame
        names = self.variables(params, data.meta)
        strata = self.strata(params, data.meta)
        groups, labels = stratum_codes(frame, strata)
        members = stratum_members(groups, len(labels)) if len(labels) > 1 else None
        del groups
        p, variant = float(params["p"]), params["variant"]
        columns, changed, reach = {}, {}, {}
        for name in names:
            var = data.variables[name]
            col = frame[name]
            keys = ordered_values(col, var)
            per_stratum = {}
            if members is None:  # one stratum: no copies of the keys by stratum
                source = rank_swap(keys, p, rng, variant)
                per_stratum[labels[0]] = _reach(int((~np.isnan(keys)).sum()), p, variant)
            else:
                source = np.arange(len(col), dtype=np.int64)
            for g, rows in enumerate(members or []):
                if len(rows) == 0:
                    continue
                source[rows] = rows[rank_swap(keys[rows], p, rng, variant)]
                per_stratum[labels[g]] = _reach(int((~np.isnan(keys[rows])).sum()), p,
                                                variant)
            del keys
            new = pd.Series(col.array.take(source), index=col.index, name=name)
            diff = (new != col).fillna(False).to_numpy(dtype=bool) & col.notna().to_numpy()
            changed[name] = int(diff.sum())
            columns[name] = new
            if not strata:
                reach[name] = per_stratum.get("all", 0)
            elif len(per_stratum) <= _MAX_LISTED_STRATA:
                reach[name] = per_stratum
        n = len(frame)
        info = {
            "variant": variant,
            "p": p,
            "changed": changed,
            "percent_changed": {v: round(100.0 * c / n, 3) if n else 0.0
                                for v, c in changed.items()},
            _REACH[variant]: reach,
        }
        if strata:
            info["strata"] = len(labels)
        return MethodResult(data.with_columns(columns), info)


def _reach(n: int, p: float, variant: str):
    """The parameter of the partner choice for ``n`` ranked values: the largest rank
    distance (standard), the bucket size (p_buckets), the mean = sd of the rank offset
    (p_distribution)."""
    if variant == "p_distribution":
        return round(0.5 * p * n / 100.0, 6)
    w = rank_window(n, p)
    return max(w, 1) if variant == "p_buckets" else w




