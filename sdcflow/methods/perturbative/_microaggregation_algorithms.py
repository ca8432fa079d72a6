"""The numeric work of the ``microaggregation`` method on one part of the records: the
variables scaled for the distances, the partition by the chosen algorithm (MDAV, optimal
univariate, individual ranking, projected), the representatives of each group (mean,
lower median, geometric mean, plurality; fuzzy weights when given) and the within-group
and total sums of squares (SSE/SST).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...data.codes import ordered_values
from ...kernels.perturbative.microaggregation.aggregate import (
    group_geometric_mean,
    group_lower_median,
    group_mean,
    group_onestep,
    group_plurality,
    group_trimmed_mean,
)
from ...kernels.perturbative.microaggregation.mdav import mdav
from ...kernels.perturbative.microaggregation.projected import projected
from ...kernels.perturbative.microaggregation.univariate import (
    individual_ranking,
    optimal_univariate,
)


def _aggregate(x: np.ndarray, labels: np.ndarray, aggregation: tuple,
               weights: np.ndarray | None) -> np.ndarray:
    """The group representatives of ``x`` (category codes, ordinal ranks or values, as
    ``aggregation`` needs) for the records of one part."""
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


def _labels(Z: np.ndarray, k: int, params, numeric: list[str], progress=None) -> dict:
    """Group labels: one partition for the group (key None), or one per variable
    (``progress``: how far MDAV is, see
    :func:`sdcflow.kernels.perturbative.microaggregation.mdav.mdav`)."""
    n = len(Z)
    if n <= k:
        return {None: np.zeros(n, dtype=np.int64)}
    algorithm = params["algorithm"]
    if algorithm == "individual_ranking":
        out = {v: individual_ranking(Z[:, j], k) for j, v in enumerate(numeric)}
        out[None] = out[numeric[0]]
        return out
    if algorithm == "optimal_univariate":
        if Z.shape[1] == 1:
            return {None: optimal_univariate(Z[:, 0], k)}
        out = {v: optimal_univariate(Z[:, j], k) for j, v in enumerate(numeric)}
        out[None] = out[numeric[0]]
        return out
    if algorithm == "projected":
        return {None: projected(Z, k, params.get("projection"))}
    return {None: mdav(Z, k, progress=progress)}


def _sse_sst(Z: np.ndarray, per_var: dict, names: list[str]) -> tuple[float, float]:
    """Within-group and total sums of squares of the scaled variables (the information
    loss of microaggregation, SSE/SST in the literature)."""
    if len(Z) == 0:
        return 0.0, 0.0
    sst = float(((Z - Z.mean(axis=0)) ** 2).sum())
    sse = 0.0
    for j, name in enumerate(names):
        col = Z[:, j]
        sse += float(((col - group_mean(col, per_var.get(name, per_var[None]))) ** 2).sum())
    return sse, sst
