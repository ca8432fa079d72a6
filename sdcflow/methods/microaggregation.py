"""``microaggregation``: replace the values of groups of k .. 2k-1 similar records by a
representative (seed 000, "Microaggregation", MDAV, optimal univariate, projected; seed
004, MDAV and individual ranking; seed 001, fuzzy microaggregation and edit constraints).

Edit constraints drive the aggregation (seed 001, Propositions 1-8): the variables of
a constraint are microaggregated together, with the arithmetic mean for linear
constraints, inequalities and ranges, the geometric mean of each factor for
multiplicative ones, the lower median (an existing value) for "values must exist in the
domain", and the records are partitioned first on the condition of an if/then
constraint. What was chosen is reported in the manifest (``info.groups``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import pandas as pd

from ..data.codes import numeric_column, ordered_values
from ..data.strata import stratum_codes, stratum_members
from ..data.text import text_column
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
from ..registry import Method, MethodResult, register, strata_param, variables_param

ALGORITHMS = ("mdav", "optimal_univariate", "projected", "individual_ranking", "fuzzy")


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


def _related_sets(constraint) -> list[set[str]]:
    """The sets of variables a constraint relates to each other: one per comparison of a
    conjunction (``a >= 0 and b >= 0`` relates nothing; ``a + b == c`` relates a, b, c)."""
    from ..constraints.expr import dotted_name

    def names(node) -> set[str]:
        return {dotted_name(n) for n in ast.walk(node)
                if isinstance(n, (ast.Name, ast.Attribute)) and dotted_name(n)}

    body = constraint.expr.tree.body
    parts = body.values if isinstance(body, ast.BoolOp) and isinstance(body.op, ast.And) \
        else [body]
    return [names(p) for p in parts]


def product_offsets(tree: ast.Expression) -> dict[str, float] | None:
    """For ``a * (1 + b) == c`` style constraints, each variable's offset inside its factor
    ({a: 0, b: 1, c: 0}); None when the constraint is not a product of such factors."""
    body = tree.body
    if not (isinstance(body, ast.Compare) and len(body.ops) == 1
            and isinstance(body.ops[0], ast.Eq)):
        return None
    offsets: dict[str, float] = {}

    def factor(node) -> bool:
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.Name):
            offsets[node.id] = 0.0
            return True
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
            return factor(node.left) and factor(node.right)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            return isinstance(node.right, ast.Constant) and factor(node.left)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            name, const = node.left, node.right
            if isinstance(name, ast.Constant) and isinstance(node.op, ast.Add):
                name, const = const, name
            if isinstance(name, ast.Name) and isinstance(const, ast.Constant):
                value = float(const.value)
                offsets[name.id] = value if isinstance(node.op, ast.Add) else -value
                return True
        return False

    return offsets if factor(body.left) and factor(body.comparators[0]) else None


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


@register
class Microaggregation(Method):
    name = "microaggregation"
    summary = "Replace groups of k..2k-1 similar records by their representative."
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
                            "description": "Representative of numeric variables not ruled "
                                           "by a constraint."},
            "constraints": {"type": "boolean", "default": True,
                            "description": "Let the edit constraints group the variables, "
                                           "choose the aggregation and partition records."},
            "strata": strata_param("Microaggregate within strata"),
            "projection": {"type": "array", "items": {"type": "number"},
                           "description": "projected: the direction (default: the first "
                                          "principal component)."},
            "fuzziness": {"type": "number", "exclusiveMinimum": 1, "default": 2,
                          "description": "fuzzy: the exponent m of fuzzy c-means."},
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

    def plan_groups(self, params, meta) -> tuple[list[Group], list, list[str]]:
        """The groups, the if/then constraints that partition the records, and notes."""
        sets = [list(dict.fromkeys(g)) for g in self.base_variables(params, meta)]
        notes: list[str] = []
        offsets: dict[str, float] = {}
        medians: set[str] = set()
        reasons: dict[str, list[str]] = {}
        conditions = []
        chosen = {v for s in sets for v in s}
        if params.get("constraints", True):
            for c in meta.constraints:
                inside = c.variables & chosen
                if not inside:
                    continue
                if c.kind == "conditional":
                    conditions.append(c)
                    continue
                if c.kind == "domain":
                    medians |= set(c.domain) & chosen
                    for v in set(c.domain) & chosen:
                        reasons.setdefault(v, []).append(f"{c.id}: values exist -> median")
                    continue
                for related in _related_sets(c):
                    if not related & chosen or len(related) < 2:
                        continue
                    missing = sorted(related - chosen)
                    numeric = [v for v in missing if v in meta.variables
                               and meta.variables[v].is_numeric]
                    if numeric:
                        sets[0].extend(numeric)
                        chosen |= set(numeric)
                        notes.append(f"added {', '.join(numeric)}: constraint '{c.id}' needs "
                                     "them aggregated with "
                                     + ", ".join(sorted(related & chosen - set(numeric))))
                    # the variables related by the constraint go into one group
                    touched = [s for s in sets if set(s) & related]
                    merged = [v for s in touched for v in s]
                    sets = [s for s in sets if s not in touched] + [list(dict.fromkeys(merged))]
                if c.kind == "nonlinear":
                    form = product_offsets(c.expr.tree)
                    if form is None:
                        notes.append(f"constraint '{c.id}' is not a product of factors: "
                                     "the arithmetic mean cannot keep it")
                    else:
                        for v, off in form.items():
                            offsets.setdefault(v, off)
                            reasons.setdefault(v, []).append(f"{c.id}: product -> geometric")
                else:
                    for v in c.variables & chosen:
                        reasons.setdefault(v, []).append(f"{c.id}: {c.kind} -> mean")
        groups = []
        default = params.get("aggregation", "mean")
        position = {v: i for i, v in enumerate(meta.variables)}
        sets = [sorted(s, key=lambda v: position.get(v, len(position))) for s in sets]
        for s in sets:
            group = Group(variables=s)
            for v in s:
                var = meta.variables.get(v)
                if var is not None and var.type == "categorical":
                    group.aggregation[v] = ("plurality", 0.0)
                elif var is not None and var.type == "ordinal":
                    group.aggregation[v] = ("median", 0.0)
                elif v in offsets:
                    group.aggregation[v] = ("geometric", offsets[v])
                    if v in medians:
                        notes.append(f"'{v}' cannot both keep a product and exist in the "
                                     "domain (seed 001: overconstrained); kept the product")
                elif v in medians and not any("-> mean" in r for r in reasons.get(v, [])):
                    group.aggregation[v] = ("median", 0.0)
                else:
                    if v in medians:
                        notes.append(f"'{v}' cannot both keep a linear constraint and exist "
                                     "in the domain (seed 001: overconstrained); used the mean")
                    group.aggregation[v] = (default, 0.0)
                group.reasons.extend(f"{v}: {r}" for r in reasons.get(v, []))
            groups.append(group)
        return groups, conditions, notes

    def variables(self, params, meta):
        groups, _, _ = self.plan_groups(params, meta)
        return [v for g in groups for v in g.variables]

    def reads(self, params, meta):
        _, conditions, _ = self.plan_groups(params, meta)
        cond_vars = set().union(*(c.variables for c in conditions)) if conditions else set()
        return super().reads(params, meta) | cond_vars

    # --- checks -------------------------------------------------------------------------
    def check(self, params, meta):
        names = [v for g in self.base_variables(params, meta) for v in g]
        if not names:
            yield ("variables",), "no variables: name them or declare variables with role numeric"
        if len(names) != len(set(names)):
            yield ("groups",), "a variable is in two groups"
        yield from self.check_strata(params, meta)
        groups, _, _ = self.plan_groups(params, meta)
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
        groups, _, _ = self.plan_groups(params, data.meta)
        for g in groups:
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
        groups, conditions, notes = self.plan_groups(params, data.meta)
        frame = data.frame
        k = params["k"]
        partition = self._partition(data, params, conditions)
        columns: dict[str, pd.Series] = {}
        new_vars = []
        group_info = []
        sse_total, sst_total = 0.0, 0.0
        small = 0
        parts = stratum_members(partition, int(partition.max(initial=-1)) + 1)
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
                per_var = self._labels(Zr, k, params, numeric)
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
        if notes:
            info["notes"] = notes
        return MethodResult(data.with_columns(columns, new_vars), info)

    def _partition(self, data, params, conditions) -> np.ndarray:
        from ..constraints import column_values

        keys = []
        strata = self.strata(params, data.meta)
        if strata:
            keys.append(stratum_codes(data.frame, strata)[0])
        for c in conditions:
            env = {v: column_values(data.frame[v]) for v in c.condition.names}
            holds = np.broadcast_to(np.asarray(c.condition.evaluate(env), dtype=bool),
                                    (len(data),))
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
    def _labels(Z: np.ndarray, k: int, params, numeric: list[str]) -> dict:
        """Group labels: one partition for the group (key None), or one per variable."""
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
        return {None: mdav(Z, k)}

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
