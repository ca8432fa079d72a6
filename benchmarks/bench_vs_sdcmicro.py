"""The individual risk and a cell-key table against sdcMicro's ``indivRisk`` and a
data.table lookup: CPU and wall seconds before and after computing the risk once per key
combination and building tables without sorting, and the speed-up over the reference.

    python benchmarks/bench_vs_sdcmicro.py [--before CHECKOUT] [--repeat R]

``--before``: a checkout (a directory holding the ``sdcflow`` package) of the code
before the change, measured in a subprocess in the same session (the results of both
must be byte-identical: checked); without it the recorded before-times below are used.

Reference times. R is not installed here, so sdcMicro and data.table cannot be run. An
audit measured, on this kind of machine (2 cores) and with these data, sdcflow's
``individual_risk`` kernel at 0.89x the speed of sdcMicro's ``indivRisk`` at 1M records
and 0.51x at 5M, and the 2-D cell-key table of 1M persons at 0.72x a data.table lookup.
A speed ratio r = reference time / our time, so the reference time is taken as

    reference CPU s = r x (our CPU s before the change)

(0.89 and 0.51 for the risk at 1M and 5M, 0.72 for the table), and the speed-up over
the reference is reference CPU s / our CPU s after. Target: at least 3x on both.

Data:

* risk: sdcMicro's testdata, its five keys urbrur, water, sex, age, relat with the
  recodings of ``bench_anonymity.py`` (age in ten-year classes, water 6/7/9 and relat 8/9
  merged) and its sampling weights, resampled with replacement (seed 2026) to 1M and 5M
  records, 1% of the key values set missing; fk and Fk from sdcMicro's ``freqCalc``
  convention (``alpha = 1``), not timed (``indivRisk`` starts from ``freqCalc``'s
  output too); the risk with ``method = "approx"``, ``qual = 1``. Before: the risk from
  the per-record fk and Fk (``individual_risk``, which finds the distinct (fk, Fk) pairs
  among the records again); after: from the per-combination fk and Fk the frequency
  step found (``class_individual_risk``).
* cell key: the synthetic census of ``census_data.py`` (1M persons, seed 2026), the
  record keys of ``bench_cell_key.py`` (drawn by position, 8 digits), the table
  municipality x sex with the geography's hierarchy (region > district > municipality:
  6,333 cells) built with its cell keys (``build_table(..., key=...)``), and its counts
  perturbed with cellKey's example frequency ptable (D = 5, V = 3, js = 2, pstay = 0.5).

Recorded with ``--before`` (a copy of main at 1b9ad0c), min of 5 calls each, 27 Nov 2026,
with 8 other processes sharing the 2 cores (load average about 12: wall seconds three
times the CPU seconds; compare CPU):

    step                          before CPU/wall s   after CPU/wall s   reference  x ref
    individual_risk, 1M records   0.435 / 1.46        0.006 / 0.024      0.387      62
    individual_risk, 5M records   4.69  / 14.5        0.019 / 0.063      2.39       128
    cell-key table, 1M persons    0.249 / 0.73        0.053 / 0.173      0.179      3.4

(An earlier run of the same: 51x, 71x and 3.2x. The table's remaining time: coding the
two text columns about 20 ms, the hierarchy's dimension and relations about 15 ms,
grouping and the cell keys about 10 ms.)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
RATIOS = {"risk_1M": 0.89, "risk_5M": 0.51, "cell_key_1M": 0.72}
REFERENCE = {"risk_1M": "sdcMicro indivRisk", "risk_5M": "sdcMicro indivRisk",
             "cell_key_1M": "data.table lookup"}
LABELS = {"risk_1M": "individual_risk, 1M records", "risk_5M": "individual_risk, 5M records",
          "cell_key_1M": "cell-key table, 1M persons"}
# main at 1b9ad0c (CPU s, wall s), measured as recorded in the docstring
RECORDED_BEFORE = {"risk_1M": (0.435, 1.46), "risk_5M": (4.69, 14.5),
                   "cell_key_1M": (0.249, 0.73)}


def least(repeat: int, fn, *args) -> tuple[float, float, object]:
    """The least CPU and the least wall seconds of ``repeat`` calls ``fn(*args)`` (after
    one call that compiles and warms the caches), and the result."""
    out = fn(*args)
    cpu, wall = float("inf"), float("inf")
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        out = fn(*args)
        cpu, wall = min(cpu, time.process_time() - c), min(wall, time.perf_counter() - w)
    return cpu, wall, out


def digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def risk_data(n: int):
    from bench_anonymity import seed_004_keys

    base, base_w = seed_004_keys()
    rng = np.random.default_rng(2026)
    pick = rng.integers(0, len(base), n)
    codes, w = base[pick].copy(), base_w[pick]
    codes[rng.random(codes.shape) < 0.01] = -1
    return codes, w


def measure(repeat: int) -> dict:
    """The timings of the sdcflow importable here: ``{name: {"before"|"after": [cpu,
    wall, digest]}}`` ("after" only where the per-combination risk exists)."""
    from census_data import census

    from sdcflow.kernels.risk import frequencies as freq
    from sdcflow.kernels.risk import risk
    from sdcflow.kernels.tabular.cell_key import counter_record_keys, perturb_counts
    from sdcflow.kernels.tabular.ptable import count_ptable
    from sdcflow.tabular import build_table

    out: dict = {}
    for n, name in ((1_000_000, "risk_1M"), (5_000_000, "risk_5M")):
        codes, w = risk_data(n)
        fk, Fk = freq.frequencies(codes, w, alpha=1.0)
        cpu, wall, r = least(repeat, risk.individual_risk, fk, Fk, "approx", 1.0)
        out[name] = {"record path": [cpu, wall, digest(r)]}
        if hasattr(risk, "class_individual_risk"):
            classes, fk_c, Fk_c = freq.class_frequencies(codes, w, alpha=1.0)
            cpu, wall, r = least(repeat, risk.class_individual_risk, classes, fk_c, Fk_c,
                                 "approx", 1.0)
            out[name]["class path"] = [cpu, wall, digest(r)]

    frame = census(1_000_000, 2026)
    frame["rkey"] = counter_record_keys(2026, 0, len(frame), 8) / 1e8
    regions = {r: "Total" for r in frame["region"].unique()}
    districts = {d: d[:-2] for d in frame["district"].unique()} | regions
    municipalities = {m: m[:-2] for m in frame["municipality"].unique()} | districts
    ptable = count_ptable(5, 3, js=2, pstay=0.5)

    def cell_key_table():
        table = build_table(frame, ["municipality", "sex"], {"municipality": municipalities},
                            top=2, key="rkey")
        cells = table.cells
        perturbed, _ = perturb_counts(ptable, cells["cell_key"].to_numpy(),
                                      cells["freq"].to_numpy())
        return cells, perturbed

    cpu, wall, (cells, perturbed) = least(repeat, cell_key_table)
    out["cell_key_1M"] = {"table": [cpu, wall, digest(cells.to_csv(index=False).encode(),
                                                      perturbed)]}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path,
                        help="a checkout of the code before the change, to measure too")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.repeat)))
        return

    after = measure(args.repeat)
    before = None
    if args.before is not None:
        env = dict(os.environ, PYTHONPATH=str(args.before.resolve()))
        run = subprocess.run([sys.executable, __file__, "--measure", "--repeat",
                              str(args.repeat)], env=env, capture_output=True, text=True,
                             check=True, cwd=HERE)
        before = json.loads(run.stdout.strip().splitlines()[-1])

    print(f"{'step':<30} {'before CPU/wall s':>19} {'after CPU/wall s':>18} "
          f"{'reference CPU s':>22} {'x reference':>11}")
    for name in ("risk_1M", "risk_5M", "cell_key_1M"):
        new = after[name].get("class path", after[name].get("table"))
        if before is not None:
            old = before[name].get("record path", before[name].get("table"))
            assert old[2] == new[2], f"{name}: the results differ from before's"
            old_cpu, old_wall = old[0], old[1]
        else:
            old_cpu, old_wall = RECORDED_BEFORE[name]
        if "record path" in after[name]:  # the per-record path, still there: same values
            assert after[name]["record path"][2] == new[2], f"{name}: paths differ"
        reference = RATIOS[name] * old_cpu
        print(f"{LABELS[name]:<30} {old_cpu:>9.3f} / {old_wall:<7.3f} "
              f"{new[0]:>8.3f} / {new[1]:<7.3f} "
              f"{reference:>7.3f} = {RATIOS[name]:.2f} x before {REFERENCE[name]:<18} "
              f"{reference / new[0]:>5.1f}x")
    print("reference CPU s = (audit's speed ratio to the reference tool) x our CPU s "
          "before; target: at least 3x the reference"
          + ("" if before is not None else " (before: recorded, main at 1b9ad0c)")
          + "; results identical before and after: "
          + ("checked" if before is not None else "not checked without --before"))


if __name__ == "__main__":
    main()
