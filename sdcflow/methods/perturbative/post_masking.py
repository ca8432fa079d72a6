"""``post_masking``: a masking method followed by a post-masking optimisation of its
result, after F. Sebé, J. Domingo-Ferrer, J. M. Mateo-Sanz & V. Torra, "Post-masking
optimization of the tradeoff between information loss and disclosure risk in masked
microdata sets" (Inference Control in Statistical Databases, LNCS 2316, 2002): the
masked data are modified so as to preserve the first and second moments of the original
data, reducing the information loss of the masking (and with it the SDC score, whose IL
measures are largely divergences of means, variances, covariances and correlations).

The inner method (``mask: {method, params}``) runs as it would as a step of its own, on
the data this step gets; then the complete records of the variables it changed (or of
``variables``) are transformed by the affine map of
:func:`sdcflow.kernels.perturbative.noise.restore_moments`: their sample mean vector and
covariance matrix become those of the same records before masking, exactly, and among
such maps it is the one that moves the masked records least (a Procrustes rotation), so
the masking is undone as little as possible. Records that the masking made
indistinguishable stay so (the map is applied record by record: microaggregated groups
stay groups of k). Whether disclosure risk grew is for the recipe's measures to say:
Sebé et al. search for the data that keep the moments without increasing risk; this is
the closed-form map, to be compared with the masking alone (e.g. by ``score`` steps and
``ranking``). ``info`` gives the inner method's own under ``mask`` and the largest
deviations of the means and covariances from the original ones, masked and optimised.
"""

from __future__ import annotations

import hashlib
from typing import ClassVar

import jsonschema
import numpy as np
import pandas as pd

from ...data.codes import numeric_matrix
from ...errors import did_you_mean
from ...kernels.perturbative.noise import moments, restore_moments
from ...plugins import registry
from ...plugins.registry import Method, MethodResult, numeric_output, register, variables_param

_NUMERIC = ("integer", "continuous")


@register
class PostMasking(Method):
    name = "post_masking"
    public_params = ("mask", "variables")
    protects = True
    summary = ("A masking method, then its result transformed to restore the original "
               "means and covariances (post-masking optimisation).")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["mask"],
        "properties": {
            "mask": {"type": "object", "additionalProperties": False, "required": ["method"],
                     "properties": {"method": {"type": "string", "minLength": 1,
                                               "description": "The masking method."},
                                    "params": {"type": "object", "default": {},
                                               "description": "Its parameters."}},
                     "description": "The masking method and its parameters, as a step."},
            "variables": variables_param("Numeric variables whose moments are restored "
                                         "(default: the integer and continuous variables "
                                         "the masking changes)."),
        },
    }

    @property
    def version(self) -> str:  # type: ignore[override]
        """This plugin's version and those of the methods it can run (part of the cache
        fingerprint: a new version of the inner method must recompute the step)."""
        inner = ",".join(f"{p.name}={p.version}" for p in registry.plugins("method")
                         if p is not self)
        return "1+" + hashlib.sha256(inner.encode()).hexdigest()[:12]

    # --- the inner method ---------------------------------------------------------------
    @staticmethod
    def _inner(params):
        spec = params.get("mask") or {}
        name = spec.get("method")
        plugin = registry.get(name) if isinstance(name, str) else None
        if plugin is None:
            return None, {}
        return plugin, registry.with_defaults(plugin.params, spec.get("params") or {})

    def public(self, params):
        """The public parameters, the inner method's as that method publishes them (an
        unknown method's parameters not at all)."""
        out = super().public(params)
        mask = out.get("mask")
        if isinstance(mask, dict) and "params" in mask:
            plugin, _ = self._inner(params)
            inner = mask["params"] if isinstance(mask["params"], dict) else {}
            out["mask"] = {**mask, "params": plugin.public(inner) if plugin else {}}
        return out

    def _restored(self, params, meta) -> list[str]:
        if params.get("variables"):
            return list(params["variables"])
        plugin, inner = self._inner(params)
        if plugin is None or plugin.kind != "method":
            return []
        written = plugin.writes(inner, meta) or set()
        return [v for v in plugin.variables(inner, meta)
                if v in written and v in meta.variables and meta.variables[v].type in _NUMERIC]

    def named_variables(self, params):
        plugin, inner = self._inner(params)
        own = [(("variables", i), v) for i, v in enumerate(params.get("variables") or [])
               if isinstance(v, str)]
        if plugin is None:
            return own
        return own + [(("mask", "params", *path), v) for path, v in plugin.named_variables(inner)]

    def variables(self, params, meta):
        plugin, inner = self._inner(params)
        inside = plugin.variables(inner, meta) if plugin is not None else []
        return list(dict.fromkeys([*inside, *self._restored(params, meta)]))

    def reads(self, params, meta):
        plugin, inner = self._inner(params)
        reads = plugin.reads(inner, meta) if plugin is not None else set()
        return None if reads is None else set(reads) | set(self._restored(params, meta))

    def writes(self, params, meta):
        plugin, inner = self._inner(params)
        if plugin is None or plugin.kind != "method":
            return set()
        written = plugin.writes(inner, meta)
        return None if written is None else set(written)

    def outputs(self, params, meta):
        plugin, inner = self._inner(params)
        if plugin is None or plugin.kind != "method":
            return None
        out = dict(plugin.outputs(inner, meta) or {})
        for v in self._restored(params, meta):
            if v in meta.variables:
                out[v] = numeric_output(meta.variables[v], whole=False)
        return out

    # --- checks -------------------------------------------------------------------------
    def check(self, params, meta):
        name = (params.get("mask") or {}).get("method")
        plugin, inner = self._inner(params)
        if plugin is None:
            names = [p.name for p in registry.plugins("method") if not p.on_table]
            yield ("mask", "method"), (f"unknown method '{name}'"
                                       f"{did_you_mean(str(name), names)}")
            return
        if plugin.kind != "method" or plugin.on_table or plugin is self:
            yield ("mask", "method"), f"'{name}' is not a masking method of records"
            return
        if plugin.changes_records(inner, meta):
            yield ("mask", "method"), (f"{name} changes the records themselves: their "
                                       "moments cannot be compared record by record")
            return
        if plugin.households != "per_household" or plugin.makes_missing:
            yield ("mask", "method"), (f"{name} handles households or makes values missing "
                                       "itself: run it as a step of its own")
            return
        for error in jsonschema.Draft202012Validator(plugin.params).iter_errors(inner):
            yield ("mask", "params", *error.path), error.message
            return
        for path, message in plugin.check(inner, meta):
            yield ("mask", "params", *path), message
        written = plugin.writes(inner, meta) or set()
        for i, v in enumerate(params.get("variables") or []):
            var = meta.variables.get(v)
            if var is None:
                continue  # (reported as undeclared by validation)
            if var.type not in _NUMERIC:
                yield ("variables", i), f"'{v}' is {var.type}: only numbers have moments"
            elif v not in written:
                yield ("variables", i), f"'{v}' is not changed by {name}"
        if not self._restored(params, meta):
            yield ("variables",), (f"{name} changes no integer or continuous variable: no "
                                   "moments to restore")

    def check_data(self, params, data):
        plugin, inner = self._inner(params)
        if plugin is None:
            return
        for path, message in plugin.check_data(inner, data):
            yield ("mask", "params", *path), message
        names = [v for v in self._restored(params, data.meta) if v in data.frame]
        if names and int((~np.isnan(numeric_matrix(data.frame, names)).any(axis=1)).sum()) < 2:
            yield ("variables",), ("restoring means and covariances needs at least 2 records "
                                   "without a missing value in " + ", ".join(names))

    # --- the work -----------------------------------------------------------------------
    def apply(self, data, params, rng):
        plugin, inner = self._inner(params)
        masked = plugin.apply(data, inner, rng)
        names = self._restored(params, data.meta)
        x = numeric_matrix(data.frame, names)
        z = numeric_matrix(masked.data.frame, names)
        complete = ~(np.isnan(x).any(axis=1) | np.isnan(z).any(axis=1))
        mean, cov, m = moments(x[complete])
        before = _deviations(z[complete], mean, cov)
        if m >= 2:
            restore_moments(z, mean, cov, out=z, rows=None if complete.all() else complete)
            constant = np.diag(cov) == 0  # a constant variable keeps the masked values
            z[:, constant] = numeric_matrix(masked.data.frame, names)[:, constant]
        info = {"mask": {"method": plugin.name, **masked.info}, "restored": names,
                "records_restored": int(complete.sum()) if m >= 2 else 0,
                "max_deviation": {"masked": before,
                                  "optimised": _deviations(z[complete], mean, cov)}}
        columns, new_vars = {}, []
        for j, name in enumerate(names):
            columns[name] = pd.Series(z[:, j], index=data.frame.index)
            var = masked.data.variables[name]
            new_vars.append(var.evolve(type="continuous") if var.type == "integer" else var)
        return MethodResult(masked.data.with_columns(columns, new_vars), info)


def _deviations(z: np.ndarray, mean: np.ndarray, cov: np.ndarray) -> dict:
    """The largest absolute deviation of the mean vector and of the covariance matrix of
    ``z`` from ``mean`` and ``cov``, relative to the largest original standard deviation
    and variance (0 when they agree)."""
    mz, cz, m = moments(z)
    if m < 2 or not np.isfinite(cov).all():
        return {"means": None, "covariances": None}
    scale = float(np.sqrt(np.max(np.diag(cov)))) or 1.0
    return {"means": round(float(np.max(np.abs(mz - mean))) / scale, 12),
            "covariances": round(float(np.max(np.abs(cz - cov))) / scale ** 2, 12)}
