"""``microaggregation_attack``: re-identification of microaggregated data by an intruder
who knows the method (the transparency principle): the group-interval attack of
W. E. Winkler ("Masking and re-identification methods for public-use microdata: overview
and research problems", PSD 2004) on individual ranking, intersected over the known
variables as in J. Nin, J. Herranz and V. Torra ("On the disclosure risk of multivariate
microaggregation", Data & Knowledge Engineering 67(3), 2008).

For each known variable the published groups (records sharing a protected value) are
aligned with runs of the sorted original values, giving each group the interval of
original values it came from; ``B_j(x_j)`` holds the protected records of the groups
whose interval holds ``x_j``, and a record is re-identified *with certainty* when the
intersection of its ``B_j`` is its own protected record alone; ``linked`` adds record
linkage within the intersection (nearest on the standardised known variables, ``1/t``
for ``t`` tied). The attack is exact for individual ranking; on other microaggregations
it is the intruder's projection of the file on each variable, and ``inconsistent``
counts records whose own protected version falls outside their intersection. See
:mod:`sdcflow.kernels.linkage.microaggregation_attack`. With strata the intruder (who
knows them) attacks each stratum separately.

``attack: rerun`` is the worst case for multivariate microaggregation under the
transparency principle: the intruder reruns the published method (``algorithm``, ``k``,
``groups``, ``standardize``, and for ``fuzzy_c_means`` ``fuzziness`` and ``neighbours``)
on the original records and knows, for each block of variables microaggregated
together, which representatives each record could have received: its group's for MDAV,
the centres of the clusters it could be drawn to for ``fuzzy_c_means`` (the draw itself
is secret). ``B_b(x)`` holds the protected records showing one of them, intersected over
the blocks; ``linked`` credits ``1/|intersection|``. ``attack: nearest`` needs no rerun:
for each block the intruder takes the published group whose representative is nearest to
the original record (standardised block variables; a missing original value at the
variable's mean), and intersects those groups. See
:func:`sdcflow.kernels.linkage.microaggregation_attack.candidate_attack`."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd
from scipy.spatial import cKDTree

from ...data.strata import stratum_codes, stratum_members
from ...kernels.linkage.coordinates import standardize
from ...kernels.linkage.microaggregation_attack import candidate_attack, interval_attack
from ...kernels.linkage.rank_swap_attack import AttackResult
from ...kernels.perturbative.microaggregation.fuzzy_c_means import (
    fuzzy_c_means,
    fuzzy_centres,
)
from ...kernels.perturbative.microaggregation.mdav import mdav
from ...kernels.perturbative.microaggregation.mdav_missing import mdav_missing
from ...methods.perturbative.microaggregation._microaggregation_algorithms import (
    _aggregate,
    _scaled,
    neighbour_problems,
)
from ...plugins.registry import Measure, MeasureResult, register, strata_param, variables_param
from ...plugins.results import COUNT, NAMES, NUMBER, TEXT, Keyed, Record, Text
from ..reference import REFERENCE, same_records
from .rank_swap_attack import _size_histogram
from .record_linkage import (
    SCENARIO_PARAM,
    check_variables,
    run_scenarios,
    scenario_fields,
    values,
)

_KEYS = ("linked", "certain", "inconsistent")
# the attacks of 'strongest': they need nothing of the method (rerun needs its parameters)
STRONGEST = ("intervals", "nearest")


@register
class MicroaggregationAttack(Measure):
    name = "microaggregation_attack"
    public_params = (
        "variables", "scenarios", "strata", "attack", "algorithm", "k", "groups", "standardize",
        "fuzziness", "neighbours", "reference",
    )
    # 2: percent is the linked share (the attack's full strength, as Torra's RS-RL
    # figures), the certain share is percent_certain (was: percent certain, and
    # percent_linked); attack strongest by default (was intervals, which finds nothing
    # on multivariate microaggregation)
    version = "2"
    summary = ("Transparency attack on microaggregation (group intervals): records "
               "re-identified by linkage within the intersection of their possible groups "
               "(certain when it is themselves alone).")
    risk_measure = True
    types = ("integer", "continuous", "ordinal")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": variables_param("The microaggregated variables the intruder knows "
                                         "(default: every variable with role numeric)."),
            "scenarios": SCENARIO_PARAM,
            "strata": strata_param("The strata the data were microaggregated within"),
            "attack": {"enum": ["strongest", "intervals", "nearest", "rerun"],
                       "default": "strongest",
                       "description": "strongest: the most successful of intervals and "
                                      "(with scenarios all) nearest; intervals: Winkler's "
                                      "group intervals, variable by variable; nearest: each "
                                      "block's nearest published group; rerun: the intruder "
                                      "reruns the published method on the original records "
                                      "(needs its parameters)."},
            "algorithm": {"enum": ["mdav", "fuzzy_c_means"], "default": "mdav",
                          "description": "rerun: the published algorithm."},
            "k": {"type": "integer", "minimum": 1, "default": 3,
                  "description": "rerun: the published group size."},
            "groups": {"type": "array", "minItems": 1,
                       "items": {"type": "array", "minItems": 1, "items": {"type": "string"}},
                       "description": "rerun: the blocks of variables microaggregated "
                                      "together (default: the variables, one block)."},
            "standardize": {"enum": ["zscore", "range", "robust", "none"],
                            "default": "zscore",
                            "description": "rerun: the published scaling."},
            "fuzziness": {"type": "number", "minimum": 1.1, "maximum": 100, "default": 2,
                          "description": "rerun, fuzzy_c_means: the exponent m."},
            "neighbours": {"type": "integer", "minimum": 1, "default": 5,
                           "description": "rerun, fuzzy_c_means: the clusters a membership "
                                          "is relative to."},
            "reference": REFERENCE,
        },
    }

    default_roles = ("numeric",)
    stratified = True
    pairs_records = True

    def variables(self, params, meta):
        if params.get("attack", "strongest") != "intervals" and params.get("groups"):
            return list(dict.fromkeys(v for g in params["groups"] for v in g))
        return super().variables(params, meta)

    def check(self, params, meta):
        yield from check_variables(params, self.variables(params, meta))
        if params.get("attack", "strongest") == "strongest" and params.get("groups") \
                and params.get("variables"):
            yield ("groups",), "give 'variables' or 'groups', not both"
        if params.get("attack") in ("nearest", "rerun"):
            if params.get("scenarios", "all") != "all":
                yield ("scenarios",), (f"attack: {params['attack']} knows the blocks the "
                                       "method used: only scenarios: all")
            if params.get("groups") and params.get("variables"):
                yield ("groups",), "give 'variables' or 'groups', not both"
            for name in self.variables(params, meta):
                if name not in meta.variables:
                    yield ("groups",), f"unknown variable '{name}'"
            seen: dict[str, int] = {}
            for i, group in enumerate(params.get("groups") or []):
                for j, name in enumerate(group):
                    if name in seen:
                        yield ("groups", i, j), (f"'{name}' is already in groups[{seen[name]}]:"
                                                 " a variable is microaggregated in one block")
                    seen.setdefault(name, i)
        yield from self.check_strata(params, meta)
        for name in self.variables(params, meta):
            var = meta.variables.get(name)
            if var is not None and var.type == "ordinal" and not var.order:
                yield ("variables",), f"the ordinal variable '{name}' has no declared order"

    def check_data(self, params, data):
        if params.get("attack") != "rerun" or params.get("algorithm") != "fuzzy_c_means":
            return
        # as the method refuses them (fuzzy c-means has no rule for missing values)
        for name in self.variables(params, data.meta):
            if name in data.frame and data.frame[name].isna().any():
                yield ("algorithm",), (f"'{name}' has missing values: fuzzy_c_means needs "
                                       "complete values (the method refuses them too)")
                return
        yield from neighbour_problems(len(data), params["k"], params["neighbours"],
                                      "fuzzy_c_means")

    def result_shape(self, params, meta):
        names = self.variables(params, meta)
        fields = {"reference": TEXT, "variables": NAMES, "records": COUNT, "scenarios": TEXT,
                  **scenario_fields(names, params["scenarios"], _KEYS),
                  "intersection_sizes": Keyed(COUNT, "intersection size"),
                  "wrong_certain": COUNT}
        if self.strata(params, meta):
            fields["strata"] = COUNT
        if params.get("attack", "strongest") == "strongest":
            fields.update(strongest=Text(STRONGEST),
                          by_attack=Record({a: NUMBER.with_null() for a in STRONGEST}))
        return Record(fields)

    def evaluate(self, data, params, rng, *, original):
        names = self.variables(params, data.meta)
        same_records(data, original, self.name)
        n = len(data)
        xo, xp = values(original, names), values(data, names)
        zo, zp = standardize(xo, xp)
        groups, labels = stratum_codes(data.frame, self.strata(params, data.meta))
        members = stratum_members(groups, len(labels))
        full: list = []

        blocks = ([[names.index(v) for v in g] for g in params["groups"]]
                  if params.get("groups") else [list(range(len(names)))])

        def attack(how, cols):
            if how == "rerun":
                return _rerun(original, names, blocks, xp, members, n, params)
            if how == "nearest":
                return _nearest(xo, xp, zo, zp, blocks, members, n)
            return _attack(xo, xp, zo, zp, cols, members, n)

        def one(cols):
            if params["attack"] != "strongest":
                tried = [(params["attack"], attack(params["attack"], cols))]
            else:  # nearest knows the blocks: only with every variable known
                tried = [(how, attack(how, cols)) for how in STRONGEST
                         if how == "intervals" or params["scenarios"] == "all"]
            # the most successful (the first of equally successful ones)
            how, result = max(tried, key=lambda t: float(t[1].credit.sum()))
            if len(cols) == len(names):
                full.append((how, result, tried))
            return {"linked": float(result.credit.sum()),
                    "certain": float(np.count_nonzero(result.certain)),
                    "inconsistent": float(np.count_nonzero(~result.contains))}

        figures = run_scenarios(names, params["scenarios"], n, one, _KEYS)
        strongest, result, tried = full[-1]
        summary = {
            "reference": params["reference"],
            "variables": names,
            "records": n,
            "scenarios": params["scenarios"],
            **figures,
            "intersection_sizes": _size_histogram(result.size),
            "wrong_certain": int(np.count_nonzero((result.size == 1) & ~result.certain)),
        }
        if self.strata(params, data.meta):
            summary["strata"] = len(labels)
        if params["attack"] == "strongest":
            done = {how: round(100.0 * float(r.credit.sum()) / n, 6) if n else 0.0
                    for how, r in tried}
            summary["strongest"] = strongest
            summary["by_attack"] = {how: done.get(how) for how in STRONGEST}
        frame = pd.DataFrame({"size": result.size, "certain": result.certain,
                              "contains": result.contains, "credit": result.credit})
        return MeasureResult(summary, frame)


def _attack(xo, xp, zo, zp, cols, members, n) -> AttackResult:
    """The attack on the variables ``cols``, stratum by stratum, with record numbers of
    the whole file."""
    size = np.zeros(n, dtype=np.int64)
    contains = np.zeros(n, dtype=bool)
    single = np.full(n, -1, dtype=np.int64)
    credit = np.zeros(n)
    for rows in members:
        if not len(rows):
            continue
        r = interval_attack(xo[np.ix_(rows, cols)], xp[np.ix_(rows, cols)],
                            zo[np.ix_(rows, cols)], zp[np.ix_(rows, cols)])
        size[rows], contains[rows], credit[rows] = r.size, r.contains, r.credit
        single[rows] = np.where(r.single >= 0, rows[np.maximum(r.single, 0)], -1)
    return AttackResult(size, contains, single, credit)


def _rerun(original, names, blocks, xp, members, n, params) -> AttackResult:
    """The rerun attack, stratum by stratum (records of the whole file)."""
    size = np.zeros(n, dtype=np.int64)
    contains = np.zeros(n, dtype=bool)
    single = np.full(n, -1, dtype=np.int64)
    credit = np.zeros(n)
    xo = values(original, names)
    for rows in members:
        if not len(rows):
            continue
        reps, cands = [], []
        for cols in blocks:
            Z = np.column_stack([
                _scaled(original.frame[names[j]].iloc[rows], original.variables[names[j]],
                        params["standardize"]) for j in cols])
            grouping = mdav_missing if np.isnan(Z).any() else mdav  # as the method
            labels = (grouping(Z, params["k"]) if len(rows) > params["k"]
                      else np.zeros(len(rows), dtype=np.int64))
            c = int(labels.max()) + 1
            if params["algorithm"] == "fuzzy_c_means":
                m = params["fuzziness"]
                idx, u = fuzzy_c_means(Z, labels, m=m, neighbours=params["neighbours"])
                reps.append(np.column_stack([fuzzy_centres(xo[rows, j], idx, u, m, c)
                                             for j in cols]))
                cands.append(np.where(u ** m > 0, idx, -1))
            else:
                first = np.unique(labels, return_index=True)[1]
                reps.append(np.column_stack([_aggregate(xo[rows, j], labels, ("mean", 0.0),
                                                        None)[first] for j in cols]))
                cands.append(labels[:, None])
        r = candidate_attack(xp[rows], blocks, reps, cands, np.isnan(xo[rows]))
        size[rows], contains[rows], credit[rows] = r.size, r.contains, r.credit
        single[rows] = np.where(r.single >= 0, rows[np.maximum(r.single, 0)], -1)
    return AttackResult(size, contains, single, credit)


def _nearest(xo, xp, zo, zp, blocks, members, n) -> AttackResult:
    """The nearest-group attack, stratum by stratum (records of the whole file): in each
    block, the published group (distinct protected values) nearest to the original."""
    size = np.zeros(n, dtype=np.int64)
    contains = np.zeros(n, dtype=bool)
    single = np.full(n, -1, dtype=np.int64)
    credit = np.zeros(n)
    for rows in members:
        if not len(rows):
            continue
        reps, cands = [], []
        for cols in blocks:
            shown = zp[np.ix_(rows, cols)]
            complete = ~np.isnan(shown).any(axis=1)
            if not complete.any():
                reps.append(np.zeros((0, len(cols))))
                cands.append(np.full((len(rows), 1), -1))
                continue
            centres, first = np.unique(shown[complete], axis=0, return_index=True)
            reps.append(xp[np.ix_(rows[complete][first], cols)])
            query = np.nan_to_num(zo[np.ix_(rows, cols)], nan=0.0)
            cands.append(cKDTree(centres).query(query, k=1)[1].reshape(-1, 1))
        r = candidate_attack(xp[rows], blocks, reps, cands)
        size[rows], contains[rows], credit[rows] = r.size, r.contains, r.credit
        single[rows] = np.where(r.single >= 0, rows[np.maximum(r.single, 0)], -1)
    return AttackResult(size, contains, single, credit)
