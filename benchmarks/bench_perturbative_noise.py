"""Timings and memory of the perturbative masking methods ``noise`` (every variant),
``rounding`` and ``lossy_compression``, run through their plugins, printed as a table.

    python benchmarks/bench_perturbative_noise.py [--records N]

Data: N records (default 1,000,000) x 5 variables, seeded: four correlated continuous
variables in different units and one integer variable, 0.1% missing values, two strata.
"x data" is the peak of the memory made resident by the step (each step in its own
process, see ``peak_memory.py``) over the size of the data set (the data frame,
``memory_usage(deep=True)``, as in the other benchmarks); "x columns" the same over the
five masked columns alone as float64, the stricter reading.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from peak_memory import measure

from sdcflow.data import Dataset, Variable
from sdcflow.plugins import registry

CASES = [
    ("noise", {"method": "additive"}),
    ("noise", {"method": "correlated"}),
    ("noise", {"method": "correlated_restored"}),
    ("noise", {"method": "multiplicative"}),
    ("noise", {"method": "romm"}),
    ("noise", {"method": "romm", "romm_lambda": 1e-3}),
    ("noise", {"method": "correlated_restored", "strata": ["region"]}),
    ("rounding", {"base": 10}),
    ("rounding", {"points": [0, 10, 100, 1_000, 10_000, 100_000]}),
    ("lossy_compression", {"quality": 75}),
    ("lossy_compression", {"quality": 75, "sort_by": "v1"}),
]


def dataset(n: int, seed: int = 2026) -> Dataset:
    rng = np.random.default_rng(seed)
    cov = np.array([[1, .6, .3, .1], [.6, 1, .2, 0], [.3, .2, 1, .5], [.1, 0, .5, 1]])
    x = rng.multivariate_normal(np.zeros(4), cov, size=n) * [1, 10, 1e3, 1e5] + 1e4
    x[rng.random(x.shape) < 0.001] = np.nan
    frame = pd.DataFrame({f"v{j + 1}": x[:, j] for j in range(4)})
    frame["v5"] = pd.Series(rng.integers(0, 100_000, n), dtype="Int64")
    frame["region"] = pd.Series(rng.choice(["north", "south"], n), dtype="str")
    variables = {f"v{j}": Variable(f"v{j}", "numeric", "continuous") for j in range(1, 5)}
    variables["v5"] = Variable("v5", "numeric", "integer")
    variables["region"] = Variable("region", "key", "categorical")
    return Dataset(frame, variables)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=1_000_000)
    args = parser.parse_args()
    data = dataset(args.records)
    data_mb = data.frame.memory_usage(deep=True).sum() / 2 ** 20
    columns_mb = args.records * 5 * 8 / 2 ** 20
    rows = []
    for name, params in CASES:
        plugin = registry.get(name)
        full = registry.with_defaults(plugin.params, params)

        def run(plugin=plugin, full=full):
            info = plugin.apply(data, dict(full), np.random.default_rng(1)).info
            return info.get("perturbed", info.get("changed"))

        seconds, peak, changed = measure(run)
        label = name + " " + ", ".join(f"{k}={v}" for k, v in params.items())
        rows.append((label, seconds, peak / 2 ** 20, changed))
    width = max(len(r[0]) for r in rows)
    print(f"{args.records:,} records x 5 variables and a stratum variable: data "
          f"{data_mb:.0f} MB, the five columns {columns_mb:.0f} MB")
    print(f"{'method':<{width}}  {'seconds':>8}  {'peak MB':>8}  {'x data':>6}  "
          f"{'x columns':>9}  {'values changed':>14}")
    for label, seconds, peak, changed in rows:
        print(f"{label:<{width}}  {seconds:>8.2f}  {peak:>8.0f}  {peak / data_mb:>6.1f}  "
              f"{peak / columns_mb:>9.1f}  {changed:>14,}")


if __name__ == "__main__":
    main()
