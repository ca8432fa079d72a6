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
knows them) attacks each stratum separately."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ...data.strata import stratum_codes, stratum_members
from ...kernels.linkage.coordinates import standardize
from ...kernels.linkage.microaggregation_attack import interval_attack
from ...kernels.linkage.rank_swap_attack import AttackResult
from ...registry import Measure, MeasureResult, register, strata_param, variables_param
from ...results import COUNT, NAMES, TEXT, Keyed, Record
from ..reference import REFERENCE, same_records
from .rank_swap_attack import _size_histogram
from .record_linkage import (
    SCENARIO_PARAM,
    check_variables,
    run_scenarios,
    scenario_fields,
    values,
)

_KEYS = ("certain", "linked", "inconsistent")


@register
class MicroaggregationAttack(Measure):
    name = "microaggregation_attack"
    summary = ("Transparency attack on microaggregation (group intervals): records whose "
               "intersection of possible groups is themselves alone.")
    types = ("integer", "continuous", "ordinal")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": variables_param("The microaggregated variables the intruder knows "
                                         "(default: every variable with role numeric)."),
            "scenarios": SCENARIO_PARAM,
            "strata": strata_param("The strata the data were microaggregated within"),
            "reference": REFERENCE,
        },
    }

    default_roles = ("numeric",)
    stratified = True
    pairs_records = True

    def check(self, params, meta):
        yield from check_variables(params, self.variables(params, meta))
        yield from self.check_strata(params, meta)
        for name in self.variables(params, meta):
            var = meta.variables.get(name)
            if var is not None and var.type == "ordinal" and not var.order:
                yield ("variables",), f"the ordinal variable '{name}' has no declared order"

    def result_shape(self, params, meta):
        names = self.variables(params, meta)
        fields = {"reference": TEXT, "variables": NAMES, "records": COUNT, "scenarios": TEXT,
                  **scenario_fields(names, params["scenarios"], _KEYS),
                  "intersection_sizes": Keyed(COUNT, "intersection size"),
                  "wrong_certain": COUNT}
        if self.strata(params, meta):
            fields["strata"] = COUNT
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

        def one(cols):
            result = _attack(xo, xp, zo, zp, cols, members, n)
            if len(cols) == len(names):
                full.append(result)
            return {"certain": float(np.count_nonzero(result.certain)),
                    "linked": float(result.credit.sum()),
                    "inconsistent": float(np.count_nonzero(~result.contains))}

        figures = run_scenarios(names, params["scenarios"], n, one, _KEYS)
        result = full[-1]
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
