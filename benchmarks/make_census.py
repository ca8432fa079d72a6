"""Write a synthetic census (households, three-level geography; see
:mod:`sdcflow.data.census`) with a seed.

    python benchmarks/make_census.py PERSONS OUT.csv|OUT.parquet [--seed S]

The same number of persons and seed give the same file. The shipped
``sdcflow/data/datasets/census_swap.csv`` is ``make_census.py 20000 census_swap.csv
--seed 2021``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sdcflow.data.census import census


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("persons", type=int)
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=2021)
    args = parser.parse_args()
    frame = census(args.persons, args.seed)
    if args.out.suffix == ".parquet":
        frame.to_parquet(args.out, index=False)
    else:
        frame.to_csv(args.out, index=False, lineterminator="\n")


if __name__ == "__main__":
    main()
