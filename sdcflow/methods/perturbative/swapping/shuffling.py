"""``shuffling``: data shuffling of confidential numeric variables (Muralidhar & Sarathy
2006; Templ, "Advanced Survey Statistics: Disclosure Control", 2019, "Shuffling"). The kernel is
:func:`sdcflow.kernels.perturbative.swapping.shuffling.shuffle`."""

from __future__ import annotations

from typing import ClassVar

from ....kernels.perturbative.swapping.shuffling import normal_scores, shuffle
from ....plugins.registry import register
from ...synthetic.ipso import PREDICTORS_PARAM, STRATA_PARAM, VARIABLES_PARAM, RegressionSynthesis


@register
class Shuffling(RegressionSynthesis):
    """Data shuffling (Templ 2019, "Shuffling"): the confidential ``variables`` are
    regressed on the ``predictors`` (numbers as they are, categories as dummies), values
    are drawn from the fitted model (prediction plus a normal error with the residual
    covariance), and each variable's original values are handed out to the records in
    the rank order of the drawn values, per stratum. Every released column is a
    permutation of the original one (within each stratum): the marginal distribution is
    exactly kept, integers stay integers. With ``normal_scores`` (default, as the paper
    and sdcMicro's ``shuffle``) the model is fitted to the normal scores of the variables
    and of the numeric predictors, so rank correlations are kept whatever the marginals.
    Records with a missing value in a variable or predictor keep their values and are
    left out (their values are not shuffled); so are the records of strata with no more
    records than model parameters."""

    name = "shuffling"
    public_params = ("variables", "predictors", "normal_scores", "strata")
    protects = True
    permutes = True  # values move between records; each column keeps its values
    summary = "Hand out each variable's own values in the rank order of values drawn from a regression."
    version = "2"
    keeps_values = True
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": {**VARIABLES_PARAM,
                          "description": "The confidential numeric variables whose values "
                                         "are re-assigned to the records (default: every "
                                         "integer or continuous variable with role "
                                         "numeric)."},
            "predictors": PREDICTORS_PARAM,
            "normal_scores": {"type": "boolean", "default": True,
                              "description": "Fit the model to normal scores of the ranks "
                                             "of the variables and numeric predictors "
                                             "(Muralidhar & Sarathy); false: to the values."},
            "strata": STRATA_PARAM,
        },
    }

    def synthesise(self, X, Y, params, rng):
        scores = params["normal_scores"]
        if scores:  # of the numeric predictors; dummies stay as they are
            X = X.transformed(normal_scores)
        return shuffle(X, Y, rng, scores=scores, intercept=False)
