"""Timings of the tabular protection library (sdcflow.tabular), printed as a table.

    python benchmarks/bench_tabular.py [--only 2d|3d] [--records-2d N] [--records-3d N]
                                       [--costs value frequency unit]

Data are synthetic (seeded): microdata with skewed category probabilities (so that some
cells have few contributors) and log-normal responses (300,000 records for 2-D,
1,150,000 for 3-D, about 5% primary cells), tabulated with hierarchies;
primary cells by the minimum frequency rule (3) and the p% rule (10, 2 top
contributions).

* 2-D: dimension A = Total > 8 groups > 8 leaves (73 codes), B = Total > 7 groups >
  9 leaves (71 codes): 5,183 cells; optimal secondary suppression (per cost function),
  then an exact audit of every suppressed cell.
* 3-D: A = Total > 5 groups > 8 leaves (46 codes), B = Total > 4 groups > 10 leaves
  (45 codes), C = 47 leaves and the total (48 codes): 99,360 cells; hypercube
  secondary suppression with audit and repair (per cost function), then a certified
  audit of every suppressed cell."""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from timing import best_of

from sdcflow.tabular import (
    FrequencyRule,
    PPercentRule,
    apply_rules,
    audit,
    build_table,
    suppress_hypercube,
    suppress_optimal,
)


def hierarchy(prefix: str, groups: int, leaves: int) -> dict[str, str]:
    out = {}
    for g in range(groups):
        out[f"{prefix}{g}"] = "Total"
        for leaf in range(leaves):
            out[f"{prefix}{g}.{leaf}"] = f"{prefix}{g}"
    return out


def skewed_codes(rng, labels: list[str], n: int, skew: float) -> np.ndarray:
    p = rng.lognormal(0.0, skew, len(labels))
    return np.asarray(labels, dtype=object)[rng.choice(len(labels), n, p=p / p.sum())]


def microdata(rng, dims: dict[str, list[str]], n: int, skew: float,
              sigma: float) -> pd.DataFrame:
    frame = {d: skewed_codes(rng, labels, n, skew) for d, labels in dims.items()}
    frame["y"] = np.round(rng.lognormal(3.0, sigma, n), 0)
    return pd.DataFrame(frame)


def leaves_of(h: dict[str, str]) -> list[str]:
    parents = set(h.values())
    return [c for c in h if c not in parents]


def run_2d(rng, records: int, rows: list, costs: list[str]) -> None:
    ha, hb = hierarchy("a", 8, 8), hierarchy("b", 7, 9)
    data = microdata(rng, {"A": leaves_of(ha), "B": leaves_of(hb)}, records, 1.0, 1.2)
    sec, table = best_of(build_table, data, ["A", "B"], {"A": ha, "B": hb}, "y", repeat=1)
    rows.append(("2-D build_table", table.n_cells, records, sec, ""))
    sec, table = best_of(apply_rules, table, [FrequencyRule(3), PPercentRule(10)], repeat=1)
    prim = int((table.status == "primary").sum())
    rows.append(("2-D rules freq(3), p%(10)", table.n_cells, prim, sec,
                 f"{prim / table.n_cells:.1%} primary"))
    for cost in costs:
        sec, res = best_of(suppress_optimal, table, cost=cost, repeat=1)
        i = res.info
        rows.append((f"2-D optimal, cost {cost}", table.n_cells, prim, sec,
                     (f"{i['secondary']} secondary, {i['rounds']} rounds, {i['cuts']} cuts, "
                      f"optimal={i['optimal']}")))
        sec, rep = best_of(audit, res.table, mode="exact", repeat=1)
        rows.append(("  audit exact (all suppressed)", table.n_cells, rep.info["audited"], sec,
                     f"passed={rep.passed}, {rep.n_lp} LPs"))


def run_3d(rng, records: int, rows: list, costs: list[str]) -> None:
    ha, hb = hierarchy("a", 5, 8), hierarchy("b", 4, 10)
    lc = [f"c{k:02d}" for k in range(47)]
    data = microdata(rng, {"A": leaves_of(ha), "B": leaves_of(hb), "C": lc}, records, 0.5, 0.8)
    sec, table = best_of(build_table, data, ["A", "B", "C"], {"A": ha, "B": hb}, "y", repeat=1)
    rows.append(("3-D build_table", table.n_cells, records, sec, ""))
    sec, table = best_of(apply_rules, table, [FrequencyRule(3), PPercentRule(10)], repeat=1)
    prim = int((table.status == "primary").sum())
    rows.append(("3-D rules freq(3), p%(10)", table.n_cells, prim, sec,
                 f"{prim / table.n_cells:.1%} primary"))
    for cost in costs:
        sec, res = best_of(suppress_hypercube, table, cost=cost, repeat=1)
        i = res.info
        rows.append((f"3-D hypercube + repair, cost {cost}", table.n_cells, prim, sec,
                     (f"{i['secondary']} secondary, cubes {i['hypercube_seconds']} s, "
                      f"repair added {i['repair_added']}")))
        sec, rep = best_of(audit, res.table, mode="certify", repeat=1)
        rows.append(("  audit certify (all suppressed)", table.n_cells, rep.info["audited"],
                     sec, (f"passed={rep.passed}, {rep.n_lp} LPs, "
                           f"{int(rep.report['exact'].sum())} exact intervals")))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", choices=["2d", "3d"])
    parser.add_argument("--records-2d", type=int, default=300_000)
    parser.add_argument("--records-3d", type=int, default=1_150_000)
    parser.add_argument("--costs", nargs="+", default=["value", "frequency", "unit"])
    args = parser.parse_args()
    rows: list = []
    if args.only in (None, "2d"):
        run_2d(np.random.default_rng(1), args.records_2d, rows, args.costs)
    if args.only in (None, "3d"):
        run_3d(np.random.default_rng(2), args.records_3d, rows, args.costs)
    width = max(len(r[0]) for r in rows)
    print(f"{'benchmark':<{width}}  {'cells':>8}  {'n':>9}  {'seconds':>8}  notes")
    for name, cells, n, seconds, note in rows:
        print(f"{name:<{width}}  {cells:>8,}  {n:>9,}  {seconds:>8.2f}  {note}")


if __name__ == "__main__":
    main()
