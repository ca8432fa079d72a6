"""Timings of targeted record swapping (``record_swap``) on the synthetic census, printed
as a table: persons, households, seconds (wall and CPU) of the step's ``apply``, and
what it swapped.

    python benchmarks/bench_record_swap.py [--persons 1000000 10000000] [--seed S]

The census is ``sdcflow.data.census`` (households, geography nuts2 > county >
municipality) with the parameters of ``recipes/census_swap.yaml``: profiles [hsize,
htype] then [hsize], risk from the 2-anonymity of age group x citizenship at each level,
swap rate 5 %, tenure carried along. Generating the census is not timed.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from timing import cpu_and_wall

from sdcflow.data import Dataset, Variable
from sdcflow.data.census import census
from sdcflow.data.text import TEXT
from sdcflow.plugins import registry

HOUSEHOLD = {"nuts2", "county", "municipality", "hsize", "htype", "tenure", "hincome"}
PARAMS = {"hierarchy": ["nuts2", "county", "municipality"],
          "similar": [["hsize", "htype"], ["hsize"]],
          "risk_variables": ["age_group", "citizenship"], "k_anonymity": 2,
          "swaprate": 0.05, "carry_along": ["tenure"]}


def dataset(persons: int, seed: int) -> Dataset:
    """The census as sdcflow holds it (codes as text, numbers as Int64)."""
    frame = census(persons, seed)
    variables = {}
    for name in frame.columns:
        integer = name in ("hid", "age", "hsize")
        frame[name] = frame[name].astype("Int64" if integer else TEXT)
        role = "household" if name == "hid" else "key"
        level = "household" if name in HOUSEHOLD else "record"
        variables[name] = Variable(name, role, "integer" if integer else "categorical",
                                   level=level)
    return Dataset(pd.DataFrame(frame), variables)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--persons", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--seed", type=int, default=2021)
    args = parser.parse_args()
    plugin = registry.get("record_swap")
    params = registry.with_defaults(plugin.params, PARAMS)
    plugin.apply(dataset(2000, 1), params, np.random.default_rng(0))  # compile / load
    print(f"{'persons':>11}  {'households':>10}  {'wall s':>7}  {'CPU s':>7}  "
          f"{'high-risk':>9}  {'swapped':>9}  {'no donor':>8}")
    for persons in args.persons:
        data = dataset(persons, args.seed)
        cpu, wall, result = cpu_and_wall(plugin.apply, data, params,
                                         np.random.default_rng(1))
        info = result.info
        print(f"{persons:>11,}  {info['households']:>10,}  {wall:>7.1f}  {cpu:>7.1f}  "
              f"{info['high_risk']:>9,}  {info['swapped_households']:>9,}  "
              f"{info['high_risk_not_swapped']:>8,}", flush=True)
        del data, result


if __name__ == "__main__":
    main()
