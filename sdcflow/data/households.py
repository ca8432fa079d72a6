"""Households: the records of a household survey grouped by their household id, and the
household-level variables that must stay the same for every member.

sdcMicro's workflow for household-level variables (Templ, Kowarik & Meindl, "Statistical
Disclosure Control for Micro-Data Using the R Package sdcMicro", 2015; its
``selectHouseholdData`` and ``mergeHouseholdData``) is: take one record per household,
anonymise the household-level variables on that file, and merge the result back onto
every member. sdcflow does the same for every method step that writes household-level
variables (:func:`collapse`, :func:`expand`), and local suppression spreads a value it
suppresses for one member to the whole household (:func:`spread_missing`).

A record without a household id is a household of its own (as in sdcMicro's
household risk).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

_SHOW = 5


def household_id_for(meta, names) -> set[str]:
    """The household id (as a set of at most one name) when one of ``names`` is a
    household-level variable of ``meta`` (a :class:`~sdcflow.data.Metadata`)."""
    ids = meta.names("household")
    levels = [meta.variables[n].level for n in names if n in meta.variables]
    return {ids[0]} if ids and "household" in levels else set()


def household_units(ids: pd.Series) -> tuple[np.ndarray, int]:
    """Household number of each record (0 .. H-1, in order of first appearance; each
    record without an id a household of its own) and the number of households H."""
    codes, uniques = pd.factorize(ids, sort=False, use_na_sentinel=True)
    codes = np.asarray(codes, dtype=np.int64)
    lone = codes < 0
    if lone.any():
        codes = codes.copy()
        codes[lone] = len(uniques) + np.arange(int(lone.sum()))
    return codes, len(uniques) + int(lone.sum())


def first_members(units: np.ndarray, households: int) -> np.ndarray:
    """The position of the first record of each household, by household number."""
    first = np.full(households, len(units), dtype=np.int64)
    np.minimum.at(first, units, np.arange(len(units), dtype=np.int64))
    return first


def inconsistent(units: np.ndarray, households: int, values: pd.Series) -> np.ndarray:
    """Whether each household has more than one value of ``values`` among its members
    (a missing value counts as a value of its own)."""
    codes, _ = pd.factorize(values, sort=False, use_na_sentinel=False)
    codes = np.asarray(codes, dtype=np.int64)
    low = np.full(households, np.iinfo(np.int64).max, dtype=np.int64)
    high = np.full(households, -1, dtype=np.int64)
    np.minimum.at(low, units, codes)
    np.maximum.at(high, units, codes)
    return high > low


def consistency_problems(frame: pd.DataFrame, household: str, names: list[str],
                         is_csv: bool) -> dict[str, str]:
    """For each household-level variable in ``names`` that differs within a household, a
    message naming the first households and their records (1-based)."""
    units, count = household_units(frame[household])
    out = {}
    for name in names:
        bad = inconsistent(units, count, frame[name])
        if not bad.any():
            continue
        records = np.flatnonzero(bad[units])
        shown = [str(frame[household].iloc[r]) for r in records]
        ids = list(dict.fromkeys(shown))[:_SHOW]
        rows = ", ".join(f"{r + 1} (line {r + 2})" if is_csv else str(r + 1)
                         for r in records[:_SHOW])
        more = f" and {len(records) - _SHOW} more" if len(records) > _SHOW else ""
        out[name] = (f"column '{name}' is declared household-level (level: household) but "
                     f"differs between members of {int(bad.sum())} household"
                     f"{'s' if bad.sum() != 1 else ''} ({household} {', '.join(ids)}; "
                     f"records {rows}{more})")
    return out


def collapse(frame: pd.DataFrame, units: np.ndarray, households: int) -> pd.DataFrame:
    """One record per household (its first member's values), in household order."""
    return frame.iloc[first_members(units, households)].reset_index(drop=True)


def expand(frame: pd.DataFrame, units: np.ndarray) -> pd.DataFrame:
    """Each household's values copied to its members."""
    return frame.iloc[units].reset_index(drop=True)


def spread_missing(codes: np.ndarray, units: np.ndarray, households: int) -> np.ndarray:
    """``codes`` (records x variables, -1 = missing) with a value missing for every
    member of a household as soon as it is missing for one of them."""
    out = codes.copy()
    for j in range(codes.shape[1]):
        gone = np.zeros(households, dtype=bool)
        np.logical_or.at(gone, units, codes[:, j] < 0)
        out[gone[units], j] = -1
    return out


def new_ids(units: np.ndarray, households: int, missing: np.ndarray) -> np.ndarray:
    """Released household ids: the households numbered 1 .. H in the order they first
    appear in the release, as text; records without an id keep none.

    The numbers carry nothing of the original ids and nothing beyond the release's own
    record order, which is published anyway. They are not drawn at random: a random
    numbering is a draw whose outcome is published and whose other inputs (the number
    of households, their order in the file) are public too, so trying seeds until the
    draw reproduces the published numbers finds the recipe's seed (a thousand
    households' numbers gave the seed 2026 away in 0.2 s), and the seed regenerates
    every other draw of the run."""
    number = np.arange(1, households + 1)
    out = np.char.mod("%d", number)[units].astype(object) if households else \
        np.empty(len(units), dtype=object)
    out[missing] = None
    return out
