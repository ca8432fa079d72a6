"""Strata: the groups of records that methods and measures treat separately."""

from __future__ import annotations

import numpy as np
import pandas as pd


def stratum_codes(frame: pd.DataFrame, names: list[str]) -> tuple[np.ndarray, list[str]]:
    """The stratum of every record (0..S-1, strata in sorted order of their labels) and
    the stratum labels ("a / b" for several variables; one stratum "all" without any).
    A missing value is a stratum value of its own ("nan")."""
    if not names:
        return np.zeros(len(frame), dtype=np.int64), ["all"]
    labels = frame[names].astype(str).agg(" / ".join, axis=1)
    codes, uniques = pd.factorize(labels, sort=True)
    return codes.astype(np.int64), [str(u) for u in uniques]


def declared_strata(params: dict, meta) -> list[str]:
    """The ``strata`` parameter of a step, or else every variable with role strata."""
    if "strata" in params:
        return list(params["strata"])
    return [n for n, v in meta.variables.items() if v.role == "strata"]
