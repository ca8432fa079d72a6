"""The lattice search of ``anonymize`` (sdcflow.kernels.privacy.lattice.search) on
synthetic records with 6 key variables, each with a 4-level hierarchy (4^6 = 4,096
nodes): nodes checked and seconds, per target, suppression limit and loss.

    python benchmarks/bench_anonymize.py [--records 100000] [--cases N]

At 100,000 records (2 shared cores): k=5 without suppression 546 nodes checked in 1.5 s;
with 1% suppression 668 nodes in 2.0 s (precision), 792 in 2.3 s (discernibility), 671
in 1.9 s (non-uniform entropy); with distinct 2-diversity too (classes counted on the
records) 668 nodes in 3.5 s. At 1,000,000 records: 693 nodes in 32.5 s, 786 in 34.1 s,
958 in 43.4 s, 783 in 38.4 s, 786 in 57.0 s (3 min 26 s for the five).

Data (seeded): age 0-99 (levels: years, 5-year, 20-year groups, *), a 3-digit postcode
of 1,000 codes (masked one digit per level), occupation (64 codes: groups of 8, of 32,
*), education (16: pairs, eights, *), marital status (8: pairs, fours, *), sex (2: kept,
kept, kept, *), drawn with skewed (Zipf-like) frequencies so that rare combinations exist
as in real files; a sensitive variable of 5 values for the l-diversity rows.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from sdcflow.kernels.privacy.lattice import k_anonymity, l_diversity_target, search


def skewed(rng: np.random.Generator, d: int, n: int) -> np.ndarray:
    p = 1.0 / np.arange(1, d + 1) ** 0.8
    return rng.choice(d, size=n, p=p / p.sum())


def merged(d: int, sizes: list[int]) -> np.ndarray:
    """Levels: original, then codes merged in groups of each size, then all."""
    return np.array([np.arange(d)] + [np.arange(d) // s for s in sizes] + [np.zeros(d, int)])


def data(n: int, seed: int = 2026) -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
    rng = np.random.default_rng(seed)
    codes = np.column_stack([
        rng.integers(0, 100, n),   # age
        skewed(rng, 1000, n),      # postcode
        skewed(rng, 64, n),        # occupation
        skewed(rng, 16, n),        # education
        skewed(rng, 8, n),         # marital status
        rng.integers(0, 2, n),     # sex
    ])
    maps = [merged(100, [5, 20]), merged(1000, [10, 100]), merged(64, [8, 32]),
            merged(16, [2, 8]), merged(8, [2, 4]), merged(2, [1, 1])]
    sensitive = skewed(rng, 5, n)
    return codes, maps, sensitive


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--cases", type=int, default=None, help="only the first N cases")
    args = parser.parse_args()
    codes, maps, sensitive = data(args.records)
    print(f"{args.records:,} records, 6 key variables, lattice of "
          f"{np.prod([len(m) for m in maps]):,} nodes")
    print(f"{'targets':<28}{'limit':>7}{'loss':>22}{'checked':>9}{'seconds':>9}  node")
    cases = [
        ("k=5", [k_anonymity(5)], 0.0, "precision"),
        ("k=5", [k_anonymity(5)], 0.01, "precision"),
        ("k=5", [k_anonymity(5)], 0.01, "discernibility"),
        ("k=5", [k_anonymity(5)], 0.01, "non_uniform_entropy"),
        ("k=5, distinct l=2", [k_anonymity(5), l_diversity_target(sensitive, 2)], 0.01,
         "precision"),
    ]
    for label, targets, limit, loss in cases[:args.cases]:
        start = time.perf_counter()
        r = search(codes, maps, targets, loss, suppression_limit=limit, k=5)
        seconds = time.perf_counter() - start
        print(f"{label:<28}{limit:>7g}{loss:>22}{r.checked:>9,}{seconds:>9.1f}  {r.node}")


if __name__ == "__main__":
    main()
