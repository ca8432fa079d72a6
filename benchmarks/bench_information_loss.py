"""Timings of the information loss measures, printed as a table.

    python benchmarks/bench_information_loss.py [--records N] [--quick]

Data (seeded): 10 correlated continuous variables (log-normal, like incomes) and their
protected version with correlated additive noise (10% of each variance) rounded to
integers; 10 categorical variables with 2 .. 20 categories and their protected version
where each value is redrawn from the variable's marginal distribution with probability
0.1 (a PRAM-like change). Each measure runs through its plugin's ``evaluate`` with its
default parameters (the propensity model on the 10 continuous variables: main effects,
11 parameters), as a recipe step would; numba is compiled beforehand on a small sample.
Extra rows: the propensity model with interactions and squares (66 parameters) and on the
10 categorical variables (101 indicator parameters).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from sdcflow.data import Dataset, Variable
from sdcflow.plugins import registry


def make_data(n: int, seed: int = 2026) -> tuple[Dataset, Dataset]:
    rng = np.random.default_rng(seed)
    p = 10
    mix = rng.normal(size=(p, p)) / np.sqrt(p)
    x = np.exp(8 + rng.normal(size=(n, p)) @ mix)
    noise = rng.normal(size=(n, p)) @ np.linalg.cholesky(np.cov(x[:10_000], rowvar=False)).T
    y = np.round(x + np.sqrt(0.1) * noise)
    frames = {}, {}
    variables = {}
    for j in range(p):
        name = f"x{j}"
        frames[0][name], frames[1][name] = x[:, j], y[:, j]
        variables[name] = Variable(name, "numeric", "continuous")
    for j in range(p):
        name = f"k{j}"
        k = 2 + 2 * j
        probs = rng.dirichlet(np.ones(k))
        orig = rng.choice(k, size=n, p=probs)
        prot = np.where(rng.random(n) < 0.1, rng.choice(k, size=n, p=probs), orig)
        frames[0][name] = pd.Series(orig.astype(str), dtype="str")
        frames[1][name] = pd.Series(prot.astype(str), dtype="str")
        variables[name] = Variable(name, "key", "categorical")
    return (Dataset(pd.DataFrame(frames[0]), dict(variables)),
            Dataset(pd.DataFrame(frames[1]), dict(variables)))


NUMERIC = [f"x{j}" for j in range(10)]
CATEGORICAL = [f"k{j}" for j in range(10)]
MEASURES = {"information_loss": {}, "categorical_information_loss": {},
            "clustering_agreement": {}, "propensity": {"variables": NUMERIC}}
EXTRA = {"propensity, interactions + squares": {"variables": NUMERIC, "interactions": True,
                                                "squares": True},
         "propensity, 10 categorical": {"variables": CATEGORICAL}}


def run(name: str, original: Dataset, protected: Dataset, params: dict | None = None) -> float:
    plugin = registry.get(name)
    full = registry.with_defaults(plugin.params, params or {})
    start = time.perf_counter()
    plugin.evaluate(protected, full, np.random.default_rng(1), original=original)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--quick", action="store_true", help="100,000 records")
    parser.add_argument("--no-extra", action="store_true",
                        help="skip the larger propensity models")
    args = parser.parse_args()
    n = 100_000 if args.quick else args.records
    small = make_data(2_000)
    for name, params in MEASURES.items():  # compile the numba kernels outside the timings
        run(name, *small, params)
    original, protected = make_data(n)
    print(f"{'measure':<34} {'records':>10} {'variables':>9} {'seconds':>8}")
    total = 0.0
    for name, params in MEASURES.items():
        seconds = run(name, original, protected, params)
        total += seconds
        print(f"{name:<34} {n:>10,} {10:>9} {seconds:>8.2f}")
    print(f"{'total (defaults)':<34} {n:>10,} {'':>9} {total:>8.2f}")
    for label, params in EXTRA.items():
        if args.no_extra:
            break
        seconds = run("propensity", original, protected, params)
        print(f"{label:<34} {n:>10,} {10:>9} {seconds:>8.2f}")


if __name__ == "__main__":
    main()
