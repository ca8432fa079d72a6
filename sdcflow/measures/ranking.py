"""``ranking``: protected versions of the data ranked by their SDC score (Domingo-Ferrer &
Torra 2001, "A quantitative comparison of disclosure control methods for microdata": a
score per method and parameterisation gives a ranking of the methods). The candidates are
``score`` steps of the same run, e.g. one per method, each on its own branch of the data
(``input: original``); every candidate's IL and DR are reported with its rank, as the
score's authors recommend (no weighting does justice to every method), and whether it is
on the Pareto front (no other candidate has both less information loss and less risk).
Lower is better for the score, IL and DR. Grid variants of one score step are ranked in
the report of the run (:mod:`sdcflow.report.html`)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ..kernels.utility.ranking import competition_ranks, pareto_front
from ..plugins.registry import Measure, MeasureResult, register
from ..plugins.results import COUNT, FLAG, NAMES, NUMBER, TEXT, Keyed, Text, record


@register
class Ranking(Measure):
    distribution = None  # it combines other measures' results
    name = "ranking"
    public_params = ("candidates", "by")
    risk_measure = False
    summary = "Rank score steps (e.g. one per method) by score, IL or DR; the Pareto front."
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["candidates"],
        "properties": {
            "candidates": {"type": "array", "minItems": 2, "uniqueItems": True,
                           "items": {"type": "string", "minLength": 1},
                           "description": "Ids of the score steps to rank."},
            "by": {"enum": ["score", "il", "dr"], "default": "score",
                   "description": "What to rank by (lower is better)."},
        },
    }

    def reads(self, params, meta):
        return set()

    def results_from(self, params):
        return list(params.get("candidates", []))

    def expressions(self, params):
        # validated before the run: every candidate must report a number 'score'
        candidates = params.get("candidates") or []
        return {"candidates": " + ".join(f"{c}.{params.get('by', 'score')}"
                                         for c in candidates)} if candidates else {}

    def result_shape(self, params, meta):
        ids = tuple(params["candidates"])
        one = record(il=NUMBER, dr=NUMBER, score=NUMBER, rank=COUNT, pareto=FLAG)
        return record(by=Text(("score", "il", "dr")), order=NAMES, best=TEXT,
                      pareto=NAMES, by_candidate=Keyed(one, "candidate", ids))

    def evaluate(self, data, params, rng, *, original, results=None):
        results = results or {}
        ids = list(params["candidates"])
        rows = []
        for cid in ids:
            summary = results.get(cid)
            if not isinstance(summary, dict) or not {"il", "dr", "score"} <= set(summary):
                raise ValueError(f"'{cid}' is not a score step (its result has no il, dr "
                                 "and score)")
            rows.append([float(summary["il"]), float(summary["dr"]), float(summary["score"])])
        table = np.array(rows)
        column = {"il": 0, "dr": 1, "score": 2}[params["by"]]
        ranks = competition_ranks(table[:, column])
        front = pareto_front(table[:, 0], table[:, 1])
        order = [ids[i] for i in np.lexsort((np.arange(len(ids)), ranks))]
        return MeasureResult({
            "by": params["by"],
            "order": order,
            "best": order[0],
            "pareto": [cid for cid, keep in zip(ids, front) if keep],
            "by_candidate": {cid: {"il": float(row[0]), "dr": float(row[1]),
                                   "score": float(row[2]),
                                   "rank": int(rank), "pareto": bool(keep)}
                             for cid, row, rank, keep in zip(ids, table, ranks, front)},
        })
