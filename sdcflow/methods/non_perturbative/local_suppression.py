"""``local_suppression``: k-anonymity on the key variables by suppressing (setting to
missing) as few values as possible, with per-variable importance or costs, per stratum, and
the all-M approach of sdcMicro's ``kAnon`` (Templ, "Advanced Survey Statistics: Disclosure
Control", 2019, "Local suppression", "all-M approach", "Stratification"). The search is
:func:`sdcflow.kernels.non_perturbative.local_suppression.suppress_to_k`."""

from __future__ import annotations

import itertools
import math
from typing import ClassVar

import numpy as np
import pandas as pd

from ...data.codes import key_codes
from ...data.households import household_units, spread_missing
from ...data.key_table import combine_tables, partial_table, stratum_column
from ...data.strata import stratum_codes, stratum_members
from ...kernels.non_perturbative.local_suppression import suppress_to_k
from ...kernels.risk.frequencies import frequencies
from ...plugins.distribution import Rows, Whole, sum_info
from ...plugins.limits import MAX_COMBINATIONS, over
from ...plugins.plain_words import figure
from ...plugins.registry import (
    Method,
    MethodResult,
    register,
    strata_param,
    unchanged,
    variables_param,
)


@register
class LocalSuppression(Method):
    distribution = Rows(rounds=1)  # household-level keys: collected (see distributes)
    name = "local_suppression"
    public_params = ("k", "variables", "importance", "costs", "alpha", "strata", "all_m")
    protects = True
    summary = "Suppress as few key values as possible to reach k-anonymity (or all-M)."
    makes_missing = True
    # 2: a household-level value suppressed for one member is for all; 3: importance
    # lexicographic, every suppression reconsidered (restored or traded) at the end
    version = "3"
    households = "spread"
    roles = ("key",)
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "k": {"type": "integer", "minimum": 1, "default": 2,
                  "description": "Every record must share its key values with k records."},
            "variables": variables_param(
                "Key variables (default: every variable with role key).", unique=False),
            "importance": {
                # (ranks beyond the number of key variables add nothing: the bound only
                # keeps the schema finite)
                "type": "object",
                "additionalProperties": {"type": "integer", "minimum": 1, "maximum": 100},
                "description": "As sdcMicro: 1 = most important (suppressed last); "
                               "variables not listed are suppressed first. Followed "
                               "lexicographically: a more important variable is suppressed "
                               "only where suppressing less important ones cannot reach k.",
            },
            "costs": {
                # sums of costs must stay finite (and far from the float limit)
                "type": "object",
                "additionalProperties": {"type": "number", "exclusiveMinimum": 0,
                                         "maximum": 1e100},
                "description": "Cost of one suppression per variable (default 1): the "
                               "search suppresses the cheaper values first.",
            },
            "alpha": {"type": "number", "minimum": 0, "maximum": 1, "default": 1,
                      "description": "Weight of matches through missing values (sdcMicro's "
                                     "alpha)."},
            "strata": strata_param("Reach k-anonymity within each stratum"),
            "all_m": {
                "type": "array", "minItems": 1,
                "items": {"type": "object", "additionalProperties": False,
                          "required": ["size", "k"],
                          "properties": {"size": {"type": "integer", "minimum": 1,
                                                  "description": "How many key variables "
                                                                 "each combination has."},
                                         "k": {"type": "integer", "minimum": 1,
                                               "description": "The k those combinations "
                                                              "must reach."}}},
                "description": "All-M approach: k-anonymity on every combination of 'size' "
                               "key variables, for each {size, k}, in order.",
            },
        },
        "not": {"required": ["importance", "costs"]},
        "x-error": "give either 'importance' or 'costs', not both",
    }

    default_roles = ("key",)
    stratified = True

    def explain(self, params, result):
        text = (f"Key values were suppressed (made missing), as few and as unimportant as "
                f"possible, until every combination of key values is shared by at least "
                f"{params.get('k')} records ({params.get('k')}-anonymity).")
        if isinstance(result, dict) and "total" in result:
            text += f" {figure(result['total'])} values were suppressed"
            if result.get("unresolved_records"):
                text += (f"; {figure(result['unresolved_records'])} records could not be made "
                         "safe")
            text += "."
        return text

    def check(self, params, meta):
        keys = self.variables(params, meta)
        if not keys:
            yield ("variables",), "no key variables: declare variables with role 'key'"
        for field in ("importance", "costs"):
            for name in params.get(field, {}):
                if name not in keys:
                    yield (field, name), f"'{name}' is not one of the key variables {keys}"
        yield from self.check_strata(params, meta)
        passes = 0
        for i, spec in enumerate(params.get("all_m", [])):
            if spec["size"] > len(keys):
                yield ("all_m", i, "size"), (f"size {spec['size']} is larger than the number of"
                                             f" key variables ({len(keys)})")
            else:
                passes += math.comb(len(keys), spec["size"])
        if passes > MAX_COMBINATIONS:
            yield ("all_m",), (f"the combinations of {len(keys)} key variables make "
                               f"{over(passes, 'suppression passes', MAX_COMBINATIONS)}")

    def check_data(self, params, data):
        ks = [params["k"]] + [s["k"] for s in params.get("all_m", [])]
        for k in ks:
            if k > len(data):
                yield ("k",), f"k = {k} is larger than the number of records ({len(data)})"

    def costs(self, params, keys: list[str]) -> np.ndarray:
        """Per-variable suppression costs (``costs``; default 1)."""
        given = params.get("costs", {})
        return np.array([float(given.get(v, 1.0)) for v in keys])

    def importance(self, params, keys: list[str]) -> np.ndarray:
        """Per-variable rank, followed lexicographically by the kernel (1 = most
        important); variables not ranked share one rank after every ranked one. Without
        ``importance`` every variable has rank 1."""
        imp = params.get("importance", {})
        last = max(imp.values(), default=0) + 1
        return np.array([int(imp.get(v, last)) for v in keys], dtype=np.int64)

    def outputs(self, params, meta):
        return unchanged(self.variables(params, meta), meta)  # values only become missing

    @staticmethod
    def _household_columns(data, keys: list[str]):
        """(household numbers, count, positions among ``keys``) of the household-level
        keys, or None."""
        ids = [n for n in data.meta.names("household") if n in data.frame]
        cols = [j for j, k in enumerate(keys) if data.variables[k].level == "household"]
        if len(ids) != 1 or not cols:
            return None
        units, count = household_units(data.frame[ids[0]])
        return units, count, cols

    # ------------------------------------------------------------ partitioned data
    def distributes(self, params, meta):
        keys = self.variables(params, meta)
        if any(meta.variables[k].level == "household" for k in keys if k in meta.variables):
            return Whole()  # a suppression spreads to the household: the keys collected
        return Rows(rounds=1)  # decided on the global table of key combinations

    def partial(self, rnd, data, params, state, *, original=None):
        keys = self.variables(params, data.meta)
        return partial_table(data.frame, keys, self.strata(params, data.meta), None)

    def combine(self, rnd, partials, params, state):
        """The suppressions of every combination of the global table, found as
        :meth:`apply` finds them on the records (the search sees records only through
        their combinations and counts)."""
        keys = list(partials[0].columns[:-2])
        strata = [c for c in keys if c.startswith(stratum_column(""))]
        keys = [c for c in keys if c not in strata]
        table = combine_tables(partials, keys, [c[len(stratum_column("")):] for c in strata])
        original = key_codes(table, keys)
        codes = original.copy()
        counts = table["n"].to_numpy(float)
        costs = self.costs(params, keys)
        importance = self.importance(params, keys)
        alpha = float(params["alpha"])
        groups = (pd.DataFrame({c: pd.factorize(table[c], sort=True, use_na_sentinel=False)[0]
                                for c in strata}).groupby(strata, sort=True).indices
                  if strata else {(): np.arange(len(table))})
        unresolved = 0
        for rows in groups.values():
            sub = codes[rows]
            for cols, k in self._requirements(params, len(keys)):
                sub[:, cols] = suppress_to_k(sub[:, cols], k, alpha=alpha, costs=costs[cols],
                                             importance=importance[cols],
                                             counts=counts[rows]).codes
            codes[rows] = sub
            violating = np.zeros(len(rows), dtype=bool)
            for cols, k in self._requirements(params, len(keys)):
                _, fk = frequencies(sub[:, cols], counts[rows], alpha=alpha)
                violating |= fk < k - 1e-9
            unresolved += int(counts[rows][violating].sum())
        suppressed = (codes < 0) & (original >= 0)
        return table[keys + strata], suppressed, unresolved

    @staticmethod
    def _requirements(params, m: int) -> list:
        passes = ([(s["size"], s["k"]) for s in params["all_m"]] if params.get("all_m")
                  else [(m, params["k"])])
        return [(cols, k) for size, k in passes
                for cols in map(list, itertools.combinations(range(m), size))]

    def apply_fitted(self, data, params, rng, state):
        """The suppressions of each record's combination in the global table."""
        table, suppressed, unresolved = state
        keys = self.variables(params, data.meta)
        names = list(table.columns)
        mine = pd.DataFrame({n: data.frame[n if n in keys else n[len(stratum_column("")):]]
                             .reset_index(drop=True) for n in names})
        where = mine.merge(table.assign(_row=np.arange(len(table))), on=names, how="left")
        rows = where["_row"].to_numpy()
        mask = suppressed[rows]
        columns = {}
        for j, name in enumerate(keys):
            col = data.frame[name]
            if mask[:, j].any():
                col = col.mask(pd.Series(mask[:, j], index=col.index))
            columns[name] = col
        per_var = {name: int(mask[:, j].sum()) for j, name in enumerate(keys)}
        info = {"suppressions": per_var, "total": int(mask.sum()),
                "unresolved_records": unresolved}
        return MethodResult(data.with_columns(columns), info)

    def combine_info(self, infos, params):
        out = sum_info(infos)
        out["unresolved_records"] = infos[0]["unresolved_records"]  # global, not summed
        return out

    def apply(self, data, params, rng):
        keys = self.variables(params, data.meta)
        original = key_codes(data.frame, keys)
        codes = original.copy()
        costs = self.costs(params, keys)
        importance = self.importance(params, keys)
        strata = self.strata(params, data.meta)
        groups, labels = stratum_codes(data.frame, strata)
        alpha = float(params["alpha"])
        passes = ([(s["size"], s["k"]) for s in params["all_m"]] if params.get("all_m")
                  else [(len(keys), params["k"])])
        # each requirement: the key columns of one combination and its k
        requirements = [(cols, k) for size, k in passes
                        for cols in map(list, itertools.combinations(range(len(keys)), size))]
        members = list(stratum_members(groups, len(labels) if len(data) else 0))
        household = self._household_columns(data, keys)
        # (no records: no stratum to visit, although the labels name "all")
        while True:
            for rows in members:
                sub = codes[rows]
                for cols, k in requirements:
                    sub[:, cols] = suppress_to_k(sub[:, cols], k, alpha=alpha,
                                                 costs=costs[cols],
                                                 importance=importance[cols]).codes
                codes[rows] = sub
            if household is None:
                break
            # A household-level value suppressed for one member is suppressed for every
            # member (else the others would give it away). With alpha < 1 a suppression
            # can lower other records' frequencies, so suppress again until nothing moves.
            units, count, cols = household
            spread = codes.copy()
            spread[:, cols] = spread_missing(codes[:, cols], units, count)
            if (spread == codes).all():
                break
            codes = spread
        # verify every requirement on the final values (a later pass cannot undo an
        # earlier one, but say so if some stratum is simply too small)
        violating = np.zeros(len(data), dtype=bool)
        for rows in members:
            for cols, k in requirements:
                fk, _ = frequencies(codes[rows][:, cols], alpha=alpha)
                violating[rows[fk < k - 1e-9]] = True
        suppressed = (codes < 0) & (original >= 0)
        columns = {}
        for j, name in enumerate(keys):
            col = data.frame[name]
            if suppressed[:, j].any():
                col = col.mask(pd.Series(suppressed[:, j], index=col.index))
            columns[name] = col
        n = len(data)
        per_var = {name: int(suppressed[:, j].sum()) for j, name in enumerate(keys)}
        info = {
            "suppressions": per_var,
            "percent": {name: round(100.0 * v / n, 3) if n else 0.0 for name, v in per_var.items()},
            "total": int(suppressed.sum()),
            "unresolved_records": int(violating.sum()),
        }
        return MethodResult(data.with_columns(columns), info)
