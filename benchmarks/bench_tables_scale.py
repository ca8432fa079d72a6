"""Tables at census scale: a table built by map-reduce from partitions, secondary
suppression of a 1M-cell hierarchical 3-D table (hypercube) and of 20,000-cell tables
(optimal), each with CPU and wall seconds and its target.

    python benchmarks/bench_tables_scale.py [--only build|hypercube|optimal]
                                            [--partitions P] [--cost value]
                                            [--whole-3d SECONDS]

Data are synthetic and seeded: every leaf cell of the cross-classification gets a
Poisson number of records whose mean is the product of one skewed (log-normal) factor
per category, so that some cells are small; responses are log-normal and rounded.
Primary cells by the minimum frequency rule (3) and the p% rule (10).

* 1M cells: A, B and C each Total > 9 groups > 10 leaves (100 codes): 100 x 100 x 100 =
  1,000,000 cells (the largest table sdcflow builds), about 8 million records, 5.2 %
  primary cells. The records are split at random into partitions; each is tabulated on
  its own (``build_partial``), the partials combined and finished, and the table
  compared with the one-pass ``build_table`` (it must be identical). Then the hypercube
  method with its audit and repair, and the final certified audit.
* 20,000 cells, optimal method: a 2-D table (A, B each Total > 10 groups > 13 leaves:
  141 x 141 = 19,881 cells), searched whole, and a 3-D one (A, B, C each Total > 2
  groups > 12 leaves: 27 x 27 x 27 = 19,683 cells), searched subtable by subtable (the
  default above 5,000 cells in 3-D; ``--whole-3d S`` also runs the whole-table search
  for S seconds and prints its lower bound), each beside the hypercube method's cost.

Targets (the census-scale issue): hypercube on 1M cells with ~5 % primary cells in under
10 minutes with a passing audit; the optimal method on 20,000 cells in under 5 minutes.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from bench_tabular import hierarchy, leaves_of
from timing import cpu_and_wall

from sdcflow.data.text import text_column
from sdcflow.tabular import (
    FrequencyRule,
    PPercentRule,
    Tabulation,
    apply_rules,
    build_partial,
    build_table,
    combine,
    finish_table,
    suppress_hypercube,
    suppress_optimal,
)

RULES = [FrequencyRule(3), PPercentRule(10)]


def microdata(rng, leaves: list[list[str]], mean: float, skew: float,
              sigma: float) -> pd.DataFrame:
    """Records of the leaf cells (skewed Poisson counts), in random order."""
    shape = tuple(len(x) for x in leaves)
    lam = np.full(shape, mean)
    for d, size in enumerate(shape):
        f = rng.lognormal(0.0, skew, size)
        lam = lam * (f / f.mean()).reshape([-1 if k == d else 1 for k in range(len(shape))])
    count = rng.poisson(lam.ravel())
    cell = rng.permutation(np.repeat(np.arange(count.size), count))
    codes = np.unravel_index(cell, shape)
    frame = {name: text_column(pd.Categorical.from_codes(c, labels))
             for name, c, labels in zip("ABC", codes, leaves, strict=False)}
    frame["y"] = np.round(rng.lognormal(3.0, sigma, cell.size))
    return pd.DataFrame(frame)


def cube(groups: int, leaves: int, ndim: int) -> tuple[dict, list[list[str]]]:
    hs = {name: hierarchy(name.lower(), groups, leaves) for name in "ABC"[:ndim]}
    return hs, [leaves_of(h) for h in hs.values()]


def report(rows: list, name: str, cpu: float, wall: float, note: str) -> None:
    rows.append((name, cpu, wall, note))
    print(f"{name:<46} {cpu:>8.1f} {wall:>8.1f}  {note}", flush=True)


def run_1m(rows: list, partitions: int, cost: str, only: str | None) -> None:
    hs, leaves = cube(9, 10, 3)
    data = microdata(np.random.default_rng(12), leaves, 11.0, 0.4, 0.6)
    tab = Tabulation(["A", "B", "C"], hs, "y")
    cpu, wall, one = cpu_and_wall(build_table, data, ["A", "B", "C"], hs, "y")
    report(rows, "build_table, one pass", cpu, wall,
           f"{one.n_cells:,} cells from {len(data):,} records")
    if only in (None, "build"):
        part = np.random.default_rng(13).integers(0, partitions, len(data))
        frames = [data[part == p] for p in range(partitions)]
        cpu, wall, partials = cpu_and_wall(lambda: [build_partial(tab, f) for f in frames])
        size = sum(p.n_cells for p in partials)
        report(rows, f"  map: build_partial x {partitions}", cpu, wall,
               f"{size:,} partial cells in all ({size / partitions:,.0f} per partition)")
        cpu, wall, merged = cpu_and_wall(combine, partials)
        report(rows, "  reduce: combine", cpu, wall, f"{merged.n_cells:,} leaf cells")
        cpu, wall, table = cpu_and_wall(finish_table, merged)
        pd.testing.assert_frame_equal(table.cells, one.cells, check_exact=True)
        report(rows, "  finish_table", cpu, wall, "identical to the one-pass table: yes")
    del data
    if only not in (None, "hypercube"):
        return
    cpu, wall, table = cpu_and_wall(apply_rules, one, RULES)
    prim = int((table.status == "primary").sum())
    report(rows, "rules freq(3), p%(10)", cpu, wall,
           f"{prim:,} primary ({prim / table.n_cells:.1%})")
    cpu, wall, res = cpu_and_wall(suppress_hypercube, table, cost=cost)
    i = res.info
    report(rows, f"hypercube 3-D 1M cells, cost {cost}", cpu, wall,
           f"{i['secondary']:,} secondary; audit "
           f"{'passed' if res.audit.passed else 'FAILED'}; target < 600 s: "
           f"{'met' if wall < 600 and res.audit.passed else 'NOT met'}")
    print(f"{'':<46} {'':>8} {'':>8}  (hypercubes {i['hypercube_seconds']} s, repair "
          f"{i['repair_seconds']} s adding {i['repair_added']}, audit {i['audit_seconds']} s)")


def run_optimal(rows: list, cost: str, whole_3d: float | None) -> None:
    for label, groups, leaves, ndim, mean in (("2-D", 10, 13, 2, 10.0),
                                              ("3-D", 2, 12, 3, 12.0)):
        hs, lv = cube(groups, leaves, ndim)
        data = microdata(np.random.default_rng(21 + ndim), lv, mean, 0.4, 0.6)
        table = apply_rules(build_table(data, list(hs), hs, "y"), RULES)
        prim = int((table.status == "primary").sum())
        cpu, wall, res = cpu_and_wall(suppress_optimal, table, cost=cost)
        i = res.info
        how = (f"subtable by subtable ({i['subtables_searched']} of {i['subtables']} "
               f"searched, repair added {i['repair_added']})" if i.get("decomposed")
               else f"whole table, optimal={i['optimal']}, {i['rounds']} rounds")
        report(rows, f"optimal {label} {table.n_cells:,} cells, cost {cost}", cpu, wall,
               f"{prim:,} primary, {i['secondary']:,} secondary, cost {i['cost']:,.0f}, "
               f"{how}; audit {'passed' if res.audit.passed else 'FAILED'}; "
               f"target < 300 s: {'met' if wall < 300 and res.audit.passed else 'NOT met'}")
        cpu, wall, cube_res = cpu_and_wall(suppress_hypercube, table, cost=cost)
        report(rows, "  hypercube on the same table", cpu, wall,
               f"{cube_res.info['secondary']:,} secondary, cost "
               f"{cube_res.info['cost']:,.0f}")
        if ndim == 3 and whole_3d:
            cpu, wall, full = cpu_and_wall(suppress_optimal, table, cost=cost,
                                           decompose=False, time_limit=whole_3d)
            f = full.info
            report(rows, f"  whole-table search, time limit {whole_3d:.0f} s", cpu, wall,
                   f"cost {f['cost']:,.0f}, optimal={f['optimal']}, lower bound "
                   f"{f['lower_bound']:,.0f} (gap {f['gap']:.2%}), {f['rounds']} rounds")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", choices=["build", "hypercube", "optimal"])
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--cost", default="value", choices=["value", "frequency", "unit"])
    parser.add_argument("--whole-3d", type=float, metavar="SECONDS",
                        help="also search the whole 3-D table (no subtables) this long")
    args = parser.parse_args()
    rows: list = []
    print(f"{'benchmark':<46} {'CPU s':>8} {'wall s':>8}  notes")
    if args.only in (None, "build", "hypercube"):
        run_1m(rows, args.partitions, args.cost, args.only)
    if args.only in (None, "optimal"):
        run_optimal(rows, args.cost, args.whole_3d)


if __name__ == "__main__":
    main()
