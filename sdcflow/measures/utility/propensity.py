"""``propensity``: the propensity score utility measure of Woo, Reiter, Oganian & Karr
(2009): merge the original and the protected
records with an indicator T (1 for protected), regress T on the variables by logistic
regression, and measure how far the propensity scores are from the share c of protected
records: ``U = (1/N) sum_i (p_i - c)^2`` over the N merged records, the pMSE (the same
quantity). U = 0: the model cannot tell the data sets apart; the farther from 0, the more
information loss. See :func:`sdcflow.kernels.utility.propensity.propensity_utility` for the fit and
the null expectation reported with it.

Numeric variables enter as they are (main effects), categorical and ordinal ones as
indicator variables of their categories (the first one, in sorted order, the baseline; a
missing value is a category of its own); ``interactions: true`` adds the products of every
pair of terms of different variables, ``squares: true`` the square of every numeric
variable. The main effects alone only see differences of means: a mean-preserving method
(microaggregation, rank swapping) gets U = 0 from them, whatever it does to variances and
correlations; ``squares`` sees variances, ``interactions`` covariances. Records with a missing numeric value are left out of
the model (``records_left_out``). The records are not paired, so the data sets may differ
in size (e.g. after sampling: c is then not 1/2).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ...kernels.utility.propensity import propensity_utility
from ...plugins.registry import Measure, MeasureResult, register, variables_param
from ...plugins.results import COUNT, FLAG, NAMES, NUMBER, TEXT, record
from ..reference import REFERENCE
from .categorical_information_loss import shared_codes


@register
class Propensity(Measure):
    solver_keys = ("iterations",)
    name = "propensity"
    public_params = ("variables", "interactions", "squares", "reference")
    risk_measure = False
    summary = "Propensity score utility U (pMSE): can a logistic model tell the data apart?"
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": variables_param("Variables of the model (default: every variable "
                                         "with role key, numeric or pram)."),
            "interactions": {"type": "boolean", "default": False,
                             "description": "Add the pairwise products of the terms of "
                                            "different variables to the main effects."},
            "squares": {"type": "boolean", "default": False,
                        "description": "Add the square of every numeric variable."},
            "reference": REFERENCE,
        },
    }

    default_roles = ("key", "numeric", "pram")

    def check(self, params, meta):
        if not self.variables(params, meta):
            yield ("variables",), ("no key, numeric or pram variables: name the variables of "
                                   "the model")

    def result_shape(self, params, meta):
        return record(reference=TEXT, variables=NAMES, interactions=FLAG, squares=FLAG,
                      records_left_out=record(reference=COUNT, protected=COUNT),
                      U=NUMBER, pmse=NUMBER, c=NUMBER, records=COUNT, maximum=NUMBER,
                      null_expected=NUMBER, ratio=NUMBER.with_null(),
                      standardised=NUMBER.with_null(), parameters=COUNT, iterations=COUNT,
                      converged=FLAG, separated=FLAG, deviance=NUMBER)

    def evaluate(self, data, params, rng, *, original):
        names = self.variables(params, data.meta)
        xnum, ynum, xcat, ycat, cards = [], [], [], [], []
        for name in names:
            for which, ds in (("reference", original), ("protected", data)):
                if name not in ds.frame.columns:
                    raise ValueError(f"'{name}' is not in the {which} data")
            a, b = original.frame[name], data.frame[name]
            if pd.api.types.is_numeric_dtype(a) and pd.api.types.is_numeric_dtype(b):
                xnum.append(a.to_numpy(dtype=float, na_value=np.nan))
                ynum.append(b.to_numpy(dtype=float, na_value=np.nan))
            else:
                # categories (text on either side, e.g. an integer recoded into intervals)
                f, g, labels = shared_codes(a, b)
                xcat.append(f)
                ycat.append(g)
                cards.append(len(labels))
        x = np.column_stack(xnum) if xnum else np.empty((len(original), 0))
        y = np.column_stack(ynum) if ynum else np.empty((len(data), 0))
        keep_x = ~np.isnan(x).any(axis=1)
        keep_y = ~np.isnan(y).any(axis=1)
        xc = np.column_stack(xcat) if xcat else None
        yc = np.column_stack(ycat) if ycat else None
        if not keep_x.all():
            x, xc = x[keep_x], (xc[keep_x] if xcat else None)
        if not keep_y.all():
            y, yc = y[keep_y], (yc[keep_y] if ycat else None)
        result, scores = propensity_utility(x, y, xc, yc, cards,
                                            interactions=bool(params["interactions"]),
                                            squares=bool(params["squares"]))
        per_record = np.full(len(data), np.nan)
        per_record[keep_y] = scores[int(keep_x.sum()):]
        summary = {
            "reference": params["reference"],
            "variables": names,
            "interactions": bool(params["interactions"]),
            "squares": bool(params["squares"]),
            "records_left_out": {"reference": int((~keep_x).sum()),
                                 "protected": int((~keep_y).sum())},
            **result,
        }
        return MeasureResult(summary, pd.DataFrame({"propensity": per_record},
                                                   index=data.frame.index))
