"""``delta_presence``: how surely an intruder who holds the population can tell that a
person is in the released research sample (Nergiz, Atzori & Clifton (2007), "Hiding the
Presence of Individuals from Shared Databases", SIGMOD): for a person of the population
whose key combination is that of an equivalence class of the release, the probability
of being in the sample is the number of sample records of the class over the number of
population records of the class; the release is delta-present for
``(delta_min, delta_max)`` when every class's probability lies within. The formula is in
:func:`sdcflow.kernels.privacy.models.delta_presence`. Every class of the *population* is
checked (Nergiz et al. generalise the whole public table): a key combination of the
population that no record of the data has is a class of probability 0, which violates any
``delta_min > 0`` (as in ARX, whose DPresence gives such a class delta 0).

The population is a CSV file (``population``, read relative to the recipe) holding the
key variables coded as the data at this step (generalised the same way); it is read when
the recipe is validated, and the step carries the counts of its key combinations
(``population_counts``), so that the manifest and the cache key hold it. Equivalence
classes are records with exactly the same key combination, a missing value being a
category of its own."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd

from ...data.codes import key_codes
from ...data.dataset import Metadata
from ...data.population_file import missing_column, read_population
from ...data.recipe_files import RecipeFileError, RecipeFiles
from ...data.text import text_column
from ...errors import PluginError
from ...kernels.privacy.models import delta_presence
from ...kernels.risk.frequencies import row_ids
from ...plugins.plain_words import figure
from ...plugins.registry import Finding, Measure, MeasureResult, register
from ...plugins.results import COUNT, NAMES, NUMBER, Record
from .frequencies import VARIABLES_PARAM, key_variables

_MISSING = "\x00missing"  # a missing key value: a category of its own on both sides


# The schema of a population file's key combinations and their counts, as read_files
# stores them in a step's parameters (also anonymize's delta_presence target).
POPULATION_COUNTS = {
    "type": "object", "additionalProperties": False,
    "required": ["columns", "rows", "counts"],
    "properties": {
        "columns": {"type": "array", "items": {"type": "string"}, "uniqueItems": True,
                    "description": "The key variables."},
        "rows": {"type": "array", "items": {
            "type": "array", "items": {"type": ["string", "number", "boolean", "null"]}},
            "description": "Each key combination of the population, a value per column."},
        # (a count beyond any population: 10^12 people)
        "counts": {"type": "array", "items": {"type": "integer", "minimum": 1,
                                              "maximum": 10**12},
                   "description": "The population's records of each combination (rows)."},
    },
}


def population_problems(counts: Mapping) -> Iterator[str]:
    """What makes a population's ``population_counts`` unusable beyond its schema: a
    count for each row, each row a value for each column."""
    columns, rows = counts.get("columns", []), counts.get("rows", [])
    if len(rows) != len(counts.get("counts", [])):
        yield (f"the population has {len(rows)} rows of key values but "
               f"{len(counts.get('counts', []))} counts: give one count per row")
    for i, row in enumerate(rows):
        if len(row) != len(columns):
            yield (f"row {i + 1} of the population has {len(row)} values for its "
                   f"{len(columns)} columns ({', '.join(columns) or 'none'})")
            return

@register
class DeltaPresence(Measure):
    name = "delta_presence"
    version = "2"  # 2: classes of the population without a sample record count (delta 0)
    risk_measure = True
    counts_combinations = True
    summary = ("delta-presence: for each key combination, the share of its population "
               "records that are in the released sample.")
    roles = ("key",)
    # the population's key combinations stay internal (a register may not be public)
    public_params = ("variables", "population", "delta_min", "delta_max")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": VARIABLES_PARAM,
            "population": {
                "type": "string", "minLength": 1,
                "description": "CSV file of the population (relative to the recipe) with "
                               "the key variables as columns, coded as the data at this "
                               "step.",
            },
            "population_counts": {
                **POPULATION_COUNTS,
                "description": "The population's key combinations and their counts (filled "
                               "from 'population' when the recipe is read).",
            },
            "delta_min": {"type": "number", "minimum": 0, "maximum": 1, "default": 0,
                          "description": "Lower bound of the probability of presence."},
            "delta_max": {"type": "number", "minimum": 0, "maximum": 1, "default": 1,
                          "description": "Upper bound of the probability of presence."},
        },
    }

    def explain(self, params, result):
        if not isinstance(result, dict) or "max" not in result:
            return self.summary
        text = (f"Knowing the population, an intruder can tell that a person is in the data "
                f"with probability at most {figure(result['max'])} (delta-presence; Nergiz "
                "et al. 2007).")
        if result.get("classes_outside"):
            text += (f" {figure(result['classes_outside'])} classes of the population lie "
                     f"outside [{figure(result['delta_min'])}, {figure(result['delta_max'])}]"
                     f", {figure(result.get('absent_classes', 0))} of them without a record "
                     "of the data.")
        return text

    def variables(self, params: Mapping, meta: Metadata) -> list[str]:
        return key_variables(params, meta)

    def read_files(self, params: dict, files: RecipeFiles | Path) -> tuple[dict, list]:
        """``population`` read relative to the recipe (as ``files`` allows): the step
        then carries the counts of the population's rows (``population_counts``)."""
        if "population" not in params or "population_counts" in params:
            return params, []
        try:
            frame = read_population(files, params["population"], ("population",))
        except RecipeFileError as exc:
            return params, [(exc.where, exc.message)]
        return {**params, "population_counts": population_counts(frame)}, []

    def check(self, params: Mapping, meta: Metadata) -> Iterator[Finding]:
        keys = self.variables(params, meta)
        if not keys:
            yield ("variables",), "no key variables: declare variables with role 'key'"
        if params.get("delta_min", 0) > params.get("delta_max", 1):
            yield ("delta_min",), "delta_min is above delta_max"
        counts = params.get("population_counts")
        if counts is None:
            if "population" not in params:
                yield (), "give the population file ('population')"
            return
        where = ("population",) if "population" in params else ("population_counts",)
        problems = list(population_problems(counts))
        for problem in problems:
            yield where, problem
        if problems:
            return
        columns = counts.get("columns", [])
        for name in keys:
            if name not in columns:
                yield where, missing_column(name, columns)

    def check_data(self, params, data):
        counts = params.get("population_counts")
        keys = self.variables(params, data.meta)
        if counts is None or any(k not in counts.get("columns", []) for k in keys) \
                or any(population_problems(counts)):
            return
        _, _, problem = self._classes(params, data)
        if problem:
            yield (("population",) if "population" in params else ("population_counts",),
                   problem)

    def result_shape(self, params, meta):
        return Record({"variables": NAMES, "records": COUNT, "classes": COUNT,
                       "population_records": COUNT, "population_classes": COUNT,
                       "absent_classes": COUNT, "min": NUMBER, "max": NUMBER,
                       "delta_min": NUMBER, "delta_max": NUMBER, "outside": COUNT,
                       "outside_percent": NUMBER, "classes_outside": COUNT})

    def _classes(self, params, data) -> tuple[np.ndarray, np.ndarray, str | None]:
        """Class ids of the records and of the population (one per distinct row of
        ``population_counts``, which says how many records it stands for), and what is
        wrong, if anything, with the sample against the population."""
        keys = self.variables(params, data.meta)
        counts = params["population_counts"]
        columns = list(counts["columns"])
        pop = pd.DataFrame(counts["rows"], columns=columns, dtype=object)
        sample = pd.DataFrame({k: key_text(data.frame[k], data.variables.get(k)) for k in keys})
        pop_keys = pd.DataFrame({k: key_text(pop[k], data.variables.get(k)) for k in keys})
        both = pd.concat([sample, pop_keys], ignore_index=True)
        ids, _ = row_ids(key_codes(both, keys))
        n = len(sample)
        # one id per distinct population row, with its count (never a row per person: a
        # population may hold billions)
        pop_ids = ids[n:]
        sample_ids = ids[:n]
        size = int(ids.max(initial=-1)) + 1
        have = np.bincount(sample_ids, minlength=size)
        pop_have = np.zeros(size, dtype=np.int64)
        np.add.at(pop_have, pop_ids, np.asarray(counts["counts"], dtype=np.int64))
        wrong = np.flatnonzero(have > pop_have)
        if wrong.size:
            c = int(wrong[0])
            record = int(np.flatnonzero(sample_ids == c)[0])
            combo = {k: (None if v == _MISSING else v) for k, v in sample.iloc[record].items()}
            return sample_ids, pop_ids, (
                f"{int(have[c])} records of the data have the key combination {combo} "
                f"(the first: record {record + 1}), the population {int(pop_have[c])}: the "
                "data must be a sample of the population, coded as it")
        return sample_ids, pop_ids, None

    def evaluate(self, data, params, rng, *, original):
        """Per record ``delta_presence``, the probability of presence of its class; in the
        summary the number of ``classes`` of the data and of the population
        (``population_classes``; ``absent_classes`` of them without a record of the data,
        probability 0), the ``population_records``, the smallest and largest probability
        over the classes of the population (``min``, ``max``; ``min`` is 0 when a class is
        absent from the data), the records whose class lies outside ``[delta_min,
        delta_max]`` (``outside``) and the classes of the population outside, absent
        ones included (``classes_outside``: the release is delta-present when it is 0)."""
        keys = self.variables(params, data.meta)
        sample_ids, pop_ids, problem = self._classes(params, data)
        if problem:
            raise PluginError(self.name, problem)
        n = len(data)
        size = int(max(sample_ids.max(initial=-1), pop_ids.max(initial=-1))) + 1
        delta = delta_presence(sample_ids, pop_ids, n_classes=size,
                               population_counts=params["population_counts"]["counts"])
        per_record = delta[sample_ids]
        lo, hi = params.get("delta_min", 0), params.get("delta_max", 1)

        def out_of_range(x: np.ndarray) -> np.ndarray:
            return (x < lo * (1 - 1e-12)) | (x > hi * (1 + 1e-12))

        outside = out_of_range(per_record)
        # the data are part of the population: its classes are the population's
        in_population = np.bincount(pop_ids, weights=np.asarray(
            params["population_counts"]["counts"], dtype=float), minlength=size) > 0
        in_sample = np.bincount(sample_ids, minlength=size) > 0
        class_delta = delta[in_population]
        summary = {"variables": keys, "records": n,
                   "classes": int(in_sample.sum()),
                   "population_records": sum(params["population_counts"]["counts"]),
                   "population_classes": int(in_population.sum()),
                   "absent_classes": int((in_population & ~in_sample).sum()),
                   "min": float(class_delta.min()) if class_delta.size else 0.0,
                   "max": float(class_delta.max()) if class_delta.size else 0.0,
                   "delta_min": lo, "delta_max": hi,
                   "outside": int(outside.sum()),
                   "outside_percent": round(100.0 * outside.sum() / n, 3) if n else 0.0,
                   "classes_outside": int(out_of_range(class_delta).sum())}
        return MeasureResult(summary, pd.DataFrame({"delta_presence": per_record},
                                                   index=data.frame.index))


def population_counts(frame: pd.DataFrame) -> dict:
    """The distinct rows of a population file (text, None for missing) and their counts."""
    columns = [str(c) for c in frame.columns]
    if frame.empty:
        return {"columns": columns, "rows": [], "counts": []}
    grouped = frame.fillna(_MISSING).value_counts(sort=False).sort_index()
    rows = [[None if v == _MISSING else v for v in (idx if isinstance(idx, tuple) else (idx,))]
            for idx in grouped.index]
    return {"columns": columns, "rows": rows, "counts": [int(c) for c in grouped.to_numpy()]}


def key_text(column: pd.Series, var) -> pd.Series:
    """A key column as text to match the data with the population: numbers written the
    same on both sides (``30`` for 30 and 30.0), missing values as a category."""
    if var is not None and var.is_numeric:
        x = pd.to_numeric(pd.Series(column, dtype=object), errors="coerce").astype(float)
        values = x.to_numpy()
        seen = ~np.isnan(values)
        whole = np.zeros(values.size, dtype=bool)
        whole[seen] = values[seen] == np.round(values[seen])
        out = np.full(values.size, _MISSING, dtype=object)
        out[whole] = [str(int(v)) for v in values[whole]]
        rest = seen & ~whole
        out[rest] = [repr(float(v)) for v in values[rest]]
        return pd.Series(out, dtype=object)
    text = pd.Series(column, dtype=object).reset_index(drop=True)
    return text_column(text).fillna(_MISSING).astype(object)
