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

from .text import text_column

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


def household_digests(released: pd.DataFrame, units: np.ndarray,
                      households: int) -> np.ndarray:
    """A 64-bit digest of each household's released records (``released``: the release
    as written, without the household id), by household number: the text of every
    value, row by row, folded over the members in their order. A function of the
    published file alone, so that numbering households by it publishes nothing more."""
    if households == 0:
        return np.zeros(0, dtype=np.uint64)
    if released.shape[1]:
        text = pd.DataFrame({i: text_column(released[c], released.index).fillna("\x00")
                             for i, c in enumerate(released.columns)})
        rows = pd.util.hash_pandas_object(text, index=False).to_numpy(dtype=np.uint64)
    else:
        rows = np.zeros(len(units), dtype=np.uint64)
    # member j of a household contributes rows * M**(j + 1) (mod 2**64): the order of the
    # members counts, and the sum does not depend on how the file is split
    member = pd.Series(units).groupby(units).cumcount().to_numpy(dtype=np.uint64)
    weight = np.ones(len(units), dtype=np.uint64)
    factor = np.full(len(units), _FOLD, dtype=np.uint64)
    exponent = member + np.uint64(1)
    while exponent.any():  # square-and-multiply, every record at once
        odd = (exponent & np.uint64(1)).astype(bool)
        weight[odd] *= factor[odd]
        factor *= factor
        exponent >>= np.uint64(1)
    out = np.zeros(households, dtype=np.uint64)
    np.add.at(out, units, rows * weight)
    return out


_FOLD = np.uint64(0x9E3779B97F4A7C15)  # an odd constant (the golden ratio's 64 bits)


def new_ids(digests: np.ndarray, missing: np.ndarray, units: np.ndarray) -> np.ndarray:
    """Released household ids, as text (records without an id keep none): the households
    numbered 1 .. H in the order of their :func:`household_digests` (ties in order of
    first appearance).

    The numbers are a function of the released records alone. They carry nothing of the
    original ids (numbering in order of appearance would give back ids that ran 1 .. H
    down the original file) and nothing of the recipe's seed: a random numbering is a
    draw whose other inputs (the number of households, their order) are public, so
    trying seeds until the draw reproduces the published numbers finds the seed (a
    thousand households' numbers gave the seed 2026 away in 0.2 s), and the seed
    regenerates every other draw of the run."""
    number = released_numbers_of(digests)
    out = np.char.mod("%d", number)[units].astype(object) if len(digests) else \
        np.empty(len(units), dtype=object)
    out[missing] = None
    return out


def released_numbers_of(digests: np.ndarray) -> np.ndarray:
    """Household number -> released number (1 .. H): the rank of its digest, ties in
    household order."""
    order = np.argsort(digests, kind="stable")
    number = np.empty(len(digests), dtype=np.int64)
    number[order] = np.arange(1, len(digests) + 1)
    return number
