"""``clustering_agreement``: a specific information loss measure (Torra, "Masking methods",
2013, section 4, "Specific Information Loss Measure"): the data use is k-means clustering
with c clusters, and the loss is the disagreement between the partitions of the original X
and the protected X' (Rand, Jaccard, adjusted Rand, Wallace, Mantaras, as Torra's (2013)
table "Indices/distance"; ``il_rand = 1 - rand`` and ``il_mantaras = mantaras`` as its IL
formulas).

Both data sets are standardised with X's means and standard deviations (so distances mean
the same in both), then clustered by :func:`sdcflow.kernels.utility.kmeans.kmeans`: ``restarts``
k-means++ seedings and Lloyd's algorithm, the least-inertia solution kept. Both runs start
from the same generator state (drawn once from the step's rng), so identical data give
identical partitions. With more than 100,000 records the restarts run on a uniform
subsample of 100,000 records and the best solution is refined by Lloyd on every record.
Records with a missing value in either data set are left out (``records_used``); records
are compared by position.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ...kernels.utility.kmeans import SAMPLE, kmeans
from ...kernels.utility.partition_agreement import partition_agreement
from ...plugins.limits import MAX_CELLS, MAX_DISTANCES, over
from ...plugins.registry import Measure, MeasureResult, register, variables_param
from ...plugins.results import COUNT, NAMES, NUMBER, TEXT, record
from ..reference import REFERENCE, same_records
from .information_loss import numeric_matrix


@register
class ClusteringAgreement(Measure):
    name = "clustering_agreement"
    public_params = ("variables", "clusters", "restarts", "max_iter", "reference")
    risk_measure = False
    summary = "k-means partitions of original and protected data: Rand, ARI, Mantaras..."
    types = ("integer", "continuous")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": variables_param("Numeric variables to cluster on (default: every "
                                         "variable with role numeric)."),
            "clusters": {"type": "integer", "minimum": 2, "default": 15,
                         "description": "Number of k-means clusters c (Torra's (2013) example "
                                        "uses 15)."},
            "restarts": {"type": "integer", "minimum": 1, "default": 3,
                         "description": "k-means++ seedings per data set; the partition with "
                                        "the least within-cluster sum of squares is kept."},
            "max_iter": {"type": "integer", "minimum": 1, "maximum": 100_000, "default": 300,
                         "description": "At most this many Lloyd iterations per run."},
            "reference": REFERENCE,
        },
    }

    default_roles = ("numeric",)

    def check(self, params, meta):
        if not self.variables(params, meta):
            yield ("variables",), "no numeric variables: declare variables with role 'numeric'"

    def check_data(self, params, data):
        c = params["clusters"]
        if c > len(data):
            yield ("clusters",), (f"{c} clusters for {len(data)} records: "
                                  "at most one cluster per record")
            return
        # the agreement cross-tabulates the two partitions: c x c cells
        if c * c > MAX_CELLS:
            yield ("clusters",), (f"{c} clusters make a cross-tabulation of "
                                  f"{over(c * c, 'cells', MAX_CELLS)}")
        # each k-means++ seeding computes the distance of every record to every centre
        # (on a subsample of at most SAMPLE records)
        work = 2 * params["restarts"] * min(len(data), SAMPLE) * c
        if work > MAX_DISTANCES:
            yield ("restarts",), (f"{params['restarts']} restarts with {c} clusters on "
                                  f"{min(len(data), SAMPLE)} records compute "
                                  f"{over(work, 'distances', MAX_DISTANCES)}")

    pairs_records = True

    def result_shape(self, params, meta):
        pairs = record(together_both=COUNT, together_original_only=COUNT,
                       together_protected_only=COUNT, apart_both=COUNT)
        return record(reference=TEXT, variables=NAMES, clusters=COUNT, records=COUNT,
                      records_used=COUNT, rand=NUMBER, jaccard=NUMBER, adjusted_rand=NUMBER,
                      wallace_original_to_protected=NUMBER,
                      wallace_protected_to_original=NUMBER, mantaras=NUMBER, pairs=pairs,
                      il_rand=NUMBER, il_mantaras=NUMBER, inertia_original=NUMBER,
                      inertia_protected=NUMBER)

    def evaluate(self, data, params, rng, *, original):
        names = self.variables(params, data.meta)
        same_records(data, original, self.name)
        x = numeric_matrix(original, names, "reference")
        y = numeric_matrix(data, names, "protected")
        used = ~(np.isnan(x).any(axis=1) | np.isnan(y).any(axis=1))
        if not used.all():
            x, y = x[used], y[used]
        c = int(params["clusters"])
        if len(x) < c:
            raise ValueError(f"{len(x)} complete records for {c} clusters")
        mean = x.mean(axis=0)
        sd = x.std(axis=0, ddof=1) if len(x) > 1 else np.ones(x.shape[1])
        sd = np.where(sd > 0, sd, 1.0)  # a constant variable is only centred
        seed = int(rng.integers(2 ** 63 - 1))
        runs = {}
        for which, values in (("original", x), ("protected", y)):
            values -= mean  # x and y are this measure's own copies: standardise in place
            values /= sd
            runs[which] = kmeans(values, c, np.random.default_rng(seed),
                                 n_init=int(params["restarts"]), max_iter=int(params["max_iter"]))
        agreement = partition_agreement(runs["original"][0], runs["protected"][0])
        summary = {
            "reference": params["reference"],
            "variables": names,
            "clusters": c,
            "records": len(data),
            "records_used": int(used.sum()),
            **agreement,
            "il_rand": 1.0 - agreement["rand"],
            "il_mantaras": agreement["mantaras"],
            "inertia_original": runs["original"][1],
            "inertia_protected": runs["protected"][1],
        }
        per_record = pd.DataFrame(
            {f"cluster_{which}": _spread(run[0], used) for which, run in runs.items()},
            index=data.frame.index)
        return MeasureResult(summary, per_record)


def _spread(labels: np.ndarray, used: np.ndarray) -> np.ndarray:
    """Labels of the used records back in place, -1 for records left out."""
    out = np.full(len(used), -1, dtype=np.int64)
    out[used] = labels
    return out
