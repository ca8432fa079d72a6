"""``controlled_adjustment``: controlled tabular adjustment (CTA; Dandekar & Cox 2002,
"Synthetic tabular data: an alternative to complementary cell suppression"; Castro 2006,
"Minimum-distance controlled perturbation methods for large-scale tabular data
protection", *European Journal of Operational Research* 171). Instead of suppressing the
sensitive (primary) cells, every cell is published, each sensitive one moved up or down
out of its protection interval and the others changed as little as possible (weighted
L1) so that every total still adds up: a mixed-integer program solved with HiGHS
(:mod:`sdcflow.tabular.adjustment`)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ...data.text import text_column
from ...errors import PluginError
from ...plugins.plain_words import figure
from ...plugins.registry import MethodResult, TableMethod, register
from ._search import untimed_search


@register
class ControlledAdjustment(TableMethod):
    name = "controlled_adjustment"
    public_params = ("weights", "keep_zeros", "integer", "time_limit")
    protects = True
    summary = ("Controlled tabular adjustment: move each sensitive cell out of its "
               "protection interval, least weighted change, totals additive (MILP, HiGHS).")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "weights": {"enum": ["unit", "inverse_value"], "default": "unit",
                        "description": "Cost of a unit of change in a cell: 1, or "
                                       "1 / max(|value|, 1) (relative changes)."},
            "keep_zeros": {"type": "boolean", "default": True,
                           "description": "Empty (zero) cells that are not sensitive stay "
                                          "zero."},
            "integer": {"enum": ["auto", True, False], "default": "auto",
                        "description": "Whole-number changes (auto: for unweighted "
                                       "frequency tables)."},
            "time_limit": {"type": "number", "exclusiveMinimum": 0,
                           "description": "Seconds for the search (default: none)."},
        },
    }

    def explain(self, params, result):
        if not isinstance(result, dict) or "sensitive" not in result:
            return ("Every sensitive cell was published with a value moved out of its "
                    "protection interval, the other cells changed as little as possible so "
                    "that the totals still add up.")
        return (f"Instead of being suppressed, the {figure(result['sensitive'])} sensitive "
                f"cells were moved out of their protection intervals "
                f"({figure(result.get('moved_up'))} up, {figure(result.get('moved_down'))} "
                f"down); {figure(result.get('changed'))} cells changed in all, by "
                f"{figure(result.get('change'))} in total, so that every total still adds "
                "up" + (", proven the least change." if result.get("optimal") else "."))

    def check_cells(self, params, cells):
        yield from untimed_search(params, cells, "controlled adjustment",
                                  "give time_limit (seconds)")

    def apply(self, data, params, rng):
        from ...tabular.adjustment import NoAdjustment, controlled_adjustment

        table = data
        status = table.status
        if (status == "secondary").any():
            raise PluginError(self.name, "the table already has secondary suppressions: "
                              "controlled adjustment replaces secondary suppression, run "
                              "it right after sensitivity_rules")
        values = table.values
        if not np.all(np.isfinite(values)):
            raise PluginError(self.name, "the table has missing values: it cannot be "
                              "adjusted")
        sensitive = status == "primary"
        cells = table.cells
        upl = cells["upl"].to_numpy(dtype=float) if "upl" in cells else np.zeros(len(values))
        lpl = cells["lpl"].to_numpy(dtype=float) if "lpl" in cells else np.zeros(len(values))
        weights = (1.0 / np.maximum(np.abs(values), 1.0)
                   if params["weights"] == "inverse_value" else np.ones(len(values)))
        # the cells of linked tables' cover table that none of them holds are never
        # published: they change for free (as long as the tables stay consistent)
        published = status != "unpublished"
        weights = np.where(published, weights, 0.0)
        integer = params["integer"]
        if integer == "auto":
            integer = (table.response is None and table.weight is None
                       and bool(np.all(values == np.round(values))))
        fixed = (values == 0) if params["keep_zeros"] else None
        try:
            res = controlled_adjustment(values, table.relations, sensitive, upl, lpl,
                                        weights=weights, fixed=fixed, integer=bool(integer),
                                        time_limit=params.get("time_limit"))
        except NoAdjustment as exc:
            raise PluginError(self.name, f"{exc}; try keep_zeros: false or smaller "
                              "protection levels") from None
        except ValueError as exc:
            raise PluginError(self.name, f"cannot adjust the table: {exc}") from None
        out = table.with_values(res.values)
        adjusted = out.cells.copy()
        # published now, with a value outside their intervals: no longer suppressed
        adjusted["status"] = text_column(np.where(sensitive, "adjusted", status),
                                         index=adjusted.index)
        out = out.with_cells(adjusted)
        change = np.abs(res.values - values)
        scale = max(1.0, float(np.abs(values).max(initial=0.0)))
        return MethodResult(out, {
            "cells": int(published.sum()),
            "sensitive": int(sensitive.sum()),
            "moved_up": int((res.direction > 0).sum()),
            "moved_down": int((res.direction < 0).sum()),
            "changed": int(((change > 1e-9 * scale) & published).sum()),
            "change": round(float(change[published].sum()), 9),
            "distance": round(res.distance, 9),
            "integer": bool(integer),
            "optimal": bool(res.optimal),
        })
