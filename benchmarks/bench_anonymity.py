"""Timings of k-anonymity counting and local suppression, printed as a table.

    python benchmarks/bench_anonymity.py [--quick]

Data: sdcMicro's testdata (the shipped data set), its five key variables urbrur, water,
sex, age, relat, resampled with replacement (seeded) to the sizes shown. For counting:
the seed-004 recodings (age in ten-year classes, water 6/7/9 and relat 8/9 merged), with
1% of the key values set missing, and the sampling weights. For local suppression a
resample alone would be k-anonymous, so age stays in years and each key value is redrawn
from its marginal distribution with probability 0.2 (rare combinations, as in a real
file with detailed keys).
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from timing import best_of

from sdcflow.data import Dataset, Variable
from sdcflow.data.io import builtin_path
from sdcflow.kernels.non_perturbative.local_suppression import suppress_to_k
from sdcflow.kernels.non_perturbative.recode import interval_codes
from sdcflow.kernels.risk.frequencies import frequencies
from sdcflow.plugins import registry

KEYS = ["urbrur", "water", "sex", "age", "relat"]


def raw_keys() -> np.ndarray:
    d = pd.read_csv(builtin_path("testdata"))
    return np.column_stack([pd.factorize(d[k], sort=True)[0] for k in KEYS])


def detailed_sample(base: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    out = base[rng.integers(0, len(base), n)]
    for j in range(out.shape[1]):
        redraw = rng.random(n) < 0.2
        out[redraw, j] = base[rng.integers(0, len(base), int(redraw.sum())), j]
    return out


def seed_004_keys() -> tuple[np.ndarray, np.ndarray]:
    d = pd.read_csv(builtin_path("testdata"))
    d["water"] = d["water"].replace({7: 6, 9: 6})
    d["relat"] = d["relat"].replace({9: 8})
    codes = np.column_stack([pd.factorize(d[k], sort=True)[0] for k in KEYS])
    codes[:, 3] = interval_codes(d["age"].to_numpy(float), [0, 9, 19, 29, 39, 49, 59, 69, 79,
                                                            130], include_lowest=False)
    return codes, d["sampling_weight"].to_numpy(float)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="skip the 10M-record runs")
    args = parser.parse_args()
    rng = np.random.default_rng(2026)
    base, base_w = seed_004_keys()
    rows = []

    for n in [1_000_000] + ([] if args.quick else [10_000_000]):
        pick = rng.integers(0, len(base), n)
        codes, w = base[pick].copy(), base_w[pick]
        codes[rng.random(codes.shape) < 0.01] = -1
        seconds, (fk, _) = best_of(frequencies, codes, w, alpha=1.0)
        rows.append(("frequencies kernel, 5 keys, weights, 1% missing", n, seconds,
                     f"{int((fk < 3).sum())} records below k=3"))
        frame = pd.DataFrame({k: pd.Series(codes[:, j].astype(str), dtype="str").mask(
            codes[:, j] < 0) for j, k in enumerate(KEYS)})
        frame["w"] = w
        variables = {k: Variable(k, "key", "categorical") for k in KEYS}
        variables["w"] = Variable("w", "weight", "continuous")
        data = Dataset(frame, variables)
        plugin = registry.get("k_anonymity")
        params = registry.with_defaults(plugin.params, {"k": [2, 3, 5]})
        seconds, result = best_of(plugin.evaluate, data, params, None, original=data)
        rows.append(("k_anonymity measure (text columns, incl. coding)", n, seconds,
                     f"violations {result.summary['violations']}"))

    sdcmicro = "sdcMicro 5.8.1: 179 (Templ 2019)"
    raw = raw_keys()
    for n in (4580, 45_000, 1_000_000):
        codes = base if n == 4580 else detailed_sample(raw, n, rng)
        importance = np.array([3, 4, 2, 1, 5])
        seconds, result = best_of(suppress_to_k, codes, 3, alpha=0.7, importance=importance,
                                  repeat=1)
        per_var = "/".join(str(int(v)) for v in result.suppressed.sum(axis=0))
        note = f"{int(result.suppressed.sum())} suppressions ({per_var}), " \
               f"{result.unresolved} unresolved"
        if n == 4580:
            note += f"; {sdcmicro}"
        else:
            fk, _ = frequencies(codes, alpha=0.7)
            note += f"; {int((fk < 3).sum())} records violated k=3 before"
        rows.append(("local_suppression k=3, importance 3,4,2,1,5", n, seconds, note))

    width = max(len(r[0]) for r in rows)
    print(f"{'benchmark':<{width}}  {'records':>11}  {'seconds':>8}  result")
    for name, n, seconds, note in rows:
        print(f"{name:<{width}}  {n:>11,}  {seconds:>8.3f}  {note}")


if __name__ == "__main__":
    main()
