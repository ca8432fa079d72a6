"""``query_log_linkage`` and ``query_log_utility``: the re-identification risk and the
information loss of a protected query log against the original (G. Navarro-Arribas, V.
Torra, A. Erola, J. Castella-Roca, "User k-anonymity for privacy preserving data mining
of query logs", Information Processing & Management 48(3), 2012, who measure both).

Risk: the intruder holds every user's original profile (the multiset of the concepts of
their queries) and links it to the protected profile(s) at the least profile distance
(:func:`sdcflow.kernels.semantic.query_logs.linkage_candidates`), picking one of those
equally near at random: a user is re-identified with probability 1 / (number of
candidates) when their own protected profile is among them. After
``query_log_microaggregation`` every released profile is shared by at least k users, so
no user's probability exceeds 1 / k. Users are matched by the user variable (the
identifier, still in the data before release).

Information loss: each user's profile distance between original and protected profiles
(the distance of the method), and the loss on the data-mining task of query frequencies:
the total variation distance between the concept distributions of both logs, and the
share of the original queries whose concept stays in the user's protected profile."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ...data.query_log import (
    QUERY_LOG_PARAMS,
    compare_logs,
    log_data_problems,
    log_problems,
    log_profiles,
    log_variables,
)
from ...kernels.semantic.query_logs import information_loss, linkage_candidates
from ...plugins.limits import MAX_DISTANCES, over
from ...plugins.registry import Measure, MeasureResult, register
from ...plugins.results import COUNT, NUMBER, TEXT, record
from ..reference import REFERENCE


class QueryLogMeasure(Measure):
    """A measure comparing the query log it evaluates with its reference (the original
    log unless ``reference`` names a step), user by user."""

    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["user", "query"],
        "properties": {**QUERY_LOG_PARAMS, "reference": REFERENCE},
    }

    def named_variables(self, params):
        return log_variables(params)

    def check(self, params, meta):
        yield from log_problems(params, meta, alone=False)

    def check_data(self, params, data):
        problems = list(log_data_problems(params, data))
        yield from problems
        if problems or not len(data):
            return
        users = data.frame[params["user"]].nunique()
        concepts = data.frame[params["query"]].nunique()
        work = 2.0 * users * users * concepts * concepts
        if work > MAX_DISTANCES:
            yield (), (f"{users} users of {concepts} distinct queries need "
                       f"{over(work, 'distances', MAX_DISTANCES)}")

    def profiles(self, data, params, original):
        """The reference's and ``data``'s profiles over their concepts, the distances
        between those, and for each reference user the row of their profile in
        ``data`` (-1 if they have none there)."""
        ref, log, candidates, D = compare_logs(data, original, params)
        A, B = log_profiles(ref, candidates), log_profiles(log, candidates)
        where = {u: i for i, u in enumerate(log.users.tolist())}
        own = np.array([where.get(u, -1) for u in ref.users.tolist()], dtype=np.int64)
        return A, B, D, own


@register
class QueryLogLinkage(QueryLogMeasure):
    name = "query_log_linkage"
    public_params = ("user", "query", "distance", "reference")
    risk_measure = True
    summary = ("Users of a query log re-identified by linking their original query "
               "profiles to the nearest protected ones.")

    def result_shape(self, params, meta):
        return record(reference=TEXT, users=COUNT, re_identified=COUNT, expected=NUMBER,
                      share=NUMBER, max_probability=NUMBER)

    def evaluate(self, data, params, rng, *, original):
        A, B, D, own = self.profiles(data, params, original)
        probability = np.zeros(len(A))
        if len(A) and len(B):
            candidates = linkage_candidates(A, B, D)
            found = own >= 0
            rows = np.flatnonzero(found)
            hit = candidates[rows, own[found]]
            probability[rows] = hit / candidates[rows].sum(axis=1)
        expected = float(probability.sum())
        return MeasureResult({
            "reference": params["reference"], "users": len(A),
            "re_identified": int((probability == 1.0).sum()),
            "expected": expected, "share": expected / len(A) if len(A) else 0.0,
            "max_probability": float(probability.max(initial=0.0))})


@register
class QueryLogUtility(QueryLogMeasure):
    name = "query_log_utility"
    public_params = ("user", "query", "distance", "reference")
    risk_measure = False
    summary = ("Information loss of a query log: profile distances and the change in "
               "query (concept) frequencies.")

    def result_shape(self, params, meta):
        return record(reference=TEXT, users=COUNT, mean_profile_distance=NUMBER,
                      max_profile_distance=NUMBER, frequency_distance=NUMBER,
                      queries_kept=NUMBER)

    def evaluate(self, data, params, rng, *, original):
        A, B, D, own = self.profiles(data, params, original)
        # a user without a protected profile lost all of it: the largest distance, 1
        mine = np.zeros_like(A)
        mine[own >= 0] = B[own[own >= 0]]
        loss = np.where(own >= 0, information_loss(A, mine, D), 1.0) if len(A) else A[:, 0]
        before, after = A.sum(axis=0), B.sum(axis=0)
        tv = 0.5 * float(np.abs(before / max(before.sum(), 1)
                                - after / max(after.sum(), 1)).sum())
        kept = float(np.minimum(A, mine).sum() / A.sum()) if A.sum() else 1.0
        return MeasureResult({
            "reference": params["reference"], "users": len(A),
            "mean_profile_distance": float(loss.mean()) if len(loss) else 0.0,
            "max_profile_distance": float(loss.max(initial=0.0)),
            "frequency_distance": tv, "queries_kept": kept})
