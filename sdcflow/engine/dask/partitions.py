"""The partitions of the input of a Dask run: the files of a directory or of a glob
pattern (Parquet, or CSV), one partition per file, in the order of their sorted paths,
so that partition ``p`` is the same file whatever the cluster."""

from __future__ import annotations

import glob
import hashlib
from pathlib import Path

from ...data import Dataset
from ...data.io import read_data, sha256_file
from ...data.stat_files import STAT_SUFFIXES
from ...errors import Problem, RecipeError
from ...recipe import Recipe

SUFFIXES = (".parquet", ".pq", ".csv", *STAT_SUFFIXES)


def partition_files(recipe: Recipe) -> list[Path]:
    """The files of the recipe's ``data.path``: the file itself, the data files of a
    directory (recursively), or those matching a glob pattern; a clear error if none."""
    spec = recipe.data or {}
    if "path" not in spec:
        raise RecipeError([recipe.doc.problem(("data",), "the Dask engine reads data files "
                                              "(data.path: a file, a directory or a glob "
                                              "pattern), not shipped data sets")])
    text = str(spec["path"])
    base = recipe.base_dir / text
    if any(ch in text for ch in "*?["):
        files = [Path(p) for p in glob.glob(str(base), recursive=True)]
    elif base.is_dir():
        files = [p for p in base.rglob("*") if p.suffix.lower() in SUFFIXES]
    else:
        files = [base]
    files = sorted(p for p in files if p.is_file() and not p.name.startswith((".", "_")))
    if not files:
        raise RecipeError([recipe.doc.problem(("data", "path"),
                                              f"no data files found at {base}")])
    return files


def read_partition(path: str, base_dir: str, options: dict, variables: dict,
                   constraints: tuple) -> Dataset:
    """One partition as a data set of the declared variables (runs on a worker); bad
    values are reported with the file and record, as for a single file."""
    spec = {**options, "path": path}  # (the data section's format, delimiter, decimal...)
    dataset, _, findings = read_data(spec, Path(base_dir), variables)
    if findings:
        raise RecipeError([_problem(path, f) for f in findings])
    dataset.constraints = constraints
    return dataset


def _problem(path: str, finding) -> Problem:
    where = f"variable '{finding.path[1]}': " if finding.path and len(finding.path) > 1 else ""
    return Problem(path, None, None, f"{where}{finding.message}")


def source_entry(recipe: Recipe, files: list[Path], records: list[int]) -> dict:
    """The manifest's description of the input: every file's sha256 and records, and one
    sha256 over them all."""
    hashes = [sha256_file(p) for p in files]
    names = [p.relative_to(recipe.base_dir).as_posix() if p.is_relative_to(recipe.base_dir)
             else str(p) for p in files]
    whole = hashlib.sha256("\n".join(f"{n} {h}" for n, h in zip(names, hashes)).encode())
    return {"file": str(recipe.data["path"]), "sha256": whole.hexdigest(),
            "records": int(sum(records)),
            "partitions": [{"file": n, "sha256": h, "records": int(r)}
                           for n, h, r in zip(names, hashes, records)]}
