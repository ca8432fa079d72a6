"""The privacy targets of ``anonymize`` from its parameters: their checks against the
declarations and the data, the population file of delta-presence, and the kernel
targets of :mod:`sdcflow.kernels.privacy.lattice` and
:mod:`sdcflow.kernels.privacy.model_targets`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from ...data import Dataset
from ...data.codes import key_codes
from ...data.dataset import Metadata
from ...data.population_file import missing_column
from ...data.population_file import read_population as population_file
from ...data.recipe_files import RecipeFileError, RecipeFiles
from ...kernels.privacy import lattice
from ...kernels.privacy.model_targets import beta_likeness_target, delta_presence_target
from ...measures.risk.delta_presence import (
    DeltaPresence,
    population_counts,
    population_problems,
)
from ...measures.risk.t_closeness import hierarchy_codes
from ...plugins.limits import MAX_CELLS, count, over

Finding = tuple[tuple, str]


def read_population(params: dict, files: RecipeFiles | Path) -> tuple[dict, list[Finding]]:
    """The delta_presence target's ``population`` file, read relative to the recipe (as
    ``files`` allows): the step then carries the counts of its rows
    (``population_counts``)."""
    found = [(i, t["delta_presence"]) for i, t in enumerate(params.get("targets") or [])
             if isinstance(t, dict) and isinstance(t.get("delta_presence"), dict)]
    if not found or "population_counts" in params:
        return params, []
    i, spec = found[0]
    if not isinstance(spec.get("population"), str):
        return params, []
    try:
        frame = population_file(files, spec["population"],
                                ("targets", i, "delta_presence", "population"))
    except RecipeFileError as exc:
        return params, [(exc.where, exc.message)]
    return {**params, "population_counts": population_counts(frame)}, []


def problems(params: Mapping, meta: Metadata, keys: list[str]) -> Iterable[Finding]:
    """What the targets need of the declarations."""
    deltas = [i for i, t in enumerate(params["targets"]) if "delta_presence" in t]
    if len(deltas) > 1:
        yield ("targets",), "give delta_presence once"
    if not deltas and "population_counts" in params:
        yield ("population_counts",), ("a population is used only by a delta_presence "
                                       "target; give one or leave population_counts out")
    for i, target in enumerate(params["targets"]):
        spec = target.get("l_diversity")
        if spec is not None:
            path = ("targets", i, "l_diversity")
            if spec.get("kind") == "recursive":
                if "c" not in spec:
                    yield path, "recursive l-diversity needs c"
                if int(spec["l"]) != spec["l"]:
                    yield (*path, "l"), "recursive l-diversity needs an integer l"
            elif "c" in spec:
                yield (*path, "c"), "c goes with kind: recursive"
        spec = target.get("t_closeness")
        if spec is not None and spec.get("distance") == "hierarchical":
            var = meta.variables.get(spec["variable"])
            if var is not None and not var.hierarchy:
                yield ("targets", i, "t_closeness", "distance"), (
                    f"'{var.name}' has no hierarchy: the hierarchical distance needs one "
                    f"(declare variables.{var.name}.hierarchy)")
        spec = target.get("delta_presence")
        if spec is not None:
            path = ("targets", i, "delta_presence")
            if spec.get("delta_min", 0) > spec.get("delta_max", 1):
                yield (*path, "delta_min"), "delta_min is above delta_max"
            wrong = list(population_problems(params.get("population_counts", {})))
            for problem in wrong:
                yield (*path, "population"), problem
            if wrong:
                continue
            columns = params.get("population_counts", {}).get("columns")
            for name in keys if columns is not None else []:
                if name not in columns:
                    yield (*path, "population"), missing_column(name, columns)


def data_problems(params: Mapping, data: Dataset, keys: list[str]) -> Iterable[Finding]:
    """What the targets need of the data: the sensitive values in the sensitive
    hierarchy; the data part of the population."""
    for i, target in enumerate(params["targets"]):
        spec = target.get("t_closeness")
        if spec is not None and spec.get("distance") == "hierarchical":
            var = data.variables.get(spec["variable"])
            if var is None or not var.hierarchy or var.name not in data.frame:
                continue
            known = {str(k) for k in next(iter(var.hierarchy.values()))}
            unknown = sorted({str(v) for v in data.frame[var.name].dropna().unique()} - known)
            if unknown:
                yield ("targets", i, "t_closeness", "variable"), (
                    f"values of '{var.name}' missing from its hierarchy: {unknown[:5]}")
        counts = params.get("population_counts")
        if "delta_presence" in target and counts is not None and all(
                k in counts["columns"] for k in keys) and not any(population_problems(counts)):
            # the search generalises the population's records at every node it checks
            cells = sum(counts["counts"]) * max(len(keys), 1)
            if cells > MAX_CELLS:
                yield ("targets", i, "delta_presence", "population"), (
                    f"the population's {count(sum(counts['counts']))} records, "
                    f"{len(keys)} key values each, make {over(cells, 'cells', MAX_CELLS)}")
                return
            for name in keys:
                if data.variables[name].is_numeric:
                    text = pd.Series([row[counts["columns"].index(name)]
                                      for row in counts["rows"]], dtype=object)
                    bad = text.notna() & pd.to_numeric(text, errors="coerce").isna()
                    if bad.any():
                        yield ("targets", i, "delta_presence", "population"), (
                            f"the population's '{name}' holds values that are not numbers: "
                            f"{sorted(map(str, text[bad].unique()))[:5]}")
                        return
            measure = DeltaPresence()
            _, _, problem = measure._classes(
                {"variables": keys, "population_counts": counts}, data)
            if problem:
                yield ("targets", i, "delta_presence", "population"), problem


def population_frame(params: Mapping, data: Dataset, keys: list[str]) -> pd.DataFrame:
    """The population's records (one row per person) with the key variables typed as
    the data's."""
    counts = params["population_counts"]
    rows = pd.DataFrame(counts["rows"], columns=list(counts["columns"]), dtype=object)
    rows = rows.loc[np.repeat(np.arange(len(rows)), counts["counts"])].reset_index(drop=True)
    out = {}
    for name in keys:
        if data.variables[name].is_numeric:
            out[name] = pd.to_numeric(rows[name], errors="coerce")
        else:
            out[name] = rows[name]
    return pd.DataFrame(out)


def kernel_targets(params: Mapping, data: Dataset, population: np.ndarray | None,
                   maps: list[np.ndarray]) -> tuple[list[lattice.Target], int]:
    """The search's targets and the k of k-anonymity (1 without); ``population``: the
    population's level-0 key codes when a delta_presence target is given."""
    targets, k = [], 1
    for t in params["targets"]:
        (kind, spec), = t.items()
        if kind == "k_anonymity":
            k = spec
            targets.append(lattice.k_anonymity(k))
        elif kind == "average_risk":
            targets.append(lattice.average_risk(spec))
        elif kind == "delta_presence":
            targets.append(delta_presence_target(population, maps, spec.get("delta_min", 0),
                                                 spec.get("delta_max", 1)))
        else:
            name = spec["variable"]
            sens = key_codes(data.frame, [name])[:, 0]
            if kind == "l_diversity":
                targets.append(lattice.l_diversity_target(
                    sens, spec["l"], spec.get("kind", "distinct"), spec.get("c")))
            elif kind == "beta_likeness":
                targets.append(beta_likeness_target(sens, spec["beta"]))
            elif spec.get("distance") == "hierarchical":
                codes, tree = hierarchy_codes(data.frame[name], data.variables[name].hierarchy)
                targets.append(lattice.t_closeness_target(codes, spec["t"], "hierarchical",
                                                          tree))
            else:
                targets.append(lattice.t_closeness_target(sens, spec["t"],
                                                          spec.get("distance", "equal")))
    return targets, k
