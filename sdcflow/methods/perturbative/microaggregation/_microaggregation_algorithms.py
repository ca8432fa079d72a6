"""The numeric work of the ``microaggregation`` method on one part of the records: the
variables scaled for the distances, the partition by the chosen algorithm (MDAV, optimal
univariate, individual ranking, projected), the representatives of each group (mean,
lower median, geometric mean, plurality; fuzzy weights when given) and the within-group
and total sums of squares (SSE/SST).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd

from ....data.codes import ordered_values
from ....kernels.perturbative.microaggregation.aggregate import (
    group_geometric_mean,
    group_lower_median,
    group_mean,
    group_onestep,
    group_plurality,
    group_trimmed_mean,
)
from ....kernels.perturbative.microaggregation.fuzzy_c_means import ITERATIONS
from ....kernels.perturbative.microaggregation.mdav import mdav
from ....kernels.perturbative.microaggregation.mdav_missing import mdav_missing
from ....kernels.perturbative.microaggregation.projected import projected
from ....kernels.perturbative.microaggregation.univariate import (
    individual_ranking,
    optimal_univariate,
)
from ....plugins.limits import MAX_CELLS, MAX_LOOKUPS, over

# algorithms that take missing values (as sdcMicro: MDAV's distance rule; the others
# group each variable's observed values)
WITH_MISSING = ("mdav", "individual_ranking", "optimal_univariate")


def neighbour_problems(n: int, k: int, neighbours: int, algorithm: str
                       ) -> Iterator[tuple[tuple, str]]:
    """Findings on ``neighbours`` of fuzzy microaggregation (``fuzzy``, ``fuzzy_c_means``)
    on ``n`` records in groups of ``k``: each record's distances to its nearest
    prototypes (one per group) must fit in memory, and fuzzy c-means looks them up in
    every one of its rounds."""
    cells = n * min(neighbours, n // k)
    if cells > MAX_CELLS:
        yield ("neighbours",), (f"{neighbours} neighbours for each of {n} records make "
                                f"{over(cells, 'distances', MAX_CELLS)}")
    elif algorithm == "fuzzy_c_means" and cells * ITERATIONS > MAX_LOOKUPS:
        yield ("neighbours",), (f"{neighbours} neighbours for each of {n} records in "
                                f"{ITERATIONS} rounds of fuzzy c-means make "
                                f"{over(cells * ITERATIONS, 'nearest-centre lookups', MAX_LOOKUPS)}")


def _aggregate(x: np.ndarray, labels: np.ndarray, aggregation: tuple,
               weights: np.ndarray | None) -> np.ndarray:
    """The group representatives of ``x`` (category codes, ordinal ranks or values, as
    ``aggregation`` needs) for the records of one part. Missing values (NaN; code -1 for
    categories) stay missing, as in sdcMicro, and the representative of a group is
    computed on its observed values (missing if it has none)."""
    kind = aggregation[0]
    missing = (np.asarray(x) < 0) if kind == "plurality" else np.isnan(x)
    if not missing.any():
        return _representatives(x, labels, aggregation, weights)
    out = np.full(len(x), -1.0 if kind == "plurality" else np.nan)
    seen = ~missing
    if seen.any():
        groups, local = np.unique(labels[seen], return_inverse=True)
        rep = _representatives(x[seen], local, aggregation,
                               None if weights is None else weights[seen])
        per_group = np.full(int(labels.max()) + 1, np.nan)
        per_group[groups[local]] = rep
        out[seen] = per_group[labels[seen]]
    return out


def observed_counts(x: np.ndarray, labels: np.ndarray, kind: str) -> np.ndarray:
    """The number of observed values of each group that has at least one."""
    seen = (np.asarray(x) >= 0) if kind == "plurality" else ~np.isnan(x)
    counts = np.bincount(labels[seen], minlength=int(labels.max()) + 1 if len(labels) else 0)
    return counts[counts > 0]


def _representatives(x: np.ndarray, labels: np.ndarray, aggregation: tuple,
                     weights: np.ndarray | None) -> np.ndarray:
    kind, offset = aggregation
    if kind == "plurality":
        return group_plurality(x.astype(np.int64), labels).astype(float)
    if kind == "median":
        return group_lower_median(x, labels)
    if kind == "trim":
        return group_trimmed_mean(x, labels, offset)  # offset: the trimmed fraction
    if kind == "onestep":
        return group_onestep(x, labels)
    if kind == "geometric":
        return group_geometric_mean(x, labels, offset, weights)
    return group_mean(x, labels, weights)


def _scaled(col: pd.Series, var, how: str) -> np.ndarray:
    x = ordered_values(col, var)
    if np.isnan(x).any():
        return _scaled_observed(x, how)
    if how == "zscore":
        sd = x.std(ddof=1) if len(x) > 1 else 0.0
        return (x - x.mean()) / sd if sd > 0 else x - x.mean()
    if how == "range":
        span = x.max() - x.min()
        return (x - x.min()) / span if span > 0 else x - x.min()
    if how == "robust":
        med = np.median(x)
        mad = np.median(np.abs(x - med)) * 1.4826
        return (x - med) / mad if mad > 0 else x - med
    return x


def _scaled_observed(x: np.ndarray, how: str) -> np.ndarray:
    """``_scaled`` on the observed values of ``x`` (missing values stay NaN)."""
    out = np.full(len(x), np.nan)
    seen = ~np.isnan(x)
    if seen.any():
        out[seen] = _scaled(pd.Series(x[seen]), None, how)
    return out


def _per_variable(z: np.ndarray, k: int, grouping) -> np.ndarray:
    """A univariate partition of the observed values of ``z``; the missing values form a
    group of their own (whose representative stays missing)."""
    seen = ~np.isnan(z)
    if seen.all():
        return grouping(z, k)
    labels = np.zeros(len(z), dtype=np.int64)
    if seen.sum() > k:
        labels[seen] = grouping(z[seen], k)
    labels[~seen] = int(labels[seen].max(initial=-1)) + 1
    return labels


def _labels(Z: np.ndarray, k: int, params, numeric: list[str], progress=None) -> dict:
    """Group labels: one partition for the group (key None), or one per variable
    (``progress``: how far MDAV is, see
    :func:`sdcflow.kernels.perturbative.microaggregation.mdav.mdav`)."""
    n = len(Z)
    if n <= k:
        return {None: np.zeros(n, dtype=np.int64)}
    algorithm = params["algorithm"]
    if algorithm == "individual_ranking":
        out = {v: _per_variable(Z[:, j], k, individual_ranking) for j, v in enumerate(numeric)}
        out[None] = out[numeric[0]]
        return out
    if algorithm == "optimal_univariate":
        if Z.shape[1] == 1:
            return {None: _per_variable(Z[:, 0], k, optimal_univariate)}
        out = {v: _per_variable(Z[:, j], k, optimal_univariate) for j, v in enumerate(numeric)}
        out[None] = out[numeric[0]]
        return out
    if algorithm == "projected":
        return {None: projected(Z, k, params.get("projection"))}
    if np.isnan(Z).any():
        if algorithm != "mdav":
            raise ValueError(f"{algorithm} needs complete values")
        return {None: mdav_missing(Z, k)}
    return {None: mdav(Z, k, progress=progress)}


def _sse_sst(Z: np.ndarray, per_var: dict, names: list[str]) -> tuple[float, float]:
    """Within-group and total sums of squares of the scaled variables (the information
    loss of microaggregation, SSE/SST in the literature)."""
    if len(Z) == 0:
        return 0.0, 0.0
    if not np.isnan(Z).any():
        sst = float(((Z - Z.mean(axis=0)) ** 2).sum())
        sse = 0.0
        for j, name in enumerate(names):
            col = Z[:, j]
            sse += float(((col - group_mean(col, per_var.get(name, per_var[None]))) ** 2
                          ).sum())
        return sse, sst
    sst, sse = 0.0, 0.0
    for j, name in enumerate(names):
        seen = ~np.isnan(Z[:, j])  # observed values only
        col = Z[seen, j]
        if not len(col):
            continue
        labels = np.unique(per_var.get(name, per_var[None])[seen], return_inverse=True)[1]
        sst += float(((col - col.mean()) ** 2).sum())
        sse += float(((col - group_mean(col, labels)) ** 2).sum())
    return sse, sst
