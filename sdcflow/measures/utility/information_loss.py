"""``information_loss``: generic information loss for continuous variables (Torra, "Masking
methods", 2013, section 4 "Information loss measures", continuous data): the divergences
between the original values X and the protected X', covariance matrices V and V',
correlation matrices R and R', variable-component correlations RF, communalities C and
component score coefficients F, each as mean square error (``mse``), mean absolute error
(``mae``) and mean variation (``mv``) exactly as Torra's (2013) table, and the variances S
(the diagonal of V); the composite ``composite`` of Domingo-Ferrer & Torra 2001 ("A
quantitative comparison of disclosure control methods for microdata": the mean of X.mv,
V.mv, S.mv, R.mae and RF.mae, times 100), the IL of their SDC score; the probabilistic
information loss ``pil`` (Mateo-Sanz, Domingo-Ferrer & Sebe 2005, 0 .. 100); ``il1s``, the
IL1s of Yancey, Winkler & Creecy 2002 (the mean standardised distance); and under
``sdcmicro`` the figures of R sdcMicro's ``dUtility`` under its names, each exactly as
sdcMicro computes it (``IL1``, ``IL1s``, ``IL1old``, ``eigen``). See
:mod:`sdcflow.kernels.utility.continuous_information_loss` and
:mod:`sdcflow.kernels.utility.sdcmicro_utility` for every formula and convention (zeros in
the mean variation, PCA, covariance divisor, sdcMicro's sums).

Records are compared by position. Missing values: X-X' and IL1s use the cells present in
both data sets; the matrices and PIL use the records complete in both; sdcMicro's figures
handle them as sdcMicro does.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ...data.dataset import Dataset
from ...kernels.utility.continuous_information_loss import continuous_information_loss
from ...plugins.distribution import Whole
from ...plugins.plain_words import figure
from ...plugins.registry import Measure, MeasureResult, register, variables_param
from ...plugins.results import COUNT, NAMES, NUMBER, TEXT, Record, record
from ..reference import REFERENCE, same_records


def numeric_matrix(dataset: Dataset, names: list[str], which: str) -> np.ndarray:
    """The columns ``names`` as an n x p float array (NaN for missing); a clear ValueError
    for a missing or non-numeric column (e.g. recoded into intervals by an earlier step)."""
    cols = []
    for name in names:
        if name not in dataset.frame.columns:
            raise ValueError(f"'{name}' is not in the {which} data")
        col = dataset.frame[name]
        if not pd.api.types.is_numeric_dtype(col):
            typ = dataset.variables[name].type if name in dataset.variables else col.dtype
            raise ValueError(f"'{name}' is not numeric in the {which} data (type {typ}): "
                             "this measure compares numbers")
        cols.append(col.to_numpy(dtype=float, na_value=np.nan))
    if not cols:
        return np.empty((len(dataset), 0))
    return np.column_stack(cols)


@register
class InformationLoss(Measure):
    distribution = Whole()  # statistics of the original and protected columns together
    name = "information_loss"
    public_params = ("variables", "reference")
    risk_measure = False
    summary = ("Generic continuous information loss: X, V, S, R, RF, C, F divergences, the "
               "composite IL, PIL, IL1s, and sdcMicro's dUtility figures (IL1, IL1s, "
               "IL1old, eigen).")
    version = "3"  # sdcMicro's dUtility figures exactly, under its names (sdcmicro)
    types = ("integer", "continuous")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": variables_param("Numeric variables to compare (default: every "
                                         "variable with role numeric)."),
            "reference": REFERENCE,
        },
    }

    default_roles = ("numeric",)

    def explain(self, params, result):
        if not isinstance(result, dict) or "pil" not in result:
            return self.summary
        return ("The release's statistics (means, variances, covariances, correlations, "
                "quantiles) compared with the original's: probabilistic information loss "
                f"PIL {figure(result['pil'])}% (Mateo-Sanz, Domingo-Ferrer & Sebé 2005), "
                f"IL1s {figure(result.get('il1s'))} (Yancey, Winkler & Creecy 2002).")

    def check(self, params, meta):
        if not self.variables(params, meta):
            yield ("variables",), "no numeric variables: declare variables with role 'numeric'"

    pairs_records = True

    def result_shape(self, params, meta):
        names = self.variables(params, meta)
        # null with fewer than two complete records, or when a statistic is undefined
        row = Record({"mse": NUMBER.with_null(), "mae": NUMBER.with_null(),
                      "mv": NUMBER.with_null(), "mv_left_out": COUNT}, {"cells": COUNT})
        pil = {"quantiles": NUMBER, "means": NUMBER, "variances": NUMBER}
        if len(names) > 1:
            pil.update(covariances=NUMBER, correlations=NUMBER.with_null())
        return record(reference=TEXT, variables=NAMES, records=COUNT, records_complete=COUNT,
                      X=row, V=row.with_null(), S=row.with_null(), R=row.with_null(),
                      RF=row.with_null(), composite=NUMBER.with_null(),
                      composite_terms=Record({}, {"X_mv": NUMBER, "V_mv": NUMBER,
                                                  "S_mv": NUMBER, "R_mae": NUMBER,
                                                  "RF_mae": NUMBER}),
                      C=row.with_null(), F=row.with_null(),
                      pil=NUMBER.with_null(), pil_by_statistic=Record({}, pil),
                      il1s=NUMBER.with_null(), il1_constant_variables=NAMES,
                      sdcmicro=record(IL1=NUMBER, IL1s=NUMBER.with_null(),
                                      IL1old=NUMBER.with_null(), eigen=NUMBER.with_null()))

    def evaluate(self, data, params, rng, *, original):
        names = self.variables(params, data.meta)
        same_records(data, original, self.name)
        x = numeric_matrix(original, names, "reference")
        y = numeric_matrix(data, names, "protected")
        summary, per_record = continuous_information_loss(x, y)
        summary["il1_constant_variables"] = [names[j] for j in summary["il1_constant_variables"]]
        out = {"reference": params["reference"], "variables": names, "records": len(data),
               **summary}
        return MeasureResult(out, pd.DataFrame({"il1s": per_record}, index=data.frame.index))
