"""``secondary_suppression``: suppress further cells so that no primary cell can be
recomputed or narrowed beyond its protection interval from the published cells and the
table's additive structure (Torra 2013, "Primary suppression (PS) and Secondary
Suppression (SS) ... Problem solved using optimization techniques"): ``optimal`` is a
MILP (Fischetti & Salazar-Gonzalez) solved with HiGHS, ``heuristic`` the hypercube
method; both end with an exact audit (:mod:`sdcflow.tabular`)."""

from __future__ import annotations

from typing import ClassVar

from ...plugins.plain_words import figure
from ...plugins.registry import MethodResult, TableMethod, register
from ._search import untimed_search


@register
class SecondarySuppression(TableMethod):
    solver_keys = ("cuts", "rounds", "lp_solved", "tie_break_done", "fixed_out",
                   "lower_bound", "gap")
    name = "secondary_suppression"
    public_params = ("algorithm", "cost", "margin_cost", "time_limit")
    protects = True
    summary = "Secondary cell suppression: optimal (MILP, HiGHS) or hypercube heuristic."
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "algorithm": {"enum": ["optimal", "heuristic"], "default": "optimal",
                          "description": "optimal: the least cost of suppressed cells, by "
                                         "a mixed integer program (HiGHS); heuristic: the "
                                         "hypercube method (faster, may suppress more)."},
            "cost": {"enum": ["unit", "frequency", "value"], "default": "value",
                     "description": "Cost of suppressing a cell."},
            "margin_cost": {"type": "number", "minimum": 0, "maximum": 1e15, "default": 0,
                            "description": "Extra cost of margin cells (prefer inner ones)."},
            "time_limit": {"type": "number", "exclusiveMinimum": 0,
                           "description": "optimal: seconds for the whole search."},
        },
    }

    def explain(self, params, result):
        if not isinstance(result, dict) or "secondary" not in result:
            return ("Further (secondary) cells were suppressed so that no sensitive cell can "
                    "be worked out from the published cells and the totals.")
        text = (f"{figure(result['secondary'])} further (secondary) cells were suppressed "
                f"({result.get('method', params.get('algorithm'))}) so that none of the "
                f"{figure(result.get('primary'))} sensitive cells can be worked out from the "
                f"published cells and the totals: {figure(result.get('suppressed'))} cells "
                "suppressed in all")
        if result.get("optimal"):
            text += ", proven the least cost"
        return text + "."

    def check_cells(self, params, cells):
        yield from untimed_search(params, cells, "the optimal secondary suppression",
                                  "give time_limit (seconds), or algorithm: heuristic",
                                  params.get("algorithm") == "optimal")

    def apply(self, data, params, rng):
        from ...tabular import secondary_suppression

        options = {"cost": params["cost"], "margin_cost": params["margin_cost"]}
        if params["algorithm"] == "optimal" and "time_limit" in params:
            options["time_limit"] = params["time_limit"]
        method = "optimal" if params["algorithm"] == "optimal" else "hypercube"
        result = secondary_suppression(data, method, **options)
        # (primary, secondary, audit_passed, ...) without the timings, which vary between
        # runs and are not part of the reproducible info
        info = {k: v for k, v in result.info.items()
                if isinstance(v, (int, float, str, bool)) and "seconds" not in k}
        return MethodResult(result.table, info)
