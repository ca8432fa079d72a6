"""Timings of Mondrian multidimensional partitioning, printed as a table.

    python benchmarks/bench_mondrian.py [--quick]

Data: sdcMicro's testdata (the shipped data set), six key variables urbrur, water, sex,
age (a number), relat, roof, resampled with replacement (seeded) to the sizes shown, each
key value redrawn from its marginal distribution with probability 0.2 (rare
combinations, as in a real file with detailed keys); and six continuous keys drawn
uniformly (every value distinct: the deepest partitioning). The kernel alone, and the
``mondrian`` method (coding the columns, the group labels as text, the loss measures).
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from timing import best_of

from sdcflow.data import Dataset, Variable
from sdcflow.data.io import builtin_path
from sdcflow.data.text import text_column
from sdcflow.kernels.non_perturbative.mondrian import Ordered, mondrian
from sdcflow.plugins import registry

KEYS = ["urbrur", "water", "sex", "age", "relat", "roof"]


def detailed_sample(n: int, rng: np.random.Generator) -> pd.DataFrame:
    base = pd.read_csv(builtin_path("testdata"))[KEYS]
    out = base.iloc[rng.integers(0, len(base), n)].reset_index(drop=True)
    for key in KEYS:
        redraw = rng.random(n) < 0.2
        values = out[key].to_numpy().copy()
        values[redraw] = base[key].to_numpy()[rng.integers(0, len(base), int(redraw.sum()))]
        out[key] = values
    return out


def dataset(frame: pd.DataFrame) -> Dataset:
    columns, variables = {}, {}
    for key in KEYS:
        if key == "age":
            columns[key] = frame[key].astype("Int64")
            variables[key] = Variable(key, "key", "integer")
        else:
            columns[key] = text_column(frame[key].astype(int).astype(object).map(str))
            variables[key] = Variable(key, "key", "categorical")
    return Dataset(pd.DataFrame(columns), variables)


def ordered(values: np.ndarray) -> Ordered:
    positions, codes = np.unique(values, return_inverse=True)
    return Ordered(codes, positions.astype(float))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="only 100,000 records")
    args = parser.parse_args()
    rng = np.random.default_rng(2026)
    plugin = registry.get("mondrian")
    sizes = [100_000] if args.quick else [100_000, 1_000_000]
    print("| case | records | k | groups | NCP | seconds |")
    print("|---|---:|---:|---:|---:|---:|")
    for n in sizes:
        frame = detailed_sample(n, rng)
        dims = [ordered(frame[k].to_numpy()) for k in KEYS]
        for k in (3, 10):
            secs, labels = best_of(mondrian, dims, k, repeat=1)
            print(f"| kernel, testdata keys | {n:,} | {k} | {labels.max() + 1:,} | | "
                  f"{secs:.2f} |")
        data = dataset(frame)
        params = registry.with_defaults(plugin.params, {"k": 3})
        secs, result = best_of(plugin.apply, data, params, rng, repeat=1)
        print(f"| `mondrian` method, testdata keys | {n:,} | 3 | "
              f"{result.info['partitions']:,} | {result.info['ncp']:.4f} | {secs:.2f} |")
        uniform = [ordered(rng.random(n)) for _ in KEYS]
        secs, labels = best_of(mondrian, uniform, 3, repeat=1)
        print(f"| kernel, 6 continuous keys | {n:,} | 3 | {labels.max() + 1:,} | | "
              f"{secs:.2f} |")


if __name__ == "__main__":
    main()
