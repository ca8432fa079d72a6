"""Compiling every numba kernel ahead of time (``sdcflow compile``), into the cache
directory of :mod:`sdcflow.kernels.jit`, so that no run pauses to compile.

numba compiles one machine code per combination of argument types (dtype, dimensions,
memory layout, read-only or not) the first time a kernel is called with it. So each
family below calls its *public* functions on a few records, as the plugins call them:
the kernels then see the types a real run gives them, and a real run finds their code
in the cache. Results are never affected: a cached kernel is the same machine code.

A family is named after the module of its kernels (``sdcflow compile --only mdav``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np


def _data(n: int, d: int, seed: int = 0) -> np.ndarray:
    """A few records of continuous data with ties (as real data have)."""
    rng = np.random.default_rng(seed)
    return np.round(rng.normal(size=(n, d)) * 4) / 4


def _mdav() -> None:
    from ..kernels.perturbative.microaggregation.mdav import mdav

    mdav(_data(60, 3), 3)


def _univariate() -> None:
    from ..kernels.perturbative.microaggregation.projected import projected
    from ..kernels.perturbative.microaggregation.univariate import optimal_univariate

    x = _data(30, 2)
    optimal_univariate(x[:, 0], 3)
    projected(x, 3)


def _linkage() -> None:
    from ..kernels.linkage.coordinates import standardize
    from ..kernels.linkage.distance_linkage import nearest_links
    from ..kernels.linkage.probabilistic_linkage import probabilistic_links

    o = _data(40, 3, 1)
    p = o + _data(40, 3, 2) / 8
    zo, zp = standardize(o, p)
    nearest_links(zp, zo, algorithm="kdtree")
    nearest_links(zp, zo, algorithm="blocked")  # the route beyond 10 variables
    probabilistic_links(o, p, 0.1, algorithm="scan")  # the route for large files


def _rank_swap() -> None:
    from ..kernels.perturbative.swapping.rank_swap import VARIANTS, rank_swap

    keys = _data(50, 1)[:, 0]
    for variant in VARIANTS:
        rank_swap(keys, 10.0, np.random.default_rng(0), variant)


def _record_swap() -> None:
    from ..kernels.perturbative.swapping.record_swap import high_risk_levels, record_swap

    rng = np.random.default_rng(0)
    geo = rng.integers(0, 3, (40, 2))
    risk = rng.random((40, 2))
    record_swap(geo, rng.integers(0, 2, (40, 2)), risk, high_risk_levels(risk, 0.9), 0.2,
                rng)


def _rank_swap_attack() -> None:
    from ..kernels.linkage.rank_swap_attack import intersection_attack

    o = _data(40, 2, 3)
    intersection_attack(o, o[::-1].copy(), 4)


def _utility() -> None:
    from ..kernels.utility.kmeans import kmeans

    kmeans(_data(60, 2, 4), 3, np.random.default_rng(0))


def _secondary() -> None:
    import pandas as pd

    from ..tabular import table_from_cells
    from ..tabular.hypercube import suppress_hypercube
    from ..tabular.rules import mark_primary

    cells = pd.DataFrame({"a": ["x", "x", "x", "y", "y", "y", "z", "z", "z"],
                          "b": ["p", "q", "r"] * 3,
                          "freq": [5, 7, 2, 6, 8, 9, 4, 3, 7],
                          "value": [50.0, 70.0, 20.0, 60.0, 80.0, 90.0, 40.0, 30.0, 70.0]})
    table = table_from_cells(cells, ["a", "b"])
    primary = (table.cells["freq"] == 2).to_numpy()  # the inner cell (x, r)
    suppress_hypercube(mark_primary(table, primary, upl=5.0, lpl=5.0))


def _tables() -> None:
    import pandas as pd
    import pyarrow as pa

    from ..data.codes import sorted_text_codes
    from ..kernels.risk.frequencies import row_ids
    from ..tabular import Tabulation, build_partial, combine, finish_table

    # distinct rows of keys too many for a table of them (radix-sorted), with columns
    # beside them
    row_ids(np.array([[0, 70_000], [1, 5], [0, 70_000]]), np.array([1, 2, 1]))

    records = pd.DataFrame({"a": ["x", "y", "x", "y"], "v": [1.5, 2.0, 3.25, 4.0],
                            "w": [1.0, 2.0, 1.0, 3.0], "k": [0.1, 0.25, 0.5, 0.75]})
    tab = Tabulation(("a",), response="v", weight="w", key="k")
    finish_table(combine([build_partial(tab, records[:2]), build_partial(tab, records[2:])]))
    for kind in (pa.string(), pa.large_string()):  # the text codes of Arrow strings
        sorted_text_codes(pd.Series(pd.arrays.ArrowStringArray(
            pa.chunked_array([pa.array(["x", "y", "x"], type=kind)]))))


def _risk() -> None:
    from ..kernels.risk.frequencies import class_frequencies
    from ..kernels.risk.risk import _gather, class_individual_risk

    classes, fk, Fk = class_frequencies(np.array([[0, 1], [0, 1], [1, -1]]),
                                        np.array([2.0, 3.0, 4.0]))
    class_individual_risk(classes, fk, Fk)
    _gather(fk, classes)  # (the threaded spread of many records)


def _lattice() -> None:
    from ..kernels.privacy.joint_tables import joint_checks
    from ..kernels.privacy.lattice import (
        k_anonymity,
        l_diversity_target,
        search,
        t_closeness_target,
    )
    from ..kernels.privacy.model_targets import delta_presence_target
    from ..kernels.privacy.models import recursive_l_diversity
    from ..kernels.privacy.roll_up import sorted_positions

    # two records of each key with different sensitive values: tables with values
    # rolled up by their classes too
    codes = np.tile([[0, 0], [1, 0], [2, 1], [3, 1], [0, 2], [1, 3], [2, 2], [3, 3]], (2, 1))
    maps = [np.array([np.arange(4), np.arange(4) // 2, np.zeros(4, dtype=np.int64)])] * 2
    sensitive = np.array([0, 1, 2, 0, 1, 2, 0, 1, 1, 2, 0, 1, 2, 0, 1, 2])
    tree = np.array([[0], [0], [1]])
    for distance in ("equal", "hierarchical", "ordered"):  # (every EMD kernel)
        target = t_closeness_target(sensitive, 0.05, distance,
                                    tree if distance == "hierarchical" else None)
        search(codes, maps, [k_anonymity(2), target], "discernibility",
               suppression_limit=0.25)
    sorted_positions(codes[:4], np.unique(codes, axis=0))  # (delta-presence's merge)
    # delta-presence on the joint tables of data and population, a suppressed class's
    # records found by their keys (the non-uniform entropy charging suppression)
    population = np.vstack([codes, codes[:5]])
    search(codes, maps, [delta_presence_target(population, maps, 0.0, 0.6)],
           "non_uniform_entropy", suppression_limit=0.5,
           suppression_loss="arx_non_monotonic")
    # beside a target on records: the population's packed tables, classes by their keys
    search(codes, maps, [delta_presence_target(population, maps, 0.0, 0.6),
                         l_diversity_target(sensitive, 1)], "precision")
    # and a failing class's records found by their keys, at once
    targets = [k_anonymity(3)]
    node = joint_checks(targets, codes, maps)((0, 0))
    node.suppressed_units(codes, node.check(node.rules(targets), len(codes), False)[0])
    # recursive l-diversity, on records in and out of (class, value) order
    for classes in (np.array([0, 0, 1, 1]), np.array([1, 0, 1, 0])):
        recursive_l_diversity(classes, np.array([0, 1, 0, 2]), 2)


@dataclass(frozen=True)
class Family:
    """Kernels compiled together: ``name`` (what ``--only`` takes), the modules whose
    kernels it compiles, ``weight`` (about the seconds it takes, for the ETA), and the
    function that compiles them."""

    name: str
    modules: tuple[str, ...]
    weight: float
    run: Callable[[], None]


FAMILIES: tuple[Family, ...] = (
    Family("mdav", ("sdcflow.kernels.perturbative.microaggregation.mdav",
                    "sdcflow.kernels.perturbative.microaggregation.kdtree",
                    "sdcflow.kernels.perturbative.microaggregation.ranking"), 16.0, _mdav),
    Family("linkage", ("sdcflow.kernels.linkage.distance_linkage",
                       "sdcflow.kernels.linkage.pair_scan"), 3.0, _linkage),
    Family("rank_swap", ("sdcflow.kernels.perturbative.swapping.rank_swap.partners",
                         "sdcflow.kernels.perturbative.swapping.rank_swap.fenwick",
                         "sdcflow.kernels.perturbative.swapping.rank_swap.rounded_normal"), 1.6,
           _rank_swap),
    Family("record_swap", ("sdcflow.kernels.perturbative.swapping.record_swap",), 2.0, _record_swap),
    Family("rank_swap_attack", ("sdcflow.kernels.linkage.rank_swap_attack",), 3.5,
           _rank_swap_attack),
    Family("univariate", ("sdcflow.kernels.perturbative.microaggregation.univariate",), 0.4,
           _univariate),
    Family("utility", ("sdcflow.kernels.utility.kmeans",), 1.6, _utility),
    Family("secondary", ("sdcflow.tabular.hypercube",), 1.0, _secondary),
    Family("tables", ("sdcflow.tabular.exact", "sdcflow.kernels.risk.frequencies",
                      "sdcflow.kernels.string_codes", "sdcflow.kernels.tabular.cell_key"),
           1.5, _tables),
    Family("risk", ("sdcflow.kernels.risk.risk",), 0.5, _risk),
    Family("lattice", ("sdcflow.kernels.privacy.class_tables", "sdcflow.kernels.privacy.roll_up",
                       "sdcflow.kernels.privacy.lattice",
                       "sdcflow.kernels.privacy.flash", "sdcflow.kernels.privacy.joint_tables",
                       "sdcflow.kernels.privacy.models", "sdcflow.kernels.privacy.loss",
                       "sdcflow.kernels.risk.t_closeness"), 1.5, _lattice),
)


def families(only: Sequence[str] | None = None) -> list[Family]:
    """The families to compile: all, or those named in ``only`` (in this module's
    order); an unknown name raises ValueError naming the known ones."""
    if not only:
        return list(FAMILIES)
    known = {f.name for f in FAMILIES}
    unknown = [name for name in only if name not in known]
    if unknown:
        raise ValueError(f"unknown kernel famil{'ies' if len(unknown) > 1 else 'y'} "
                         f"{', '.join(unknown)}; one of: {', '.join(sorted(known))}")
    return [f for f in FAMILIES if f.name in only]


def compile_family(family: Family) -> float:
    """Compile (or load from the cache) the kernels of ``family``; returns the seconds
    it took."""
    start = time.perf_counter()
    family.run()
    return time.perf_counter() - start


def not_compiled(chosen: Sequence[Family]) -> list[str]:
    """The kernels of the modules of ``chosen`` (``module.function``) that have neither
    been compiled in this process nor have code in the cache (those inlined where called
    apart): kernels no family calls,
    which a run would still have to compile. (A kernel loaded from the cache whole with
    its caller compiles nothing itself, hence the look at the cache.)"""
    from ..kernels.jit import kernels

    modules = {m for f in chosen for m in f.modules}
    # (a kernel inlined where it is called, inline="always", is compiled in its callers
    # and never on its own)
    return sorted(f"{k.py_func.__module__}.{k.py_func.__name__}" for k in kernels()
                  if k.py_func.__module__ in modules and not k.signatures
                  and not _in_cache(k) and k.targetoptions.get("inline") != "always")


def _in_cache(dispatcher) -> bool:
    """Whether numba's cache holds an index of compiled code for ``dispatcher`` (numba's
    internals: any surprise means "no")."""
    index = getattr(getattr(getattr(dispatcher, "_cache", None), "_cache_file", None),
                    "_index_path", None)
    return isinstance(index, str) and os.path.exists(index)
