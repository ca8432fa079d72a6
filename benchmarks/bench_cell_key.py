"""The cell key method at census scale: ptables, record keys, cell-keyed hypercubes of
the synthetic census and their perturbation, each with CPU and wall seconds.

    python benchmarks/bench_cell_key.py [--persons N] [--seed S]

* ptables: cellKey's example frequency ptable (D = 5, V = 3, js = 2, pstay = 0.5),
  ptable's example magnitude ptable (D = 10, V = 3, step 2, icat 1, 5, 10) and a wide
  one (D = 50, V = 200, js = 10: 61 rows of up to 101 probabilities).
* the synthetic census of ``census_data.py`` (default 10,000,000 persons): record keys
  drawn by position (the engine's drawn keys), then three tables built with their cell
  keys, as the engine builds them (``build_table(..., key=...)``): region x district x
  sex x age group (a hypercube with the geography's hierarchy), municipality x sex, and
  district x education summing income; the counts perturbed with the frequency ptable,
  income with the magnitude ptable (top 2 contributions, flex function).
* consistency: the margins the tables share (district x sex in the first two, district in
  all three) must have the same cell keys, so the same noise: checked.

Target (the census issue): every step at 10M persons in seconds, the tables in well under
a minute on the 2-core machine.
"""

from __future__ import annotations

import argparse

import numpy as np
from census_data import census
from timing import cpu_and_wall

from sdcflow.kernels.tabular.cell_key import counter_record_keys, perturb_counts
from sdcflow.kernels.tabular.cell_key_magnitude import (
    MagnitudeParams,
    perturb_magnitudes,
    step_keys,
)
from sdcflow.kernels.tabular.ptable import count_ptable, magnitude_ptable
from sdcflow.tabular import build_table


def report(name: str, cpu: float, wall: float, note: str = "") -> None:
    print(f"{name:<58} {cpu:>8.2f} {wall:>8.2f}  {note}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--persons", type=int, default=10_000_000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    print(f"{'step':<58} {'CPU s':>8} {'wall s':>8}")

    cpu, wall, counts_pt = cpu_and_wall(count_ptable, 5, 3, js=2, pstay=0.5)
    report("frequency ptable D=5 V=3 js=2 pstay=0.5", cpu, wall, f"{len(counts_pt.p)} entries")
    cpu, wall, nums_pt = cpu_and_wall(magnitude_ptable, 10, 3, step=2, icat=[1, 5, 10],
                                      optim=[4, 1, 1])
    report("magnitude ptable D=10 V=3 step=2", cpu, wall, f"{len(nums_pt.p)} entries")
    cpu, wall, wide = cpu_and_wall(count_ptable, 50, 200, js=10)
    report("frequency ptable D=50 V=200 js=10", cpu, wall, f"{len(wide.rows)} rows")

    frame = census(args.persons, args.seed)
    n = len(frame)
    frame["age_group"] = (frame["age"] // 10).clip(upper=8).astype(str)
    cpu, wall, units = cpu_and_wall(counter_record_keys, args.seed, 0, n, 8)
    frame["rkey"] = units / 1e8
    report(f"record keys, {n:,} persons", cpu, wall)

    # region > district > municipality (codes: district = region * 100 + k, ...)
    regions = {r: "Total" for r in frame["region"].unique()}
    districts = {d: d[:-2] for d in frame["district"].unique()} | regions
    municipalities = {m: m[:-2] for m in frame["municipality"].unique()} | districts
    tables = {}
    specs = {
        "cube": (["district", "sex", "age_group"], {"district": districts}, None),
        "municipality": (["municipality", "sex"], {"municipality": municipalities}, None),
        "income": (["district", "education"], {"district": districts}, "income"),
    }
    for name, (dims, hierarchies, response) in specs.items():
        cpu, wall, table = cpu_and_wall(build_table, frame, dims, hierarchies, response,
                                        top=2, key="rkey")
        tables[name] = table
        report(f"keyed table {' x '.join(dims)}", cpu, wall, f"{table.n_cells:,} cells")

    for name in ("cube", "municipality"):
        cells = tables[name].cells
        cpu, wall, (perturbed, _) = cpu_and_wall(
            perturb_counts, counts_pt, cells["cell_key"].to_numpy(), cells["freq"].to_numpy())
        changed = np.mean(perturbed != cells["freq"].to_numpy())
        report(f"perturb counts of {name}", cpu, wall, f"{changed:.1%} of cells changed")

    cells = tables["income"].cells
    params = MagnitudeParams(p_small=0.2, p_large=0.03, fp=100_000, q=2, epsilon=[1, 0.5])

    def magnitudes():
        units = np.rint(cells["cell_key_nonzero"].to_numpy() * 1e8).astype(np.int64)
        keys = step_keys(units, 8, 2)
        return perturb_magnitudes(nums_pt, cells["value"].to_numpy(),
                                  cells[["top1", "top2"]].to_numpy(), keys, params)

    cpu, wall, (_, noise) = cpu_and_wall(magnitudes)
    rel = np.abs(noise) / np.maximum(np.abs(cells["value"].to_numpy()), 1)
    report("perturb income of district x education", cpu, wall,
           f"median relative change {np.median(rel):.2%}")

    cube = tables["cube"].cells
    muni = tables["municipality"].cells
    inc = tables["income"].cells
    a = cube[cube["age_group"] == "Total"].set_index(["district", "sex"])["cell_key"]
    b = muni.set_index(["municipality", "sex"])["cell_key"]  # districts are its subtotals
    shared = a.index.intersection(b.index)
    same_ds = bool((a[shared] == b[shared]).all()) and len(shared) > 0
    c = cube[(cube["sex"] == "Total") & (cube["age_group"] == "Total")] \
        .set_index("district")["cell_key"]
    d = inc[inc["education"] == "Total"].set_index("district")["cell_key"]
    same_d = bool((c == d[c.index]).all())
    print(f"consistency: {len(shared)} shared cells (district x sex) equal: {same_ds}; "
          f"districts equal across cube and income: {same_d}")


if __name__ == "__main__":
    main()
