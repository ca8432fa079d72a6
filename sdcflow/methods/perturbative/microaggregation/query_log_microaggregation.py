"""``query_log_microaggregation``: user k-anonymity of a query log (G. Navarro-Arribas, V.
Torra, A. Erola, J. Castella-Roca, "User k-anonymity for privacy preserving data mining of
query logs", Information Processing & Management 48(3), 2012; A. Erola et al., "Semantic
microaggregation for the anonymization of query logs", PSD 2010).

The queries are classified in the query variable's taxonomy; each user's profile (the
multiset of their queries' concepts) joins an MDAV group of k .. 2k - 1 users with close
profiles, by a semantic distance between profiles; every user of a group is given the
group's aggregated profile. The released log has one record per query of a released
profile: the group's pseudonym (``G1``, ``G2``, ... in the order MDAV formed the groups),
and the query as the name of its concept, never the text a user typed (which may name
them). The user variable stays in the data for the measures that follow (it has role
identifier: no release carries it). The kernels, the distance and the aggregation are in
:mod:`sdcflow.kernels.semantic.query_logs`."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ....data.dataset import Variable
from ....data.query_log import (
    QUERY_LOG_PARAMS,
    concept_distances,
    log_data_problems,
    log_problems,
    log_profiles,
    log_variables,
    read_log,
)
from ....data.text import text_column
from ....kernels.semantic.query_logs import group_profiles, profile_mdav
from ....plugins.limits import MAX_DISTANCES, over
from ....plugins.progress import step_progress
from ....plugins.registry import Method, MethodResult, Output, register


@register
class QueryLogMicroaggregation(Method):
    name = "query_log_microaggregation"
    public_params = ("user", "query", "k", "distance", "group")
    protects = True
    distribution = None  # it rebuilds the records from every user's profile
    households = "own"  # (a log has no households)
    summary = ("User k-anonymity of a query log: users' query profiles microaggregated in "
               "groups of k..2k-1 by a semantic distance, each replaced by its group's.")
    version = "1"
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["user", "query"],
        "properties": {
            **QUERY_LOG_PARAMS,
            "k": {"type": "integer", "minimum": 1, "default": 3,
                  "description": "Group size: every group has k .. 2k-1 users, and every "
                                 "released profile is that of at least k users."},
            "group": {"type": "string", "minLength": 1, "default": "group",
                      "description": "The new variable holding each query's group "
                                     "pseudonym (G1, G2, ...)."},
        },
    }

    def named_variables(self, params):
        return log_variables(params)

    def writes(self, params, meta):
        return {params["user"], params["query"], params.get("group", "group")}

    def changes_records(self, params, meta):
        return True

    def outputs(self, params, meta):
        out = {n: Output(meta.variables[n]) for n in (params["user"], params["query"])
               if n in meta.variables}
        group = params.get("group", "group")
        out[group] = Output(Variable(group, "key", "categorical"))
        return out

    def check(self, params, meta):
        yield from log_problems(params, meta, alone=True)
        group = params.get("group", "group")
        if group in meta.variables:
            yield ("group",), f"'{group}' is already a variable: name the group variable anew"

    def check_data(self, params, data):
        problems = list(log_data_problems(params, data))
        yield from problems
        if problems or len(data) == 0:
            return
        log = read_log(data, params)
        n, k = len(log.users), params["k"]
        if k > n:
            yield ("k",), f"k = {k} is larger than the number of users ({n})"
        concepts = len(np.unique(log.concepts))
        # each MDAV round compares a profile with every remaining one over every concept
        work = 4.0 * n * n / k * concepts * concepts
        if work > MAX_DISTANCES:
            yield ("k",), (f"k = {k} on {n} users and {concepts} concepts needs "
                           f"{over(work, 'distances', MAX_DISTANCES)}")

    def apply(self, data, params, rng):
        user, query, group = params["user"], params["query"], params["group"]
        k = params["k"]
        log = read_log(data, params)
        candidates = np.unique(log.concepts)
        D = concept_distances(log.taxonomy, candidates, params["distance"],
                              np.bincount(log.concepts, minlength=len(log.taxonomy.names)))
        counts = log_profiles(log, candidates)
        labels = profile_mdav(counts, D, k, step_progress())
        released = group_profiles(counts, labels)
        # one record per query of each user's released profile, users by group
        order = np.lexsort((np.arange(len(labels)), labels))
        names = np.asarray(log.taxonomy.names, dtype=object)[candidates]
        by_name = np.array(sorted(range(len(names)), key=names.__getitem__), dtype=np.int64)
        rows_user, rows_concept = [], []
        for u in order:
            profile = released[labels[u]][by_name]
            rows_user.append(np.full(int(profile.sum()), u))
            rows_concept.append(np.repeat(by_name, profile))
        row_user = np.concatenate(rows_user) if rows_user else np.zeros(0, dtype=np.int64)
        row_concept = np.concatenate(rows_concept) if rows_concept else row_user
        width = len(str(int(labels.max()) + 1)) if len(labels) else 1
        pseudonyms = np.array([f"G{g + 1:0{width}d}" for g in range(int(labels.max()) + 1
                                                                     if len(labels) else 0)],
                              dtype=object)
        frame = pd.DataFrame({
            user: pd.Series(log.users[row_user], dtype=data.frame[user].dtype),
            group: text_column(pseudonyms[labels[row_user]]),
            query: text_column(names[row_concept]),
        })
        variables = {user: data.variables[user], query: data.variables[query],
                     group: Variable(group, "key", "categorical")}
        sizes = np.bincount(labels) if len(labels) else np.zeros(0, dtype=np.int64)
        info = {"k": k, "distance": params["distance"], "users": len(log.users),
                "groups_formed": len(sizes),
                "smallest_group": int(sizes.min()) if len(sizes) else 0,
                "queries_before": len(data), "queries_after": len(frame),
                "concepts_before": len(candidates),
                "concepts_after": int((released.sum(axis=0) > 0).sum())}
        return MethodResult(type(data)(frame, variables, data.constraints), info)
