"""``score``: the SDC score of a protected data set, the average of an information loss
and a disclosure risk figure (Domingo-Ferrer & Torra 2001; as in Torra 2011:
Score = (IL + DR) / 2). IL and DR are expressions over the
results of other measure steps (the language of checks), e.g. ``il: "loss.pil"`` and
``dr: "(link.percent + attack.percent) / 2"``, both on a 0..100 scale; the weight of IL
is configurable. With a grid, every variant gets its own score: one point of the R-U map
(Duncan, Keller-McNulty & Stokes 2001)."""

from __future__ import annotations

from typing import ClassVar

from ..constraints import ExprError, parse
from ..constraints.checks import expression_value
from ..plugins.plain_words import figure
from ..plugins.registry import Measure, MeasureResult, register
from ..plugins.results import NUMBER, TEXT, record


def _heads(text: str) -> list[str]:
    try:
        expr = parse(text, subscripts=True, condition=False)
    except ExprError:
        return []
    return sorted({name.split(".")[0] for name in expr.names})


@register
class Score(Measure):
    distribution = None  # it combines other measures' results
    name = "score"
    public_params = ("il", "dr", "il_weight")
    risk_measure = False
    summary = "SDC score: weighted average of an information loss and a disclosure risk."
    version = "2"  # exact arithmetic in the il and dr expressions
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["il", "dr"],
        "properties": {
            "il": {"type": "string", "minLength": 1,
                   "description": "Information loss (0..100): an expression over measure "
                                  "results, e.g. 'loss.pil'."},
            "dr": {"type": "string", "minLength": 1,
                   "description": "Disclosure risk (0..100), e.g. 'link.percent'."},
            "il_weight": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.5,
                          "description": "Weight of IL; DR gets 1 - il_weight."},
        },
    }

    def explain(self, params, result):
        if not isinstance(result, dict) or "score" not in result:
            return self.summary
        return (f"Score {figure(result['score'])}: information loss {result.get('il_expr')} = "
                f"{figure(result.get('il'))} and disclosure risk {result.get('dr_expr')} = "
                f"{figure(result.get('dr'))}, weighted {figure(result.get('il_weight'))} : "
                f"{figure(1 - result.get('il_weight', 0.5))} (Domingo-Ferrer & Torra 2001).")

    def reads(self, params, meta):
        return set()

    def results_from(self, params):
        return sorted(set(_heads(params.get("il", ""))) | set(_heads(params.get("dr", ""))))

    def check(self, params, meta):
        for key in ("il", "dr"):
            try:
                parse(params[key], subscripts=True, condition=False)
            except ExprError as exc:
                yield (key,), str(exc)

    def expressions(self, params):
        return {key: params[key] for key in ("il", "dr") if isinstance(params.get(key), str)}

    def result_shape(self, params, meta):
        return record(il=NUMBER, dr=NUMBER, il_weight=NUMBER, score=NUMBER, il_expr=TEXT,
                      dr_expr=TEXT)

    def evaluate(self, data, params, rng, *, original, results=None):
        il = float(expression_value(params["il"], results or {}))
        dr = float(expression_value(params["dr"], results or {}))
        w = float(params["il_weight"])
        return MeasureResult({"il": il, "dr": dr, "il_weight": w,
                              "score": w * il + (1 - w) * dr,
                              "il_expr": params["il"], "dr_expr": params["dr"]})
