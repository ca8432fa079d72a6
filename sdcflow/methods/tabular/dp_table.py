"""``dp_table``: a differentially private table, margins included: discrete Laplace
(``epsilon``) or discrete Gaussian (``rho``) noise on every cell's count -- and, for a
table of sums, on every cell's sum of the response clamped to ``[0, upper]`` -- at the
scale OpenDP calibrates for the step's spend (:mod:`sdcflow.dp.accounting`), then
post-processed TopDown-style into non-negative, whole, additive cells
(:mod:`sdcflow.tabular.dp_consistency`). Dwork, McSherry, Nissim & Smith (2006) for the
Laplace mechanism, Canonne, Kamath & Steinke (2020) for the discrete mechanisms, Abowd et
al. (2022) for the post-processing."""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from ...dp.accounting import Part
from ...dp.steps import SPEND_PARAMS, UNIT_PARAM, DPStep
from ...errors import PluginError
from ...plugins.registry import MethodResult, TableMethod, register


def table_levels(recipe, table_id: str) -> list[int]:
    """The number of depths (leaf, each declared hierarchy level, total) of each
    dimension of the recipe's table ``table_id``."""
    spec = recipe.tables[table_id]
    out = []
    for d in spec.dims:
        var = recipe.variables.get(d)
        levels = len(var.hierarchy) if var is not None and var.hierarchy else 0
        out.append(levels + 2)
    return out


@register
class DPTable(DPStep, TableMethod):
    name = "dp_table"
    public_params = ("epsilon", "rho", "upper", "consistent", "privacy_unit_records")
    protects = True
    summary = ("Differential privacy on a table: discrete Laplace/Gaussian noise on every "
               "cell (OpenDP's accounting), then non-negative, whole, additive cells.")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            **SPEND_PARAMS,
            **UNIT_PARAM,
            "upper": {"type": "integer", "minimum": 1, "maximum": 10**12,
                      "description": "Clamping bound of the response of a table of sums: "
                                     "each record contributes a value in [0, upper] (a "
                                     "record above it is refused: top-code it first)."},
            "consistent": {"type": "boolean", "default": True,
                           "description": "Post-process the noisy cells into non-negative "
                                          "whole numbers with every total the sum of its "
                                          "parts (TopDown-style); false: publish the raw "
                                          "noisy cells."},
        },
    }

    def check(self, params, meta):
        yield from self.check_spend(params)

    def check_data(self, params, data):
        # a table counts every record: with households as the privacy unit, none may have
        # more records than the budget's max_records (the measures drop the extra
        # records; a table built by the engine cannot)
        d_in = self.unit_records(params)
        households = [n for n, v in data.variables.items() if v.role == "household"]
        if d_in > 1 and households and households[0] in data.frame:
            sizes = data.frame[households[0]].value_counts(dropna=True)
            if len(sizes) and int(sizes.max()) > d_in:
                yield (), (f"a household has {int(sizes.max())} records, more than the "
                           f"privacy budget's max_records {d_in}: a DP table counts every "
                           "record; raise max_records or keep fewer records per household")

    def dp_parts(self, params, recipe, step):
        spec = recipe.tables[step.table]
        if spec.weight is not None:
            raise ValueError("a DP table counts records: give a table without weight")
        if spec.response is not None:
            var = recipe.variables.get(spec.response)
            if var is not None and var.type != "integer":
                # a sum of fractional values rounded once per cell could move by more than
                # the clamping bound when one record goes
                raise ValueError(f"a DP table sums whole numbers: '{spec.response}' must be "
                                 "an integer variable (express it in whole units)")
        slices = (1,) * math.prod(table_levels(recipe, spec.id))
        return self._parts(params, slices, spec.response is not None)

    def _parts(self, params, slices: tuple[int, ...], sums: bool) -> tuple[Part, ...]:
        if not sums:
            return (Part("counts", slices),)
        if params.get("upper") is None:
            raise ValueError("a table of sums needs the clamping bound upper (each record's "
                             "response in [0, upper])")
        return (Part("counts", slices, share=0.5),
                Part("sums", slices, lower=0, upper=int(params["upper"]), share=0.5))

    def explain(self, params, result):
        what = self.spend_text(params)
        text = (f"Every cell of the table, margins included, got differentially private "
                f"noise spending {what}")
        if params.get("consistent", True):
            text += "; the cells were then made non-negative whole numbers that add up"
        return text + "."

    def apply(self, data, params, rng):
        from ...kernels.privacy.dp_noise import dp_noise
        from ...tabular.dp_consistency import consistent_table, slice_ids

        table = data
        if table.weight is not None:
            raise PluginError(self.name, "a DP table counts records: give a table without "
                              "weight")
        d_in = self.unit_records(params)
        slice_of = slice_ids(table.dimensions)
        sizes = tuple(int(n) for n in np.bincount(slice_of))
        sums = table.response is not None
        try:
            parts = self._parts(params, sizes, sums)
        except ValueError as exc:
            raise PluginError(self.name, str(exc)) from None
        cal = self.calibrated(params, parts, d_in)
        cells = table.cells
        counts = cells["freq"].to_numpy(dtype=np.int64)
        columns = [counts]
        if sums:
            top = cells["top1"].to_numpy(dtype=float) if "top1" in cells else None
            upper = int(params["upper"])
            if top is not None and np.any(top > upper):
                raise PluginError(self.name, f"a record's {table.response} exceeds the "
                                  f"clamping bound upper {upper}: top-code it first or raise "
                                  "upper")
            columns.append(np.rint(cells["value"].to_numpy(dtype=float)).astype(np.int64))
        noisy, released, how = [], [], None
        for col, scale in zip(columns, cal.scales, strict=True):
            y = col + dp_noise(rng, len(col), cal.mechanism, scale)
            noisy.append(y)
            if params.get("consistent", True):
                fixed = consistent_table(y.astype(float), table.dimensions, table.relations)
                released.append(fixed.values)
                how = fixed.rounding
            else:
                released.append(y.astype(float))
        out = cells.copy()
        out["original_freq"] = counts
        out["original_value"] = cells["value"].to_numpy(dtype=float)
        out["freq"] = np.rint(released[0]).astype(np.int64)
        out["wfreq"] = released[0]
        out["value"] = released[1] if sums else released[0]
        info = {
            "mechanism": f"discrete {cal.mechanism}",
            cal.measure: cal.spent,
            "scales": [float(s) for s in cal.scales],
            "slices": len(sizes),
            "cells": len(cells),
            "max_abs_noise": int(max(np.abs(n - c).max(initial=0)
                                     for n, c in zip(noisy, columns, strict=True))),
        }
        if how is not None:
            info["rounding"] = how
        return MethodResult(table.with_cells(out), info)
