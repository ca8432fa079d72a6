"""sdcflow's ``anonymize`` search against anjana (the Python k-anonymity library of the
IFCA-CSIC, built on pyCANON: Sáinz-Pardo Díaz & López García, "An open source Python
library for anonymizing sensitive data", Scientific Data 11, 2024) on the same data,
hierarchies, targets and suppression limit; the losses of both results computed by the
same code (:mod:`sdcflow.kernels.privacy.loss`).

    pip install anjana     # not a dependency of sdcflow; it pins numpy, pandas and scipy
                           # to old versions: install it in a separate environment
    python benchmarks/bench_anonymize_compare.py [--records 30162]

anjana generalises greedily (one level of the key variable with the most distinct values
at a time, until the targets hold with at most the allowed share of records deleted, the
records of failing classes; records deleted on the way stay deleted), so its release
meets the targets but need not be the least-loss one; sdcflow returns the least-loss
node of the whole lattice, so its precision loss (searching for precision) and its
discernibility (searching for discernibility) are at most anjana's on the same input;
the script asserts both, and that both releases meet the targets.

Measured (30,162 adult-like records, 2 % suppression limit; anjana 1.2.3 in its own
environment): sdcflow's precision loss 0.370 against anjana's 0.412 (k=5) and 0.414
against 0.671 (k=5 and distinct 2-diversity on salary-class); on testdata 0.308 against
0.372 and 0.313 against 0.569. Discernibility: 7.7M against 56.4M, 11.3M against 102.2M,
0.49M against 2.61M, 0.52M against 5.59M. Each search took at most 2.1 s, anjana's at
most 4.5 s.

Data: adult-like records (``benchmarks/adult_like.py``, the hierarchies of ARX's and
anjana's Adult examples read from ``benchmarks/hierarchies/adult_*.csv``; 7 keys, 2,160
nodes) with salary-class as the sensitive variable, and sdcMicro's testdata with the
hierarchies of ``recipes/testdata_anonymize.yaml`` (urbrur, water, sex, age, relat; 216
nodes) with walls as the sensitive variable.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from adult_like import HIERARCHY_DIR, KEYS, adult_like, read_hierarchy

from sdcflow.data.io import builtin_path
from sdcflow.kernels.non_perturbative.hierarchies import (
    hierarchy_maps,
    width_levels,
    with_top,
)
from sdcflow.kernels.privacy.lattice import (
    generalise,
    k_anonymity,
    l_diversity_target,
    search,
)
from sdcflow.kernels.privacy.loss import LossContext
from sdcflow.kernels.risk.frequencies import row_ids

K, L = 5, 2


@dataclass
class Case:
    """Key columns as text, each key's hierarchy (columns of labels, level 0 first),
    the sensitive column."""

    name: str
    data: pd.DataFrame
    keys: list[str]
    hierarchies: dict[str, list[list[str]]]
    sensitive: str


@dataclass
class Row:
    data: str
    targets: str
    tool: str
    node: tuple[int, ...] | None
    suppressed: int
    precision: float
    discernibility: float
    seconds: float


def adult_case(n: int, seed: int = 1994) -> Case:
    hierarchies = {k: read_hierarchy(HIERARCHY_DIR / f"adult_{k}.csv") for k in KEYS}
    return Case("adult-like", adult_like(n, seed), KEYS, hierarchies, "salary-class")


def testdata_case(n: int | None = None, seed: int = 1) -> Case:
    """testdata with the hierarchies of ``recipes/testdata_anonymize.yaml``."""
    d = pd.read_csv(builtin_path("testdata"))
    if n is not None and n < len(d):
        d = d.sample(n, random_state=seed).reset_index(drop=True)
    keys = ["urbrur", "water", "sex", "age", "relat"]
    data = d[keys + ["walls"]].astype(str)
    source = {"1": "piped", "2": "piped", "3": "well", "4": "well", "5": "surface"}
    family = {"1": "head", "2": "core", "3": "core", "4": "relative", "5": "relative",
              "6": "relative"}
    hierarchies = {}
    for key in keys:
        values = sorted(data[key].unique(), key=int)
        if key == "water":
            levels = [[source.get(v, "other") for v in values]]
        elif key == "relat":
            levels = [[family.get(v, "other") for v in values]]
        elif key == "age":
            levels = width_levels(np.array(values, dtype=float), 5, 4, integer=True)
        else:
            levels = []
        hierarchies[key] = with_top([values, *levels])
    return Case("testdata", data, keys, hierarchies, "walls")


def encode(case: Case) -> tuple[np.ndarray, list[np.ndarray], list[list[str]], list[str]]:
    """Level-0 codes (n x m), maps, each key's labels per level, each key's level-0 values."""
    codes, maps, names = [], [], []
    for key in case.keys:
        m, labels = hierarchy_maps(case.hierarchies[key])
        level0 = case.hierarchies[key][0]
        index = {v: i for i, v in enumerate(level0)}
        missing = set(case.data[key]) - set(index)
        if missing:
            raise ValueError(f"{key}: values {sorted(missing)[:5]} not in its hierarchy")
        codes.append(np.array([index[v] for v in case.data[key]], dtype=np.int64))
        maps.append(m)  # level-0 code = position in the hierarchy's first column
        names.append(labels)
    return np.column_stack(codes), maps, names, list(case.keys)


def losses(codes: np.ndarray, maps: list[np.ndarray], node: tuple[int, ...],
           suppressed: np.ndarray) -> tuple[float, float]:
    """(precision loss, discernibility) of ``node`` with the ``suppressed`` records (any
    records: anjana may delete part of a class of the node it returns)."""
    n = len(codes)
    ids, _ = row_ids(generalise(codes[~suppressed], maps, node))
    counts = np.append(np.bincount(ids), suppressed.sum())  # the suppressed: one "class"
    ok = np.append(np.ones(len(counts) - 1, dtype=bool), False)
    out = []
    for name in ("precision", "discernibility"):
        ctx = LossContext(name, codes, np.ones(n, dtype=np.int64), maps, np.ones(len(maps)))
        out.append(ctx.value(node, counts, ok))
    return out[0], out[1]


def meets(codes: np.ndarray, maps: list[np.ndarray], node: tuple[int, ...],
          suppressed: np.ndarray, sensitive: np.ndarray | None, limit: float) -> bool:
    """Whether the kept classes are K-anonymous (and distinct L-diverse) within the limit."""
    ids, _ = row_ids(generalise(codes, maps, node)[~suppressed])
    if suppressed.sum() > np.floor(limit * len(codes) + 1e-9):
        return False
    if len(ids) and np.bincount(ids).min() < K:
        return False
    if sensitive is not None and len(ids):
        pairs = np.unique(np.column_stack([ids, sensitive[~suppressed]]), axis=0)
        if np.bincount(pairs[:, 0]).min() < L:
            return False
    return True


def anjana_result(case: Case, names: list[list[str]], codes: np.ndarray,
                  maps: list[np.ndarray], limit: float, diverse: bool
                  ) -> tuple[tuple[int, ...], np.ndarray, float]:
    """anjana's node, suppressed records and seconds. Raises ImportError without anjana."""
    from anjana.anonymity import k_anonymity as anjana_k
    from anjana.anonymity import l_diversity as anjana_l

    hierarchies = {k: {lv: pd.Series(col) for lv, col in enumerate(case.hierarchies[k])}
                   for k in case.keys}
    data = case.data[case.keys + [case.sensitive]].copy()
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        if diverse:
            out = anjana_l(data, [], case.keys, case.sensitive, K, L, 100 * limit, hierarchies)
        else:
            out = anjana_k(data, [], case.keys, K, 100 * limit, hierarchies)
    seconds = time.perf_counter() - start
    if out.empty:
        raise RuntimeError(f"anjana found no release for {case.name}")
    node = []
    for j, key in enumerate(case.keys):  # the lowest level whose labels hold the output's
        present = set(out[key].astype(str))
        node.append(next(lv for lv, labels in enumerate(names[j]) if present <= set(labels)))
    node = tuple(node)
    # anjana deletes rows (reset_index keeps their original positions in "index")
    kept = out["index"].to_numpy() if "index" in out.columns else np.arange(len(out))
    suppressed = np.ones(len(codes), dtype=bool)
    suppressed[kept] = False
    released = generalise(codes[kept], maps, node)
    labels = np.array([[names[j][lv][c] for j, (lv, c) in enumerate(zip(node, row, strict=True))]
                       for row in released], dtype=object).reshape(len(kept), len(node))
    if not (labels == out[case.keys].astype(str).to_numpy()).all():
        raise RuntimeError("anjana's output is not the generalisation of its node")
    return node, suppressed, seconds


def compare(case: Case, limit: float, diverse: bool) -> list[Row]:
    """anjana's row (when installed) and sdcflow's for precision and discernibility."""
    codes, maps, names, _ = encode(case)
    sensitive = None
    targets = [k_anonymity(K)]
    label = f"k={K}"
    if diverse:
        _, sensitive = np.unique(case.data[case.sensitive].to_numpy(), return_inverse=True)
        targets.append(l_diversity_target(sensitive, L))
        label += f", distinct l={L} on {case.sensitive}"
    label += f", {limit:.0%} supp."
    rows = []
    try:
        node, supp, seconds = anjana_result(case, names, codes, maps, limit, diverse)
    except ImportError:
        anjana_row = None
    else:
        if not meets(codes, maps, node, supp, sensitive, limit):
            raise AssertionError(f"anjana's release misses the targets: {node}")
        anjana_row = Row(case.name, label, "anjana", node, int(supp.sum()),
                         *losses(codes, maps, node, supp), seconds)
        rows.append(anjana_row)
    for loss in ("precision", "discernibility"):
        start = time.perf_counter()
        r = search(codes, maps, targets, loss, suppression_limit=limit)
        seconds = time.perf_counter() - start
        if r.node is None:
            raise AssertionError(f"sdcflow found no node for {case.name}, {label}")
        assert meets(codes, maps, r.node, r.suppressed, sensitive, limit)
        row = Row(case.name, label, f"sdcflow ({loss})", r.node, int(r.suppressed.sum()),
                  *losses(codes, maps, r.node, r.suppressed), seconds)
        assert np.isclose(getattr(row, loss), r.loss), (row, r.loss)
        if anjana_row is not None:  # optimal over the lattice: never worse than anjana
            assert getattr(row, loss) <= getattr(anjana_row, loss) + 1e-9, (row, anjana_row)
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=30162,
                        help="adult-like records (the Adult file's complete records: 30,162)")
    parser.add_argument("--limit", type=float, default=0.02, help="suppression limit")
    args = parser.parse_args()
    try:
        import anjana  # noqa: F401
    except ImportError:
        print("anjana is not installed (pip install anjana, best in its own environment): "
              "showing sdcflow's rows only")
    header = (f"{'data':<11}{'targets':<54}{'tool':<26}{'levels':<24}{'supp.':>6}"
              f"{'precision':>10}{'discern.':>13}{'seconds':>9}")
    print(header)
    for case in (adult_case(args.records), testdata_case()):
        for diverse in (False, True):
            for r in compare(case, args.limit, diverse):
                print(f"{r.data:<11}{r.targets:<54}{r.tool:<26}{r.node!s:<24}"
                      f"{r.suppressed:>6}{r.precision:>10.4f}{r.discernibility:>13,.0f}"
                      f"{r.seconds:>9.2f}")


if __name__ == "__main__":
    main()
