"""Timings of the resampling and synthetic-data methods (resampling, shuffling,
multiple_imputation, ipso) through their plugins, printed as a table.

    python benchmarks/bench_synthetic.py [--records N]

Data (seeded): N records, five correlated continuous confidential variables (role
numeric, log-normal marginals), and two predictors: a categorical one with 10 categories
and a continuous one (role key); ``strata``: the same with a 20-category stratum variable.
Each plugin runs on the five variables (the predictors are read, not written). "peak MB"
is the peak of the memory made resident by the run on top of the data (each run in its
own process, see ``peak_memory.py``), "x data" the same relative to the size of the data
frame.
On a machine shared with other jobs, OpenBLAS threads can oversubscribe the cores and
slow the small matrix products of the stratified runs many times over: compare with
``OPENBLAS_NUM_THREADS=1``.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from peak_memory import measure

from sdcflow.data import Dataset, Variable
from sdcflow.plugins import registry

NAMES = [f"y{j}" for j in range(5)]


def make_data(n: int, seed: int = 2026) -> Dataset:
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 10, n)
    x = rng.standard_normal(n)
    mix = rng.standard_normal((5, 5)) * 0.3 + np.eye(5)
    z = rng.standard_normal((n, 5)) @ mix + 0.5 * x[:, None] + 0.1 * group[:, None]
    frame = pd.DataFrame({name: np.exp(z[:, j]) * 1000 for j, name in enumerate(NAMES)})
    frame["g"] = pd.Series(group.astype(str), dtype="str")
    frame["x"] = x
    frame["region"] = pd.Series(rng.integers(0, 20, n).astype(str), dtype="str")
    variables = {name: Variable(name, "numeric", "continuous") for name in NAMES}
    variables["g"] = Variable("g", "key", "categorical")
    variables["x"] = Variable("x", "key", "continuous")
    variables["region"] = Variable("region", "strata", "categorical")
    return Dataset(frame, variables)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=1_000_000)
    args = parser.parse_args()
    data = make_data(args.records)
    data_mb = data.frame.memory_usage(deep=True).sum() / 2**20
    runs = [
        ("resampling, t=5", "resampling", {"strata": []}),
        ("resampling, t=5, 20 strata", "resampling", {}),
        ("shuffling", "shuffling", {"strata": []}),
        ("shuffling, 20 strata", "shuffling", {}),
        ("multiple_imputation", "multiple_imputation", {"strata": []}),
        ("multiple_imputation, 20 strata", "multiple_imputation", {}),
        ("ipso A", "ipso", {"variant": "A", "strata": []}),
        ("ipso B", "ipso", {"variant": "B", "strata": []}),
        ("ipso C", "ipso", {"variant": "C", "strata": []}),
        ("ipso C, 20 strata", "ipso", {"variant": "C"}),
    ]
    rows = []
    for label, name, params in runs:
        plugin = registry.get(name)
        full = registry.with_defaults(plugin.params, params)
        seconds, peak, _ = measure(
            lambda plugin=plugin, full=full: plugin.apply(data, full,
                                                          np.random.default_rng(1)).info)
        rows.append((label, seconds, peak / 2**20))
    width = max(len(r[0]) for r in rows)
    print(f"{args.records:,} records x 5 variables (+ 2 predictors); data {data_mb:.0f} MB")
    print(f"{'method':<{width}}  {'seconds':>8}  {'peak MB':>8}  {'x data':>6}")
    for label, seconds, mb in rows:
        print(f"{label:<{width}}  {seconds:>8.2f}  {mb:>8.0f}  {mb / data_mb:>6.1f}")


if __name__ == "__main__":
    main()
