"""Timings of the SUDA kernel (sdcflow.kernels.risk.suda), printed as a table.

    python benchmarks/bench_suda.py [--records N ...] [--repeat R]

Data are synthetic (seeded): 6 categorical keys with 2, 5, 8, 10, 20 and 50 categories
(uniform), complete or with 1% missing values; MSUs of every size (max_size = 6) and of
at most 3 variables."""

from __future__ import annotations

import argparse

import numpy as np
from timing import best_of

from sdcflow.kernels.risk.suda import suda_scores

CARDINALITIES = [2, 5, 8, 10, 20, 50]


def synthetic(n: int, rng: np.random.Generator) -> np.ndarray:
    return np.column_stack([rng.integers(0, c, n) for c in CARDINALITIES]).astype(np.int64)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    rows = []
    for n in args.records:
        complete = synthetic(n, rng)
        missing = complete.copy()
        missing[rng.random(missing.shape) < 0.01] = -1
        for label, codes in (("complete", complete), ("1% missing", missing)):
            for max_size in (None, 3):
                seconds, result = best_of(suda_scores, codes, max_size, repeat=args.repeat)
                name = f"suda, 6 keys, {label}, max_size {max_size or 6}"
                rows.append((name, n, seconds, int((result.msu_count > 0).sum()),
                             int(result.msu_count.sum())))
    width = max(len(r[0]) for r in rows)
    print(f"{'benchmark':<{width}}  {'records':>10}  {'seconds':>8}  {'with MSU':>10}  "
          f"{'MSUs':>10}")
    for name, n, seconds, with_msu, msus in rows:
        print(f"{name:<{width}}  {n:>10,}  {seconds:>8.3f}  {with_msu:>10,}  {msus:>10,}")


if __name__ == "__main__":
    main()
