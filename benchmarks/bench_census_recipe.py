"""A realistic recipe on a synthetic census, at census sizes: seconds per step, CPU and
wall seconds of the whole run, and its peak memory.

    python benchmarks/bench_census_recipe.py [N ...] [--quick]

The recipe: global recode of age, local suppression to 3-anonymity on region, sex, age
and education, PRAM of the walls (household-level), noise on the rent (household-level),
MDAV (k = 3) on income, expenditure and savings, then k-anonymity, individual risk,
information loss and distance-based record linkage. Targets (the census-scale issue):
10,000,000 records in under 5 minutes wall on a 2-core machine, peak memory under 8 GB.
Each size runs in a forked process (benchmarks/peak_memory.py) so that its peak is its
own.
"""

from __future__ import annotations

import argparse
import functools
import tempfile
import time
from pathlib import Path

from census_data import census
from peak_memory import measure

RECIPE = """
sdcflow: 1
name: census-bench
seed: 2026
data: {path: census.parquet}
variables:
  hid: {role: household}
  region: {role: key, level: household}
  walls: {role: pram, level: household}
  rent: {role: numeric, level: household}
  weight: {role: weight, level: household}
  sex: {role: key}
  age: {role: key, type: integer}
  education: {role: key, type: ordinal, order: [none, primary, secondary, tertiary]}
  income: {role: numeric}
  expend: {role: numeric}
  savings: {role: numeric}
steps:
  - id: age10
    method: global_recode
    params: {variable: age, breaks: [0, 9, 19, 29, 39, 49, 59, 69, 79, 99]}
  - {id: kanon, method: local_suppression, params: {k: 3}}
  - {id: walls_pram, method: pram, params: {variables: [walls]}}
  - {id: rent_noise, method: noise, params: {variables: [rent], k: 0.05}}
  - id: micro
    method: microaggregation
    params: {variables: [income, expend, savings], k: 3, algorithm: mdav}
  - {id: risk, measure: k_anonymity, params: {k: [2, 3]}}
  - {id: indiv, measure: individual_risk}
  - {id: loss, measure: information_loss, params: {variables: [income, expend, savings]}}
  - {id: link, measure: record_linkage, params: {variables: [income, expend, savings]}}
checks: ["risk.violations[3] == 0"]
release: {path: census-protected.parquet, measures: [risk, indiv, loss, link]}
"""


def run_recipe(folder: Path) -> dict:
    """Run the recipe in ``folder`` and summarise it (picklable)."""
    from sdcflow import run

    cpu, wall = time.process_time(), time.perf_counter()
    result = run(folder / "recipe.yaml", folder / "out", use_cache=False)
    return {"cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall,
            "steps": [(s.node, s.seconds) for s in result.steps],
            "records": len(result.data)}


def warm() -> None:
    """Load the compiled kernels (from the numba cache) before the measured run."""
    import sdcflow.kernels.perturbative.microaggregation.mdav  # noqa: F401
    from sdcflow.plugins import registry

    registry.plugins()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sizes", nargs="*", type=int)
    parser.add_argument("--quick", action="store_true", help="1,000,000 records only")
    args = parser.parse_args()
    sizes = args.sizes or ([1_000_000] if args.quick else [1_000_000, 5_000_000, 10_000_000])
    rows = []
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            census(n).to_parquet(folder / "census.parquet", index=False)
            (folder / "recipe.yaml").write_text(RECIPE)
            _, peak, summary = measure(functools.partial(run_recipe, folder), warm)
        rows.append((n, summary, peak))
        print(f"\n{summary['records']:,} records: {summary['cpu']:.1f} CPU s, "
              f"{summary['wall']:.1f} wall s, peak {peak / 2**30:.2f} GiB")
        for node, s in summary["steps"]:
            print(f"  {node:<12} {s:8.2f} s")
    print(f"\n{'records':>11}  {'CPU s':>7}  {'wall s':>7}  {'peak GiB':>8}")
    for n, summary, peak in rows:
        print(f"{summary['records']:>11,}  {summary['cpu']:>7.1f}  {summary['wall']:>7.1f}  "
              f"{peak / 2**30:>8.2f}")
    if any(n >= 10_000_000 for n, _, _ in rows):
        n, summary, peak = next(r for r in rows if r[0] >= 10_000_000)
        print(f"target 10M in under 300 s wall: {summary['wall']:.0f} s "
              f"({'met' if summary['wall'] < 300 else 'NOT met'}); peak under 8 GiB: "
              f"{peak / 2**30:.2f} ({'met' if peak < 8 * 2**30 else 'NOT met'})")


if __name__ == "__main__":
    main()
