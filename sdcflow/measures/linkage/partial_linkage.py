"""``partial_linkage``: distance-based record linkage when the two files do not hold the
same individuals: the release is a sample of the original, or the intruder holds only
some of the individuals (Torra, "Data Privacy: Foundations, New Developments and the Big
Data Challenge", 2017, disclosure risk by record linkage: an intruder's file and the
release need only share some individuals). The re-identification rate is taken over the
individuals present in both files: no link can be correct for the others.

Records are matched by an identifier kept in both files (``match_on``), not by position:
each protected record is linked to the nearest record(s) of the reference file (all of
them, whether its individual is there or not); a link is correct when the individual's
own reference record is among the nearest. The rate is taken over the protected records
whose individual is in the reference; the others can only be linked wrongly, and are
counted apart (``absent``). Computations: :mod:`sdcflow.kernels.linkage.pairwise_links`.

As ``record_linkage``, the default is the strongest of the Euclidean and the two
Mahalanobis linkages (the covariance of the differences taken over the individuals in
both files).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ...kernels.linkage.coordinates import mahalanobis_transform, standardize
from ...kernels.linkage.pairwise_links import kernel_distance, pairwise_links
from ...plugins.distribution import Whole
from ...plugins.limits import MAX_CELLS, over
from ...plugins.registry import Measure, MeasureResult, register
from ...plugins.results import COUNT, NAMES, NUMBER, TEXT, Record, Text
from ..reference import REFERENCE
from .matched import MatchedById, id_problem
from .record_linkage import (
    COVARIANCE_TEXT,
    STRONGEST,
    VARIABLES,
    check_variables,
    links_frame,
    values,
)

_MAX_PAIR_TERMS = 40 * MAX_CELLS  # pairs x variables evaluated (a few minutes at most)
_RUNS_NOTE = f" ({len(STRONGEST)} linkages: method strongest)"


def _runs(params) -> int:
    """The linkages the method runs over every pair."""
    return len(STRONGEST) if params.get("method", "strongest") == "strongest" else 1


@register
class PartialLinkage(MatchedById, Measure):
    distribution = Whole()  # every protected record against every reference record
    name = "partial_linkage"
    public_params = ("match_on", "method", "covariance", "degree", "variables", "standardize",
                     "reference")
    # 2: method strongest by default (was distance); mahalanobis with covariance cov by
    # default (was cov0 only)
    version = "2"
    risk_measure = True
    summary = ("Record linkage between files holding different individuals (a sampled "
               "release, a partial intruder), matched by an identifier.")
    types = ("integer", "continuous")
    default_roles = ("numeric",)
    default_numeric = True
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "match_on": {"type": "string",
                         "description": "The variable identifying the individuals in both "
                                        "files (default: the one variable with role "
                                        "identifier); its values must be unique in each."},
            "method": {"enum": ["strongest", "distance", "mahalanobis", "kernel"],
                       "default": "strongest",
                       "description": "strongest: the most successful of distance and "
                                      "mahalanobis with covariance cov and cov0; distance: "
                                      "Euclidean on standardised values; mahalanobis: "
                                      "pseudo-inverse of a covariance (`covariance`); "
                                      "kernel: polynomial kernel of `degree`."},
            "covariance": {"enum": ["cov", "cov0"], "default": "cov",
                           "description": "method mahalanobis: cov, the covariance of the "
                                          "differences of the individuals in both files; "
                                          "cov0, the pooled covariance of both files."},
            "degree": {"type": "integer", "minimum": 1, "maximum": 10, "default": 2,
                       "description": "method kernel: the degree of (1 + <a, b>)^degree."},
            "variables": VARIABLES,
            "standardize": {"enum": ["original", "each"], "default": "original",
                            "description": "z-scores with the reference's means and "
                                           "standard deviations, or each file with its "
                                           "own."},
            "reference": REFERENCE,
        },
    }

    def check(self, params, meta):
        names = self.variables(params, meta)
        yield from check_variables(params, names)
        yield from self.match_problems(params, meta)
        match = self.match_variable(params, meta)
        if match in meta.variables and match in names:
            yield ("match_on",), f"'{match}' is also a linkage variable"

    def check_data(self, params, data):
        match = self.match_variable(params, data.meta)
        if match is None or match not in data.frame:
            return
        problem = id_problem(data.frame[match])
        if problem:
            yield ("match_on",), f"'{match}' {problem}"
        # both files hold at most the records as loaded
        n, c = len(data), len(self.variables(params, data.meta))
        terms = n * n * c * _runs(params)
        if terms > _MAX_PAIR_TERMS:
            yield ("variables",), (f"up to {n} protected and {n} reference records on {c} "
                                   f"variables make {over(terms, 'pair terms', _MAX_PAIR_TERMS)}"
                                   f"{_RUNS_NOTE if _runs(params) > 1 else ''}: link a sample "
                                   "or fewer variables")

    def result_shape(self, params, meta):
        fields = {"method": TEXT, "reference": TEXT, "variables": NAMES,
                  "match_on": TEXT, "records": COUNT, "reference_records": COUNT,
                  "common": COUNT, "absent": COUNT, "correct": NUMBER,
                  "percent": NUMBER, "correct_any": COUNT,
                  "percent_correct_any": NUMBER, "percent_of_release": NUMBER}
        if params.get("method", "strongest") == "mahalanobis":
            fields["covariance"] = TEXT
        if params.get("method", "strongest") == "strongest":
            labels = tuple(label for label, _, _ in STRONGEST)
            fields.update(strongest=Text(labels),
                          by_method=Record({label: NUMBER for label in labels}))
        return Record(fields)

    def evaluate(self, data, params, rng, *, original):
        names = self.variables(params, data.meta)
        match = self.match_variable(params, data.meta)
        for label, d in (("protected data", data), ("reference", original)):
            if match not in d.frame:
                raise ValueError(f"'{match}' is not in the {label}: partial_linkage matches "
                                 "records by it")
            ids = d.frame[match]
            if ids.isna().any() or ids.duplicated().any():
                raise ValueError(f"'{match}' does not identify every record of the {label} "
                                 "(missing or repeated values)")
            missing = [v for v in names if v not in d.frame]
            if missing:
                raise ValueError(f"the {label} lacks the variables {', '.join(missing)}")
        n, m, c = len(data), len(original), len(names)
        terms = n * m * max(c, 1) * _runs(params)
        if terms > _MAX_PAIR_TERMS:
            raise ValueError(f"{n} protected and {m} reference records on {c} variables "
                             f"make {over(terms, 'pair terms', _MAX_PAIR_TERMS)}"
                             f"{_RUNS_NOTE if _runs(params) > 1 else ''}: link a sample or "
                             "fewer variables")
        ref_ids = pd.Index(original.frame[match].to_numpy(dtype=object))
        truth = ref_ids.get_indexer(data.frame[match].to_numpy(dtype=object))
        truth = np.asarray(truth, dtype=np.int64)
        xo, xp = values(original, names), values(data, names)
        zo, zp = standardize(xo, xp, params["standardize"])
        method = params["method"]
        present = truth >= 0
        paired = (zo[truth[present]], zp[present])  # the individuals in both files

        def link(how: str, covariance: str | None):
            if how == "mahalanobis":
                a, b, _ = mahalanobis_transform(zo, zp, covariance, pairs=paired)
                return pairwise_links(b, a, truth)
            if how == "kernel":
                return pairwise_links(zp, zo, truth, kernel_distance(params["degree"]))
            return pairwise_links(zp, zo, truth)

        attacks = (STRONGEST if method == "strongest"
                   else ((method, method, params.get("covariance", "cov")),))
        tried = [(label, link(how, cov)) for label, how, cov in attacks]
        strongest, links = max(tried, key=lambda t: float(t[1].credit.sum()))
        common = int(present.sum())
        correct = float(links.credit.sum())
        anyc = int(np.count_nonzero(links.correct))

        def pct(x, of):
            return round(100.0 * x / of, 6) if of else 0.0

        summary = {"method": method, "reference": params["reference"], "variables": names,
                   "match_on": match, "records": n, "reference_records": m,
                   "common": common, "absent": n - common, "correct": round(correct, 6),
                   "percent": pct(correct, common), "correct_any": anyc,
                   "percent_correct_any": pct(anyc, common),
                   "percent_of_release": pct(correct, n)}
        if method == "mahalanobis":
            summary["covariance"] = COVARIANCE_TEXT[params.get("covariance", "cov")]
        if method == "strongest":
            summary["strongest"] = strongest
            summary["by_method"] = {label: pct(float(t.credit.sum()), common)
                                    for label, t in tried}
        table = links_frame(links)
        table["in_reference"] = present
        return MeasureResult(summary, table)
