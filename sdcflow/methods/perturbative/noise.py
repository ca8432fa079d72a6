"""``noise``: mask numeric variables with noise (Torra, "Masking methods", 2013, "Additive
Noise", uncorrelated and correlated; Templ, "Advanced Survey Statistics: Disclosure
Control", 2019, the noise variants and ROMM). The kernels and their references are in
:mod:`sdcflow.kernels.perturbative.noise`.

Methods (``k`` is the noise level; sdcMicro's percentage ``noise`` can be given instead for
``additive`` and ``correlated``, see :mod:`sdcflow.kernels.perturbative.sdcmicro_noise`):

* ``additive``: ``eps_j ~ N(0, k Var(X_j))`` independent: means and covariances kept,
  variances times ``1 + k``, correlations divided by ``1 + k`` (in expectation);
* ``uniform``: ``eps_j ~ U(-a_j, a_j)`` independent, ``a_j = sqrt(3 k Var(X_j))`` (the
  variance of ``additive`` noise, bounded: no value moves by more than ``a_j``; Brand,
  "Microdata protection through noise addition", 2002), the same moments as ``additive``;
* ``correlated``: ``eps ~ N(0, k Sigma)``: means and correlations kept, covariances and
  variances times ``1 + k`` (in expectation); exact linear relations among the variables
  (``total = a + b``) are kept, the noise lying in the range of Sigma;
* ``correlated2``: sdcMicro's ``addNoise(method = "correlated2")`` with its ``delta``
  (default 0.1) instead of ``k``: ``sqrt(1 - delta^2) x + (1 - sqrt(1 - delta^2)) mean +
  delta sd e`` per variable, ``e`` standard normal: means and variances kept,
  covariances and correlations times ``1 - delta^2`` (in expectation);
* ``outdect``: sdcMicro's ``addNoise(method = "outdect", noise)``: normal noise of
  standard deviation ``1.96 sd(X_j) / sqrt(n) * noise / 100`` added to the outliers only
  (values above the 0.99 quantile of their variable, or a robust Mahalanobis distance
  from the MCD centre beyond ``sqrt(chi2_p(0.975))``; Templ & Meindl 2008), over all
  the records (no strata);
* ``correlated_restored``: correlated noise, then a linear transformation making the
  sample mean vector and covariance matrix of the complete records equal to the original
  ones exactly (Kim 1986, Tendick & Matloff 1994, made exact in the sample);
* ``multiplicative``: ``X f`` with a lognormal factor of mean 1 and variance ``k``: signs
  kept, zeros stay zero, ``E(X' | X) = X``, relative perturbation of variance ``k``;
* ``romm``: random orthogonal matrix masking ``Z = A X`` (A orthogonal, ``A 1 = 1``,
  Haar-distributed, or near the identity with ``romm_lambda``): the sample mean vector and
  covariance matrix are kept exactly (so are linear relations); records are mixed.

Per stratum (``strata``, default the variables with role strata): the moments are
estimated, and kept, within each stratum. A stratum with fewer than 3 usable records
(observed values for ``additive``, ``uniform`` and ``correlated2``, complete records
otherwise) uses the estimate of all records instead; for ``correlated_restored`` and ``romm``, whose exact preservation within
such a stratum would give back the original values, its records get ``correlated`` noise
with the covariance of all complete records (``info.small_strata_records``).

Missing values stay missing. They are left out of the estimation: variances use the
observed values of each variable, covariance matrices the complete records (no missing
value among the variables). For the multivariate methods a record with a missing value
gets correlated noise on its observed values (``info.incomplete_records``): the restoring
transformation and the rotation need all the variables of a record. Integer variables
become continuous.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ...data.codes import numeric_matrix
from ...data.magnitude import matrix_squares_problems
from ...data.strata import stratum_codes, stratum_members
from ...errors import PluginError
from ...kernels.changes import changed_values
from ...kernels.partial_moments import (
    column_part,
    column_variances_of,
    covariance_of,
    matrix_part,
    merge_columns,
    merge_matrices,
)
from ...kernels.perturbative.noise import (
    additive_noise,
    column_variances,
    complete_rows,
    correlated_noise,
    correlated_restored,
    moments,
    multiplicative_noise,
    romm,
)
from ...kernels.perturbative.sdcmicro_noise import (
    DELTA,
    NOISE_DEFAULT,
    NOISE_METHODS,
    column_means_and_sds,
    correlated2_noise,
    k_from_noise,
    outlier_noise,
)
from ...kernels.perturbative.uniform_noise import uniform_noise
from ...plugins.distribution import Rows, Whole, sum_info
from ...plugins.limits import FLOAT_MAX, NOISE_SIGMAS
from ...plugins.plain_words import figure, get, names, values_changed
from ...plugins.registry import (
    Method,
    MethodResult,
    numeric_output,
    register,
    strata_param,
    variables_param,
)

METHODS = ("additive", "uniform", "correlated", "correlated2", "outdect",
           "correlated_restored", "multiplicative", "romm")
# methods that take sdcMicro's percentage noise (outdect only that)
PERCENT_METHODS = (*NOISE_METHODS, "outdect")
# methods with independent noise on each variable, scaled by its own variance
UNIVARIATE = ("additive", "uniform")
# methods estimating each variable on its own (its variance; and its mean for correlated2)
PER_VARIABLE = (*UNIVARIATE, "correlated2")
MULTIVARIATE = ("correlated", "correlated_restored", "romm")
K = 0.1  # the default noise level k
# Fewest records from which a stratum's own variance or covariance is used; below it the
# estimate of all records is (two records give a rank-one covariance, one none at all).
MIN_STRATUM = 3


@register
class Noise(Method):
    distribution = Rows(rounds=1)  # additive, correlated (see distributes)
    name = "noise"
    # 2: correlated2 and sdcMicro's noise; k's default in the code, not the schema;
    # 3: outdect
    version = "3"
    # the noise level is published: analysts need the noise variance to correct their
    # estimates (Hundepool et al., "Statistical Disclosure Control", 2012); the draws
    # stay secret with the seed
    public_params = ("variables", "method", "k", "noise", "delta", "romm_lambda", "strata")
    protects = True
    summary = ("Add noise to numeric variables: additive (normal or uniform), correlated, "
               "sdcMicro's correlated2 and outdect (noise on outliers only), correlated with "
               "exact moments, multiplicative, or random orthogonal matrix masking (ROMM).")
    roles = ("numeric", "key", "sensitive")
    types = ("integer", "continuous")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": variables_param("Variables masked (default: every variable with "
                                         "role numeric and type integer or continuous).",
                                         unique=False),
            "method": {"enum": list(METHODS), "default": "additive",
                       "description": "additive (uncorrelated normal), uniform "
                                      "(uncorrelated uniform), correlated, correlated2 "
                                      "(sdcMicro's, with delta), outdect (sdcMicro's: "
                                      "noise on the outliers only), "
                                      "correlated_restored (exact means and covariances), "
                                      "multiplicative, or romm."},
            "k": {"type": "number", "exclusiveMinimum": 0,
                  "description": "Noise level (default 0.1): Var(noise) = k Var(X) "
                                 "(additive, uniform), k Sigma (correlated, "
                                 "correlated_restored), Var(factor) = k (multiplicative); "
                                 "romm uses it only for records it cannot rotate."},
            "noise": {"type": "number", "exclusiveMinimum": 0,
                      "description": "sdcMicro's addNoise noise, in percent, instead of k "
                                     "(additive, correlated): additive noise has noise/100 "
                                     "times the standard deviation (k = (noise/100)^2), "
                                     "correlated noise noise/100 times the covariance "
                                     "matrix (k = noise/100); outdect: the outliers' "
                                     "noise has 1.96 sd / sqrt(n) * noise/100 as standard "
                                     "deviation. sdcMicro's default is 150."},
            "delta": {"type": "number", "exclusiveMinimum": 0, "maximum": 1,
                      "description": "correlated2 (sdcMicro's delta, default 0.1): "
                                     "sqrt(1 - delta^2) x + (1 - sqrt(1 - delta^2)) mean + "
                                     "delta sd e."},
            "romm_lambda": {"type": "number", "exclusiveMinimum": 0, "maximum": 1e6,
                            "description": "romm: draw A near the identity (Langsrud's "
                                           "lambda; not sdcMicro's p, which rotates the "
                                           "uncentred records) instead of "
                                           "Haar-distributed (the default); beyond 1e6 "
                                           "(refused) A is Haar-distributed in effect."},
            "strata": strata_param("Estimate and preserve the moments within strata"),
        },
        "allOf": [
            {"if": {"required": ["noise"]}, "then": {"not": {"required": ["k"]},
             "x-error": "'noise' is sdcMicro's percentage and 'k' sdcflow's noise level: "
                        "give one of them"}},
            {"if": {"required": ["noise", "method"],
                    "properties": {"method": {"not": {"enum": list(PERCENT_METHODS)}}}},
             "then": {"not": {"required": ["noise"]},
                      "x-error": "'noise' (sdcMicro's percentage) applies to methods "
                                 "additive, correlated and outdect, as in sdcMicro; the "
                                 "others take 'k' (correlated2 'delta')"}},
            {"if": {"required": ["method"], "properties": {"method": {"const": "outdect"}}},
             "then": {"not": {"required": ["k"]},
                      "x-error": "outdect's noise level is sdcMicro's percentage 'noise' "
                                 "(default 150), not 'k'"}},
            {"if": {"required": ["delta"],
                    "not": {"required": ["method"],
                            "properties": {"method": {"const": "correlated2"}}}},
             "then": {"not": {"required": ["delta"]},
                      "x-error": "'delta' applies to method correlated2 only"}},
            {"if": {"required": ["method"], "properties": {"method": {"const": "correlated2"}}},
             "then": {"not": {"anyOf": [{"required": ["k"]}, {"required": ["noise"]}]},
                      "x-error": "correlated2's noise level is 'delta' (sdcMicro's), not "
                                 "'k' or 'noise'"}},
        ],
    }

    default_roles = ("numeric",)
    default_numeric = True
    stratified = True
    strata_conflict = "'{name}' is both masked and a stratum variable"

    def explain(self, params, result):
        variables = params.get("variables") or []
        method = params.get("method", "additive")
        if method == "correlated2":
            level = f"delta = {figure(params.get('delta', DELTA))}"
        elif method == "outdect":
            level = (f"sdcMicro's noise = {figure(params.get('noise', NOISE_DEFAULT))}%, "
                     "on the outliers only")
        elif "noise" in params:
            level = f"sdcMicro's noise = {figure(params['noise'])}%"
        else:  # (k's default is in the code: without it the report said "k = —")
            level = f"k = {figure(params.get('k', K))}"
        text = (f"Random noise ({str(method).replace('_', ' ')}, {level}) was added to "
                f"{names(variables) or 'the numeric variables'}"
                ", so that released values differ from the true ones.")
        if get(result, "perturbed") is not None:
            text += " " + values_changed(result["perturbed"], result, "were perturbed")
        return text

    def check(self, params, meta):
        names = self.variables(params, meta)
        if not names:
            yield ("variables",), ("no variables: name them or declare variables with role "
                                   "numeric")
        if len(names) != len(set(names)):
            yield ("variables",), "a variable is named twice"
        yield from self.check_strata(params, meta)
        if "romm_lambda" in params and params.get("method") != "romm":
            yield ("romm_lambda",), "romm_lambda applies to method romm only"
        if params.get("method") == "outdect" and self.strata(params, meta):
            yield ("strata",), ("outdect finds the outliers among all the records, as "
                                "sdcMicro does: it takes no strata (give strata: [] when "
                                "variables have role strata)")

    def check_data(self, params, data):
        names = [n for n in self.variables(params, data.meta) if n in data.frame]
        method = params.get("method", "additive")
        if not names or method == "multiplicative":
            return
        X = numeric_matrix(data.frame, names)
        level = _level(params)
        if method == "outdect":
            yield from matrix_squares_problems(X, names)  # the MCD's covariance
            complete = int((~np.isnan(X).any(axis=1)).sum())
            if complete <= len(names) + 1:
                yield ("variables",), (f"outdect's robust covariance (MCD) needs more records "
                                       f"without a missing value than variables + 1: "
                                       f"{complete} for {len(names)} variables")
            return
        if method == "correlated2":  # delta scales the standard deviation
            yield from _finite_noise(X, names, level * level, "delta", level)
        elif "noise" in params:
            yield from _finite_noise(X, names, level, "noise", float(params["noise"]))
        else:
            yield from _finite_noise(X, names, level)
        if method in PER_VARIABLE:
            for j, name in enumerate(names):
                observed = int((~np.isnan(X[:, j])).sum())
                if observed < 2:
                    yield ("variables",), (f"'{name}' has {observed} observed value(s): its "
                                           "variance needs at least 2")
        elif int(complete_rows(X).sum()) < 2:
            yield ("variables",), (f"{method} noise needs at least 2 records without a "
                                   "missing value in " + ", ".join(names)
                                   + " to estimate their covariance matrix")

    def outputs(self, params, meta):
        # noisy values are real numbers: an integer variable becomes continuous
        return {n: numeric_output(meta.variables[n], whole=False)
                for n in self.variables(params, meta) if n in meta.variables}

    def apply(self, data, params, rng):
        names = self.variables(params, data.meta)
        method, k = params["method"], _level(params)
        lam = params.get("romm_lambda")
        frame = data.frame
        X = numeric_matrix(frame, names)
        strata = self.strata(params, data.meta)
        codes, labels = stratum_codes(frame, strata)
        count = len(labels)
        # multiplicative noise estimates no moment: strata change nothing
        if method == "multiplicative" or count == 1:
            groups: list = [slice(0, len(X))]  # one stratum: no copy of the data
        else:
            groups = stratum_members(codes, count)
        overall = None
        if len(groups) > 1:  # the fallback estimate for small strata
            overall = (column_variances(X) if method in UNIVARIATE else
                       column_means_and_sds(X) if method == "correlated2" else moments(X)[1])
        tally = {"perturbed": 0, "pooled": 0, "small": 0, "incomplete": 0, "outliers": 0}
        del codes
        for rows in groups:
            xs = X[rows]
            try:
                zs = self._mask(xs, method, k, lam, overall, rng, tally)
            except ValueError as exc:  # the MCD of outdect: an exact fit
                raise PluginError(self.name, f"outdect cannot find the outliers: {exc}") \
                    from None
            tally["perturbed"] += int(changed_values(zs, xs).sum())
            if len(groups) == 1:
                X = zs  # nothing else needs the original values
            else:
                X[rows] = zs  # X is this step's own copy: the result goes in place
            del xs, zs  # before the next stratum's copies are made
        info: dict = {"method": method, **_level_info(params, k),
                      "perturbed": tally["perturbed"],
                      "strata": count if method != "multiplicative" else 1}
        if method in MULTIVARIATE:
            info["incomplete_records"] = tally["incomplete"]
        if method == "outdect":
            info["outliers"] = tally["outliers"]
        if tally["small"]:
            info["small_strata_records"] = tally["small"]
        if tally["pooled"]:
            info["values_with_overall_variance"] = tally["pooled"]
        if lam is not None:
            info["romm_lambda"] = float(lam)
        columns, new_vars = {}, []
        for j, name in enumerate(names):
            columns[name] = pd.Series(X[:, j], index=frame.index, copy=False)
            var = data.variables[name]
            new_vars.append(var.evolve(type="continuous") if var.type == "integer" else var)
        return MethodResult(data.with_columns(columns, new_vars), info)

    # ------------------------------------------------------------ partitioned data
    def distributes(self, params, meta):
        if self.strata(params, meta) and params["method"] != "multiplicative":
            return ("noise within strata needs each stratum's moments and the overall ones "
                    "for small strata (not on the Dask engine yet)")
        if params["method"] == "multiplicative":
            return Rows()  # a factor per value: nothing to estimate
        if params["method"] == "outdect":
            return Whole()  # quantiles and the MCD of all the records
        if params["method"] in (*PER_VARIABLE, "correlated"):
            # global variances (means) / covariance matrix, then per partition
            return Rows(rounds=1)
        return Whole()  # the exact restoration and ROMM act on all the records together

    def partial(self, rnd, data, params, state, *, original=None):
        X = numeric_matrix(data.frame, self.variables(params, data.meta))
        return column_part(X) if params["method"] in PER_VARIABLE else matrix_part(X)

    def combine(self, rnd, partials, params, state):
        if params["method"] in PER_VARIABLE:
            merged = merge_columns(partials)
            variances = column_variances_of(merged)
            if params["method"] == "correlated2":
                return merged[1], np.sqrt(variances)  # means and standard deviations
            return variances
        return covariance_of(merge_matrices(partials))

    def apply_fitted(self, data, params, rng, state):
        """One partition masked with the global variances (``additive``, ``uniform``),
        means and standard deviations (``correlated2``) or covariance matrix
        (``correlated``), as :meth:`apply` masks the whole data with them."""
        if state is None:
            return self.apply(data, params, rng)
        names = self.variables(params, data.meta)
        X = numeric_matrix(data.frame, names)
        k = _level(params)
        if params["method"] == "correlated2":
            Z = correlated2_noise(X, k, rng, means=state[0], sds=state[1])
        elif params["method"] in UNIVARIATE:
            noise = uniform_noise if params["method"] == "uniform" else additive_noise
            Z = noise(X, k, rng, variances=state)
        else:
            Z = correlated_noise(X, k, rng, cov=state)
        info = {"method": params["method"], **_level_info(params, k),
                "perturbed": int(changed_values(Z, X).sum()), "strata": 1}
        if params["method"] in MULTIVARIATE:
            info["incomplete_records"] = int((~complete_rows(X)).sum())
        columns, new_vars = {}, []
        for j, name in enumerate(names):
            columns[name] = pd.Series(Z[:, j], index=data.frame.index, copy=False)
            var = data.variables[name]
            new_vars.append(var.evolve(type="continuous") if var.type == "integer" else var)
        return MethodResult(data.with_columns(columns, new_vars), info)

    def combine_info(self, infos, params):
        out = sum_info(infos)
        out.update(method=params["method"], **_level_info(params, _level(params)), strata=1)
        return out

    @staticmethod
    def _mask(xs, method, k, lam, overall, rng, tally) -> np.ndarray:
        """The masked values of one stratum (``overall``: the estimate of all records, for
        a stratum too small for its own, or None with a single stratum)."""
        if method == "multiplicative":
            return multiplicative_noise(xs, k, rng)
        if method == "outdect":
            zs, mask = outlier_noise(xs, k, rng)
            tally["outliers"] += int(mask.sum())
            return zs
        if method == "correlated2":
            counts = (~np.isnan(xs)).sum(axis=0)
            means, sds = column_means_and_sds(xs)
            small = counts < MIN_STRATUM
            if overall is not None and small.any():
                means[small], sds[small] = overall[0][small], overall[1][small]
                tally["pooled"] += int(counts[small].sum())
            return correlated2_noise(xs, k, rng, means=means, sds=sds)
        if method in UNIVARIATE:
            counts = (~np.isnan(xs)).sum(axis=0)
            variances = column_variances(xs)
            small = counts < MIN_STRATUM
            if overall is not None and small.any():
                variances[small] = overall[small]
                tally["pooled"] += int(counts[small].sum())
            noise = uniform_noise if method == "uniform" else additive_noise
            return noise(xs, k, rng, variances=variances)
        full = complete_rows(xs)
        stats = moments(xs)
        _, cov, m = stats
        if m < MIN_STRATUM:
            tally["small"] += len(xs)
            return correlated_noise(xs, k, rng, cov=cov if overall is None else overall)
        tally["incomplete"] += int((~full).sum())
        if method == "correlated":
            return correlated_noise(xs, k, rng, cov=cov)
        if method == "correlated_restored":
            return correlated_restored(xs, k, rng, known_moments=stats)
        if full.all():
            return romm(xs, rng, lam=lam)[0]
        zs = romm(xs, rng, lam=lam, rows=full)[0]
        zs[~full] = correlated_noise(xs[~full], k, rng, cov=cov)
        return zs


def _level(params) -> float:
    """The noise level the method uses: ``delta`` for correlated2, else ``k``, from
    sdcMicro's ``noise`` where that is given."""
    if params.get("method") == "correlated2":
        return float(params.get("delta", DELTA))
    if params.get("method") == "outdect":
        return float(params.get("noise", NOISE_DEFAULT))
    if "noise" in params:
        return k_from_noise(params.get("method", "additive"), float(params["noise"]))
    return float(params.get("k", K))


def _level_info(params, level: float) -> dict:
    """The noise level in ``info``: ``delta``, or ``k`` (with sdcMicro's ``noise`` if given)."""
    if params.get("method") == "correlated2":
        return {"delta": level}
    if params.get("method") == "outdect":
        return {"noise": level}
    if "noise" in params:
        return {"noise": float(params["noise"]), "k": level}
    return {"k": level}


def _finite_noise(X: np.ndarray, names: list[str], k: float, param: str = "k",
                  value: float | None = None):
    """Refuse a noise level that makes the noise or the noisy values infinite: the noise
    variance is k times a variance, which in any stratum is at most the squared range of
    the values, and no draw exceeds NOISE_SIGMAS standard deviations. ``param`` is the
    parameter that set ``k`` and ``value`` its value (sdcMicro's noise, or correlated2's
    delta with k = delta^2)."""
    shown = f"{param} = {k if value is None else value:g}"
    factor = "k" if param == "k" else f"{k:g}"
    with np.errstate(all="ignore"):
        for j, name in enumerate(names):
            x = X[:, j][~np.isnan(X[:, j])]
            if len(x) < 2:
                continue
            spread = float(x.max() - x.min())
            variance = k * spread * spread
            top = float(np.abs(x).max()) + NOISE_SIGMAS * np.sqrt(k) * spread
            if not (np.isfinite(variance) and top <= FLOAT_MAX):
                yield (param,), (f"{shown} makes the noise on '{name}' (variance up to "
                                 f"{factor} x {spread * spread:.3g}, the squared range of "
                                 "its values) infinite or beyond the range of 64-bit floats")
