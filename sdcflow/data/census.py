"""A synthetic population census of persons in households, for the census methods
(targeted record swapping, tables of a census) and their benchmarks.

In the spirit of sdcMicro's ``createDat`` (the dummy census of its ``recordSwap``
examples: household id, nested geographic codes, household size, household type and
income class, and persons' sex, age group and nationality), with a geography whose areas
differ in size, so that small municipalities hold rare combinations, as real ones do:

* geography at three nested levels: ``nuts2`` (5 regions, "1".."5") > ``county`` (8 per
  region, "101".."508") > ``municipality`` (12 per county, "101001".."508012"); the
  municipalities' shares of the households are lognormal (sd 1), so their sizes range
  over two orders of magnitude;
* household-level: ``hid`` (1..H), ``hsize`` (1..6 persons: 0.3, 0.32, 0.16, 0.14,
  0.06, 0.02), ``htype`` ("1" one person, "2" couple, "3" couple with children, "4" lone
  parent, "5" other), ``tenure`` ("1" owner, "2" tenant, "3" other), ``hincome`` (income
  class "1".."10");
* person-level: ``sex`` ("1", "2"), ``age`` (0..99; the first member an adult),
  ``age_group`` (7 groups, "1" = 0-14, "2" = 15-24, "3" = 25-34, "4" = 35-49, "5" =
  50-64, "6" = 65-79, "7" = 80+), ``citizenship`` ("1" national (90%), "2".."5"
  foreign).

Everything comes from the seed (NumPy's ``default_rng``), vectorised: the same number of
persons and seed give the same data (10 million persons in a few seconds). The last
household is cut to give exactly the number of persons asked for (its ``hsize`` says so).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

REGIONS, COUNTIES, MUNICIPALITIES = 5, 8, 12
HSIZE_P = (0.30, 0.32, 0.16, 0.14, 0.06, 0.02)
AGE_BREAKS = (15, 25, 35, 50, 65, 80)  # age group g+1 holds ages below AGE_BREAKS[g]
CITIZENSHIP_P = (0.90, 0.04, 0.03, 0.02, 0.01)


def census(persons: int, seed: int = 2021) -> pd.DataFrame:
    """A synthetic census of exactly ``persons`` records in whole households (see the
    module's description), ordered by household."""
    if persons < 1:
        raise ValueError("a census needs at least one person")
    rng = np.random.default_rng(seed)
    households = int(persons / 2.3) + 16
    size = rng.choice(np.arange(1, 7), households, p=HSIZE_P)
    while size.sum() < persons:  # (a bad draw: extend the households)
        size = np.concatenate([size, rng.choice(np.arange(1, 7), households, p=HSIZE_P)])
    ends = np.cumsum(size)
    last = int(np.searchsorted(ends, persons))  # the household holding the last person
    size = size[:last + 1].copy()
    size[last] -= int(ends[last] - persons)
    h = size.size
    hid = np.repeat(np.arange(1, h + 1), size)
    first = np.concatenate([[True], hid[1:] != hid[:-1]])

    # geography: municipalities of lognormal size, nested codes
    cells = REGIONS * COUNTIES * MUNICIPALITIES
    share = rng.lognormal(0.0, 1.0, cells)
    muni = rng.choice(cells, h, p=share / share.sum())
    cell = np.arange(cells)
    region = cell // (COUNTIES * MUNICIPALITIES) + 1
    county = (cell // MUNICIPALITIES) % COUNTIES + 1
    place = cell % MUNICIPALITIES + 1
    nuts2_code = np.array([f"{r}" for r in region], dtype=object)
    county_code = np.array([f"{r}{c:02d}" for r, c in zip(region, county)], dtype=object)
    muni_code = np.array([f"{r}{c:02d}{m:03d}" for r, c, m in zip(region, county, place)],
                         dtype=object)

    # households: type from the size, tenure and income class
    htype = np.where(size == 1, 1, rng.choice([2, 3, 4, 5], h, p=[0.3, 0.45, 0.15, 0.1]))
    htype = np.where((size == 2) & (htype == 3), 2, htype)  # a couple with children has 3+
    htype = np.where((size > 2) & (htype == 2), 3, htype)  # a couple alone has 2
    tenure = rng.choice([1, 2, 3], h, p=[0.6, 0.35, 0.05])
    hincome = np.clip(rng.poisson(2.0 + 0.8 * size) + 1, 1, 10)

    # persons: the first member an adult, the others of any age
    n = persons
    adult = rng.integers(18, 95, n)
    anyone = np.minimum(rng.gamma(2.0, 18.0, n).astype(np.int64), 99)
    age = np.where(first, adult, anyone)
    age_group = np.searchsorted(np.asarray(AGE_BREAKS), age, side="right") + 1
    sex = rng.integers(1, 3, n)
    citizenship = rng.choice(np.arange(1, 6), n, p=CITIZENSHIP_P)
    u = hid - 1
    text = np.array([str(i) for i in range(11)], dtype=object)  # codes as text
    return pd.DataFrame({
        "hid": hid,
        "nuts2": nuts2_code[muni][u],
        "county": county_code[muni][u],
        "municipality": muni_code[muni][u],
        "hsize": size[u],
        "htype": text[htype][u],
        "tenure": text[tenure][u],
        "hincome": text[hincome][u],
        "sex": text[sex],
        "age": age,
        "age_group": text[age_group],
        "citizenship": text[citizenship],
    })
