"""``mv_top_coding``: sdcMicro's ``mvTopCoding``, multivariate top coding: records beyond
a (robust) Mahalanobis distance are pulled onto the ellipsoid of that distance, towards
the centre. The kernel is :func:`sdcflow.kernels.perturbative.mv_top_coding.mv_top_code`."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ...data.codes import numeric_column, numeric_matrix
from ...data.magnitude import matrix_squares_problems
from ...errors import PluginError
from ...kernels.perturbative.mv_top_coding import ALPHA, ESTIMATORS, mv_top_code
from ...plugins.distribution import Whole
from ...plugins.plain_words import figure, get, names
from ...plugins.registry import Method, MethodResult, numeric_output, register, variables_param


@register
class MvTopCoding(Method):
    """Multivariate top coding as sdcMicro's ``mvTopCoding(x, alpha = 0.025)``: the
    squared Mahalanobis distance of each record without a missing value from the
    centre of the ``variables`` (robustbase's ``covMcd`` by default, as sdcMicro; or the
    means and covariance matrix), and each record beyond ``chi2_p^{-1}(1 - alpha)``
    moved along the line to the centre onto that ellipsoid. Records with a missing value
    are left unchanged (sdcMicro: their distance is NA). An integer variable stays
    integer only while every released value is whole."""

    name = "mv_top_coding"
    distribution = Whole()  # the centre and scatter of all the records
    public_params = ("variables", "alpha", "estimator")
    protects = True
    summary = ("Pull multivariate outliers (robust Mahalanobis distance) onto the "
               "ellipsoid of a chi-square quantile, as sdcMicro's mvTopCoding.")
    version = "1"
    roles = ("numeric", "key", "sensitive")
    types = ("integer", "continuous")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": variables_param("The numeric variables coded together (default: "
                                         "every integer or continuous variable with role "
                                         "numeric)."),
            "alpha": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1,
                      "default": ALPHA,
                      "description": "sdcMicro's alpha: records whose squared Mahalanobis "
                                     "distance exceeds the 1 - alpha quantile of the "
                                     "chi-square distribution with p degrees of freedom "
                                     "(p variables) are moved onto that ellipsoid."},
            "estimator": {"enum": list(ESTIMATORS), "default": "mcd",
                          "description": "Centre and scatter of the distance: 'mcd' "
                                         "(robustbase's covMcd with its defaults, as "
                                         "sdcMicro) or 'classical' (means and covariance "
                                         "matrix of the complete records)."},
        },
    }

    default_roles = ("numeric",)
    default_numeric = True

    def explain(self, params, result):
        chosen = names(params.get("variables") or []) or "the numeric variables"
        text = (f"Multivariate top coding of {chosen}: "
                f"records beyond the {figure(100 * (1 - params.get('alpha', ALPHA)))}% "
                "chi-square quantile of the Mahalanobis distance were pulled onto it")
        coded = get(result, "coded")
        if coded is not None:
            text += f" ({figure(coded)} records)"
        return text + "."

    def check(self, params, meta):
        if not self.variables(params, meta):
            yield ("variables",), ("no variables: name them or declare integer or continuous "
                                   "variables with role numeric")

    def check_data(self, params, data):
        chosen = [n for n in self.variables(params, data.meta) if n in data.frame]
        if not chosen:
            return
        X = numeric_matrix(data.frame, chosen)
        yield from matrix_squares_problems(X, chosen)
        complete = int((~np.isnan(X).any(axis=1)).sum())
        if complete <= len(chosen) + 1:
            yield ("variables",), (f"the centre and scatter of {len(chosen)} variables need "
                                   f"more than {len(chosen) + 1} records without a missing "
                                   f"value ({complete})")

    def outputs(self, params, meta):
        # pulled values are fractional: an integer variable stays integer only if whole
        return {n: numeric_output(meta.variables[n])
                for n in self.variables(params, meta) if n in meta.variables}

    def apply(self, data, params, rng):
        chosen = self.variables(params, data.meta)
        frame = data.frame
        X = numeric_matrix(frame, chosen)
        try:
            done = mv_top_code(X, float(params["alpha"]), params["estimator"], rng)
        except ValueError as exc:  # singular scatter, too few complete records
            raise PluginError(self.name, f"cannot compute the Mahalanobis distances: {exc}") \
                from None
        columns, new_vars = {}, []
        for j, name in enumerate(chosen):
            columns[name], var = numeric_column(done.values[:, j], frame.index,
                                                data.variables[name])
            new_vars.append(var)
        info = {"alpha": float(params["alpha"]), "estimator": params["estimator"],
                "limit": done.limit, "coded": int(done.coded.sum()),
                "incomplete_records": done.incomplete}
        return MethodResult(data.with_columns(columns, new_vars), info)
