"""The census recipe on the Dask engine, out of core: a synthetic census written as
partitioned Parquet (one file per million records, whole households, generated file by
file so that not even the generator holds all of it), run on a local cluster; prints the
seconds per step, the wall and CPU seconds of the whole run (client, scheduler and
workers) and the peak of their summed resident memory, sampled every 0.2 s.

    python benchmarks/bench_dask_census.py [N] [--workers 2] [--per-part 1000000]

The recipe is the census benchmark's (benchmarks/bench_census_recipe.py) as the issue
states it for 50M records, "without unstratified MDAV": MDAV within districts (100
strata), and without the two measures the Dask engine collects (information loss and
record linkage need the original and protected columns together: 2 x 3 x 8 bytes per
record on one worker). Target (census-scale issue): 50,000,000 records with memory
bounded by the partitions, not by n.
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
from pathlib import Path

import psutil
from bench_census_recipe import RECIPE as MEMORY_RECIPE
from census_data import census


def dask_recipe() -> str:
    """The census benchmark's recipe, for partitioned data: MDAV within districts, local
    suppression and noise over the whole file, and the measures computed by map-reduce."""
    text = MEMORY_RECIPE.replace("data: {path: census.parquet}", "data: {path: parts}")
    text = text.replace("  region: {role: key, level: household}\n",
                        "  region: {role: key}\n  district: {role: strata, level: household}\n")
    text = text.replace("params: {k: 3}}", "params: {k: 3, strata: []}}")
    text = text.replace("k: 0.05}}", "k: 0.05, strata: []}}")
    text = text.replace("algorithm: mdav}", "algorithm: mdav, strata: [district]}")
    keep = [line for line in text.splitlines()
            if not line.startswith(("  - {id: loss", "  - {id: link"))]
    text = "\n".join(keep) + "\n"
    return text.replace("measures: [risk, indiv, loss, link]}", "measures: [risk, indiv]}")


RECIPE = dask_recipe()


def generate(folder: Path, n: int, per_part: int, seed: int = 2026) -> int:
    """``n`` records in files of about ``per_part`` records, each a census of its own
    (households numbered on from the previous file's), one file at a time."""
    folder.mkdir(parents=True, exist_ok=True)
    offset, written, i = 0, 0, 0
    while written < n:
        part = census(min(per_part, n - written), seed + i)
        part["hid"] += offset
        offset = int(part["hid"].max())
        part.to_parquet(folder / f"part-{i:05d}.parquet", index=False)
        written += len(part)
        i += 1
        del part
    return i


class Sampler(threading.Thread):
    """Peak summed RSS and the CPU seconds of this process and its children."""

    def __init__(self):
        super().__init__(daemon=True)
        self.me = psutil.Process()
        self.peak = 0
        self.cpu: dict[int, float] = {}
        self.running = True

    def run(self) -> None:
        while self.running:
            total = 0
            for p in [self.me, *self.me.children(recursive=True)]:
                try:
                    total += p.memory_info().rss
                    t = p.cpu_times()
                    self.cpu[p.pid] = t.user + t.system
                except psutil.Error:
                    continue
            self.peak = max(self.peak, total)
            time.sleep(0.2)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("n", nargs="?", type=int, default=50_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--per-part", type=int, default=1_000_000)
    parser.add_argument("--worker-memory", type=float, default=4.0,
                        help="GiB per worker (Dask spills to disk beyond 60%% of it)")
    args = parser.parse_args()
    from sdcflow import run

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        start = time.perf_counter()
        files = generate(folder / "parts", args.n, args.per_part)
        print(f"generated {args.n:,} records in {files} files: "
              f"{time.perf_counter() - start:.0f} s")
        (folder / "recipe.yaml").write_text(
            RECIPE + f"execution: {{worker_memory: {args.worker_memory}}}\n")
        sampler = Sampler()
        sampler.start()
        start = time.perf_counter()
        result = run(folder / "recipe.yaml", folder / "out", engine="dask",
                     workers=args.workers, progress=print)
        wall = time.perf_counter() - start
        sampler.running = False
        sampler.join()
    print(f"\n{'step':<12} {'seconds':>8}")
    for s in result.steps:
        print(f"{s.node:<12} {s.seconds:8.1f}")
    cpu = sum(sampler.cpu.values())
    print(f"\n{'records':>12}  {'files':>5}  {'workers':>7}  {'wall s':>7}  {'CPU s':>7}  "
          f"{'peak GiB (all processes)':>24}")
    print(f"{args.n:>12,}  {files:>5}  {args.workers:>7}  {wall:>7.0f}  {cpu:>7.0f}  "
          f"{sampler.peak / 2**30:>24.2f}")
    print("target: 50,000,000 records out of core, memory bounded by the partitions "
          f"(peak {sampler.peak / 2**30:.1f} GiB for {args.n:,} records in files of "
          f"{args.per_part:,}, workers limited to {args.worker_memory:g} GiB each)")
    print(f"k-anonymity: {result.measures['risk']['violations']}, individual risk max "
          f"{result.measures['indiv']['max']:.4f}")


if __name__ == "__main__":
    main()
