"""``schema_linkage``: record linkage when the intruder's file has other variables than the
release (knowledge-intensive disclosure risk assessment: Torra, "Towards the
re-identification of individuals in data files with non-common variables", ECAI 2000;
Domingo-Ferrer & Torra, "Disclosure risk assessment in statistical microdata protection
via advanced record linkage", Statistics and Computing 13, 2003; Torra & Domingo-Ferrer,
"Record linkage methods for multidatabase data mining", 2003). A file that names and
codes its variables otherwise is not unlinkable: once its variables are put in
correspondence with the release's, it links as any other.

The correspondence is declared (``mapping``: each release variable and the intruder's
column it corresponds to, with a map of the intruder's codes to the release's and, where
the two files code a variable at different granularity, the release variable's taxonomy:
both sides are taken to their common, coarser level), or, when none is declared, proposed
from the value distributions (:mod:`sdcflow.kernels.linkage.schema_matching`: sorted
frequency profiles of categorical variables, Kolmogorov-Smirnov distance of standardised
numeric ones, the assignment of least total distance). Records are then linked on the
mapped pairs and matched by an identifier kept in both files, as ``partial_linkage``: the
rate is over the individuals in both files. The result says which variables linked: each
pair used, how it was found, and how often it agrees among the true pairs of records
against by chance.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd

from ...data.csv_input import csv_frame
from ...data.dataset import Dataset, Metadata
from ...data.io import BUILTIN_DATASETS, builtin_path
from ...data.recipe_files import RecipeFileError, RecipeFiles, as_files, quotable
from ...errors import PluginError, did_you_mean
from ...kernels.linkage.coordinates import standardize
from ...kernels.linkage.schema_matching import (
    agreement,
    schema_links,
    standardised,
)
from ...kernels.semantic.taxonomy import TaxonomyError
from ...plugins.distribution import Whole
from ...plugins.limits import MAX_CELLS, over
from ...plugins.plain_words import figure
from ...plugins.registry import Finding, Measure, MeasureResult, register, variables_param
from ...plugins.results import COUNT, NAMES, NUMBER, TEXT, ListOf, Record, Text
from . import _schema_pairs as schema_pairs
from .matched import MatchedById, id_problem
from .record_linkage import links_frame

_MAX_PAIR_TERMS = 40 * MAX_CELLS  # as partial_linkage: pairs x variables evaluated

CODE = {"type": ["string", "number", "integer", "boolean"]}
MAPPING_ENTRY = {
    "type": "object", "additionalProperties": False, "required": ["variable", "intruder"],
    "properties": {
        "variable": {"type": "string", "description": "The release's variable."},
        "intruder": {"type": "string",
                     "description": "The column of the intruder's file it corresponds to."},
        "codes": {"type": "object", "additionalProperties": CODE,
                  "description": "Categorical: each code of the intruder's column -> the "
                                 "release's code (or a concept of the release variable's "
                                 "taxonomy) it stands for; every code of the column must be "
                                 "mapped (default: the codes are the same)."},
        "taxonomy": {"type": "boolean", "default": False,
                     "description": "Categorical: the files code the variable at different "
                                    "granularity; take both to their common level in the "
                                    "release variable's taxonomy (or hierarchy)."},
        "factor": {"type": "number", "exclusiveMinimum": 0,
                   "description": "Numeric: the intruder's values times this are in the "
                                  "release's units (12 for months against years...): both "
                                  "files are then standardised with the release's means "
                                  "and standard deviations (default: units unknown, each "
                                  "file with its own)."},
        "level": {"type": "integer", "minimum": 0, "maximum": 100,
                  "description": "With taxonomy: the depth (edges from the root) both sides "
                                 "are taken to (default: the deepest level every value of "
                                 "both files reaches, the coarser file's)."},
    },
}
INTRUDER_DATA = {
    "type": "object", "additionalProperties": False, "required": ["columns"],
    "properties": {"columns": {
        "type": "object",
        "additionalProperties": {"type": "array", "items": {"type": ["string", "null"]}},
        "description": "Each column of the intruder's file, its values as text (null: "
                       "missing)."}},
}


@register
class SchemaLinkage(MatchedById, Measure):
    distribution = Whole()  # every released record against every intruder record
    name = "schema_linkage"
    version = "1"
    risk_measure = True
    summary = ("Record linkage against an intruder's file with other variables and codes: a "
               "declared or proposed mapping of the variables; which variables linked.")
    default_roles = ("key", "numeric")
    # the intruder's file stays internal (it is data); the mapping and the options are
    # what a reader needs to understand the figure
    public_params = ("intruder", "match_on", "intruder_match_on", "mapping", "variables",
                     "max_distance", "proposal_codes", "tolerance")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "intruder": {
                "type": "object", "additionalProperties": False, "minProperties": 1,
                "maxProperties": 1,
                "properties": {
                    "path": {"type": "string", "minLength": 1,
                             "description": "CSV file relative to the recipe."},
                    "builtin": {"enum": sorted(BUILTIN_DATASETS),
                                "description": "A shipped data set."}},
                "description": "The intruder's file (CSV, its own variable names and "
                               "codes): a path relative to the recipe, or a shipped data "
                               "set."},
            "intruder_data": {**INTRUDER_DATA,
                              "description": "The intruder's file as read (filled from "
                                             "'intruder' when the recipe is read)."},
            "match_on": {"type": "string",
                         "description": "The release's variable identifying the "
                                        "individuals (default: the one variable with role "
                                        "identifier); unique, never missing."},
            "intruder_match_on": {"type": "string",
                                  "description": "The intruder's column identifying the "
                                                 "same individuals (default: the name of "
                                                 "match_on)."},
            "mapping": {"type": "array", "minItems": 1, "items": MAPPING_ENTRY,
                        "description": "The declared correspondence of the variables "
                                       "(default: proposed from the value "
                                       "distributions)."},
            "variables": variables_param("Without a mapping: the release variables a "
                                         "proposal may pair (default: every variable with "
                                         "role key or numeric)."),
            "max_distance": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.1,
                             "description": "Without a mapping: a proposed pair is kept "
                                            "when the distance of its distributions (total "
                                            "variation of the sorted frequency profiles; "
                                            "Kolmogorov-Smirnov of the standardised values) "
                                            "is at most this."},
            "proposal_codes": {
                "enum": ["matched", "frequency"], "default": "matched",
                "description": "Without a mapping, how the codes of a proposed categorical "
                               "pair correspond: matched (the worst case), each intruder "
                               "code to the release code it most often stands beside among "
                               "the individuals in both files (an intruder who knows some "
                               "of them); frequency, by frequency rank alone (the value "
                               "distributions only)."},
            "tolerance": {"type": "number", "minimum": 0, "default": 0.1,
                          "description": "Numeric pairs: in the agreement reported, two "
                                         "standardised values agree when they differ by at "
                                         "most this (standard deviations)."},
        },
    }

    # ----------------------------------------------------------------- the intruder file

    def read_files(self, params: dict, files: RecipeFiles | Path) -> tuple[dict, list]:
        """The intruder's file, read relative to the recipe (or shipped): the step then
        carries its columns (``intruder_data``), so the manifest and the cache key hold
        what it linked against."""
        spec = params.get("intruder")
        if not isinstance(spec, dict) or "intruder_data" in params:
            return params, []
        try:
            if "builtin" in spec:
                # (a shipped file: allowed for any recipe)
                path = builtin_path(spec["builtin"])
                file = as_files(path.parent).check(str(path), ("intruder", "builtin"),
                                                   "shipped data set", "file")
            else:
                file = as_files(files).check(spec["path"], ("intruder", "path"),
                                             "intruder file", "file")
            frame = csv_frame(file, dtype=object, keep_default_na=True)
        except RecipeFileError as exc:
            return params, [(exc.where, exc.message)]
        columns = {str(c): schema_pairs.as_texts(frame[c].to_numpy(dtype=object)).tolist()
                   for c in frame.columns}
        return {**params, "intruder_data": {"columns": columns}}, []

    @staticmethod
    def _columns(params) -> dict[str, list] | None:
        data = params.get("intruder_data")
        return data.get("columns") if isinstance(data, dict) else None

    # ------------------------------------------------------------------------- names

    def variables(self, params, meta):
        if params.get("mapping"):
            return [e["variable"] for e in params["mapping"] if isinstance(e, dict)]
        match = self.match_variable(params, meta)
        return [v for v in super().variables(params, meta) if v != match]

    def named_variables(self, params):
        out = super().named_variables(params)
        for i, entry in enumerate(params.get("mapping") or []):
            if isinstance(entry, dict) and isinstance(entry.get("variable"), str):
                out.append((("mapping", i, "variable"), entry["variable"]))
        return out

    # ------------------------------------------------------------------------ checks

    def check(self, params: Mapping, meta: Metadata) -> Iterator[Finding]:
        yield from self.match_problems(params, meta)
        match = self.match_variable(params, meta)
        names = self.variables(params, meta)
        if not names:
            yield ("variables",), "no variables: name them or declare key or numeric variables"
        if match in names:
            at = next(p for p, v in self.named_variables(params) if v == match)
            yield at, f"'{match}' identifies the records (match_on): it cannot be linked on"
        if params.get("mapping") and params.get("variables"):
            yield ("variables",), ("variables are the candidates of a proposed mapping: give "
                                   "either a mapping or variables")
        columns = self._columns(params)
        if columns is None:
            if "intruder" not in params:
                yield (), "give the intruder's file ('intruder': {path: FILE})"
            return
        where = ("intruder",) if "intruder" in params else ("intruder_data",)
        imatch = params.get("intruder_match_on") or match
        if imatch is not None and imatch not in columns:
            yield (("intruder_match_on",) if params.get("intruder_match_on") else where), \
                _no_column(imatch, columns)
        seen: dict[str, int] = {}
        for i, entry in enumerate(params.get("mapping") or []):
            yield from self._check_entry(i, entry, meta, columns, seen)

    def _check_entry(self, i, entry, meta, columns, seen) -> Iterator[Finding]:
        at = ("mapping", i)
        name, column = entry["variable"], entry["intruder"]
        var = meta.variables.get(name)  # (an undeclared one: reported by the validator)
        if name in seen:
            yield (*at, "variable"), f"'{name}' is mapped twice (also mapping {seen[name] + 1})"
        seen.setdefault(name, i)
        if column not in columns:
            yield (*at, "intruder"), _no_column(column, columns)
        if var is None:
            return
        if not var.is_numeric and "factor" in entry:
            yield (*at, "factor"), f"'{name}' is categorical: factor is for numeric variables"
        if var.is_numeric:
            for key in ("codes", "taxonomy", "level"):
                if key in entry:
                    yield (*at, key), (f"'{name}' is {var.type}: {key} is for categorical "
                                       "variables")
            bad = schema_pairs.parsed_numbers(np.asarray(columns[column], dtype=object))[1] \
                if column in columns else -1
            if bad >= 0:
                yield (*at, "intruder"), (f"'{name}' is {var.type} but the intruder's column "
                                          f"'{column}' holds text (record {bad + 1})")
            return
        if "level" in entry and not entry.get("taxonomy"):
            yield (*at, "level"), "level goes with taxonomy: true"
        if entry.get("taxonomy") and var.taxonomy is None and not var.hierarchy:
            yield (*at, "taxonomy"), (f"'{name}' has no taxonomy: declare one "
                                      f"(variables.{name}.taxonomy) or a hierarchy")
        if "codes" in entry and column in columns:
            codes = {schema_pairs.as_text(k) for k in entry["codes"]}
            values = sorted({v for v in columns[column] if v is not None})
            unmapped = [v for v in values if v not in codes]
            if unmapped:
                shown = ", ".join(f"'{v}'" for v in unmapped[:5])
                more = f" and {len(unmapped) - 5} more" if len(unmapped) > 5 else ""
                yield (*at, "codes"), (f"the intruder's column '{column}' has codes with no "
                                       f"map: {shown}{more}")

    def check_data(self, params, data):
        match = self.match_variable(params, data.meta)
        columns = self._columns(params)
        if match is None or match not in data.frame or columns is None:
            return
        problem = id_problem(data.frame[match])
        if problem:
            yield ("match_on",), f"'{match}' {problem}"
        imatch = params.get("intruder_match_on") or match
        if imatch in columns:
            problem = id_problem(pd.Series(columns[imatch], dtype=object))
            if problem:
                yield (("intruder_match_on",) if params.get("intruder_match_on")
                       else ("intruder",)), f"the intruder's column '{imatch}' {problem}"
        m = len(next(iter(columns.values()), []))
        c = max(len(self.variables(params, data.meta)), 1)
        terms = len(data) * m * c
        if terms > _MAX_PAIR_TERMS:
            yield ("intruder",), (f"{len(data)} released and {m} intruder records on {c} "
                                  f"variables make {over(terms, 'pair terms', _MAX_PAIR_TERMS)}"
                                  ": link a sample or fewer variables")
        for i, entry in enumerate(params.get("mapping") or []):
            if entry.get("taxonomy") and entry["intruder"] in columns \
                    and entry["variable"] in data.frame:
                try:
                    schema_pairs.taxonomy_pair(data, entry, columns)
                except TaxonomyError as exc:
                    yield ("mapping", i, "taxonomy"), str(exc)

    # ----------------------------------------------------------------------- results

    def result_shape(self, params, meta):
        pair = Record({"variable": TEXT, "intruder": TEXT,
                       "kind": Text(("categorical", "numeric")),
                       "source": Text(("declared", "proposed")),
                       "distance": NUMBER.with_null(), "level": COUNT.with_null(),
                       "codes": ListOf(ListOf(TEXT)).with_null(),
                       "code_map": Text(("declared", "identical", "matched",
                                         "frequency")).with_null(),
                       "agreement": NUMBER.with_null(),
                       "chance_agreement": NUMBER.with_null()})
        return Record({"mapping": Text(("declared", "proposed")), "variables": NAMES,
                       "intruder_variables": NAMES, "pairs": ListOf(pair),
                       "rejected": ListOf(Record({"variable": TEXT, "intruder": TEXT,
                                                  "distance": NUMBER})),
                       "match_on": TEXT, "records": COUNT, "intruder_records": COUNT,
                       "common": COUNT, "absent": COUNT, "correct": NUMBER,
                       "percent": NUMBER, "correct_any": COUNT,
                       "percent_correct_any": NUMBER, "not_linked": COUNT,
                       "percent_of_release": NUMBER})

    def explain(self, params, result):
        if not isinstance(result, dict) or "percent" not in result:
            return self.summary
        pairs = ", ".join(f"{p['variable']} = {p['intruder']}" for p in result["pairs"])
        return (f"An intruder whose file names and codes its variables otherwise links "
                f"{figure(result['percent'])}% of the individuals in both files, on the "
                f"{result['mapping']} pairs {pairs or '(none)'}.")

    def evaluate(self, data, params, rng, *, original):
        columns = self._columns(params)
        if columns is None:
            raise PluginError(self.name, "the intruder's file was not read")
        match = self.match_variable(params, data.meta)
        imatch = params.get("intruder_match_on") or match
        if match not in data.frame or imatch not in columns:
            raise PluginError(self.name, f"'{match}' must be in the data and '{imatch}' in "
                                         "the intruder's file: records are matched by them")
        intruder = {k: np.asarray(v, dtype=object) for k, v in columns.items()}
        m = len(intruder[imatch])
        truth = schema_pairs.truth_positions(data.frame[match], intruder[imatch])
        tol = float(params.get("tolerance", 0.1))
        if params.get("mapping"):
            pairs = [self._declared(data, e, intruder, columns) for e in params["mapping"]]
            rejected: list[dict] = []
        else:
            names = self.variables(params, data.meta)
            candidates = [c for c in intruder if c != imatch]
            pairs, rejected = schema_pairs.propose(data, names, intruder, candidates,
                                       float(params.get("max_distance", 0.1)),
                                       truth if params.get("proposal_codes", "matched")
                                       == "matched" else None)
        num = [p for p in pairs if p["kind"] == "numeric"]
        cat = [p for p in pairs if p["kind"] == "categorical"]
        n = len(data)

        def stack(key, group, size):
            return np.column_stack([p[key] for p in group]) if group else np.zeros((size, 0))

        links = schema_links(stack("_a", num, n), stack("_b", num, m),
                             stack("_a", cat, n), stack("_b", cat, m), truth)
        report = []
        for p in pairs:
            a, b = p.pop("_a"), p.pop("_b")
            if p["kind"] == "categorical":
                a, b = np.where(a < 0, np.nan, a), np.where(b < 0, np.nan, b)
            true_rate, chance = agreement(a, b, truth, tol if p["kind"] == "numeric" else 0)
            report.append({**p, "agreement": _round(true_rate), "chance_agreement":
                           _round(chance)})
        present = truth >= 0
        common = int(present.sum())
        correct = float(links.credit.sum())
        anyc = int(np.count_nonzero(links.correct))

        def pct(x, of):
            return round(100.0 * x / of, 6) if of else 0.0

        summary = {"mapping": "declared" if params.get("mapping") else "proposed",
                   "variables": [p["variable"] for p in report],
                   "intruder_variables": [p["intruder"] for p in report],
                   "pairs": report, "rejected": rejected, "match_on": match,
                   "records": n, "intruder_records": m, "common": common,
                   "absent": n - common, "correct": round(correct, 6),
                   "percent": pct(correct, common), "correct_any": anyc,
                   "percent_correct_any": pct(anyc, common),
                   "not_linked": int(np.count_nonzero(links.ties == 0)),
                   "percent_of_release": pct(correct, n)}
        table = links_frame(links)
        table["in_intruder"] = present
        return MeasureResult(summary, table)

    def _declared(self, data: Dataset, entry: Mapping, intruder: dict, columns) -> dict:
        """A declared pair as the linkage uses it: standardised values (numeric) or codes
        shared by both files (categorical; -1 missing)."""
        name, column = entry["variable"], entry["intruder"]
        var = data.variables[name]
        out = {"variable": name, "intruder": column, "source": "declared", "distance": None,
               "level": None, "codes": None, "code_map": None}
        if var.is_numeric:
            release = pd.to_numeric(data.frame[name], errors="coerce").to_numpy(float)
            other = schema_pairs.as_numbers(intruder[column])
            if other is None:
                raise PluginError(self.name, f"the intruder's column '{column}' holds text")
            if "factor" not in entry:
                return {**out, "kind": "numeric", "_a": standardised(release),
                        "_b": standardised(other)}
            za, zb = standardize(release[:, None], other[:, None] * float(entry["factor"]))
            return {**out, "kind": "numeric", "_a": za[:, 0], "_b": zb[:, 0]}
        a = schema_pairs.as_texts(data.frame[name].to_numpy(dtype=object))
        b = schema_pairs.translate_codes(intruder[column], entry.get("codes"))
        if entry.get("taxonomy"):
            try:
                a, b, level = schema_pairs.taxonomy_pair(data, entry, columns)
            except TaxonomyError as exc:
                raise PluginError(self.name, str(exc)) from None
            out["level"] = level
        ra, rb = schema_pairs.shared_codes(a, b)
        return {**out, "kind": "categorical", "_a": ra, "_b": rb,
                "code_map": "declared" if entry.get("codes") else "identical"}


def _round(x):
    return None if x is None else round(float(x), 6)


def _no_column(name: str, columns) -> str:
    """A column the intruder's file lacks; only a plain name of it is suggested."""
    return (f"the intruder's file has no column '{name}'"
            f"{did_you_mean(name, [c for c in columns if quotable(c)])}")


