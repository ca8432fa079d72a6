"""``controlled_rounding``: every cell of a table rounded to a multiple of a base, up or
down, the multiples left as they are, every subtotal and total still the sum of its
parts, with the least total change (Salazar-González, Bycroft & Staggemeier 2005,
"Controlled rounding implementation", tau-Argus; a 0-1 program solved with HiGHS, see
:mod:`sdcflow.tabular.controlled_rounding`)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ...errors import PluginError
from ...plugins.plain_words import figure
from ...plugins.registry import MethodResult, TableMethod, register
from ._search import untimed_search


@register
class ControlledRounding(TableMethod):
    name = "controlled_rounding"
    public_params = ("base", "time_limit")
    protects = True
    summary = ("Round every table cell up or down to a multiple of a base, totals kept "
               "additive, least total change (MILP, HiGHS).")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["base"],
        "properties": {
            "base": {"type": "number", "exclusiveMinimum": 0, "maximum": 1e15,
                     "description": "Rounding base b: every published value is a multiple "
                                    "of b (e.g. 3, 5, 10)."},
            "time_limit": {"type": "number", "exclusiveMinimum": 0,
                           "description": "Seconds for the search (default: none)."},
        },
    }

    def explain(self, params, result):
        base = figure(params.get("base"))
        if not isinstance(result, dict) or "rounded_up" not in result:
            return (f"Every cell of the table was rounded up or down to a multiple of {base} "
                    "so that the totals still add up.")
        return (f"Every cell of the table was rounded to a multiple of {base}: "
                f"{figure(result['rounded_up'])} up, {figure(result.get('rounded_down'))} "
                f"down and {figure(result.get('unchanged'))} already multiples, every total "
                f"still the sum of its parts, with a total change of "
                f"{figure(result.get('distance'))}"
                + (" (proven the least)." if result.get("optimal") else "."))

    def check_cells(self, params, cells):
        yield from untimed_search(params, cells, "controlled rounding",
                                  "give time_limit (seconds)")

    def apply(self, data, params, rng):
        from ...tabular.controlled_rounding import NoControlledRounding, controlled_rounding

        table = data
        values = table.values
        if not np.all(np.isfinite(values)):
            raise PluginError(self.name, "the table has missing values: it cannot be rounded")
        # (the cells of linked tables' cover table that none of them holds are never
        # published: they need not be multiples)
        unpublished = table.status == "unpublished"
        try:
            res = controlled_rounding(values, table.relations, float(params["base"]),
                                      exempt=unpublished, time_limit=params.get("time_limit"))
        except NoControlledRounding as exc:
            raise PluginError(self.name, str(exc)) from None
        except ValueError as exc:
            raise PluginError(self.name, f"cannot round the table: {exc}") from None
        out = table.with_values(res.values)
        cells = int((~unpublished).sum())
        change = np.abs(res.values - values)[~unpublished]
        return MethodResult(out, {
            "base": float(params["base"]),
            "cells": cells,
            "rounded_up": int(res.up.sum()),
            "rounded_down": int(res.down.sum()),
            "unchanged": int(cells - res.up.sum() - res.down.sum()),
            "distance": round(res.distance, 9),
            "max_change": round(float(change.max(initial=0.0)), 9),
            "optimal": bool(res.optimal),
        })
