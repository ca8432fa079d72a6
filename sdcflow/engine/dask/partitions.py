"""The partitions of the input of a Dask run: the files of a directory or of a glob
pattern (Parquet, or CSV), one partition per file, in the order of their sorted paths,
so that partition ``p`` is the same file whatever the cluster."""

from __future__ import annotations

import glob
import hashlib
from pathlib import Path

from ...data import Dataset
from ...data.io import read_data, sha256_file
from ...data.recipe_files import CheckedFile, RecipeFileError, RecipeFiles
from ...data.stat_files import STAT_SUFFIXES
from ...errors import Problem, RecipeError
from ...recipe import Recipe

SUFFIXES = (".parquet", ".pq", ".csv", *STAT_SUFFIXES)


def partition_files(recipe: Recipe) -> list[CheckedFile]:
    """The files of the recipe's ``data.path``: the file itself, the data files of a
    directory (recursively), or those matching a glob pattern, each checked as every file
    a recipe names is (:mod:`sdcflow.data.recipe_files`: allowed, regular; hidden ones
    and those named ``_...`` left out of a directory or pattern); a clear error if none."""
    spec = recipe.data or {}
    if "path" not in spec:
        raise RecipeError([recipe.doc.problem(("data",), "the Dask engine reads data files "
                                              "(data.path: a file, a directory or a glob "
                                              "pattern), not shipped data sets")])
    text = str(spec["path"])
    where = ("data", "path")
    files = recipe.files
    base = recipe.base_dir / text
    try:
        if any(ch in text for ch in "*?["):
            # the folder the pattern starts from must be allowed before anything is listed
            files.folder(str(Path(*_parts(text))) if _parts(text) else ".", where,
                         "data folder")
            found = [Path(p) for p in glob.glob(str(base), recursive=True)]
        elif files.folder(text, where, "data path").is_dir():
            found = [p for p in base.rglob("*") if p.suffix.lower() in SUFFIXES]
        else:
            found = None  # one file
        if found is None:
            checked = [files.check(text, where, "data file", "data")]
        else:
            checked = [files.check(_name(p, recipe.base_dir), where, "data file", "data")
                       for p in sorted(found) if p.is_file() and not any(
                           part.startswith((".", "_")) for part in _below(p, recipe.base_dir,
                                                                          text))]
    except RecipeFileError as exc:
        raise RecipeError([recipe.doc.problem(exc.where, exc.message)]) from None
    if not checked:
        raise RecipeError([recipe.doc.problem(("data", "path"),
                                              f"no data files found at {text}")])
    return checked


def _parts(pattern: str) -> list[str]:
    """The leading parts of a glob pattern without wildcards."""
    out = []
    for part in Path(pattern).parts:
        if any(ch in part for ch in "*?["):
            break
        out.append(part)
    return out


def _below(path: Path, base: Path, text: str) -> tuple[str, ...]:
    """The parts of ``path`` below what the recipe names (its folder or pattern start)."""
    start = base / Path(*_parts(text)) if _parts(text) else base
    try:
        return path.relative_to(start).parts
    except ValueError:
        return ()


def _name(path: Path, base: Path) -> str:
    """A partition file as the manifest names it: relative to the recipe's folder."""
    return path.relative_to(base).as_posix() if path.is_relative_to(base) else str(path)


def read_partition(path: str, files: RecipeFiles, options: dict, variables: dict,
                   constraints: tuple) -> Dataset:
    """One partition as a data set of the declared variables (runs on a worker); bad
    values are reported with the file and record, as for a single file."""
    spec = {**options, "path": path}  # (the data section's format, delimiter, decimal...)
    dataset, _, findings = read_data(spec, files, variables)
    if findings:
        raise RecipeError([_problem(path, f) for f in findings])
    dataset.constraints = constraints
    return dataset


def _problem(path: str, finding) -> Problem:
    where = f"variable '{finding.path[1]}': " if finding.path and len(finding.path) > 1 else ""
    return Problem(path, None, None, f"{where}{finding.message}")


def source_entry(recipe: Recipe, files: list[CheckedFile], records: list[int]) -> dict:
    """The manifest's description of the input: every file's sha256 and records, and one
    sha256 over them all."""
    hashes = [sha256_file(p) for p in files]
    names = [p.name for p in files]
    whole = hashlib.sha256("\n".join(f"{n} {h}" for n, h in zip(names, hashes)).encode())
    return {"file": str(recipe.data["path"]), "sha256": whole.hexdigest(),
            "records": int(sum(records)),
            "partitions": [{"file": n, "sha256": h, "records": int(r)}
                           for n, h, r in zip(names, hashes, records)]}
