"""``rounding``: replace each value by the nearest point of a rounding set (Torra, "Masking
methods", 2013, "Rounding"): the multiples of a base ``b`` (every ``b i``, ``i`` an integer,
zero and negatives included) or an explicit sorted set of points. A value exactly half-way
between two points goes to the upper one (Torra's (2013) attraction sets
``[p - b/2, p + b/2)``). Torra's (2013) own example, points ``b, 2b, ..., rb`` only (so
that values in ``[0, b/2)`` go to ``b``), is ``points: [b, 2b, ..., rb]``.

Multivariate rounding (``vectors``): the rounding points are vectors, one value per
variable in the order of ``variables``, and each record is replaced by the nearest of
them in Euclidean distance (the point whose set of attraction contains it; Willenborg &
de Waal, "Elements of Statistical Disclosure Control", 2001); ties go to the first point
listed. A record with missing values is rounded on its observed variables.

Missing values stay missing. An integer variable stays integer when every rounding point
is an integer (an integer base); otherwise it becomes continuous. No randomness.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise
from typing import ClassVar

import numpy as np
import pandas as pd

from ...kernels.perturbative.rounding import (
    decimals,
    round_to_base,
    round_to_points,
    round_to_vectors,
)
from ...plugins.distribution import Rows
from ...plugins.limits import FLOAT_MAX
from ...plugins.plain_words import figure, get, names, total, values_changed
from ...plugins.registry import Method, MethodResult, numeric_output, register, variables_param

_POINTS = {"type": "array", "minItems": 1, "items": {"type": "number"}}
_BASE = {"type": "number", "exclusiveMinimum": 0}
_VECTORS = {"type": "array", "minItems": 1,
            "items": {"type": "array", "minItems": 1, "items": {"type": "number"}},
            "description": "Multivariate rounding: rounding points as vectors, one value per "
                           "variable in the order of 'variables'; each record goes to the "
                           "nearest (Euclidean distance)."}


@register
class Rounding(Method):
    distribution = Rows()  # each value rounded on its own
    name = "rounding"
    public_params = ("variables", "base", "points", "vectors")
    protects = True
    summary = ("Replace each value by the nearest multiple of a base or point of a rounding "
               "set, or each record by the nearest of a set of rounding vectors.")
    roles = ("numeric", "key", "sensitive")
    types = ("integer", "continuous")
    default_roles = ("numeric",)
    default_numeric = True
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": variables_param("Variables rounded (default: the variables of a "
                                         "base or points mapping, else every variable with "
                                         "role numeric and a numeric type).", unique=False),
            "base": {"anyOf": [_BASE, {"type": "object", "minProperties": 1,
                                       "additionalProperties": _BASE}],
                     "description": "Rounding base b > 0 (values go to the nearest multiple "
                                    "of b), or a mapping variable -> base."},
            "points": {"anyOf": [_POINTS, {"type": "object", "minProperties": 1,
                                           "additionalProperties": _POINTS}],
                       "description": "Explicit rounding set, strictly increasing, or a "
                                      "mapping variable -> set."},
            "vectors": _VECTORS,
        },
        "oneOf": [{"required": ["base"], "not": {"anyOf": [{"required": ["points"]},
                                                           {"required": ["vectors"]}]}},
                  {"required": ["points"], "not": {"anyOf": [{"required": ["base"]},
                                                             {"required": ["vectors"]}]}},
                  {"required": ["vectors"], "not": {"anyOf": [{"required": ["base"]},
                                                              {"required": ["points"]}]}}],
        "x-error": "give the rounding set as exactly one of 'base', 'points' or 'vectors'",
    }

    def explain(self, params, result):
        variables = params.get("variables") or []
        text = (f"{names(variables) or 'The numeric variables'} were rounded to multiples of "
                f"{figure(params.get('base'))}.")
        if get(result, "changed") is not None:
            text += " " + values_changed(total(result["changed"]), result)
        return text

    @staticmethod
    def _mapping(params) -> tuple[str, Mapping | None]:
        key = "base" if "base" in params else "vectors" if "vectors" in params else "points"
        value = params.get(key)
        return key, value if isinstance(value, Mapping) else None

    def named_variables(self, params):
        out = super().named_variables(params)
        key, mapping = self._mapping(params)
        if mapping is not None and not params.get("variables"):
            out.extend(((key, name), name) for name in mapping)
        return out

    def rule(self, params, name: str) -> tuple[str, float | list[float]]:
        """``("base", b)`` or ``("points", [...])`` for a variable."""
        key, mapping = self._mapping(params)
        value = params[key] if mapping is None else mapping[name]
        return key, (float(value) if key == "base" else [float(v) for v in value])

    def check(self, params, meta):
        names = self.variables(params, meta)
        if not names:
            yield ("variables",), ("no variables: name them or declare variables with role "
                                   "numeric")
        if len(names) != len(set(names)):
            yield ("variables",), "a variable is named twice"
        key, mapping = self._mapping(params)
        if key == "vectors":
            yield from self._check_vectors(params)
            return
        if mapping is not None:
            for name in names:
                if name not in mapping:
                    yield (key,), f"no {key} is given for '{name}'"
            for name in mapping:
                if name not in names:
                    yield (key, name), f"'{name}' is not among the variables rounded"
        if key == "points":
            sets = mapping.items() if mapping is not None else [(None, params.get("points"))]
            for name, points in sets:
                if isinstance(points, list) and any(
                        not b > a for a, b in pairwise(points)):
                    path = ("points",) if name is None else ("points", name)
                    yield path, "the rounding points must be strictly increasing"

    @staticmethod
    def _check_vectors(params):
        if not params.get("variables"):
            yield ("variables",), ("multivariate rounding needs 'variables': the order of "
                                   "the values of each rounding vector")
            return
        p = len(params["variables"])
        for i, vector in enumerate(params.get("vectors", [])):
            if isinstance(vector, list) and len(vector) != p:
                yield ("vectors", i), (f"a rounding vector has {len(vector)} value(s), not "
                                       f"one for each of the {p} variables")

    def outputs(self, params, meta):
        # an integer variable stays integer when every rounding point is whole
        if "vectors" in params:
            names = self.variables(params, meta)
            return {name: numeric_output(meta.variables[name], whole=all(
                        float(v[j]).is_integer() for v in params["vectors"] if j < len(v)))
                    for j, name in enumerate(names) if name in meta.variables}
        out = {}
        for name in self.variables(params, meta):
            var = meta.variables.get(name)
            if var is None:
                continue
            try:
                key, value = self.rule(params, name)
            except (KeyError, TypeError):  # a rule missing for the variable: check() says so
                continue
            whole = all(float(v).is_integer() for v in (value if key == "points" else [value]))
            out[name] = numeric_output(var, whole=whole)
        return out

    def check_data(self, params, data):
        if "base" not in params:
            return
        _, mapping = self._mapping(params)
        for name in self.variables(params, data.meta):
            if name not in data.frame or (mapping is not None and name not in mapping):
                continue
            base = self.rule(params, name)[1]
            x = data.frame[name].to_numpy(dtype=float, na_value=np.nan)
            if np.isnan(x).all():
                continue
            top = float(np.nanmax(np.abs(x)))
            # x / base must be finite, and so must the multiple scaled to the decimals
            # of the base (rounding 3 x 0.1 to 0.3 computes 0.3 x 10**1)
            with np.errstate(all="ignore"):
                finite = np.isfinite(top / base) and \
                    np.log10(max(top, base)) + decimals(base) < np.log10(FLOAT_MAX)
            if not finite:
                path = ("base",) if mapping is None else ("base", name)
                yield path, (f"base {base:g} is too small for the values of '{name}' (up to "
                             f"{top:g}): their multiples of it are beyond the range of "
                             "64-bit floats")

    def apply(self, data, params, rng):
        if "vectors" in params:
            return self._apply_vectors(data, params)
        columns, new_vars, details = {}, [], {}
        changed_total = 0
        for name in self.variables(params, data.meta):
            col = data.frame[name]
            var = data.variables[name]
            x = col.to_numpy(dtype=float, na_value=np.nan)
            key, value = self.rule(params, name)
            if key == "base":
                out = round_to_base(x, value)
                integral = float(value).is_integer()
            else:
                out = round_to_points(x, np.asarray(value))
                integral = all(float(v).is_integer() for v in value)
            observed = ~np.isnan(x)
            diff = np.abs(out[observed] - x[observed])
            changed = int((diff > 0).sum())
            changed_total += changed
            details[name] = {key: value, "changed": changed,
                             "max_change": float(diff.max()) if len(diff) else 0.0}
            if var.type == "integer" and integral:
                columns[name] = pd.Series(out, index=col.index).round().astype("Int64")
                new_vars.append(var)
            else:
                columns[name] = pd.Series(out, index=col.index, copy=False)
                new_vars.append(var.evolve(type="continuous"))
        info = {"changed": changed_total, "variables": details}
        return MethodResult(data.with_columns(columns, new_vars), info)

    def _apply_vectors(self, data, params) -> MethodResult:
        """Multivariate rounding of the records on ``variables``."""
        names = list(params["variables"])
        points = np.array(params["vectors"], dtype=float)
        x = np.column_stack([data.frame[n].to_numpy(dtype=float, na_value=np.nan)
                             for n in names])
        out = round_to_vectors(x, points)
        observed = ~np.isnan(x)
        moved = (out != x) & observed
        columns, new_vars, details = {}, [], {}
        for j, name in enumerate(names):
            col, var = data.frame[name], data.variables[name]
            diff = np.abs(out[observed[:, j], j] - x[observed[:, j], j])
            details[name] = {"changed": int(moved[:, j].sum()),
                             "max_change": float(diff.max()) if len(diff) else 0.0}
            if var.type == "integer" and np.all(points[:, j] == np.round(points[:, j])):
                columns[name] = pd.Series(out[:, j], index=col.index).round().astype("Int64")
                new_vars.append(var)
            else:
                columns[name] = pd.Series(out[:, j], index=col.index)
                new_vars.append(var.evolve(type="continuous"))
        info = {"changed": int(moved.sum()), "records_changed": int(moved.any(axis=1).sum()),
                "vectors": len(points), "variables": details}
        return MethodResult(data.with_columns(columns, new_vars), info)
