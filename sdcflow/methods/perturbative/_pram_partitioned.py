"""PRAM on partitioned data (the Dask engine): the categories of each variable and
their frequencies in each stratum are those of the whole data (one map-reduce round),
so the transition matrices are those the in-memory engine uses; each partition is then
PRAMmed with them (:meth:`sdcflow.methods.perturbative.pram.Pram._apply`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...data.strata import stratum_codes, stratum_members
from ...plugins.distribution import Rows


def pram_categories(col: pd.Series, var, rows: dict | None) -> list[str]:
    """The categories of a variable: observed (sorted as text; ordinal: declared order)
    and any the matrix names."""
    seen = {str(v) for v in col.unique() if not pd.isna(v)}
    if rows:
        seen |= set(rows)
        for row in rows.values():
            seen |= set(row)
    if var.type == "ordinal" and var.order:
        ordered = [c for c in var.order if c in seen]
        return ordered + sorted(seen - set(ordered))
    return sorted(seen)


class PartitionedPram:
    """The hooks of :class:`sdcflow.plugins.distribution.Distributable` for PRAM."""

    distribution = Rows(rounds=1)  # except sdcMicro's scheme (see distributes)

    def distributes(self, params, meta):
        names = self.variables(params, meta)
        if params.get("scheme") == "sdcmicro" and any(
                n not in params.get("matrix", {}) for n in names):
            return ("sdcMicro's scheme draws the matrix from the data of the whole file (not "
                    "on the Dask engine yet): give the matrix or use the default scheme")
        # the categories and their frequencies (per stratum) of the whole data first
        return Rows(rounds=1)

    def partial(self, rnd, data, params, state, *, original=None):
        """Per variable: the category counts of each stratum of the partition."""
        frame = data.frame
        groups, labels = stratum_codes(frame, self.strata(params, data.meta))
        out = {}
        for name in self.variables(params, data.meta):
            col = frame[name]
            counts = {}
            for g, rows in enumerate(stratum_members(groups, len(labels))):
                if len(rows):
                    values = col.iloc[rows].dropna()
                    counts[labels[g]] = values.map(str).value_counts().to_dict()
            out[name] = counts
        return {"counts": out, "variables": {n: data.variables[n] for n in out}}

    def combine(self, rnd, partials, params, state):
        """The categories of each variable (as :func:`pram_categories` finds them in the whole
        data) and their counts per stratum, as arrays over those categories."""
        given = params.get("matrix", {})
        fitted = {}
        for name, var in partials[0]["variables"].items():
            totals: dict = {}
            for part in partials:
                for label, counts in part["counts"][name].items():
                    into = totals.setdefault(label, {})
                    for c, k in counts.items():
                        into[c] = into.get(c, 0) + k
            seen = pd.Series(sorted({c for t in totals.values() for c in t}), dtype=object)
            categories = pram_categories(seen, var, given.get(name))
            index = {c: i for i, c in enumerate(categories)}
            t = {}
            for label, counts in totals.items():
                arr = np.zeros(len(categories))
                for c, k in counts.items():
                    arr[index[c]] = k
                t[label] = arr
            fitted[name] = {"categories": categories, "t": t}
        return fitted

    def apply_fitted(self, data, params, rng, state):
        return self._apply(data, params, rng, state)

    def combine_info(self, infos, params):
        """Changes and expected changes added up; the matrices are those of the global
        frequencies, which every partition reports for every stratum."""
        out = dict(infos[0])
        out.pop("percent_changed", None)
        out["changed"] = {v: sum(i["changed"][v] for i in infos) for v in out["changed"]}
        out["expected_changed"] = {v: round(sum(i["expected_changed"][v] for i in infos), 6)
                                   for v in out["expected_changed"]}
        return out
