"""``fuzzy_clustering_loss``: a cluster-specific information loss measure with fuzzy
c-means (Ladra & Torra (2008), "On the comparison of generic information loss measures
and cluster-specific ones", IJUFKS 16(1)): the original and the protected data are
partitioned into c fuzzy clusters (Bezdek's fuzzy c-means, c = 10 and m = 2 by default,
Ladra & Torra's setting) and compared by the distance between their cluster centres
(d1), between their membership values (d2) and by their objective functions. The
formulas are in :func:`sdcflow.kernels.utility.fuzzy_c_means.fuzzy_clustering_loss`.

Both data sets are standardised with the original's means and standard deviations, as in
``clustering_agreement``; records with a missing value in either are left out
(``records_used``); records are compared by position."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ...kernels.utility.fuzzy_c_means import fuzzy_clustering_loss
from ...plugins.limits import MAX_DISTANCES, over
from ...plugins.registry import Measure, MeasureResult, register, variables_param
from ...plugins.results import COUNT, NAMES, NUMBER, TEXT, record
from ..reference import REFERENCE, same_records
from .information_loss import numeric_matrix


@register
class FuzzyClusteringLoss(Measure):
    name = "fuzzy_clustering_loss"
    public_params = ("variables", "clusters", "fuzziness", "restarts", "max_iter", "reference")
    risk_measure = False
    summary = ("Fuzzy c-means of original and protected data: distances between their "
               "centres and memberships, and their objective functions.")
    types = ("integer", "continuous")
    default_roles = ("numeric",)
    pairs_records = True
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": variables_param("Numeric variables to cluster on (default: every "
                                         "variable with role numeric)."),
            "clusters": {"type": "integer", "minimum": 2, "default": 10,
                         "description": "Number of fuzzy clusters c (Ladra & Torra use 10)."},
            "fuzziness": {"type": "number", "exclusiveMinimum": 1, "maximum": 10,
                          "default": 2,
                          "description": "The fuzzifier m of fuzzy c-means (> 1)."},
            "restarts": {"type": "integer", "minimum": 1, "default": 3,
                         "description": "k-means++ seedings of the original; the partition "
                                        "of least objective is kept."},
            "max_iter": {"type": "integer", "minimum": 1, "maximum": 100_000, "default": 300,
                         "description": "At most this many iterations per run."},
            "reference": REFERENCE,
        },
    }

    def check(self, params, meta):
        if not self.variables(params, meta):
            yield ("variables",), "no numeric variables: declare variables with role 'numeric'"

    def check_data(self, params, data):
        c = params["clusters"]
        names = [n for n in self.variables(params, data.meta) if n in data.frame]
        complete = int(data.frame[names].notna().all(axis=1).sum()) if names else len(data)
        if c > complete:
            yield ("clusters",), (f"{c} clusters for {complete} complete records: "
                                  "at most one cluster per record")
            return
        # every iteration computes the distance of every record to every centre
        work = (params["restarts"] + 1) * params["max_iter"] * len(data) * c
        if work > MAX_DISTANCES:
            yield ("max_iter",), (f"{params['restarts']} restarts of up to {params['max_iter']} "
                                  f"iterations with {c} clusters on {len(data)} records "
                                  f"compute {over(work, 'distances', MAX_DISTANCES)}")

    def result_shape(self, params, meta):
        return record(reference=TEXT, variables=NAMES, clusters=COUNT, fuzziness=NUMBER,
                      records=COUNT, records_used=COUNT, centre_distance=NUMBER,
                      membership_distance=NUMBER, mean_membership_distance=NUMBER,
                      objective_original=NUMBER, objective_protected=NUMBER,
                      objective_change_percent=NUMBER)

    def evaluate(self, data, params, rng, *, original):
        """d1 (``centre_distance``), d2 (``membership_distance``), its mean per record,
        both objectives and the relative change of the objective; per record
        ``membership_distance`` (NaN for records left out) and the cluster of largest
        membership in each data set (``fuzzy_cluster_original``, ``_protected``; -1)."""
        names = self.variables(params, data.meta)
        same_records(data, original, self.name)
        x = numeric_matrix(original, names, "reference")
        y = numeric_matrix(data, names, "protected")
        used = ~(np.isnan(x).any(axis=1) | np.isnan(y).any(axis=1))
        x, y = x[used], y[used]
        c = int(params["clusters"])
        if len(x) < c:
            raise ValueError(f"{len(x)} complete records for {c} clusters")
        mean = x.mean(axis=0)
        sd = x.std(axis=0, ddof=1) if len(x) > 1 else np.ones(x.shape[1])
        sd = np.where(sd > 0, sd, 1.0)  # a constant variable is only centred
        loss = fuzzy_clustering_loss((x - mean) / sd, (y - mean) / sd, c, rng,
                                     float(params["fuzziness"]), int(params["restarts"]),
                                     int(params["max_iter"]))
        n_used = int(used.sum())
        j0, j1 = loss.objective_original, loss.objective_protected
        summary = {
            "reference": params["reference"], "variables": names, "clusters": c,
            "fuzziness": params["fuzziness"], "records": len(data), "records_used": n_used,
            "centre_distance": loss.centre_distance,
            "membership_distance": loss.membership_distance,
            "mean_membership_distance": float(loss.per_record.mean()),
            "objective_original": j0, "objective_protected": j1,
            "objective_change_percent": 100.0 * (j1 - j0) / j0 if j0 > 0 else 0.0,
        }
        distance = np.full(len(data), np.nan)
        distance[used] = loss.per_record
        columns = {"membership_distance": distance}
        for which, part in (("original", loss.original), ("protected", loss.protected)):
            label = np.full(len(data), -1, dtype=np.int64)
            label[used] = part.membership.argmax(axis=1)
            columns[f"fuzzy_cluster_{which}"] = label
        return MeasureResult(summary, pd.DataFrame(columns, index=data.frame.index))
