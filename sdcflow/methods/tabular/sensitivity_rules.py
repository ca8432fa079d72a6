"""``sensitivity_rules``: primary suppression of a table (Torra 2013, "Protection for
tabular data": detection of sensitive cells with the minimum frequency, (n,k)-dominance,
p% and pq rules, and optionally zero cells), via :func:`sdcflow.tabular.apply_rules`."""

from __future__ import annotations

from typing import ClassVar

from ...data.text import text_column
from ...plugins.plain_words import figure, names
from ...plugins.registry import MethodResult, TableMethod, register

_RULE = {
    "type": "object", "minProperties": 1, "maxProperties": 1, "additionalProperties": False,
    "properties": {
        "freq": {"description": "cells with 0 < frequency < n", "anyOf": [
            {"type": "integer", "minimum": 1}, {"type": "object"}]},
        "dominance": {"description": "n or fewer contributors above k% of the value: "
                                     "{n: 1, k: 50}", "type": "object"},
        "p_percent": {"description": "value minus the two largest contributions below p% "
                                     "of the largest", "anyOf": [
                                         {"type": "number", "exclusiveMinimum": 0},
                                         {"type": "object"}]},
        "pq": {"description": "{p: 10, q: 50}", "type": "object"},
        "zero": {"description": "zero cells are sensitive", "type": ["object", "null"]},
    },
}


def _rule_names(specs) -> list[str]:
    """The names of the rules ``specs`` gives (``freq(10)``, ``dominance(1,50)``...), as
    they are given; none for a list that does not parse (validation reports it)."""
    from ...tabular import parse_rule

    try:
        return [parse_rule(spec).name for spec in specs or ()]
    except (TypeError, ValueError):
        return []


@register
class SensitivityRules(TableMethod):
    name = "sensitivity_rules"
    protects = True
    summary = "Primary suppression: flag table cells by frequency, dominance, p%, pq rules."
    # The rules' thresholds stay internal: knowing them tells an intruder how small or
    # dominated a suppressed cell must be (agencies keep them confidential, e.g.
    # Statistics Canada for its p% rule threshold).
    public_params = ()
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["rules"],
        "properties": {
            "rules": {"type": "array", "minItems": 1, "items": _RULE,
                      "description": "Rules; a cell is sensitive when any fires."},
            "protection": {
                "type": "object", "additionalProperties": False,
                # as the rules' own: far below the magnitudes HiGHS takes as infinite
                "properties": {"percent": {"type": "number", "minimum": 0, "maximum": 1000,
                                           "description": "Upper and lower protection "
                                                          "level, percent of the cell's "
                                                          "value."},
                               "fixed": {"type": "number", "minimum": 0, "maximum": 1e15,
                                         "description": "Upper and lower protection level, "
                                                        "an amount (the larger of the two "
                                                        "with percent)."},
                               "sliding_percent": {"type": "number", "minimum": 0,
                                                   "maximum": 1000,
                                                   "description": "Sliding protection "
                                                                  "level (the interval's "
                                                                  "width), percent of the "
                                                                  "value."}},
                "description": "Protection levels of the primary cells (default: from the "
                               "rules)."},
        },
    }

    def explain(self, params, result):
        # Name only the rules the recipe gives (the plugin's summary lists every kind it
        # knows); the external report knows none of them: they are internal.
        rules = _rule_names(params.get("rules"))
        by = (f"the sensitivity rules {names(rules)}" if rules else
              "the recipe's sensitivity rules (kept internal, with their thresholds)")
        if not isinstance(result, dict) or "primary" not in result:
            return f"Primary suppression: table cells are flagged as sensitive by {by}."
        return (f"{figure(result['primary'])} of the table's {figure(result.get('cells'))} "
                f"cells are sensitive (primary) by {by} and will not be published.")

    def check(self, params, meta):
        from ...tabular import parse_rule

        for i, spec in enumerate(params.get("rules", [])):
            try:
                parse_rule(spec)
            except (TypeError, ValueError) as exc:
                yield ("rules", i), f"invalid rule: {exc}"

    def apply(self, data, params, rng):
        from ...tabular import apply_rules, set_protection

        table = apply_rules(data, params["rules"])
        if params.get("protection"):
            table = set_protection(table, **params["protection"])
        cells = table.cells
        primary = cells["status"] == "primary"
        # rule names hold commas themselves ("dominance(1,50)"): split outside brackets
        fired = text_column(cells.loc[primary, "rule"]).str.split(r",(?![^(]*\))",
                                                                  regex=True).explode()
        return MethodResult(table, {
            # (the published cells: not those of linked tables' cover table that none of
            # them holds)
            "cells": int((cells["status"] != "unpublished").sum()),
            "primary": int(primary.sum()),
            "by_rule": {str(k): int(v) for k, v in sorted(fired.value_counts().items())},
        })
