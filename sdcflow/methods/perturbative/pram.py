"""``pram``: post-randomisation of categorical variables with a Markov matrix, given or
built by a scheme, optionally invariant (Torra, "Masking methods", 2013, "PRAM"; Templ,
"Advanced Survey Statistics: Disclosure Control", 2019, "PRAM" and "PRAM Example";
Gouweleeuw et al. 1998; sdcMicro's ``pram``). The kernel is
:mod:`sdcflow.kernels.perturbative.pram`.

Without a given matrix, ``scheme`` builds it:

* ``fixed``: every category is kept with the same probability ``retention``; the rest of
  a row goes to the other categories uniformly or in proportion to their frequencies
  (``spread``); invariant unless ``invariant: false``;
* ``sdcmicro``: sdcMicro's ``pram`` (5.8.1): each category's retention drawn from
  U(``pd``, 1) with the step's generator, anew for each stratum; the rest of a row spread
  uniformly; then always made invariant, ``alpha P Q + (1 - alpha) I``.

The categories of a variable are those in the data (whole file, sorted as text; an
ordinal variable in its declared order), plus any named in its ``matrix``. Missing values
stay missing and take no part (not in the frequencies, never a target). Within strata,
each stratum is post-randomised separately; an invariant matrix is built from the
stratum's own frequencies, so the expected frequencies are kept in every stratum.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ...data.strata import stratum_codes, stratum_members
from ...data.text import text_column
from ...kernels.perturbative.pram import (
    default_matrix,
    expected_changes,
    invariant_matrix,
    matrix_problems,
    pram,
    sdcmicro_matrix,
)
from ...plugins.limits import MAX_CELLS, over
from ...plugins.plain_words import get, names, total, values_changed
from ...plugins.registry import (
    Method,
    MethodResult,
    register,
    strata_param,
    unchanged,
    variables_param,
)
from ._pram_partitioned import PartitionedPram, pram_categories

_ROW_TOLERANCE = 1e-9
RETENTION, SPREAD, PD = 0.8, "uniform", 0.8  # defaults of scheme fixed / sdcmicro
_MAX_LISTED_STRATA = 50

_MATRIX = {
    "type": "object",
    "minProperties": 1,
    "additionalProperties": {
        "type": "object",
        "additionalProperties": {"type": "number"},
        "description": "A row: the probabilities of the categories this one becomes "
                       "(categories not listed: 0).",
    },
    "description": "Category -> {category: probability}; each row sums to 1.",
}


@register
class Pram(PartitionedPram, Method):
    name = "pram"
    # the PRAM design is published: with the transition matrix analysts correct their
    # estimates (Gouweleeuw, Kooiman, Willenborg & de Wolf 1998); the draws stay secret
    # with the seed (a matrix built from the data or drawn, scheme sdcmicro, stays in
    # the internal manifest's info)
    public_params = (
        "variables", "matrix", "scheme", "retention", "spread", "pd", "invariant", "alpha",
        "strata",
    )
    protects = True
    summary = "Post-randomise categorical values with a (default: invariant) Markov matrix."
    version = "2"  # 2: scheme sdcmicro; info says the scheme (results of scheme fixed unchanged)
    roles = ("pram", "key", "sensitive")
    types = ("categorical", "ordinal")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": variables_param("Variables post-randomised, each separately "
                                         "(default: every variable with role pram)."),
            "matrix": {"type": "object", "additionalProperties": _MATRIX,
                       "description": "Per variable, the transition matrix as "
                                      "{from: {to: probability}}; the other variables get "
                                      "a matrix built by 'scheme'."},
            "scheme": {"enum": ["fixed", "sdcmicro"], "default": "fixed",
                       "description": "How the matrix of a variable without a given one is "
                                      "built. fixed: every category kept with probability "
                                      "'retention'; sdcmicro: as sdcMicro's pram, each "
                                      "category kept with a probability drawn from "
                                      "U(pd, 1), anew per stratum, then made invariant."},
            # no schema defaults for the parameters of one scheme (their defaults are
            # RETENTION, SPREAD, PD): giving one with the other scheme is refused
            "retention": {"type": "number", "minimum": 0, "maximum": 1,
                          "description": "scheme fixed: the probability of keeping a value, "
                                         "the same for every category (default 0.8; not "
                                         "sdcMicro's pd, which is the lower bound of a "
                                         "random one: scheme sdcmicro)."},
            "spread": {"enum": ["uniform", "frequency"],
                       "description": "scheme fixed: a changed value goes to another "
                                      "category uniformly (default) or in proportion to "
                                      "the other categories' frequencies."},
            "pd": {"type": "number", "minimum": 0, "maximum": 1,
                   "description": "scheme sdcmicro: sdcMicro's pd, the lower bound of each "
                                  "category's retention P_ii ~ U(pd, 1) (default 0.8)."},
            "invariant": {"type": ["boolean", "null"], "default": None,
                          "description": "Make the matrix invariant (expected frequencies "
                                         "kept; Gouweleeuw et al. 1998). Default (null): "
                                         "for a built matrix yes, for a given matrix no, as "
                                         "sdcMicro; scheme sdcmicro is always invariant."},
            "alpha": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.5,
                      "description": "Invariant PRAM: alpha P Q + (1 - alpha) I (sdcMicro's "
                                     "alpha, default 0.5; 1 = Gouweleeuw's P Q)."},
            "strata": strata_param("Post-randomise within strata"),
        },
        "allOf": [
            {"if": {"required": ["scheme"], "properties": {"scheme": {"const": "sdcmicro"}}},
             "then": {"not": {"anyOf": [{"required": ["retention"]}, {"required": ["spread"]},
                                        {"required": ["invariant"],
                                         "properties": {"invariant": {"const": False}}}]},
                      "x-error": "scheme sdcmicro draws each category's retention from "
                                 "U(pd, 1), spreads the rest uniformly and is always "
                                 "invariant: 'retention', 'spread' and 'invariant: false' "
                                 "belong to scheme fixed"}},
            {"if": {"not": {"required": ["scheme"], "properties":
                            {"scheme": {"const": "sdcmicro"}}}},
             "then": {"not": {"required": ["pd"]},
                      "x-error": "'pd' is sdcMicro's lower bound of a random retention: "
                                 "give it with scheme: sdcmicro, or 'retention' (the same "
                                 "for every category) with scheme fixed"}},
        ],
    }

    default_roles = ("pram",)
    stratified = True
    strata_conflict = "'{name}' is post-randomised, so it cannot define strata"

    def explain(self, params, result):
        variables = params.get("variables") or list(get(result, "changed", {}) or {})
        text = (f"The Post-Randomisation Method (PRAM; Gouweleeuw, Kooiman, Willenborg & "
                f"de Wolf 1998) changed the category of {names(variables) or 'the variables'} "
                "at random, each category with the probabilities of a transition matrix: "
                "an intruder cannot trust any released category.")
        changed = total(get(result, "changed"))
        if changed is not None:
            text += " " + values_changed(changed, result)
        return text

    def outputs(self, params, meta):
        return unchanged(self.variables(params, meta), meta)  # categories to categories

    # --- checks -------------------------------------------------------------------------
    def check(self, params, meta):
        names = self.variables(params, meta)
        if not names:
            yield ("variables",), "no variables: name them or declare variables with role pram"
        yield from self.check_strata(params, meta)
        for name, rows in params.get("matrix", {}).items():
            if name not in names:
                yield ("matrix", name), (f"'{name}' is not one of the variables "
                                         f"post-randomised ({', '.join(names) or 'none'})")
                continue
            var = meta.variables.get(name)
            order = list(var.order) if var is not None and var.order else None
            for source, row in rows.items():
                path = ("matrix", name, source)
                for target in [source, *row]:
                    if order is not None and target not in order:
                        yield path, (f"unknown category '{target}': '{name}' is ordinal with"
                                     f" categories {', '.join(order)}")
                        break
                negative = {k: v for k, v in row.items() if v < 0}
                if negative:
                    k, v = next(iter(negative.items()))
                    yield (*path, k), (f"negative probability {v:g} of '{source}' -> '{k}' "
                                       f"in the matrix of '{name}'")
                    continue
                total = float(sum(row.values()))
                if abs(total - 1.0) > _ROW_TOLERANCE:
                    yield path, (f"the row of '{source}' in the matrix of '{name}' sums to "
                                 f"{total:.12g}, not 1 (tolerance {_ROW_TOLERANCE:g})")

    def check_data(self, params, data):
        for name in self.variables(params, data.meta):  # the k x k transition matrix
            k = int(data.frame[name].nunique()) if name in data.frame else 0
            if k * k > MAX_CELLS:
                yield ("variables",), (f"'{name}' has {k} categories: its transition matrix "
                                       f"would have {over(k * k, 'cells', MAX_CELLS)}")
        for name, rows in params.get("matrix", {}).items():
            if name not in data.frame or name not in self.variables(params, data.meta):
                continue
            col = data.frame[name]
            counts = col.value_counts(dropna=True)
            observed = [str(c) for c in counts.index]
            var = data.variables[name]
            known = set(observed) | set(var.order or ()) | set(map(str, var.labels or {}))
            shown = ", ".join(sorted(observed))
            for cat in sorted(set(observed) - set(rows)):
                yield ("matrix", name), (f"category '{cat}' of '{name}' ({int(counts[cat])} "
                                         "records) has no row in the matrix")
            for source, row in rows.items():
                for target in [source, *row]:
                    if target not in known:
                        yield ("matrix", name, source), (
                            f"unknown category '{target}' in the matrix of '{name}': not in "
                            f"the data ({shown}) nor declared")
                        break

    # --- the work -----------------------------------------------------------------------
    def apply(self, data, params, rng):
        return self._apply(data, params, rng, None)

    def _apply(self, data, params, rng, fitted):
        """PRAM of the variables; with ``fitted`` (partitioned data) the categories and
        frequencies are those of the whole data."""
        frame = data.frame
        names = self.variables(params, data.meta)
        strata = self.strata(params, data.meta)
        groups, labels = stratum_codes(frame, strata)
        members = stratum_members(groups, len(labels))
        given = params.get("matrix", {})
        retention = params.get("retention", RETENTION)
        spread = params.get("spread", SPREAD)
        lower = params.get("pd", PD)  # sdcMicro's pd (pd is pandas here)
        columns = {}
        changed, expected, matrices, invariant_used, diagonals = {}, {}, {}, {}, {}
        for name in names:
            var = data.variables[name]
            col = frame[name]
            categories = (fitted[name]["categories"] if fitted else
                          pram_categories(col, var, given.get(name)))
            codes = _codes(col, categories)
            L = len(categories)
            sdcmicro = name not in given and params.get("scheme") == "sdcmicro"
            invariant = params.get("invariant")
            if invariant is None or sdcmicro:
                invariant = name not in given
            invariant_used[name] = bool(invariant)
            # the matrix of every stratum unless it depends on the stratum (frequencies, or
            # sdcMicro's draw per stratum)
            if name in given:
                base = _dense(given[name], categories)
            elif not sdcmicro and spread != "frequency":
                base = default_matrix(L, retention)
            else:
                base = None
            new_codes = codes.copy()
            used: dict[str, np.ndarray] = {}
            drawn: dict[str, np.ndarray] = {}
            mean = 0.0
            for g, rows in enumerate(members):
                if len(rows) == 0:
                    continue
                sub = codes[rows]
                t = np.bincount(sub[sub >= 0], minlength=L).astype(float)
                here = t  # the expected changes add up over partitions
                if fitted:
                    t = fitted[name]["t"].get(labels[g], t)
                if base is not None:
                    P = base
                elif sdcmicro:
                    P, drawn[labels[g]] = sdcmicro_matrix(L, lower, rng)
                else:
                    P = default_matrix(L, retention, t)
                if invariant and L > 0:
                    P = invariant_matrix(P, t, params["alpha"])
                new_codes[rows] = pram(sub, P, rng)
                used[labels[g]] = P
                mean += expected_changes(P, here)[0]
            if fitted:  # every stratum's matrix, from the frequencies of the whole data
                used = {}
                for label, t in sorted(fitted[name]["t"].items()):
                    P = base if base is not None else default_matrix(L, retention, t)
                    used[label] = invariant_matrix(P, t, params["alpha"]) \
                        if invariant and L > 0 else P
            if drawn:
                diagonals[name] = _diagonal_info(drawn, categories, bool(strata))
            # code -1 (missing) picks the trailing NaN
            text = np.array([*categories, np.nan], dtype=object)[new_codes]
            columns[name] = text_column(text, index=col.index, name=name)
            changed[name] = int((new_codes != codes).sum())
            expected[name] = round(mean, 6)
            matrices[name] = _matrix_info(used, categories, bool(strata))
        n = len(frame)
        info = {
            "changed": changed,
            "percent_changed": {v: round(100.0 * c / n, 3) if n else 0.0
                                for v, c in changed.items()},
            "expected_changed": expected,
            "invariant": invariant_used,
            "transition_matrix": matrices,
        }
        if any(v not in given for v in names):
            info["scheme"] = params["scheme"]
            if params["scheme"] == "sdcmicro":
                info["pd"] = lower
                info["drawn_retention"] = diagonals
            else:
                info["retention"] = retention
                info["spread"] = spread
        if any(invariant_used.values()):
            info["alpha"] = params["alpha"]
        if strata:
            info["strata"] = len(fitted[names[0]]["t"]) if fitted and names else len(labels)
        return MethodResult(data.with_columns(columns), info)


def _codes(col: pd.Series, categories: list[str]) -> np.ndarray:
    """Index of each value in ``categories`` (-1 = missing). Factorising first keeps the
    text in pandas' own storage (no Python string per record)."""
    codes, uniques = pd.factorize(col, sort=False)
    index = {c: i for i, c in enumerate(categories)}
    dtype = np.int16 if len(categories) < 2**15 else np.int64
    lookup = np.array([index[str(u)] for u in uniques] + [-1], dtype=dtype)
    return lookup[codes]  # factorize's -1 (missing) picks the trailing -1


def _dense(rows: dict, categories: list[str]) -> np.ndarray:
    """The given matrix as an array over ``categories``; a category without a row (not in
    the data) keeps its value."""
    index = {c: i for i, c in enumerate(categories)}
    P = np.zeros((len(categories), len(categories)))
    for i, c in enumerate(categories):
        row = rows.get(c)
        if row is None:
            P[i, i] = 1.0
            continue
        for target, prob in row.items():
            P[i, index[target]] = float(prob)
    problems = matrix_problems(P, _ROW_TOLERANCE)
    if problems:
        raise ValueError(f"not a Markov matrix: {problems}")
    return P


def _diagonal_info(drawn: dict[str, np.ndarray], categories: list[str], stratified: bool):
    """The retentions drawn for scheme sdcmicro: per category, or per stratum (up to
    _MAX_LISTED_STRATA strata)."""
    def one(d):
        return {c: float(v) for c, v in zip(categories, d)}
    if not stratified:
        return one(next(iter(drawn.values())))
    if len(drawn) > _MAX_LISTED_STRATA:
        return {"by_stratum": f"{len(drawn)} strata, one draw each (not listed)"}
    return {"by_stratum": {label: one(d) for label, d in drawn.items()}}


def _nested(P: np.ndarray, categories: list[str]) -> dict:
    return {a: {b: float(P[i, j]) for j, b in enumerate(categories)}
            for i, a in enumerate(categories)}


def _matrix_info(used: dict[str, np.ndarray], categories: list[str], stratified: bool):
    """One matrix as nested dicts when every stratum used the same one, else one per
    stratum (up to _MAX_LISTED_STRATA strata)."""
    mats = list(used.values())
    if not mats:
        return {}
    if not stratified or all(np.array_equal(m, mats[0]) for m in mats[1:]):
        return _nested(mats[0], categories)
    if len(mats) > _MAX_LISTED_STRATA:
        return {"by_stratum": f"{len(mats)} strata, one matrix each (not listed)"}
    return {"by_stratum": {label: _nested(P, categories) for label, P in used.items()}}


