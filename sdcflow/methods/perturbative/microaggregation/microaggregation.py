"""``microaggregation``: replace the values of groups of k .. 2k-1 similar records by a
representative (Torra 2013, "Microaggregation", MDAV, optimal univariate, projected; Templ
2019, MDAV and individual ranking; Torra 2011, fuzzy microaggregation and edit constraints).

Edit constraints drive the grouping and the representative of each variable (V. Torra,
"Constrained microaggregation: adding constraints for data editing", Transactions on Data
Privacy 1(2), 2008): the variables related by a constraint are microaggregated together,
and :mod:`sdcflow.constraints.representatives` chooses for each variable the
representative that keeps the constraints on it (the arithmetic mean for linear
relations, the geometric mean of each factor for products, the lower median, an existing
value, for "values exist in the domain"; single-variable ranges are kept by all three);
the records are partitioned first on the condition of an if/then constraint (unless
that leaves a part with fewer than k records: groups of k come first, and the constraint
is reported as not kept); comparisons with a column's mean, sum or count ("IF age < 17
THEN income < mean(income)") are kept by the arithmetic mean, which keeps those. The
requested ``aggregation`` applies wherever no constraint needs another representative.
The manifest says, per variable, which representative was used and which constraints it
keeps, and lists the constraints that cannot be kept (e.g. overconstrained) with the
reason: nothing is reported that was not done.

``fuzzy_c_means`` is fuzzy microaggregation for the transparency principle (V. Torra,
Journal of Applied Logic, 2017: each record replaced by the centre of a cluster drawn
with its fuzzy c-means memberships); ``aggregation: trim / onestep`` are sdcMicro's
robust means; missing values follow sdcMicro's ``mdav`` (see
:mod:`sdcflow.kernels.perturbative.microaggregation.mdav_missing`) and stay missing.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ....constraints.representatives import parts
from ....data.codes import key_codes, numeric_column, ordered_values
from ....data.strata import stratum_codes, stratum_members
from ....data.text import text_column
from ....kernels.perturbative.microaggregation.fuzzy import fuzzy_weights
from ....kernels.perturbative.microaggregation.fuzzy_c_means import (
    fuzzy_c_means,
    fuzzy_centres,
    random_assignment,
)
from ....kernels.risk.frequencies import frequencies
from ....plugins.distribution import Groups
from ....plugins.plain_words import names
from ....plugins.progress import step_progress
from ....plugins.registry import (
    Method,
    MethodResult,
    Output,
    numeric_output,
    register,
    strata_param,
    variables_param,
)
from ._microaggregation_algorithms import (
    WITH_MISSING,
    _aggregate,
    _labels,
    _scaled,
    _sse_sst,
    neighbour_problems,
    observed_counts,
)
from ._microaggregation_groups import PER_VARIABLE, _text, base_variables, plan_groups

ALGORITHMS = ("mdav", "optimal_univariate", "projected", "individual_ranking", "fuzzy",
              "fuzzy_c_means")


def _part_progress(report, before: int, size: int, total: int):
    """What a part of ``size`` records reports to the step's ``report`` (fraction of
    ``total`` records), ``before`` records having been grouped before it; None if nobody
    listens."""
    if report is None:
        return None
    return lambda fraction: report((before + fraction * size) / total)


@register
class Microaggregation(Method):
    # within each stratum (its records brought together); without strata, the whole data
    distribution = Groups()
    name = "microaggregation"
    # microaggregation's parameters are published (the groups of k equal values show in
    # the release anyway)
    public_params = (
        "k", "variables", "groups", "algorithm", "standardize", "aggregation", "trim",
        "constraints", "strata", "projection", "fuzziness", "neighbours",
    )
    protects = True
    summary = "Replace groups of k..2k-1 similar records by their representative."
    # 2: representatives chosen per constraint part (a range no longer forces the mean on
    # a domain variable; aggregation: median yields to linear constraints); fuzzy weights
    # of a group lying on other prototypes are equal instead of NaN; a missing value never
    # satisfies a partitioning condition; 3: comparisons with a column's mean, sum or
    # count kept (partitioned on their condition, arithmetic means); a condition leaving
    # a part below k no longer partitions (its constraint reported as not kept)
    version = "3"
    roles = ("numeric", "key", "sensitive")
    types = ("integer", "continuous", "ordinal", "categorical")
    stratified = True
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "k": {"type": "integer", "minimum": 1, "default": 3,
                  "description": "Group size: every group has k .. 2k-1 records."},
            "variables": variables_param("Variables aggregated together (default: every "
                                         "numeric variable).", unique=False),
            "groups": {"type": "array", "minItems": 1,
                       "items": {"type": "array", "minItems": 1, "items": {"type": "string"}},
                       "description": "Sets of variables each microaggregated separately."},
            "algorithm": {"enum": list(ALGORITHMS), "default": "mdav",
                          "description": "How the groups are formed: mdav (all variables "
                                         "together, as sdcMicro), optimal_univariate (one "
                                         "variable, optimal), projected (on a projection "
                                         "of the variables), individual_ranking (each "
                                         "variable alone), fuzzy or fuzzy_c_means "
                                         "(fuzzy microaggregation)."},
            "standardize": {"enum": ["zscore", "range", "robust", "none"],
                            "default": "zscore",
                            "description": "Scaling of the variables for the distances "
                                           "(zscore: as sdcMicro)."},
            "aggregation": {"enum": ["mean", "median", "trim", "onestep"], "default": "mean",
                            "description": "Representative of the numeric variables, except "
                                           "where a declared constraint needs another one to "
                                           "be kept (the manifest says which and why); trim "
                                           "and onestep: sdcMicro's robust means."},
            "trim": {"type": "number", "minimum": 0, "exclusiveMaximum": 0.5, "default": 0.1,
                     "description": "aggregation: trim: the fraction of values dropped at "
                                    "each end of a group (as R's mean(x, trim))."},
            "constraints": {"type": "boolean", "default": True,
                            "description": "Let the edit constraints group the variables, "
                                           "choose the aggregation and partition records."},
            "strata": strata_param("Microaggregate within strata"),
            "projection": {"type": "array", "items": {"type": "number"},
                           "description": "projected: the direction (default: the first "
                                          "principal component)."},
            # memberships take distance ratios to the power 2 / (m - 1) and weights
            # mu ** m: outside [1.1, 100] they overflow or vanish in 64-bit floats
            "fuzziness": {"type": "number", "minimum": 1.1, "maximum": 100, "default": 2,
                          "description": "fuzzy, fuzzy_c_means: the exponent m of fuzzy "
                                         "c-means (1.1 to 100)."},
            "neighbours": {"type": "integer", "minimum": 1, "default": 5,
                           "description": "fuzzy, fuzzy_c_means: prototypes a membership "
                                          "is relative to."},
        },
        "not": {"required": ["variables", "groups"]},
        "x-error": "give 'variables' or 'groups', not both",
    }

    def explain(self, params, result):
        groups = params.get("groups") or ([params["variables"]] if params.get("variables")
                                          else [])
        which = "; ".join(names(g) for g in groups) or "the numeric variables"
        return (f"Records were put into groups of at least {params.get('k')} similar records "
                f"({str(params.get('algorithm', 'mdav')).upper()}), and the values of "
                f"{which} were replaced by their group's {params.get('aggregation', 'mean')}, "
                "so that no record stands out (Domingo-Ferrer & Mateo-Sanz 2002).")

    # --- which variables, in which groups, aggregated how ---------------------------
    def variables(self, params, meta):
        return [v for g in plan_groups(params, meta).groups for v in g.variables]

    def reads(self, params, meta):
        conditions = plan_groups(params, meta).conditions
        cond_vars = set().union(*(c.variables for c in conditions)) if conditions else set()
        return super().reads(params, meta) | cond_vars

    def outputs(self, params, meta):
        # categories stay categories (plurality, lower median); a numeric variable gets
        # group representatives: integer while they are whole (e.g. medians), else continuous
        out = {}
        for name in self.variables(params, meta):
            var = meta.variables.get(name)
            if var is not None:
                out[name] = numeric_output(var) if var.is_numeric else Output(var)
        return out

    # --- checks -------------------------------------------------------------------------
    def check(self, params, meta):
        names = [v for g in base_variables(params, meta) for v in g]
        if not names:
            yield ("variables",), "no variables: name them or declare variables with role numeric"
        if len(names) != len(set(names)):
            yield ("groups",), "a variable is in two groups"
        yield from self.check_strata(params, meta)
        plan = plan_groups(params, meta)
        groups = plan.groups
        if params.get("algorithm") in PER_VARIABLE and params.get("constraints", True):
            aggregated = {v for g in groups for v in g.variables}
            for c in meta.constraints:
                for part in parts(c, _text(c.variables, meta)):
                    if len(part.variables & aggregated) > 1:
                        yield ("algorithm",), (
                            f"{params['algorithm']} groups each variable separately, so it "
                            f"cannot keep constraint '{c.id}' ({part.text}): use mdav, "
                            "projected or fuzzy, or set constraints: false")
                        break
        if params.get("algorithm") == "projected" and "projection" in params:
            for g in groups:
                width = sum(1 for v in g.variables if meta.variables.get(v) is not None
                            and meta.variables[v].type != "categorical")
                if len(params["projection"]) != width:
                    yield ("projection",), (f"the projection needs {width} coefficients, one "
                                            "per variable")
        if params.get("algorithm") == "fuzzy_c_means":
            for g in groups:
                for v, (kind, _) in g.aggregation.items():
                    if kind != "mean":
                        yield ("algorithm",), (
                            f"fuzzy_c_means replaces records by cluster centres, weighted "
                            f"means: '{v}' needs the {kind} (its type, 'aggregation' or a "
                            "constraint); use another algorithm, or leave the variable out")
        for g in groups:
            if all(meta.variables.get(v) is not None and meta.variables[v].type == "categorical"
                   for v in g.variables):
                yield ("variables",), (f"the group {g.variables} has no numeric or ordinal "
                                       "variable to measure distances")

    def warnings(self, params, meta):
        sets, one_by_one = _key_sets(params, meta)
        if sets:
            shown = " | ".join(", ".join(s) for s in sets)
            where = ("algorithm",) if one_by_one else ("groups",)
            how = (f"one by one by {params['algorithm']} ({shown})" if one_by_one else
                   f"in separate sets ({shown})")
            yield where, (f"the key variables are microaggregated {how}: each set's values "
                          f"are shared by k records, but their combination need not be, so "
                          "the records need not be k-anonymous on them (the step's info "
                          "counts those whose combination fewer than k share); aggregate "
                          "them together with mdav, projected or fuzzy for k-anonymity")

    def check_data(self, params, data):
        if params["k"] > len(data):
            yield ("k",), f"k = {params['k']} is larger than the number of records ({len(data)})"
        elif params.get("algorithm") in ("fuzzy", "fuzzy_c_means"):
            yield from neighbour_problems(len(data), params["k"], params["neighbours"],
                                          params["algorithm"])
        for g in plan_groups(params, data.meta).groups:
            for v in g.variables:
                if v not in data.frame:
                    continue
                missing = data.frame[v].isna().to_numpy()
                if missing.any() and params.get("algorithm", "mdav") not in WITH_MISSING:
                    rows = ", ".join(str(r + 1) for r in np.flatnonzero(missing)[:5])
                    yield ("variables",), (f"'{v}' has {int(missing.sum())} missing values "
                                           f"(records {rows}); {params['algorithm']} needs "
                                           "complete values (mdav, individual_ranking and "
                                           "optimal_univariate take missing values)")
                elif len(missing) and missing.all():
                    yield ("variables",), f"'{v}' has no observed value"
                kind, offset = g.aggregation[v]
                if kind == "geometric":
                    bad = (data.frame[v].to_numpy(dtype=float, na_value=np.nan) + offset) <= 0
                    if bad.any():
                        rows = ", ".join(str(r + 1) for r in np.flatnonzero(bad)[:5])
                        yield ("variables",), (f"the geometric mean of '{v}' needs "
                                               f"{v} + {offset:g} > 0 (records {rows})")

    # --- the work -----------------------------------------------------------------------
    def apply(self, data, params, rng):
        plan = plan_groups(params, data.meta)
        groups, conditions, notes = plan.groups, plan.conditions, plan.notes
        frame = data.frame
        k = params["k"]
        partition, unsplit = self._partition(data, params, conditions)
        columns: dict[str, pd.Series] = {}
        new_vars = []
        group_info = []
        sse_total, sst_total = 0.0, 0.0
        small = 0
        thin: dict[str, int] = {}  # variable -> groups whose value rests on < k observed
        parts = stratum_members(partition, int(partition.max(initial=-1)) + 1)
        report = step_progress()
        done, total = 0, max(len(groups) * len(frame), 1)  # records grouped, of all
        for g in groups:
            numeric = [v for v in g.variables if data.variables[v].type != "categorical"]
            Z = np.column_stack([_scaled(frame[v], data.variables[v], params["standardize"])
                                 for v in numeric])
            values = {v: np.empty(len(frame)) for v in g.variables}
            # what each aggregation works on: category codes, ordinal ranks or the values
            categories, source = {}, {}
            for v in g.variables:
                var = data.variables[v]
                if var.type == "categorical":
                    source[v], categories[v] = pd.factorize(frame[v], sort=True)
                else:
                    source[v] = ordered_values(frame[v], var)
            clusters = 0
            for rows in parts:
                if len(rows) < k:
                    small += len(rows)
                Zr = Z[rows]
                per_var = _labels(Zr, k, params, numeric,
                                  _part_progress(report, done, len(rows), total))
                clusters += int(per_var[None].max()) + 1 if len(rows) else 0
                if params["algorithm"] == "fuzzy_c_means" and len(rows):
                    sse, sst = _fuzzy_c_means(Zr, per_var[None], source, g.variables, rows,
                                              values, params, rng)
                    sse_total += sse
                    sst_total += sst
                    done += len(rows)
                    if report is not None:
                        report(done / total)
                    continue
                # fuzzy memberships belong to the group's one partition: once per part
                weights = (fuzzy_weights(Zr, per_var[None], m=params["fuzziness"],
                                         neighbours=params["neighbours"])
                           if params["algorithm"] == "fuzzy" and len(rows) else None)
                for v in g.variables:
                    labels = per_var.get(v, per_var[None])
                    values[v][rows] = _aggregate(source[v][rows], labels, g.aggregation[v],
                                                 weights)
                    if len(rows) >= k:  # representatives on fewer than k observed values
                        thin[v] = thin.get(v, 0) + int(np.count_nonzero(observed_counts(
                            source[v][rows], labels, g.aggregation[v][0]) < k))
                sse, sst = _sse_sst(Zr, per_var, numeric)
                sse_total += sse
                sst_total += sst
                done += len(rows)
                if report is not None:
                    report(done / total)
            for v in g.variables:
                col, var = self._column(values[v], frame[v], data.variables[v],
                                        categories.get(v))
                columns[v] = col
                new_vars.append(var)
            group_info.append(g.as_dict() | {"groups_formed": clusters})
        info = {"algorithm": params["algorithm"], "k": k, "groups": group_info,
                "sse_over_sst": round(sse_total / sst_total, 6) if sst_total else 0.0}
        if conditions:
            info["partitioned_on"] = [c.id for c in conditions if c.id not in unsplit]
        if small:
            info["records_in_parts_smaller_than_k"] = small
        if any(thin.values()):
            # missing values stay missing (as sdcMicro), so a group's representative may
            # rest on fewer than k observed values: said, not hidden
            info["groups_with_fewer_than_k_observed"] = {v: c for v, c in thin.items() if c}
        if plan.choice is not None and (plan.choice.kept or plan.choice.not_kept):
            info["constraints_kept"] = [c for c in plan.choice.kept if c not in unsplit]
            info["constraints_not_kept"] = {**plan.choice.not_kept, **unsplit}
        sets, _ = _key_sets(params, data.meta)
        if sets:
            keys = [v for g in sets for v in g]
            fk, _ = frequencies(key_codes(pd.DataFrame({v: columns[v] for v in keys}), keys))
            below = int((fk < k).sum())
            info["key_sets"] = {"sets": sets, "records_below_k": below}
            if below:
                notes = [*notes, (f"{below} records share their combination of the key "
                                 f"variables ({', '.join(keys)}) with fewer than {k - 1} "
                                 "others: microaggregated separately, they are not "
                                 "k-anonymous")]
        if notes:
            info["notes"] = notes
        return MethodResult(data.with_columns(columns, new_vars), info)

    def _partition(self, data, params, conditions) -> tuple[np.ndarray, dict[str, str]]:
        """The part of each record (strata, then the conditions of if/then constraints,
        Shlomo & de Waal 2008), and the conditions not partitioned on, with the reason:
        a condition that would leave a part (of a stratum of at least k records) with
        fewer than k records would make a group smaller than k, so groups of at least k
        come first and its constraint is reported as not kept."""
        keys = []
        strata = self.strata(params, data.meta)
        k = params["k"]
        base = np.zeros(len(data), dtype=np.int64)
        if strata:
            keys.append(stratum_codes(data.frame, strata)[0])
            base = pd.factorize(keys[0])[0]
        unsplit: dict[str, str] = {}
        for c in conditions:
            holds = c.condition_holds(data.frame)
            trial = 2 * base + holds
            small = _split_below_k(base, trial, k)
            if small is not None:
                unsplit[c.id] = (f"its condition '{c.condition.text}' holds for {small[0]} "
                                 f"record(s) and fails for {small[1]} (in one stratum): "
                                 f"fewer than k = {k} on one side, so the records were not "
                                 "partitioned on it (a group smaller than k)")
                continue
            base = pd.factorize(trial)[0]
            keys.append(np.where(holds, "1", "0"))
        if not keys:
            return np.zeros(len(data), dtype=np.int64), unsplit
        joined = text_column(keys[0])
        for extra in keys[1:]:
            joined = joined + "|" + text_column(extra)
        return pd.factorize(joined, sort=True)[0], unsplit

    @staticmethod
    def _column(values: np.ndarray, original: pd.Series, var, categories):
        index = original.index
        if var.type in ("categorical", "ordinal"):
            labels = np.asarray(categories if var.type == "categorical" else var.order,
                                dtype=object)
            missing = np.isnan(values) | (values < 0)  # missing values stay missing
            codes = np.where(missing, 0, values).astype(int)
            return text_column(np.where(missing, None, labels[codes] if len(labels) else None),
                               index=index), var
        return numeric_column(values, index, var)


def _split_below_k(base: np.ndarray, trial: np.ndarray, k: int) -> tuple[int, int] | None:
    """For a part ``base`` (of at least k records) that ``trial`` splits into a part
    with fewer than k records (and more than none): the records on each side of the
    first such split (holding, failing); None when every split leaves k or more."""
    size = np.bincount(base)
    sides = np.bincount(trial, minlength=2 * len(size)).reshape(-1, 2)
    bad = (size >= k) & (sides.min(axis=1) > 0) & (sides.min(axis=1) < k)
    if not bad.any():
        return None
    fails, holds = sides[np.flatnonzero(bad)[0]]
    return int(holds), int(fails)


def _fuzzy_c_means(Z, labels, source, names, rows, values, params, rng
                   ) -> tuple[float, float]:
    """Fuzzy microaggregation of one part (rows) for the transparency principle: fuzzy
    c-means from the MDAV groups, each record replaced by the centre of a cluster drawn
    with its memberships (one draw for all the group's variables). Fills ``values`` and
    returns the SSE and SST of the scaled variables."""
    m = params["fuzziness"]
    c = int(labels.max()) + 1
    idx, u = fuzzy_c_means(Z, labels, m=m, neighbours=params["neighbours"])
    chosen = random_assignment(idx, u, rng, m)
    for v in names:
        values[v][rows] = fuzzy_centres(source[v][rows], idx, u, m, c)[chosen]
    sse = sum(float(((Z[:, j] - fuzzy_centres(Z[:, j], idx, u, m, c)[chosen]) ** 2).sum())
              for j in range(Z.shape[1]))
    sst = float(((Z - Z.mean(axis=0)) ** 2).sum())
    return sse, sst


def _key_sets(params, meta) -> tuple[list[list[str]], bool]:
    """The key variables of each set microaggregated separately, when their combination
    can break k-anonymity: key variables in two or more sets, or two in one set
    aggregated variable by variable. Only the quasi-identifiers microaggregated together
    give k-anonymity (J. Domingo-Ferrer, V. Torra, "Ordinal, continuous and heterogeneous
    k-anonymity through microaggregation", Data Mining and Knowledge Discovery 11(2),
    2005). Empty otherwise; and whether the sets are the variables one by one."""
    sets = [[v for v in g.variables if meta.variables.get(v) is not None
             and meta.variables[v].role == "key"] for g in plan_groups(params, meta).groups]
    sets = [s for s in sets if s]
    if params.get("algorithm") in PER_VARIABLE and sum(map(len, sets)) > 1:
        return [[v] for s in sets for v in s], True
    return (sets, False) if len(sets) > 1 else ([], False)
