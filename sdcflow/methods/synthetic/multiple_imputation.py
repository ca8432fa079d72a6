"""``multiple_imputation``: fully synthetic values of confidential numeric variables by
sequential randomised regressions (Torra, "Masking methods", 2013, "Multiple imputation";
Rubin 1993; Raghunathan, Reiter & Rubin 2003). The kernel is
:func:`sdcflow.kernels.synthetic.imputation.sequential_regression`."""

from __future__ import annotations

from typing import ClassVar

from ...kernels.synthetic.imputation import sequential_regression
from ...plugins.registry import register, variables_param
from .ipso import PREDICTORS_PARAM, STRATA_PARAM, RegressionSynthesis


@register
class MultipleImputation(RegressionSynthesis):
    """Variable-by-variable synthesis (Torra 2013, "Multiple imputation": randomised
    regressions with normal errors): in the order given, each variable is regressed (OLS,
    with an intercept) on the ``predictors`` and the variables before it, in the original
    data; the coefficients and residual variance are drawn from their posterior (flat
    prior: scaled inverse chi-square, then normal) and the synthetic values are drawn from
    the model with the predictors and the *synthetic* earlier variables, per stratum.
    Means, variances and the linear regressions on the predictors are reproduced up to
    sampling and parameter uncertainty (one imputation is released). Records with a
    missing value in a variable or predictor keep their values and are left out of the
    fit; so are the records of strata with no more records than model parameters."""

    name = "multiple_imputation"
    public_params = ("variables", "predictors", "strata")
    protects = True
    summary = "Synthetic values by sequential randomised regressions (one multiple-imputation draw)."
    version = "2"
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": variables_param(
                "The confidential numeric variables replaced, synthesised in this order, each "
                "conditioned on the ones before (default: every integer or continuous variable "
                "with role numeric, in declaration order)."),
            "predictors": PREDICTORS_PARAM,
            "strata": STRATA_PARAM,
        },
    }

    def synthesise(self, X, Y, params, rng):
        return sequential_regression(X, Y, rng, intercept=False)
