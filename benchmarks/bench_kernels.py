"""Timings of the kernels and of a whole run, printed as a table.

    python benchmarks/bench_kernels.py [--records N]

Data are synthetic (seeded): 5 categorical keys with 2..50 categories, 1% missing
values, weights, and two numeric variables."""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from timing import best_of

from sdcflow import run
from sdcflow.constraints import Constraint
from sdcflow.data.codes import key_codes
from sdcflow.kernels.non_perturbative.recode import interval_codes
from sdcflow.kernels.risk.frequencies import frequencies

ROOT = Path(__file__).resolve().parents[1]


def synthetic(n, rng):
    cards = [2, 8, 2, 50, 9]
    codes = np.column_stack([rng.integers(0, c, n) for c in cards])
    codes[rng.random(codes.shape) < 0.01] = -1
    weights = rng.uniform(50, 150, n)
    net = rng.gamma(2.0, 1000.0, n)
    tax = 0.2 * net
    return codes, weights, pd.DataFrame({"net": net, "tax": tax, "gross": net + tax})


def fastest(fn, *args, **kwargs) -> float:
    return best_of(fn, *args, **kwargs)[0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, nargs="+", default=[100_000, 1_000_000])
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    rows = []
    for n in args.records:
        codes, weights, frame = synthetic(n, rng)
        complete = np.where(codes < 0, 0, codes)
        rows.append(("frequencies, 5 keys, weights, no missing", n,
                     fastest(frequencies, complete, weights)))
        rows.append(("frequencies, 5 keys, weights, 1% missing", n,
                     fastest(frequencies, codes, weights, alpha=0.7)))
        text = pd.DataFrame({f"k{j}": pd.Series(codes[:, j].astype(str), dtype="str")
                             for j in range(codes.shape[1])})
        rows.append(("key_codes (factorize 5 text columns)", n,
                     fastest(key_codes, text, list(text.columns))))
        ages = rng.integers(0, 100, n).astype(float)
        rows.append(("interval_codes (10 breaks)", n,
                     fastest(interval_codes, ages, [0, 9, 19, 29, 39, 49, 59, 69, 79, 130])))
        c = Constraint.from_recipe({"id": "c", "expr": "net + tax == gross"})
        rows.append(("constraint net + tax == gross", n, fastest(c.violations, frame)))
    tmp = Path(tempfile.mkdtemp())
    try:
        shutil.copy(ROOT / "recipes" / "quickstart.yaml", tmp / "q.yaml")
        rows.append(("quickstart run, no cache (testdata)", 4580,
                     fastest(lambda: run(tmp / "q.yaml", tmp / "out", use_cache=False))))
        run(tmp / "q.yaml", tmp / "out")
        rows.append(("quickstart run, all cached", 4580,
                     fastest(lambda: run(tmp / "q.yaml", tmp / "out"))))
    finally:
        shutil.rmtree(tmp)
    width = max(len(r[0]) for r in rows)
    print(f"{'benchmark':<{width}}  {'records':>10}  {'seconds':>8}")
    for name, n, seconds in rows:
        print(f"{name:<{width}}  {n:>10,}  {seconds:>8.3f}")


if __name__ == "__main__":
    main()
