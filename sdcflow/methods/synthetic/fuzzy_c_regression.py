"""``fuzzy_c_regression``: synthetic confidential variables from fuzzy c-regression models
(I. Cano & V. Torra, "Generation of synthetic data by means of fuzzy c-regression",
FUZZ-IEEE 2009; Hathaway & Bezdek's FCRM, 1993). The kernel is
:func:`sdcflow.kernels.synthetic.fuzzy_c_regression.synthesise`."""

from __future__ import annotations

from typing import ClassVar

from ...kernels.synthetic.fuzzy_c_regression import OUTPUTS, RESTARTS, synthesise
from ...plugins.registry import register
from .ipso import PREDICTORS_PARAM, STRATA_PARAM, VARIABLES_PARAM, RegressionSynthesis

MAX_CLUSTERS = 100


@register
class FuzzyCRegression(RegressionSynthesis):
    """Synthetic data by fuzzy c-regression (see the kernel's module docstring): the
    confidential ``variables`` Y are regressed on the ``predictors`` X (numbers as they
    are, categories as dummies, with an intercept) by ``clusters`` fuzzy regression
    models (Hathaway & Bezdek's FCRM with fuzzifier ``fuzziness``), per stratum, and each
    record's Y replaced by the membership-weighted prediction of the models
    (``output: weighted``) or by the prediction of its model of largest membership
    (``maximum``). One model is the least squares fit of all the records (IPSO's
    fitted values, without IPSO's noise); more models follow the data more closely.
    Records with a missing value in a variable or predictor keep their values and are
    left out of the fit; so are the records of strata with no more records than models
    or parameters."""

    name = "fuzzy_c_regression"
    public_params = ("variables", "predictors", "clusters", "fuzziness", "output", "strata")
    protects = True
    summary = "Synthetic confidential variables from fuzzy c-regression models of them on the others."
    version = "1"
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": VARIABLES_PARAM,
            "predictors": PREDICTORS_PARAM,
            "clusters": {"type": "integer", "minimum": 1, "maximum": MAX_CLUSTERS,
                         "default": 2,
                         "description": "Number c of regression models: 1 is the least "
                                        "squares fit of all the records; more follow the "
                                        "data more closely (more utility, more risk)."},
            "fuzziness": {"type": "number", "exclusiveMinimum": 1, "maximum": 10,
                          "default": 2.0,
                          "description": "The fuzzifier m of the memberships (above 1; "
                                         "near 1: each record to one model, larger: "
                                         "shared more evenly)."},
            "output": {"enum": list(OUTPUTS), "default": "weighted",
                       "description": "weighted: the models' predictions weighted by the "
                                      "record's memberships; maximum: the prediction of "
                                      "the model the record belongs to most."},
            "strata": STRATA_PARAM,
        },
    }

    def explain(self, params, result):
        return (f"The confidential variables were replaced by synthetic values from "
                f"{params.get('clusters', 2)} fuzzy regression models of them on the "
                "other variables.")

    def synthesise(self, X, Y, params, rng):
        return synthesise(X.toarray(), Y, int(params["clusters"]), rng,
                          m=float(params["fuzziness"]), output=params["output"],
                          restarts=RESTARTS)
