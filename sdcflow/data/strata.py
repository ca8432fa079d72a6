"""Strata: the groups of records that methods and measures treat separately."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..kernels.frequencies import row_ids


def stratum_codes(frame: pd.DataFrame, names: list[str]) -> tuple[np.ndarray, list[str]]:
    """The stratum of every record (0..S-1) and the stratum labels ("a / b" for several
    variables; one stratum "all" without any). Strata are ordered by the sorted values of
    each variable in turn; a missing value is a value of its own ("nan"). Vectorised:
    only the distinct combinations are turned into labels."""
    if not names:
        return np.zeros(len(frame), dtype=np.int64), ["all"]
    per = [pd.factorize(frame[n].astype("str"), sort=True, use_na_sentinel=False)
           for n in names]
    codes = np.column_stack([c for c, _ in per]).astype(np.int64)
    ids, rep = row_ids(codes)
    labels = [" / ".join(str(per[j][1][codes[r, j]]) for j in range(len(names))) for r in rep]
    return ids.astype(np.int64), labels


def declared_strata(params: dict, meta) -> list[str]:
    """The ``strata`` parameter of a step, or else every variable with role strata."""
    if "strata" in params:
        return list(params["strata"])
    return meta.names("strata")
