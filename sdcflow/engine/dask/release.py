"""Writing the outputs of a Dask run: the release as one file per partition
(``public/<release path>/part-00000.parquet`` ...), written by the workers into the
directory being built, then the manifests, measures and reports as the in-memory engine
writes them. The household id is replaced by the same numbers the in-memory engine
gives (households numbered 1 .. H in the order of a digest of their released records: see
:func:`sdcflow.data.households.new_ids`), which needs only each partition's digests."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ...data import write_table
from ...data.households import household_digests, household_units, released_numbers_of
from ...data.io import sha256_file, table_format
from ...data.release_numbers import release_rounding, released_numbers
from ...recipe.tables import release_source, released_table


def write_release(tmp: Path, validated, result, run, view: dict) -> None:
    """Every output of the run into ``tmp`` (the directory being built)."""
    from ..runner import PUBLIC, _households_entry, _write_outputs, release_labels

    recipe, client = validated.recipe, run.client
    release = recipe.release
    released: dict[str, str] = {}
    household = [n for n, v in recipe.variables.items() if v.role == "household" and n in view]
    replace = len(household) == 1 and release.get("household_ids", "replace") != "keep"
    numbers, offsets = None, None
    data = run._data(view)
    if replace:
        digests = client.gather([client.submit(_households, d, household[0],
                                               release_rounding(recipe), pure=False)
                                 for d in data])
        # the in-memory engine's numbers: every household's digest ranked over the file
        numbers = released_numbers_of(np.concatenate(digests)) if digests else \
            np.zeros(0, dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum([len(d) for d in digests])])
    if "path" in release:
        rel = Path(release["path"])
        fmt = table_format(release, rel)
        ext = f".{fmt}"  # each partition a file of the format, with the input's labels
        labels = release_labels(validated)
        futures = []
        for p, d in enumerate(data):
            path = tmp / PUBLIC / rel / f"part-{p:05d}{ext}"
            ids_path = tmp / "household-ids" / f"part-{p:05d}.csv" if replace else None
            mine = numbers[offsets[p]:offsets[p + 1]] if replace else None
            futures.append(client.submit(_write_part, d, str(path), fmt,
                                         household[0] if replace else None, mine,
                                         str(ids_path) if ids_path else None,
                                         release_rounding(recipe), labels, pure=False))
        run._wait(futures)
        for p, digest in enumerate(client.gather(futures)):
            released[f"{rel.as_posix()}/part-{p:05d}{ext}"] = digest
    if replace:
        entry = _households_entry(recipe, pd.DataFrame({"original": []}), pd.DataFrame(
            columns=[household[0]]))
        entry["household_ids"]["households"] = int(offsets[-1])
        result.manifest.update(entry)
        if result.public_manifest is not None:
            result.public_manifest["household_ids"] = {
                k: v for k, v in entry["household_ids"].items() if k != "households"}
    tables = {}
    for tid in release.get("tables", {}):
        source = release_source(recipe, tid)  # (a linked table: its table of linked tables)
        last = [s.node for s in validated.plan.steps if s.step.table == source]
        tables[tid] = (released_table(recipe, tid, source, run.tables[last[-1]]) if last
                       else run.table(recipe.tables[tid], view))
    _write_outputs(tmp, validated, result, tables, 0, released=released)


def _households(data, name: str, rounding: tuple) -> np.ndarray:
    """The digest of each household of a partition (as the release writes its records)."""
    frame = data.for_release().reset_index(drop=True)
    units, count = household_units(frame[name])
    return household_digests(released_numbers(frame.drop(columns=[name]), *rounding), units,
                             count)


def _write_part(data, path: str, fmt: str, household: str | None, numbers,
                ids_path: str | None, rounding: tuple, labels: dict | None = None) -> str:
    """One partition of the release (identifiers left out; the household id replaced);
    returns the file's sha256."""
    frame = data.for_release().reset_index(drop=True)
    if household is not None:
        original = frame[household]
        units, count = household_units(original)
        # as sdcflow.data.households.new_ids, with this partition's share of the numbers
        out = np.char.mod("%d", numbers)[units].astype(object) if count else \
            np.empty(len(frame), dtype=object)
        out[original.isna().to_numpy()] = None
        frame = frame.copy()
        frame[household] = pd.Series(out, index=frame.index, dtype=original.dtype)
        mapping = pd.DataFrame({"original": original, "released": frame[household]})
        write_table(mapping.dropna().drop_duplicates().reset_index(drop=True),
                    Path(ids_path), "csv")
    write_table(released_numbers(frame, *rounding), Path(path), fmt, labels)
    return sha256_file(Path(path))

