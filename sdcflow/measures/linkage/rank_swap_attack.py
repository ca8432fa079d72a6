"""``rank_swap_attack``: re-identification of rank-swapped data by an intruder who knows the
method and its parameter (the transparency attack, RS-RL: Torra, "Data privacy: supervised
approaches for disclosure risk assessment", 2016, "Transparency: Attacking Rank Swapping";
Torra, "Masking methods", 2013, "Rank swapping: Specific record linkage for rank swapping",
Examples III-VI).

For each original record ``x`` (the intruder knows them all: the worst case) and each known
variable ``j``, ``B_j(x_j)`` is the set of protected records whose value of ``j`` rank
swapping could have produced from ``x_j`` (a rank within the swap distance); the record's
protected version lies in the intersection of the ``B_j``. A record is re-identified
*with certainty* when the intersection is its own protected record alone; ``linked``
adds Torra's (2016) next step, record linkage within the intersection when it holds several
records (nearest on the standardised known variables; ``1/t`` for ``t`` tied nearest).
See :mod:`sdcflow.kernels.linkage.rank_swap_attack` for ranks, ties and missing values.

As the ``rank_swap`` method: the distance is ``floor(p n / 100)`` with ``n`` the
non-missing values of the variable (in the stratum), ordinal variables rank by their
declared order, and with strata the intruder (who knows the strata) attacks each stratum
separately."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ...data.strata import stratum_codes, stratum_members
from ...kernels.linkage.coordinates import standardize
from ...kernels.linkage.rank_swap_attack import AttackResult, intersection_attack, rank_distance
from ...plugins.registry import Measure, MeasureResult, register, strata_param, variables_param
from ...plugins.results import COUNT, NAMES, NUMBER, TEXT, Keyed, Record, by_variable
from ..reference import REFERENCE, same_records
from .record_linkage import (
    SCENARIO_PARAM,
    check_variables,
    run_scenarios,
    scenario_fields,
    values,
)

_SIZE_BINS = [(0, 0), (1, 1), (2, 2), (3, 3), (4, 5), (6, 10), (11, 100), (101, None)]


def _size_histogram(size: np.ndarray) -> dict:
    out = {}
    for lo, hi in _SIZE_BINS:
        label = str(lo) if lo == hi else (f"{lo}-{hi}" if hi is not None else f">{lo - 1}")
        inside = (size >= lo) & ((size <= hi) if hi is not None else True)
        if np.any(inside):
            out[label] = int(np.count_nonzero(inside))
    return out


@register
class RankSwapAttack(Measure):
    name = "rank_swap_attack"
    # the rank swapping p stays internal, as in rank_swap (the attack assumes an intruder
    # who knows it; publishing it would tell every intruder)
    public_params = ("variables", "scenarios", "strata", "reference")
    # 2: percent is the linked share (the attack's full strength, as Torra's RS-RL
    # figures), the certain share is percent_certain (was: percent certain, and
    # percent_linked)
    version = "2"
    summary = ("Transparency attack on rank swapping (RS-RL): records re-identified by "
               "linkage within the intersection of their possible swaps (certain when it "
               "is themselves alone).")
    risk_measure = True
    types = ("integer", "continuous", "ordinal")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["p"],
        "properties": {
            "p": {"type": "number", "minimum": 0,
                  "description": "The published rank swapping parameter: the largest rank "
                                 "distance of a swap, in percent of the values (p_unit "
                                 "percent) or in records."},
            "p_unit": {"enum": ["percent", "records"], "default": "percent",
                       "description": "percent: distance floor(p * n / 100), n the non-missing "
                                      "values (Torra 2016, the rank_swap method); records: "
                                      "distance p (Torra's (2013) worked example, p = 2)."},
            "variables": variables_param("The swapped variables the intruder knows (default: "
                                         "every variable with role numeric)."),
            "scenarios": SCENARIO_PARAM,
            "strata": strata_param("The strata the data were swapped within"),
            "reference": REFERENCE,
        },
    }

    default_roles = ("numeric",)
    stratified = True

    def check(self, params, meta):
        yield from check_variables(params, self.variables(params, meta))
        if params.get("p_unit") == "records" and params.get("p") is not None \
                and params["p"] != int(params["p"]):
            yield ("p",), "p in records must be a whole number"
        if params.get("p_unit", "percent") == "percent" and params.get("p", 0) > 100:
            yield ("p",), f"p = {params['p']:g} is a percentage of the values: at most 100"
        yield from self.check_strata(params, meta)
        for name in self.variables(params, meta):
            var = meta.variables.get(name)
            if var is not None and var.type == "ordinal" and not var.order:
                yield ("variables",), f"the ordinal variable '{name}' has no declared order"

    pairs_records = True

    def result_shape(self, params, meta):
        names = self.variables(params, meta)
        fields = {"p": NUMBER, "p_unit": TEXT, "rank_distance": by_variable(names, COUNT),
                  "reference": TEXT, "variables": NAMES, "records": COUNT, "scenarios": TEXT,
                  **scenario_fields(names, params["scenarios"],
                                    ("linked", "certain", "inconsistent")),
                  # the sizes found in the data, in bins: 1, 2, 3-5, ...
                  "intersection_sizes": Keyed(COUNT, "intersection size"),
                  "wrong_certain": COUNT}
        if self.strata(params, meta):
            fields["strata"] = COUNT
        return Record(fields)

    def check_data(self, params, data):
        if params.get("p_unit") == "records" and params.get("p", 0) > len(data):
            yield ("p",), (f"p = {params['p']:g} records is more than the {len(data)} "
                           "records of the data")

    def evaluate(self, data, params, rng, *, original):
        names = self.variables(params, data.meta)
        same_records(data, original, self.name)
        n = len(data)
        xo, xp = values(original, names), values(data, names)
        zo, zp = standardize(xo, xp)
        # the strata as published: those of the protected file (rank swapping leaves them)
        groups, labels = stratum_codes(data.frame, self.strata(params, data.meta))
        members = stratum_members(groups, len(labels))
        distances = {}
        for g, rows in enumerate(members):
            counts = np.count_nonzero(~np.isnan(xp[rows]), axis=0)
            distances[g] = np.array([rank_distance(params["p"], int(k), params["p_unit"])
                                     for k in counts], dtype=np.int64)
        full: list = []

        def one(cols):
            result = _attack(xo, xp, zo, zp, cols, members, distances, n)
            if len(cols) == len(names):
                full.append(result)
            return {"linked": float(result.credit.sum()),
                    "certain": float(np.count_nonzero(result.certain)),
                    "inconsistent": float(np.count_nonzero(~result.contains))}

        figures = run_scenarios(names, params["scenarios"], n, one,
                                ("linked", "certain", "inconsistent"))
        result = full[-1]
        reach = {v: int(max((d[j] for d in distances.values()), default=0))
                 for j, v in enumerate(names)}
        summary = {
            "p": params["p"],
            "p_unit": params["p_unit"],
            "rank_distance": reach,
            "reference": params["reference"],
            "variables": names,
            "records": n,
            "scenarios": params["scenarios"],
            **figures,
            "intersection_sizes": _size_histogram(result.size),
            "wrong_certain": int(np.count_nonzero((result.size == 1) & ~result.certain)),
        }
        if len(labels) > 1 or self.strata(params, data.meta):
            summary["strata"] = len(labels)
        frame = pd.DataFrame({"size": result.size, "certain": result.certain,
                              "contains": result.contains, "credit": result.credit})
        return MeasureResult(summary, frame)

    def public_summary(self, summary, params):
        """The attack's figures without what would tell the rank swapping p: p itself,
        the rank distance it gives (with the published number of records, p again) and
        the sizes of the intersections (bounded by that distance)."""
        hidden = {"p", "p_unit", "rank_distance", "intersection_sizes"}
        return {k: v for k, v in summary.items() if k not in hidden}


def _attack(xo, xp, zo, zp, cols, members, distances, n) -> AttackResult:
    """The attack on the variables ``cols``, stratum by stratum, with record numbers of
    the whole file."""
    size = np.zeros(n, dtype=np.int64)
    contains = np.zeros(n, dtype=bool)
    single = np.full(n, -1, dtype=np.int64)
    credit = np.zeros(n)
    for g, rows in enumerate(members):
        if not len(rows):
            continue
        r = intersection_attack(xo[np.ix_(rows, cols)], xp[np.ix_(rows, cols)],
                                distances[g][cols], zo[np.ix_(rows, cols)],
                                zp[np.ix_(rows, cols)])
        size[rows], contains[rows], credit[rows] = r.size, r.contains, r.credit
        single[rows] = np.where(r.single >= 0, rows[np.maximum(r.single, 0)], -1)
    return AttackResult(size, contains, single, credit)
