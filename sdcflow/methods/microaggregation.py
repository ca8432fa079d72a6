"""``microaggregation``: replace the values of groups of k .. 2k-1 similar records by a
representative (seed 000, "Microaggregation", MDAV, optimal univariate, projected; seed
004, MDAV and individual ranking; seed 001, fuzzy microaggregation and edit constraints).

Edit constraints drive the grouping and the representative of each variable (V. Torra,
"Constrained microaggregation: adding constraints for data editing", Transactions on Data
Privacy 1(2), 2008): the variables related by a constraint are microaggregated together,
and :mod:`sdcflow.constraints.representatives` chooses for each variable the
representative that keeps the constraints on it (the arithmetic mean for linear
relations, the geometric mean of each factor for products, the lower median, an existing
value, for "values exist in the domain"; single-variable ranges are kept by all three);
the records are partitioned first on the condition of an if/then constraint. The
requested ``aggregation`` applies wherever no constraint needs another representative.
The manifest says, per variable, which representative was used and which constraints it
keeps, and lists the constraints that cannot be kept (e.g. overconstrained) with the
reason: nothing is reported that was not done.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import pandas as pd

from ..constraints.representatives import PLURALITY, Choice, choose, parts
from ..data.codes import numeric_column, ordered_values
from ..data.strata import stratum_codes, stratum_members
from ..data.text import text_column
from ..engine.progress import step_progress
from ..kernels.aggregate import (
    group_geometric_mean,
    group_lower_median,
    group_mean,
    group_plurality,
)
from ..kernels.fuzzy import fuzzy_weights
from ..kernels.mdav import mdav
from ..kernels.projected import projected
from ..kernels.univariate import individual_ranking, optimal_univariate
from ..limits import MAX_CELLS, over
from ..registry import (
    Method,
    MethodResult,
    Output,
    numeric_output,
    register,
    strata_param,
    variables_param,
)

ALGORITHMS = ("mdav", "optimal_univariate", "projected", "individual_ranking", "fuzzy")
PER_VARIABLE = ("optimal_univariate", "individual_ranking")  # a partition per variable


@dataclass
class Group:
    """Variables microaggregated together and how each is aggregated."""

    variables: list[str]
    aggregation: dict[str, tuple] = field(default_factory=dict)  # var -> (kind, offset)
    reasons: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"variables": self.variables,
                "aggregation": {v: a[0] if not a[1] else f"{a[0]} of {v} + {a[1]:g}"
                                for v, a in self.aggregation.items()},
                "because": self.reasons}


@dataclass
class Plan:
    """The groups, the if/then constraints that partition the records, notes, and the
    constraints kept and not kept (None without ``constraints``)."""

    groups: list[Group]
    conditions: list
    notes: list[str]
    choice: Choice | None


def _aggregate(x: np.ndarray, labels: np.ndarray, aggregation: tuple,
               weights: np.ndarray | None) -> np.ndarray:
    """The group representatives of ``x`` (category codes, ordinal ranks or values, as
    ``aggregation`` needs) for the records of one part."""
    kind, offset = aggregation
    if kind == "plurality":
        return group_plurality(x.astype(np.int64), labels).astype(float)
    if kind == "median":
        return group_lower_median(x, labels)
    if kind == "geometric":
        return group_geometric_mean(x, labels, offset, weights)
    return group_mean(x, labels, weights)


def _part_progress(report, before: int, size: int, total: int):
    """What a part of ``size`` records reports to the step's ``report`` (fraction of
    ``total`` records), ``before`` records having been grouped before it; None if nobody
    listens."""
    if report is None:
        return None
    return lambda fraction: report((before + fraction * size) / total)


@register
class Microaggregation(Method):
    name = "microaggregation"
    summary = "Replace groups of k..2k-1 similar records by their representative."
    # 2: representatives chosen per constraint part (a range no longer forces the mean on
    # a domain variable; aggregation: median yields to linear constraints); fuzzy weights
    # of a group lying on other prototypes are equal instead of NaN; a missing value never
    # satisfies a partitioning condition
    version = "2"
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
            "algorithm": {"enum": list(ALGORITHMS), "default": "mdav"},
            "standardize": {"enum": ["zscore", "range", "robust", "none"],
                            "default": "zscore",
                            "description": "Scaling of the variables for the distances "
                                           "(zscore: as sdcMicro)."},
            "aggregation": {"enum": ["mean", "median"], "default": "mean",
                            "description": "Representative of the numeric variables, except "
                                           "where a declared constraint needs another one to "
                                           "be kept (the manifest says which and why)."},
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
                          "description": "fuzzy: the exponent m of fuzzy c-means "
                                         "(1.1 to 100)."},
            "neighbours": {"type": "integer", "minimum": 1, "default": 5,
                           "description": "fuzzy: prototypes a membership is relative to."},
        },
        "not": {"required": ["variables", "groups"]},
        "x-error": "give 'variables' or 'groups', not both",
    }

    # --- which variables, in which groups, aggregated how ---------------------------
    def base_variables(self, params, meta) -> list[list[str]]:
        if params.get("groups"):
            return [list(g) for g in params["groups"]]
        if params.get("variables"):
            return [list(params["variables"])]
        return [meta.names("numeric")]

    def plan_groups(self, params, meta) -> Plan:
        """The groups (with the representative of each variable), the partitioning
        constraints, notes and what the constraints get (module docstring)."""
        sets = [list(dict.fromkeys(g)) for g in self.base_variables(params, meta)]
        notes: list[str] = []
        chosen = {v for s in sets for v in s}
        default = params.get("aggregation", "mean")
        use = params.get("constraints", True)
        touching: list = []
        # a variable added for one constraint may bring in others: repeat until none does
        while use and len(touching) < len(meta.constraints):
            new = [c for c in meta.constraints if c.variables & chosen and c not in touching]
            if not new:
                break
            touching += new
            for c in new:
                sets, added = self._relate(c, sets, chosen, meta, notes)
                chosen |= added
        touching.sort(key=list(meta.constraints).index)
        position = {v: i for i, v in enumerate(meta.variables)}
        sets = [sorted(s, key=lambda v: position.get(v, len(position))) for s in sets]
        types = {v: meta.variables[v].type if v in meta.variables else "continuous"
                 for s in sets for v in s}
        choice = None
        if use:
            choice = choose(touching, types, default,
                            one_partition=params.get("algorithm") not in PER_VARIABLE)
            kinds = choice.kinds
            for v, cid in choice.overridden.items():
                notes.append(f"'{v}' uses the {kinds[v][0]}, not aggregation: {default}: "
                             f"constraint '{cid}' needs it")
        else:
            kinds = {v: (PLURALITY if t == "categorical" else "median" if t == "ordinal"
                         else default, 0.0) for v, t in types.items()}
        groups = [Group(variables=s, aggregation={v: kinds[v] for v in s},
                        reasons=[f"{v}: {r}" for v in s
                                 for r in (choice.because.get(v, []) if choice else [])])
                  for s in sets]
        kept = set(choice.kept) if choice else set()
        conditions = [c for c in touching if c.kind == "conditional" and c.id in kept]
        return Plan(groups, conditions, notes, choice)

    def _relate(self, c, sets, chosen, meta, notes) -> tuple[list[list[str]], set[str]]:
        """Put the variables each part of ``c`` relates into one set, adding the numeric
        ones not chosen (with a note); returns the sets and the added variables."""
        added: set[str] = set()
        for part in parts(c, self._text(c.variables, meta)):
            related = set(part.variables)
            if len(related) < 2 or not related & (chosen | added):
                continue
            missing = sorted(related - chosen - added)
            numeric = [v for v in missing if v in meta.variables
                       and meta.variables[v].is_numeric]
            if numeric:
                sets[0].extend(numeric)
                added |= set(numeric)
                notes.append(f"added {', '.join(numeric)}: constraint '{c.id}' needs "
                             "them aggregated with "
                             + ", ".join(sorted(related & (chosen | added) - set(numeric))))
            touched = [s for s in sets if set(s) & related]
            merged = [v for s in touched for v in s]
            sets = [s for s in sets if s not in touched] + [list(dict.fromkeys(merged))]
        return sets, added

    @staticmethod
    def _text(names, meta) -> set[str]:
        return {v for v in names if v in meta.variables and not meta.variables[v].is_numeric}

    def variables(self, params, meta):
        return [v for g in self.plan_groups(params, meta).groups for v in g.variables]

    def reads(self, params, meta):
        conditions = self.plan_groups(params, meta).conditions
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
        names = [v for g in self.base_variables(params, meta) for v in g]
        if not names:
            yield ("variables",), "no variables: name them or declare variables with role numeric"
        if len(names) != len(set(names)):
            yield ("groups",), "a variable is in two groups"
        yield from self.check_strata(params, meta)
        plan = self.plan_groups(params, meta)
        groups = plan.groups
        if params.get("algorithm") in PER_VARIABLE and params.get("constraints", True):
            aggregated = {v for g in groups for v in g.variables}
            for c in meta.constraints:
                for part in parts(c, self._text(c.variables, meta)):
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
        for g in groups:
            if all(meta.variables.get(v) is not None and meta.variables[v].type == "categorical"
                   for v in g.variables):
                yield ("variables",), (f"the group {g.variables} has no numeric or ordinal "
                                       "variable to measure distances")

    def check_data(self, params, data):
        if params["k"] > len(data):
            yield ("k",), f"k = {params['k']} is larger than the number of records ({len(data)})"
        elif params.get("algorithm") == "fuzzy":
            # each record's distances to its nearest prototypes (one per group of >= k)
            cells = len(data) * min(params["neighbours"], len(data) // params["k"])
            if cells > MAX_CELLS:
                yield ("neighbours",), (f"{params['neighbours']} neighbours for each of "
                                        f"{len(data)} records make "
                                        f"{over(cells, 'distances', MAX_CELLS)}")
        for g in self.plan_groups(params, data.meta).groups:
            for v in g.variables:
                if v not in data.frame:
                    continue
                missing = data.frame[v].isna().to_numpy()
                if missing.any():
                    rows = ", ".join(str(r + 1) for r in np.flatnonzero(missing)[:5])
                    yield ("variables",), (f"'{v}' has {int(missing.sum())} missing values "
                                           f"(records {rows}); microaggregation needs "
                                           "complete values")
                kind, offset = g.aggregation[v]
                if kind == "geometric":
                    bad = (data.frame[v].to_numpy(dtype=float) + offset) <= 0
                    if bad.any():
                        rows = ", ".join(str(r + 1) for r in np.flatnonzero(bad)[:5])
                        yield ("variables",), (f"the geometric mean of '{v}' needs "
                                               f"{v} + {offset:g} > 0 (records {rows})")

    # --- the work -----------------------------------------------------------------------
    def apply(self, data, params, rng):
        plan = self.plan_groups(params, data.meta)
        groups, conditions, notes = plan.groups, plan.conditions, plan.notes
        frame = data.frame
        k = params["k"]
        partition = self._partition(data, params, conditions)
        columns: dict[str, pd.Series] = {}
        new_vars = []
        group_info = []
        sse_total, sst_total = 0.0, 0.0
        small = 0
        parts = stratum_members(partition, int(partition.max(initial=-1)) + 1)
        report = step_progress()
        done, total = 0, max(len(groups) * len(frame), 1)  # records grouped, of all
        for g in groups:
            numeric = [v for v in g.variables if data.variables[v].type != "categorical"]
            Z = np.column_stack([self._scaled(frame[v], data.variables[v], params["standardize"])
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
                per_var = self._labels(Zr, k, params, numeric,
                                       _part_progress(report, done, len(rows), total))
                clusters += int(per_var[None].max()) + 1 if len(rows) else 0
                # fuzzy memberships belong to the group's one partition: once per part
                weights = (fuzzy_weights(Zr, per_var[None], m=params["fuzziness"],
                                         neighbours=params["neighbours"])
                           if params["algorithm"] == "fuzzy" and len(rows) else None)
                for v in g.variables:
                    labels = per_var.get(v, per_var[None])
                    values[v][rows] = _aggregate(source[v][rows], labels, g.aggregation[v],
                                                 weights)
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
            info["partitioned_on"] = [c.id for c in conditions]
        if small:
            info["records_in_parts_smaller_than_k"] = small
        if plan.choice is not None and (plan.choice.kept or plan.choice.not_kept):
            info["constraints_kept"] = plan.choice.kept
            info["constraints_not_kept"] = plan.choice.not_kept
        if notes:
            info["notes"] = notes
        return MethodResult(data.with_columns(columns, new_vars), info)

    def _partition(self, data, params, conditions) -> np.ndarray:
        keys = []
        strata = self.strata(params, data.meta)
        if strata:
            keys.append(stratum_codes(data.frame, strata)[0])
        for c in conditions:
            holds = c.condition_holds(data.frame)
            keys.append(np.where(holds, "1", "0"))
        if not keys:
            return np.zeros(len(data), dtype=np.int64)
        joined = text_column(keys[0])
        for extra in keys[1:]:
            joined = joined + "|" + text_column(extra)
        return pd.factorize(joined, sort=True)[0]

    @staticmethod
    def _scaled(col: pd.Series, var, how: str) -> np.ndarray:
        x = ordered_values(col, var)
        if how == "zscore":
            sd = x.std(ddof=1) if len(x) > 1 else 0.0
            return (x - x.mean()) / sd if sd > 0 else x - x.mean()
        if how == "range":
            span = x.max() - x.min()
            return (x - x.min()) / span if span > 0 else x - x.min()
        if how == "robust":
            med = np.median(x)
            mad = np.median(np.abs(x - med)) * 1.4826
            return (x - med) / mad if mad > 0 else x - med
        return x

    @staticmethod
    def _labels(Z: np.ndarray, k: int, params, numeric: list[str], progress=None) -> dict:
        """Group labels: one partition for the group (key None), or one per variable
        (``progress``: how far MDAV is, see :func:`sdcflow.kernels.mdav.mdav`)."""
        n = len(Z)
        if n <= k:
            return {None: np.zeros(n, dtype=np.int64)}
        algorithm = params["algorithm"]
        if algorithm == "individual_ranking":
            out = {v: individual_ranking(Z[:, j], k) for j, v in enumerate(numeric)}
            out[None] = out[numeric[0]]
            return out
        if algorithm == "optimal_univariate":
            if Z.shape[1] == 1:
                return {None: optimal_univariate(Z[:, 0], k)}
            out = {v: optimal_univariate(Z[:, j], k) for j, v in enumerate(numeric)}
            out[None] = out[numeric[0]]
            return out
        if algorithm == "projected":
            return {None: projected(Z, k, params.get("projection"))}
        return {None: mdav(Z, k, progress=progress)}

    @staticmethod
    def _column(values: np.ndarray, original: pd.Series, var, categories):
        index = original.index
        if var.type == "categorical":
            return text_column(np.asarray(categories, dtype=object)[values.astype(int)],
                               index=index), var
        if var.type == "ordinal":
            return text_column(np.asarray(var.order, dtype=object)[values.astype(int)],
                               index=index), var
        return numeric_column(values, index, var)


def _sse_sst(Z: np.ndarray, per_var: dict, names: list[str]) -> tuple[float, float]:
    """Within-group and total sums of squares of the scaled variables (the information
    loss of microaggregation, SSE/SST in the literature)."""
    if len(Z) == 0:
        return 0.0, 0.0
    sst = float(((Z - Z.mean(axis=0)) ** 2).sum())
    sse = 0.0
    for j, name in enumerate(names):
        col = Z[:, j]
        sse += float(((col - group_mean(col, per_var.get(name, per_var[None]))) ** 2).sum())
    return sse, sst
