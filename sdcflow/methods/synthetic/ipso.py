"""``ipso``: replace confidential numeric variables by synthetic values that keep the
regression on the non-confidential ones, IPSO-A, -B or -C (Torra, "Masking methods", 2013,
"Synthetic Data Generators: The IPSO family"; Burridge 2003). The kernel is
:func:`sdcflow.kernels.synthetic.ipso.ipso`.

Also the common adapter of the regression-based synthesisers (``ipso``, ``shuffling``,
``multiple_imputation``): :class:`RegressionSynthesis` and :func:`predictor_design`.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import ClassVar

import numpy as np
import pandas as pd

from ...data.codes import numeric_matrix
from ...data.magnitude import squares_message, squares_overflow
from ...data.strata import stratum_codes, stratum_members
from ...kernels.synthetic.design import Columns, Constant, Design, Indicators
from ...kernels.synthetic.ipso import VARIANTS, ipso
from ...kernels.synthetic.least_squares import TooFewRecords
from ...plugins.registry import (
    Method,
    MethodResult,
    numeric_output,
    register,
    strata_param,
    variables_param,
)

# Dummy columns make the design n x q floats; beyond this a categorical predictor is
# more likely an identifier than a model term (and the design would not fit in memory).
MAX_DESIGN_COLUMNS = 200

VARIABLES_PARAM = variables_param("The confidential numeric variables replaced (default: "
                                  "every integer or continuous variable with role numeric).")
PREDICTORS_PARAM = {
    "type": "array", "uniqueItems": True, "items": {"type": "string"},
    "description": "The non-confidential variables the model conditions on, kept as they "
                   "are: integer and continuous ones enter as numbers, categorical and "
                   "ordinal ones as dummy variables (first category the reference). "
                   "Default: every variable with role key; [] fits the means only.",
}
STRATA_PARAM = strata_param("Fit and synthesise within each stratum")


def predictor_design(frame: pd.DataFrame, names: list[str], variables: dict
                     ) -> tuple[Design, np.ndarray]:
    """The regression design of the predictors, ``(X, complete)``: X holds a column of
    ones and then, predictor by predictor, an integer or continuous one minus its mean
    (a reparametrisation given the intercept, for the conditioning) or for a categorical
    or ordinal one a dummy column for every category but the first in sorted order (held
    as category codes, see :class:`~sdcflow.kernels.synthetic.design.Design`); ``complete`` marks
    the records without a missing predictor (their rows hold the mean or the reference
    category there)."""
    n = len(frame)
    terms: list = [Constant(n)]
    complete = np.ones(n, dtype=bool)
    for name in names:
        if not variables[name].is_numeric:
            codes, uniques = pd.factorize(frame[name], sort=True)
            complete &= codes >= 0
            # at most MAX_DESIGN_COLUMNS categories get here (check_data)
            terms.append(Indicators(codes.astype(np.int32), max(len(uniques) - 1, 0)))
            continue
        x = frame[name].to_numpy(dtype=float, na_value=np.nan)
        present = ~np.isnan(x)
        complete &= present
        if not present.all():  # a copy: to_numpy may give a view of the frame
            x = np.where(present, x, x[present].mean() if present.any() else 0.0)
        terms.append(Columns.centred(x))
    return Design(terms, n), complete


def design_width(frame: pd.DataFrame, names: list[str], variables: dict) -> int:
    """Number of columns :func:`predictor_design` would make (without building it)."""
    width = 1
    for name in names:
        if variables[name].is_numeric:
            width += 1
        else:
            width += max(int(frame[name].nunique(dropna=True)) - 1, 0)
    return width


class RegressionSynthesis(Method):
    """Common adapter of the methods that replace confidential numeric ``variables``
    using a regression on ``predictors``, per stratum. Subclasses implement
    :meth:`synthesise`. Records with a missing value in a variable or a predictor are
    left out of the fit and left unchanged (counted in ``info.unchanged``), as are the
    records of a stratum too small for the model."""

    roles = ("numeric", "key", "sensitive")
    types = ("integer", "continuous")
    keeps_values = False  # True when the output is a permutation of the input

    default_roles = ("numeric",)
    default_numeric = True
    stratified = True
    strata_conflict = "'{name}' cannot both be replaced and define strata"

    def predictors(self, params, meta) -> list[str]:
        if "predictors" in params:
            return list(params["predictors"])
        chosen = set(self.variables(params, meta))
        return [n for n in meta.names("key") if n not in chosen]

    def reads(self, params, meta):
        return super().reads(params, meta) | set(self.predictors(params, meta))

    def check(self, params, meta):
        chosen = self.variables(params, meta)
        if not chosen:
            yield ("variables",), ("no variables: name them or declare integer or continuous "
                                   "variables with role numeric")
        for i, name in enumerate(params.get("predictors", [])):
            var = meta.variables.get(name)
            if var is None:
                yield ("predictors", i), f"'{name}' is not a declared variable"
            elif name in chosen:
                yield ("predictors", i), f"'{name}' is both replaced and a predictor"
            elif var.role == "identifier":
                yield ("predictors", i), (f"'{name}' is an identifier: one dummy per record "
                                          "cannot be a predictor")
        yield from self.check_strata(params, meta)

    def check_data(self, params, data):
        predictors = [p for p in self.predictors(params, data.meta) if p in data.frame]
        # the least squares sums of squares and products must stay finite
        for where, names in (("variables", self.variables(params, data.meta)),
                             ("predictors", predictors)):
            for name in names:
                if name in data.frame and data.variables[name].is_numeric:
                    top = squares_overflow(data.frame[name].to_numpy(dtype=float,
                                                                     na_value=np.nan))
                    if top is not None:
                        yield (where,), squares_message(name, top, len(data))
        width = design_width(data.frame, predictors, data.variables)
        if width > MAX_DESIGN_COLUMNS:
            yield ("predictors",), (f"the predictors make {width} design columns (dummy "
                                    f"variables included), more than {MAX_DESIGN_COLUMNS}: "
                                    "recode the categorical predictors with many categories")

    def outputs(self, params, meta):
        # synthetic values are real numbers unless the method hands out the variable's own
        # values (keeps_values): then an integer variable stays integer
        return {n: numeric_output(meta.variables[n], whole=bool(self.keeps_values))
                for n in self.variables(params, meta) if n in meta.variables}

    @abstractmethod
    def synthesise(self, X: Design, Y: np.ndarray, params: dict,
                   rng: np.random.Generator) -> np.ndarray:
        """The replacement of ``Y`` (complete records of one stratum) given the design
        ``X`` of :func:`predictor_design` (with its intercept)."""

    def apply(self, data, params, rng):
        meta = data.meta
        chosen = self.variables(params, meta)
        predictors = self.predictors(params, meta)
        frame = data.frame
        n = len(frame)
        Y = numeric_matrix(frame, chosen)
        X, complete = predictor_design(frame, predictors, data.variables)
        complete &= ~np.isnan(Y).any(axis=1)
        strata = self.strata(params, meta)
        groups, labels = stratum_codes(frame, strata)
        if n and not strata and complete.all():
            parts = [(0, None)]  # every record: no index arrays, no copies of X and Y
        else:
            parts = [(code, rows[complete[rows]])
                     for code, rows in enumerate(stratum_members(groups, len(labels)))]
        del groups
        out = Y
        done = np.zeros(n, dtype=bool)
        too_small: list[dict] = []
        for code, rows in parts:
            if rows is not None and not len(rows):
                continue
            try:
                new = self.synthesise(X if rows is None else X.take(rows),
                                      Y if rows is None else Y[rows], params, rng)
            except TooFewRecords as exc:
                too_small.append({"stratum": labels[code],
                                  "records": n if rows is None else len(rows),
                                  "reason": str(exc)})
                continue
            if rows is None:
                out = new
                done[:] = True
                continue
            if out is Y:  # the first stratum changed: from now on a copy
                out = Y.copy()
            out[rows] = new
            done[rows] = True
        # a value counts as kept when equal up to rounding: e.g. IPSO-B/C reproduce the
        # records the predictors fit exactly (a category of one record: leverage 1)
        columns, new_vars, changed = {}, [], {}
        kept_all = done.copy()
        for j, name in enumerate(chosen):
            y = Y[:, j]
            spread = float(np.std(y[complete])) if complete.any() else 0.0
            kept = np.abs(out[:, j] - y) <= 1e-9 * (np.abs(y) + spread)
            changed[name] = int(np.sum(done & ~kept))
            kept_all &= kept
            col, var = self._column(out[:, j], frame[name], data.variables[name])
            columns[name] = col
            new_vars.append(var)
        info = {
            "variables": chosen,
            "predictors": predictors,
            "design_columns": X.p,
            "records": n,
            "synthesised": int(done.sum()),
            "changed": changed,
            "reproduced": int(kept_all.sum()),
            "unchanged": {"missing_values": int(n - complete.sum()),
                          "small_strata": int(sum(s["records"] for s in too_small))},
        }
        if too_small:
            info["small_strata"] = too_small
        return MethodResult(data.with_columns(columns, new_vars), info)

    def _column(self, values: np.ndarray, original: pd.Series, var):
        if var.type == "integer" and self.keeps_values:
            return pd.Series(values, index=original.index).round().astype("Int64"), var
        # the kernels return column-major arrays: each column is released without a copy
        return (pd.Series(values, index=original.index, copy=False),
                var.evolve(type="continuous"))


@register
class IPSO(RegressionSynthesis):
    """IPSO (Torra 2013, "The IPSO family"): the confidential ``variables`` Y are replaced
    by synthetic values from the multivariate regression on the ``predictors`` X (with an
    intercept), per stratum: variant A draws Y' = X B_hat + E, E ~ N(0, Sigma_hat) (ML
    estimate S / n); B makes E orthogonal to X, so the OLS coefficients of Y' on X are
    exactly B_hat; C also rescales E so that the residual sum of squares and products is
    exactly S (both sufficient statistics kept; with the intercept, the means and the
    covariance matrix of the predictors and Y' are those of the original data). Records
    with a missing value in a variable or predictor keep their values and are left out
    of the fit; so are the records of strata too small for the model (n <= rank of X,
    or for C n - rank < number of variables).

    Torra's (2013) lecture notes on IPSO take the quasi-identifiers as dependent and synthesise them
    from the confidential attributes: name the quasi-identifiers as ``variables`` and the
    confidential attributes as ``predictors`` to do that."""

    name = "ipso"
    public_params = ("variables", "predictors", "variant", "strata")
    protects = True
    summary = "Synthetic confidential variables that keep their regression on the others (IPSO)."
    version = "2"
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": VARIABLES_PARAM,
            "predictors": PREDICTORS_PARAM,
            "variant": {"enum": list(VARIANTS), "default": "C",
                        "description": "A: drawn from the fitted model; B: OLS coefficients "
                                       "kept exactly; C: coefficients and residual "
                                       "covariance kept exactly."},
            "strata": STRATA_PARAM,
        },
    }

    def synthesise(self, X, Y, params, rng):
        return ipso(X, Y, rng, variant=params["variant"], intercept=False)

    def apply(self, data, params, rng):
        result = super().apply(data, params, rng)
        result.info = {"variant": params["variant"], **result.info}
        return result
