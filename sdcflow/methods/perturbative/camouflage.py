"""``camouflage``: release each confidential numeric value as an interval that contains it
(Gopal, Garfinkel & Goes, "Confidentiality via camouflage", Operations Research 2002;
see :mod:`sdcflow.kernels.perturbative.camouflage`). The variable ``v`` is replaced by
two variables ``v_lo`` and ``v_hi`` (the bounds); ``v`` itself is removed, so that it
reaches no later step nor the release. Queries are answered from the intervals by the
``camouflage_widths`` measure (or :func:`~sdcflow.kernels.perturbative.camouflage.query_interval`).

The interval of ``x_i`` is ``[x_i - a_i |x_i|, x_i + b_i |x_i|]`` with ``a_i`` and
``b_i`` independent U(0, width) (``scale: value``: on average ``width |x_i|`` wide; a
zero keeps a zero-width interval, i.e. is published exactly), or ``width sd`` wide
(``scale: sd``, the standard deviation of the variable's observed values) with the value
at a uniform random position in it. (A width of exactly ``width |x_i|`` would give the
value away: ``|x_i| = (hi - lo) / width``.) An integer variable's bounds are rounded outwards
(floor, ceiling) and stay integer. Missing values give missing bounds.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ...data.dataset import Variable
from ...kernels.perturbative.camouflage import (
    camouflage_intervals,
    interval_widths,
    relative_intervals,
)
from ...plugins.limits import FLOAT_MAX
from ...plugins.registry import Method, MethodResult, Output, register, variables_param


def bound_names(name: str) -> tuple[str, str]:
    """The names of the variables holding the bounds of ``name``'s intervals."""
    return f"{name}_lo", f"{name}_hi"


@register
class Camouflage(Method):
    name = "camouflage"
    public_params = ("variables", "width", "scale")
    protects = True
    summary = ("Replace each numeric variable v by intervals v_lo, v_hi that contain its "
               "values (confidentiality via camouflage).")
    roles = ("numeric", "key", "sensitive")
    types = ("integer", "continuous")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": variables_param("Variables camouflaged, each replaced by v_lo and "
                                         "v_hi (default: every integer or continuous "
                                         "variable with role numeric)."),
            "width": {"type": "number", "exclusiveMinimum": 0, "default": 0.2,
                      "description": "Width of each interval, as a fraction of |x| (scale "
                                     "value: the most each end lies from x, so on average "
                                     "width |x| wide) or of the standard deviation (scale "
                                     "sd)."},
            "scale": {"enum": ["value", "sd"], "default": "value",
                      "description": "value: each end drawn U(0, width) |x| away from x "
                                     "(zeros stay exact); sd: width x the variable's "
                                     "standard deviation."},
        },
    }

    default_roles = ("numeric",)
    default_numeric = True

    def reads(self, params, meta):
        return set(self.variables(params, meta))

    def writes(self, params, meta):
        return {b for name in self.variables(params, meta) for b in bound_names(name)}

    def removes(self, params, meta):
        return set(self.variables(params, meta))

    def changes_records(self, params, meta):
        return False

    def check(self, params, meta):
        names = self.variables(params, meta)
        if not names:
            yield ("variables",), ("no variables: name them or declare integer or continuous "
                                   "variables with role numeric")
        for i, name in enumerate(names):
            for bound in bound_names(name):
                if bound in meta.variables:
                    yield ("variables", i), (f"'{name}' would be replaced by '{bound}', which "
                                             "is already a variable")

    def check_data(self, params, data):
        width = float(params.get("width", 0.2))
        for name in self.variables(params, data.meta):
            if name not in data.frame:
                continue
            x = data.frame[name].to_numpy(dtype=float, na_value=np.nan)
            x = x[~np.isnan(x)]
            if not len(x):
                continue
            with np.errstate(all="ignore"):
                spread = float(np.std(x)) if params.get("scale") == "sd" else 0.0
                top = float(np.abs(x).max()) * (1 + width) + width * spread
            if not top <= FLOAT_MAX:
                yield ("width",), (f"width {width:g} gives intervals of '{name}' beyond the "
                                   "range of 64-bit floats")

    def outputs(self, params, meta):
        out = {}
        for name in self.variables(params, meta):
            var = meta.variables.get(name)
            if var is not None:
                for bound in bound_names(name):
                    out[bound] = Output(Variable(bound, var.role, var.type))
        return out

    def apply(self, data, params, rng):
        frame = data.frame
        width, scale = float(params["width"]), params["scale"]
        columns, new_vars, details = {}, [], {}
        for name in self.variables(params, data.meta):
            var = data.variables[name]
            x = frame[name].to_numpy(dtype=float, na_value=np.nan)
            observed = x[~np.isnan(x)]
            if scale == "sd":
                sd = float(np.std(observed, ddof=1)) if len(observed) > 1 else 0.0
                widths = np.full(len(x), width * sd)
                lo, hi = camouflage_intervals(x, widths, rng)
            else:
                lo, hi = relative_intervals(x, width, rng)
            lo_name, hi_name = bound_names(name)
            if var.type == "integer":
                lo, hi = np.floor(lo), np.ceil(hi)
                columns[lo_name] = pd.Series(lo, index=frame.index).astype("Int64")
                columns[hi_name] = pd.Series(hi, index=frame.index).astype("Int64")
            else:
                columns[lo_name] = pd.Series(lo, index=frame.index)
                columns[hi_name] = pd.Series(hi, index=frame.index)
            new_vars += [Variable(lo_name, var.role, var.type),
                         Variable(hi_name, var.role, var.type)]
            summary = interval_widths(lo, hi, x)
            del summary["contained"]  # always all of them (tested)
            details[name] = {**summary, "exact": int((hi == lo).sum())}
        keep = [c for c in frame.columns if c not in details]
        kept = type(data)(frame[keep], {c: v for c, v in data.variables.items()
                                         if c not in details}, data.constraints)
        info = {"width": width, "scale": scale, "variables": details}
        return MethodResult(kept.with_columns(columns, new_vars), info)
