"""A synthetic census of persons in households, for the census-scale benchmarks.

    python benchmarks/census_data.py N OUT.parquet [--seed S] [--partitions P]

Households of 1 to 6 persons in a three-level geography (10 regions > 10 districts each
> 20 municipalities each); household-level variables (geography, walls, water, rent,
weight) are the same for every member; persons have sex, age, education, income,
expenditure and savings drawn from simple but plausible distributions. Everything comes
from the seed: the same N and seed give the same data, whatever the number of
partitions (a partition is a range of whole households).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

EDUCATION = ["none", "primary", "secondary", "tertiary"]


def census(persons: int, seed: int = 2026) -> pd.DataFrame:
    """About ``persons`` records (whole households: the last one is cut at the limit)."""
    rng = np.random.default_rng(seed)
    households = persons // 2 + 1
    size = rng.choice(np.arange(1, 7), households, p=[0.28, 0.32, 0.16, 0.14, 0.07, 0.03])
    hid = np.repeat(np.arange(1, households + 1), size)[:persons]
    h = hid - 1
    region = rng.integers(1, 11, households)
    district = region * 100 + rng.integers(1, 11, households)
    municipality = district * 100 + rng.integers(1, 21, households)
    walls = rng.choice(["brick", "concrete", "wood", "mud"], households,
                       p=[0.45, 0.3, 0.2, 0.05])
    water = rng.choice(["piped", "well", "other"], households, p=[0.7, 0.25, 0.05])
    rent = np.round(rng.lognormal(6.5, 0.6, households), 2)
    weight = np.round(rng.uniform(20, 200, households), 1)
    n = hid.size
    age = np.clip(np.round(rng.gamma(3.0, 13.0, n)), 0, 99).astype(np.int64)
    education = np.where(age < 6, 0, rng.choice(4, n, p=[0.1, 0.35, 0.4, 0.15]))
    income = np.where(age < 16, 0.0, np.round(rng.lognormal(9.8, 0.9, n), 0))
    expend = np.round(income * rng.uniform(0.4, 1.1, n) + rng.lognormal(7, 0.5, n), 0)
    savings = np.round(np.maximum(income - expend, 0) * rng.uniform(0, 3, n), 0)
    return pd.DataFrame({
        "hid": hid,
        "region": region[h].astype(str),
        "district": district[h].astype(str),
        "municipality": municipality[h].astype(str),
        "walls": walls[h],
        "water": water[h],
        "rent": rent[h],
        "weight": weight[h],
        "sex": rng.choice(["1", "2"], n),
        "age": age,
        "education": np.asarray(EDUCATION)[education],
        "income": income,
        "expend": expend,
        "savings": savings,
    })


def write(frame: pd.DataFrame, out: Path, partitions: int = 1) -> None:
    """Write ``frame`` as one Parquet file, or as a directory of ``partitions`` files
    (part-00000.parquet, ...) split at household boundaries."""
    if partitions <= 1:
        frame.to_parquet(out, index=False)
        return
    out.mkdir(parents=True, exist_ok=True)
    hid = frame["hid"].to_numpy()
    cuts = np.searchsorted(hid, np.linspace(hid[0], hid[-1] + 1, partitions + 1)[1:-1])
    for i, part in enumerate(np.split(np.arange(len(frame)), cuts)):
        frame.iloc[part].to_parquet(out / f"part-{i:05d}.parquet", index=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("persons", type=int)
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--partitions", type=int, default=1)
    args = parser.parse_args()
    write(census(args.persons, args.seed), args.out, args.partitions)


if __name__ == "__main__":
    main()
