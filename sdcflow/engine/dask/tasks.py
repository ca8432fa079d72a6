"""What the workers of a Dask run execute: module-level functions of partitions (pandas
data frames of some columns) and small picklable values. They know nothing of the
cluster; :mod:`sdcflow.engine.dask.runner` submits them and combines their results."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...data import Dataset
from ...data.households import collapse, expand, household_units
from ...plugins import registry
from ...plugins.registry import MethodResult
from ..execution import _call, check_step_data, step_rng
from ..output_checks import method_output


@dataclass(frozen=True)
class Job:
    """What a task needs of a planned step (a planned step itself holds the whole
    recipe): read by the engine's output checks as a planned step is."""

    node: str
    kind: str
    plugin_name: str
    params: dict
    writes: tuple | None
    result_nodes: tuple = ()
    sees_loaded_data: bool = True

    @property
    def step(self) -> Job:
        return self

    @property
    def plugin(self) -> registry.Plugin:
        return registry.get(self.plugin_name)


def partition_rng(seed: int, node: str, part: str) -> np.random.Generator:
    """The generator of step ``node`` on partition (or stratum) ``part``: from the recipe
    seed, the step and the partition only, never from the worker."""
    return step_rng(seed, f"{node}\x00{part}")


def frame_of(pieces: list[tuple[pd.DataFrame, list[str]]], order: list[str]) -> pd.DataFrame:
    """The columns ``order`` taken from the frames that hold them (each piece: a frame of
    one step's output and the columns wanted from it)."""
    columns = {}
    for frame, names in pieces:
        for n in names:
            columns[n] = frame[n]
    return pd.DataFrame({n: columns[n] for n in order if n in columns},
                        index=pd.RangeIndex(len(pieces[0][0])) if pieces else None)


def dataset(pieces, order, meta: dict, constraints: tuple) -> Dataset:
    frame = frame_of(pieces, order)
    return Dataset(frame, {c: meta[c] for c in frame.columns}, constraints)


def _households(job: Job, data: Dataset):
    """(units, households, id column) when the method runs once per household, else None."""
    ids = [n for n in data.meta.names("household") if n in data.frame]
    level = [c for c in job.writes or () if c in data.variables  # (a new variable: no)
             and data.variables[c].level == "household"]
    if job.plugin.households != "per_household" or not level or len(ids) != 1:
        return None
    units, count = household_units(data.frame[ids[0]])
    return units, count, ids[0]


def _once(data: Dataset, how) -> Dataset:
    units, count, hid = how
    cols = [c for c in data.frame.columns if c != hid]
    return Dataset(collapse(data.frame[cols], units, count),
                   {c: data.variables[c] for c in cols}, data.constraints)


def fit_partial(job: Job, rnd: int, data: Dataset, state):
    """Round ``rnd`` of a row-local method's fit on one partition (on one record per
    household when the method acts once per household)."""
    how = _households(job, data)
    return job.plugin.partial(rnd, _once(data, how) if how else data, job.params, state)


def apply_rows(job: Job, data: Dataset, seed: int, part: str, state):
    """A row-local method on one partition: (output columns, their metadata, info)."""
    rng = partition_rng(seed, job.node, part)
    plugin = job.plugin
    how = _households(job, data)

    def run(d: Dataset) -> MethodResult:
        result = _guarded(job, lambda: plugin.apply_fitted(d, job.params, rng, state))
        if not isinstance(result, MethodResult):
            raise TypeError(f"apply_fitted() returned {type(result).__name__}")
        return result

    if how is None:
        return method_output(job, data, run(data))
    once = _once(data, how)
    frame, meta, info = method_output(job, once, run(once))
    return expand(frame, how[0]), meta, {**info, "households": how[1]}


def apply_whole(job: Job, data: Dataset, seed: int, part: str):
    """A method on the records of one stratum (or on all of them): as in memory."""
    from ..execution import _apply_method

    # the whole data: the in-memory engine's generator, so the result is the same
    if part == "whole":
        check_step_data(job, data)  # (a stratum is checked as part of the whole data)
    rng = step_rng(seed, job.node) if part == "whole" else partition_rng(seed, job.node, part)
    return _apply_method(job, data, rng)


def _guarded(job: Job, call):
    """Plugin errors name the step; anything unexpected is a bug (as in memory)."""
    from ...errors import InternalError, PluginError, RecipeError

    try:
        return call()
    except (PluginError, RecipeError):
        raise
    except MemoryError:
        raise PluginError(job.node, f"{job.plugin_name} ran out of memory on a partition; "
                          "use smaller partitions") from None
    except Exception as exc:
        raise InternalError(f"step '{job.node}': {job.plugin_name} failed unexpectedly: "
                            f"{type(exc).__name__}: {exc}") from exc


def measure_partial(job: Job, rnd: int, data: Dataset, state, original: Dataset):
    return _guarded(job, lambda: job.plugin.partial(rnd, data, job.params, state,
                                                    original=original))


def evaluate_whole(job: Job, data: Dataset, seed: int, original: Dataset, results: dict):
    """A measure on collected columns, as in memory."""
    check_step_data(job, data)
    return _call(job, data, step_rng(seed, job.node), original, results)


# ------------------------------------------------------------------------------ strata

def stratum_pieces(frame: pd.DataFrame, strata: list[str]) -> dict:
    """The positions of each stratum's records in a partition, by stratum label (a
    tuple of values as text, missing as None)."""
    if not len(frame):
        return {}
    keys = [frame[s].astype("object").where(frame[s].notna(), None).map(
        lambda v: None if v is None else str(v)) for s in strata]
    labels = pd.MultiIndex.from_arrays(keys) if len(keys) > 1 else pd.Index(keys[0])
    groups = pd.Series(np.arange(len(frame))).groupby(
        labels.to_flat_index() if len(keys) > 1 else labels, dropna=False, sort=False).indices
    out = {}
    for label, pos in groups.items():
        label = label if isinstance(label, tuple) else (label,)
        label = tuple(None if (isinstance(v, float) and np.isnan(v)) else v for v in label)
        out[label] = np.asarray(pos, dtype=np.int64)
    return out


def labels_of(pieces: dict) -> list:
    return list(pieces)


def take(data: Dataset, positions: np.ndarray) -> pd.DataFrame:
    return data.frame.iloc[positions].reset_index(drop=True)


def run_stratum(job: Job, parts: list[pd.DataFrame], meta: dict, constraints: tuple,
                seed: int, label: tuple):
    """The method on one stratum's records brought together from every partition that
    holds some (in partition order): (output frame, metadata, info)."""
    frame = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    data = Dataset(frame, {c: meta[c] for c in frame.columns}, constraints)
    return apply_whole(job, data, seed, "stratum " + repr(label))


def assemble(records: int, results: list, places: list) -> pd.DataFrame:
    """A partition's output columns from the strata results: ``places[i]`` = (the
    positions of stratum i's records in this partition, where they start in its result)."""
    frames = []
    index = []
    for (frame, _, _), (positions, start) in zip(results, places):
        frames.append(frame.iloc[start:start + len(positions)])
        index.append(positions)
    if not frames:
        return pd.DataFrame(index=pd.RangeIndex(records))
    out = pd.concat(frames, ignore_index=True)
    order = np.argsort(np.concatenate(index), kind="stable")
    return out.iloc[order].reset_index(drop=True)


def rows_of(data) -> int:
    return len(data.frame if isinstance(data, Dataset) else data)


def column_bytes(data: Dataset) -> int:
    return int(data.frame.memory_usage(deep=True).sum())


def first(result):
    return result[0]


# ------------------------------------------------------------- small tasks of the runner

def id_hashes(frame, name):
    """The distinct household ids of a partition, hashed to 64 bits."""
    from ...data import text_column

    ids = text_column(frame[name].dropna()).unique()
    return np.unique(pd.util.hash_array(np.asarray(ids, dtype=object)))


def slice_rows(result, start, n):
    frame, meta, info = result
    return frame.iloc[start:start + n].reset_index(drop=True), meta, info


def meta_info(out):
    return out[1], out[2]


def pieces_of(data, strata):
    return stratum_pieces(data.frame, strata)


def sizes(pieces):
    return {label: len(pos) for label, pos in pieces.items()}


def take_label(data, pieces, label):
    return take(data, pieces[label])


def meta_of(data):
    return dict(data.variables)


def assemble_partition(records, pieces, labels, results, places):
    return (assemble(records, results, [(pieces[lab], start)
                                              for lab, start in zip(labels, places)]),
            results[0][1] if results else {}, {})


def info_of(result):
    return result[2]


def concat(datasets):
    first = datasets[0]
    frame = pd.concat([d.frame for d in datasets], ignore_index=True)
    return Dataset(frame, dict(first.variables), first.constraints)


def frame_hash(frame) -> str:
    from ..fingerprint import column_hash

    return hashlib.sha256("".join(column_hash(frame[c]) for c in frame.columns)
                          .encode()).hexdigest()


def table_partial(tabulation, data):
    """The map step of a table build on one partition."""
    from ...tabular import build_partial

    return build_partial(tabulation, data.frame)
