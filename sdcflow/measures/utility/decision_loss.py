"""``decision_loss``: the information loss of a decision taken record by record, with an
asymmetric divergence (Torra, "Data Privacy: Foundations, New Developments and the Big
Data Challenge", 2017: ``IL_f(X, X') = divergence(f(X), f(X'))``, where the divergence
need not be symmetric when false positives and false negatives differ in consequence).

The decision ``f`` is a condition over a record's variables in the language of the
recipe's edit constraints (``flag: "temperature > 90 and pressure < 2"``): a record is
flagged when it holds. The loss counts the records flagged on the protected data and not
on the reference (false positives) and the other way round (false negatives), weighted
by their costs (:func:`sdcflow.kernels.utility.asymmetric_divergence.decision_divergence`).

Records are compared by position. A record whose decision is undecided on either side
(a variable of the condition missing, or the condition without a value there, e.g. a
division by zero) is left out and counted in ``undecided``.
"""

from __future__ import annotations

from typing import ClassVar

import pandas as pd

from ...constraints import ExprError, parse
from ...constraints.aggregates import check_aggregates
from ...constraints.columns import require_64_bit
from ...constraints.constraint import condition_outcome
from ...errors import did_you_mean
from ...kernels.utility.asymmetric_divergence import decision_divergence
from ...plugins.plain_words import figure
from ...plugins.registry import Measure, MeasureResult, register
from ...plugins.results import COUNT, NUMBER, TEXT, record
from ..reference import REFERENCE, same_records

COST = {"type": "number", "minimum": 0, "maximum": 1e6, "default": 1}


def parse_flag(text: str):
    """The condition ``text`` parsed as an edit constraint's expression (raises
    :class:`ExprError`)."""
    expr = parse(text)
    require_64_bit(expr)
    check_aggregates(expr)
    return expr


@register
class DecisionLoss(Measure):
    name = "decision_loss"
    public_params = ("flag", "false_positive", "false_negative", "reference")
    risk_measure = False
    summary = ("Records a condition flags differently on the protected data, false "
               "positives and false negatives weighted by their own costs.")
    pairs_records = True
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["flag"],
        "properties": {
            "flag": {"type": "string", "minLength": 1,
                     "description": "The decision: a condition over a record's variables "
                                    "(the language of constraints), e.g. 'income > 100000'; "
                                    "a record is flagged where it holds."},
            "false_positive": {**COST, "description": "Cost of a record flagged on the "
                                                      "protected data and not on the "
                                                      "reference (default 1)."},
            "false_negative": {**COST, "description": "Cost of a record flagged on the "
                                                      "reference and not on the protected "
                                                      "data (default 1)."},
            "reference": REFERENCE,
        },
    }

    def _names(self, params) -> set[str]:
        try:
            return set(parse_flag(params["flag"]).names)
        except (ExprError, KeyError, TypeError):
            return set()

    def named_variables(self, params):
        return [(("flag",), name) for name in sorted(self._names(params))]

    def reads(self, params, meta):
        return self._names(params)

    def check(self, params, meta):
        try:
            expr = parse_flag(params["flag"])
        except ExprError as exc:
            yield ("flag",), str(exc)
            return
        for name in sorted(expr.names):
            if name not in meta.variables and name not in meta.broken:
                yield ("flag",), (f"'{name}' is not a declared variable"
                                  f"{did_you_mean(name, meta.variables)}")

    def public_summary(self, summary, params):
        """The losses and costs without the confusion counts: the records flagged on the
        original (true positives plus false negatives) are a count of the original data
        that a flag narrow enough would make the count of one record."""
        counts = {"true_positives", "false_positives", "false_negatives", "true_negatives",
                  "false_positive_rate", "false_negative_rate"}
        return {k: v for k, v in super().public_summary(summary, params).items()
                if k not in counts}

    def explain(self, params, result):
        if not isinstance(result, dict) or "loss" not in result:
            return self.summary
        counts = ""
        if "false_positives" in result:  # (the public summary has no counts)
            counts = (f"{figure(result['false_positives'])} records flagged that the "
                      f"original does not flag, {figure(result['false_negatives'])} "
                      "unflagged that it flags; ")
        return (f"The decision '{result['flag']}' taken on the release: {counts}false "
                f"positives weighted {figure(result['false_positive_cost'])}, false "
                f"negatives {figure(result['false_negative_cost'])}: a loss of "
                f"{figure(result['loss'])} per record (Torra 2017, asymmetric divergence).")

    def result_shape(self, params, meta):
        return record(reference=TEXT, flag=TEXT, records=COUNT, undecided=COUNT,
                      true_positives=COUNT, false_positives=COUNT, false_negatives=COUNT,
                      true_negatives=COUNT, false_positive_cost=NUMBER,
                      false_negative_cost=NUMBER, loss=NUMBER, symmetric_loss=NUMBER,
                      false_positive_rate=NUMBER.with_null(),
                      false_negative_rate=NUMBER.with_null())

    def evaluate(self, data, params, rng, *, original):
        """The confusion counts and losses of the module docstring; per record the
        decision on each side (``flagged_original``, ``flagged_protected``: true, false, or
        missing where undecided)."""
        same_records(data, original, self.name)
        expr = parse_flag(params["flag"])
        decided = []
        for which, ds in (("reference", original), ("protected", data)):
            for name in sorted(expr.names):
                if name not in ds.frame.columns:
                    raise ValueError(f"'{name}' is not in the {which} data")
            try:
                decided.append(condition_outcome(expr, ds.frame))
            except ExprError as exc:
                # e.g. an order comparison on a variable recoded into classes (text)
                raise ValueError(f"the flag cannot be evaluated on the {which} data: {exc}") \
                    from None
        (a, undecided_a), (b, undecided_b) = decided
        undecided = undecided_a | undecided_b
        keep = ~undecided
        result = decision_divergence(a[keep], b[keep],
                                     false_positive=float(params["false_positive"]),
                                     false_negative=float(params["false_negative"]))
        summary = {"reference": params["reference"], "flag": params["flag"],
                   "undecided": int(undecided.sum()),
                   "false_positive_cost": float(params["false_positive"]),
                   "false_negative_cost": float(params["false_negative"]), **result}
        columns = {}
        for which, holds, open_ in (("original", a, undecided_a), ("protected", b, undecided_b)):
            col = pd.Series(holds, index=data.frame.index, dtype="boolean")
            col[open_] = pd.NA
            columns[f"flagged_{which}"] = col
        return MeasureResult(summary, pd.DataFrame(columns, index=data.frame.index))

