"""Timings of rank swapping (three variants) and PRAM through their plugins, printed as a
table.

    python benchmarks/bench_swapping_pram.py [--records N]

Seeded synthetic data: 1,000,000 records x 5 variables (rank swapping: 3 continuous
lognormal and 2 integer variables with 1% missing values; PRAM: 5 categorical variables
of 3 to 50 categories with 1% missing), and a strata variable of 20 strata. Memory: the
peak of the memory made resident by ``apply`` (each run in its own process, see
``peak_memory.py``), relative to the size of the data frame (``memory_usage(deep=True)``).
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from peak_memory import measure

from sdcflow.data import Dataset, Variable
from sdcflow.plugins import registry


def numeric_data(n: int, rng: np.random.Generator) -> Dataset:
    frame = {}
    variables = {}
    for j in range(3):
        x = rng.lognormal(8 + j, 1, n)
        x[rng.random(n) < 0.01] = np.nan
        frame[f"x{j}"] = x
        variables[f"x{j}"] = Variable(f"x{j}", "numeric", "continuous")
    for j in range(2):
        v = pd.Series(rng.integers(0, 100_000, n), dtype="Int64")
        v[rng.random(n) < 0.01] = pd.NA
        frame[f"i{j}"] = v
        variables[f"i{j}"] = Variable(f"i{j}", "numeric", "integer")
    frame["stratum"] = pd.Series(rng.integers(0, 20, n).astype(str), dtype="str")
    variables["stratum"] = Variable("stratum", "strata", "categorical")
    return Dataset(pd.DataFrame(frame), variables)


def categorical_data(n: int, rng: np.random.Generator) -> Dataset:
    frame = {}
    variables = {}
    for j, size in enumerate((3, 5, 9, 20, 50)):
        probs = rng.dirichlet(np.ones(size))
        v = rng.choice([f"c{k}" for k in range(size)], n, p=probs).astype(object)
        v[rng.random(n) < 0.01] = None
        frame[f"v{j}"] = pd.Series(v, dtype="str")
        variables[f"v{j}"] = Variable(f"v{j}", "pram", "categorical")
    frame["stratum"] = pd.Series(rng.integers(0, 20, n).astype(str), dtype="str")
    variables["stratum"] = Variable("stratum", "strata", "categorical")
    return Dataset(pd.DataFrame(frame), variables)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=1_000_000)
    args = parser.parse_args()
    n = args.records
    rng = np.random.default_rng(2026)
    swap, pram = registry.get("rank_swap"), registry.get("pram")
    # compile (or load the numba cache) first
    warm = numeric_data(1000, rng)
    for variant in ("standard", "p_buckets", "p_distribution"):
        swap.apply(warm, registry.with_defaults(swap.params, {"variant": variant}),
                   np.random.default_rng(0))
    numeric = numeric_data(n, rng)
    categorical = categorical_data(n, rng)
    cases = [
        (swap, numeric, {"variant": "standard", "p": 5, "strata": []}, "rank_swap standard p=5"),
        (swap, numeric, {"variant": "p_buckets", "p": 5, "strata": []},
         "rank_swap p_buckets p=5"),
        (swap, numeric, {"variant": "p_distribution", "p": 5, "strata": []},
         "rank_swap p_distribution p=5"),
        (swap, numeric, {"variant": "standard", "p": 5}, "rank_swap standard, 20 strata"),
        (pram, categorical, {"strata": []}, "pram invariant (default)"),
        (pram, categorical, {"strata": [], "invariant": False}, "pram retention 0.8"),
        (pram, categorical, {}, "pram invariant, 20 strata"),
    ]
    rows = []
    for plugin, data, params, label in cases:
        size = data.frame.memory_usage(deep=True).sum()
        full = registry.with_defaults(plugin.params, params)
        seconds, peak, changed = measure(
            lambda plugin=plugin, data=data, full=full: sum(plugin.apply(
                data, full, np.random.default_rng(1)).info["changed"].values()))
        rows.append((label, len(data), seconds, peak / size, changed))
    width = max(len(r[0]) for r in rows)
    print(f"{'benchmark (5 variables)':<{width}}  {'records':>11}  {'seconds':>8}  "
          f"{'peak/data':>9}  {'changed':>10}")
    for label, records, seconds, ratio, changed in rows:
        print(f"{label:<{width}}  {records:>11,}  {seconds:>8.2f}  {ratio:>9.2f}  "
              f"{changed:>10,}")


if __name__ == "__main__":
    main()
