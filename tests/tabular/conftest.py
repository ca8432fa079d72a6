"""Fixtures for the tabular tests: the profession x town example of seed
000_1eece6b9d3791e64.txt ("Protection for tabular data"), as microdata and as cells."""

import pandas as pd
import pytest

from sdcflow.tabular import table_from_cells

#: the seed's "Aggregate table of frequencies" and "... of magnitudes" (rows M1..M3,
#: columns P1..P5, without the printed totals)
SEED_FREQ = {"M1": [2, 15, 30, 20, 10], "M2": [72, 20, 1, 30, 10], "M3": [38, 38, 15, 40, 5]}
SEED_VALUE = {"M1": [360, 450, 720, 400, 360], "M2": [1440, 540, 22, 570, 320],
              "M3": [722, 1178, 375, 800, 363]}
#: contributions the seed states: file A's records (P1,M1: 160, 200; P2,M1: 40, 60, 75),
#: the single P3 in M2 earning 22, and (P5,M3): 350, 4, 3, 3, 3
SEED_KNOWN = {("P1", "M1"): [160, 200], ("P2", "M1"): [40, 60, 75], ("P3", "M2"): [22],
              ("P5", "M3"): [350, 4, 3, 3, 3]}


def seed_contributions(p: str, m: str) -> list[int]:
    """Contributions of a cell: the seed's where it gives them, the rest of the cell's
    total split as evenly as integers allow."""
    f = SEED_FREQ[m][int(p[1]) - 1]
    v = SEED_VALUE[m][int(p[1]) - 1]
    known = SEED_KNOWN.get((p, m), [])
    k, rest = f - len(known), v - sum(known)
    base, extra = divmod(rest, k) if k else (0, 0)
    return known + [base + 1] * extra + [base] * (k - extra)


@pytest.fixture(scope="session")
def seed_records() -> pd.DataFrame:
    rows = [{"P": p, "M": m, "salary": float(x)}
            for m in SEED_FREQ for p in ("P1", "P2", "P3", "P4", "P5")
            for x in seed_contributions(p, m)]
    return pd.DataFrame(rows)


@pytest.fixture(scope="session")
def seed_cells() -> pd.DataFrame:
    """The 15 inner cells with frequency, value and all contributions."""
    rows = [{"P": p, "M": m, "freq": SEED_FREQ[m][int(p[1]) - 1],
             "value": SEED_VALUE[m][int(p[1]) - 1],
             "contributions": seed_contributions(p, m)}
            for m in SEED_FREQ for p in ("P1", "P2", "P3", "P4", "P5")]
    return pd.DataFrame(rows)


@pytest.fixture
def seed_table(seed_cells):
    return table_from_cells(seed_cells, ["P", "M"], contributions="contributions")
