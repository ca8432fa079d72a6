"""``lossy_compression``: JPEG-based masking (Torra, "Masking methods", 2013, "Lossy
Compression", Domingo-Ferrer & Torra): the numeric variables as an image, records as rows
and variables as columns, each variable scaled linearly onto JPEG's 0..255 sample range,
compressed with JPEG's lossy steps (8 x 8 blocks, 2-D DCT, quantisation with the standard
luminance table scaled for ``quality`` as libjpeg does), decompressed, and scaled back.
Details and references are in :mod:`sdcflow.kernels.perturbative.lossy_compression`.

The image rows are the records in file order, or sorted by ``sort_by`` (stable, missing
last) so that similar records share blocks (smoother image, smaller error at a given
quality); the result is in file order either way. Every value stays within its variable's
original range (decoded samples are clipped to 0..255); a constant variable is unchanged.
Missing values stay missing (they are filled with the variable's mean for the
compression). Integer variables become continuous. No randomness.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ...data.codes import numeric_matrix, ordered_values
from ...kernels.changes import changed_values
from ...kernels.perturbative.lossy_compression import BLOCK, lossy_compress
from ...plugins.registry import Method, MethodResult, numeric_output, register, variables_param


def sort_order(column: pd.Series, var) -> np.ndarray:
    """The record positions sorted by ``column`` (an ordinal one in its declared order),
    stably, missing values last, without a sorted copy of the column: numbers are sorted
    as they are, categories through the codes of their (few) distinct values."""
    if var.is_numeric or var.type == "ordinal":
        return np.argsort(ordered_values(column, var), kind="stable")
    codes, uniques = pd.factorize(column, sort=True)
    codes[codes < 0] = len(uniques)
    return np.argsort(codes, kind="stable")


@register
class LossyCompression(Method):
    name = "lossy_compression"
    public_params = ("variables", "quality", "sort_by")
    protects = True
    summary = "Mask numeric variables by JPEG-compressing them as an image (records x variables)."
    version = "2"  # 2: column means summed by blocks (a missing value's fill: last bit)
    roles = ("numeric", "key", "sensitive")
    types = ("integer", "continuous")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": variables_param("Variables masked, the image's columns in this "
                                         "order (default: every variable with role numeric "
                                         "and a numeric type).", unique=False),
            "quality": {"type": "integer", "minimum": 1, "maximum": 100, "default": 75,
                        "description": "JPEG quality (libjpeg scaling of the luminance "
                                       "table): 100 changes the least, 1 the most."},
            "sort_by": {"type": "string",
                        "description": "Put the records in the image in the order of this "
                                       "variable (default: file order)."},
        },
    }

    default_roles = ("numeric",)
    default_numeric = True

    def reads(self, params, meta):
        extra = {params["sort_by"]} if params.get("sort_by") else set()
        return set(self.variables(params, meta)) | extra

    def check(self, params, meta):
        names = self.variables(params, meta)
        if not names:
            yield ("variables",), ("no variables: name them or declare variables with role "
                                   "numeric")
        if len(names) != len(set(names)):
            yield ("variables",), "a variable is named twice"
        if params.get("sort_by") and params["sort_by"] not in meta.variables:
            yield ("sort_by",), f"'{params['sort_by']}' is not a declared variable"

    def outputs(self, params, meta):
        # decompressed values are real numbers: an integer variable becomes continuous
        return {n: numeric_output(meta.variables[n], whole=False)
                for n in self.variables(params, meta) if n in meta.variables}

    def apply(self, data, params, rng):
        names = self.variables(params, data.meta)
        frame = data.frame
        X = numeric_matrix(frame, names)
        order = None
        if params.get("sort_by"):
            order = sort_order(frame[params["sort_by"]], data.variables[params["sort_by"]])
        out, rmse = lossy_compress(X, params["quality"], order=order)
        columns, new_vars = {}, []
        for j, name in enumerate(names):
            columns[name] = pd.Series(out[:, j], index=frame.index, copy=False)
            var = data.variables[name]
            new_vars.append(var.evolve(type="continuous") if var.type == "integer" else var)
        info = {
            "quality": params["quality"],
            "sorted_by": params.get("sort_by"),
            "blocks": -(-len(X) // BLOCK) * -(-len(names) // BLOCK),
            "changed": int(changed_values(out, X).sum()),
            # root mean squared change of each variable on the 0..255 scale of the image
            "rmse_0_255": {name: round(float(e), 6) for name, e in zip(names, rmse,
                                                                         strict=True)},
        }
        return MethodResult(data.with_columns(columns, new_vars), info)
