"""Timings and peak memory of the disclosure-risk linkage kernels, printed as a table.

    python benchmarks/bench_linkage.py [--records N] [--only NAME ...]

Each case runs in a fresh subprocess, so that its peak resident memory (``ru_maxrss``,
minus the interpreter with the libraries loaded and the input data) is its own. Data are
synthetic and seeded: ``N`` original records of independent standard normal variables,
and a protected file with Gaussian noise of 0.3 standard deviations added (DBRL, PRL) or
rank swapped with p = 5% (RS-RL). Targets (issue 6): DBRL of 100,000 x 100,000 records on
5 variables under 30 s and 2 GB; PRL of 100,000 records under 60 s.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

import numpy as np

CASES = {
    "dbrl": "DBRL, k-d tree (exact ties), 5 variables",
    "dbrl_blocked": "DBRL, blocked BLAS scan, 5 variables",
    "dbrl12": "DBRL, 12 variables (auto: blocked BLAS scan)",
    "prl": "PRL, Fellegi-Sunter + EM, tolerance 0.1 sd, 5 variables",
    "rsrl": "RS-RL intersection attack, p = 5%, 5 variables",
    "interval": "interval disclosure, value and rank, 5 variables",
    "learned": "learned weights (MILP + LP, HiGHS, 30 s limit), 5 variables",
}


def _data(case: str, n: int):
    rng = np.random.default_rng(2024)
    c = 12 if case == "dbrl12" else 5
    x = rng.normal(size=(n, c))
    if case in ("rsrl", "interval"):
        from sdcflow.kernels.linkage.rank_swap_attack import rank_distance

        d = rank_distance(5, n)
        y = np.column_stack([_swap(x[:, j], d, rng) for j in range(c)])
    else:
        y = x + rng.normal(scale=0.3, size=x.shape)
    return x, y


def _swap(values, d, rng):
    """Torra's (2016) rank swapping of one variable (for the benchmark data)."""
    order = np.argsort(values)
    s = values[order].copy()
    n = len(s)
    done = np.zeros(n, dtype=bool)
    for i in range(n):
        if not done[i] and i + 1 < n:
            j = rng.integers(i + 1, min(n - 1, i + d) + 1)
            s[i], s[j] = s[j], s[i]
            done[i] = done[j] = True
    out = np.empty(n)
    out[order] = s
    return out


def run_case(case: str, n: int) -> dict:
    from sdcflow.kernels.linkage.coordinates import standardize
    from sdcflow.kernels.linkage.distance_linkage import nearest_links
    from sdcflow.kernels.linkage.learned_linkage import learn_distance
    from sdcflow.kernels.linkage.probabilistic_linkage import probabilistic_links
    from sdcflow.kernels.linkage.rank_swap_attack import intersection_attack, rank_distance
    from sdcflow.kernels.risk.interval_disclosure import interval_disclosure

    x, y = _data(case, n)
    zo, zp = standardize(x, y)
    # warm up numba (compilation is cached on disk, loading is not free)
    small = slice(0, 200)
    probabilistic_links(x[small], y[small], algorithm="scan")
    intersection_attack(x[small], y[small], 2)
    nearest_links(zp[small], zo[small], algorithm="blocked")
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    if case == "dbrl":
        links = nearest_links(zp, zo, algorithm="kdtree")
        result = f"{links.credit.sum() / n:.2%} correct"
    elif case in ("dbrl_blocked", "dbrl12"):
        links = nearest_links(zp, zo, algorithm="blocked" if case == "dbrl_blocked" else "auto")
        result = f"{links.credit.sum() / n:.2%} correct"
    elif case == "prl":
        links = probabilistic_links(x, y, 0.1)
        result = f"{links.credit.sum() / n:.2%} correct ({links.info['algorithm']})"
    elif case == "rsrl":
        r = intersection_attack(x, y, rank_distance(5, n), zo, zp)
        result = f"{r.certain.mean():.2%} certain, {r.credit.mean():.2%} linked"
    elif case == "interval":
        d1, _ = interval_disclosure(x, y, 10, kind="value")
        d2, _ = interval_disclosure(x, y, 10, kind="rank")
        result = f"{d1.mean():.1%} (value), {d2.mean():.1%} (rank)"
    elif case == "learned":
        learned = learn_distance(zp, zo, neighbours=25, time_limit=30)
        equal = nearest_links(zp, zo).credit.sum()
        result = (f"{learned.correct / n:.2%} correct (equal weights {equal / n:.2%}; "
                  f"kept: {learned.source}; MILP: {learned.message.split('(')[0].strip()})")
    else:
        raise ValueError(case)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"seconds": seconds, "mb": max(peak - base, 0) / 1024, "result": result}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--only", nargs="+", choices=list(CASES))
    parser.add_argument("--case", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:  # inside the subprocess
        print(json.dumps(run_case(args.case, args.records)))
        return
    rows = []
    for case in args.only or CASES:
        n = 1000 if case == "learned" else args.records
        if case == "interval":
            n = max(n, 1_000_000)
        out = subprocess.run([sys.executable, __file__, "--case", case, "--records", str(n)],
                             capture_output=True, text=True, check=True)
        rows.append((CASES[case], n, json.loads(out.stdout.strip().splitlines()[-1])))
    width = max(len(r[0]) for r in rows)
    print(f"{'benchmark':<{width}}  {'records':>10}  {'seconds':>8}  {'peak MB':>8}  result")
    for name, n, r in rows:
        print(f"{name:<{width}}  {n:>10,}  {r['seconds']:>8.2f}  {r['mb']:>8.0f}  "
              f"{r['result']}")


if __name__ == "__main__":
    main()
