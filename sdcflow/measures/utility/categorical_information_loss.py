"""``categorical_information_loss``: generic information loss for categorical variables
(Torra, "Masking methods", 2013, section 4, "Information Loss Measures: Categorical Data"):

* the direct distance per value (nominal 0/1; ordinal ``|rank difference| / (|D(V)| - 1)``
  where D(V) is the declared order, categories absent from the data included; within
  [0, 1]), averaged per variable and overall;
* CTBIL(F, G; W, K): the sum over every set of at most K variables of the absolute cell
  differences of the contingency tables of the reference F and the protected G;
* EBIL: the sum over records of the conditional entropy ``H(V | V' = j_r)``, with
  ``P(V = i | V' = j)`` from the PRAM matrix given in ``matrix`` (by Bayes, with the
  reference's category shares) or, without one, estimated from the cross-tabulation of
  reference against protected values;
* PRIL per record: ``-log P(V = i_r | V' = j_r)``, and its sum.

Entropies and logarithms are natural (nats). Categories are compared as text (an integer
variable's ``7`` equals the code ``"7"``); a missing value is a category of its own (for
the ordinal distance, at distance 1 from every value; with a ``matrix``, kept unchanged by
PRAM). Records are compared by position.
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
import pandas as pd

from ...kernels.utility.categorical_information_loss import (
    ctbil,
    direct_distance,
    entropy_losses,
    posterior_from_data,
    posterior_from_matrix,
)
from ...plugins.limits import MAX_CELLS, MAX_COMBINATIONS, over
from ...plugins.registry import Measure, MeasureResult, register, variables_param
from ...plugins.results import COUNT, NAMES, NUMBER, TEXT, Keyed, Text, by_variable, record
from ..reference import REFERENCE, same_records

_MISSING = "<missing>"


def _text(value) -> str:
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return str(value)


def text_codes(col: pd.Series) -> tuple[np.ndarray, list[str]]:
    """Codes of a column's values (-1 for missing) and each code's text (integers without a
    decimal point, so the integer 7 and the code "7" are the same category)."""
    codes, uniques = pd.factorize(col, use_na_sentinel=True)
    return codes.astype(np.int64), [_text(u) for u in uniques]


def _sort_key(label: str):
    try:
        return (0, float(label), label)
    except ValueError:
        return (1, 0.0, label)


def shared_codes(f: pd.Series, g: pd.Series, extra=()) -> tuple[np.ndarray, np.ndarray,
                                                                 list[str]]:
    """Codes of the columns ``f`` and ``g`` over the union of their categories (and
    ``extra``), numbered in numeric-aware sorted order of their text, the missing value
    last as a category of its own."""
    fc, fl = text_codes(f)
    gc, gl = text_codes(g)
    labels = sorted(set(fl) | set(gl) | set(extra), key=_sort_key)
    index = {v: i for i, v in enumerate(labels)}
    miss = len(labels)
    if (fc < 0).any() or (gc < 0).any():
        labels.append(_MISSING)
    # code -1 (missing) picks the last entry of each map: the missing category
    # int32 codes: half the memory of int64, and no variable has 2**31 categories
    fmap = np.array([index[v] for v in fl] + [miss], dtype=np.int32)
    gmap = np.array([index[v] for v in gl] + [miss], dtype=np.int32)
    return fmap[fc], gmap[gc], labels


@register
class CategoricalInformationLoss(Measure):
    name = "categorical_information_loss"
    public_params = ("variables", "K", "matrix", "reference")
    risk_measure = False
    summary = "Categorical information loss: direct distance, CTBIL, EBIL and PRIL."
    version = "2"  # 2: the ordinal distance over the declared domain (was: observed categories)
    types = ("categorical", "ordinal", "integer")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": variables_param("Variables to compare (default: every categorical "
                                         "or ordinal variable with role key or pram)."),
            "K": {"type": "integer", "minimum": 1, "default": 2,
                  "description": "CTBIL compares the contingency tables of every set of at "
                                 "most K variables."},
            "matrix": {
                "type": "object",
                "description": "PRAM transition matrices for EBIL and PRIL, by variable: "
                               "{original category: {published category: probability}}, "
                               "each row summing to 1. Variables without one use "
                               "P(V | V') estimated from the data.",
                "additionalProperties": {
                    "type": "object",
                    "additionalProperties": {
                        "type": "object",
                        "additionalProperties": {"type": "number", "minimum": 0,
                                                 "maximum": 1},
                    },
                },
            },
            "reference": REFERENCE,
        },
    }

    def variables(self, params, meta):
        if params.get("variables"):
            return list(params["variables"])
        return [n for n, v in meta.variables.items()
                if v.role in ("key", "pram") and v.type in ("categorical", "ordinal")]

    def check(self, params, meta):
        names = self.variables(params, meta)
        if not names:
            yield ("variables",), ("no categorical key or pram variables: name the variables "
                                   "to compare")
        tables = sum(math.comb(len(names), t) for t in range(1, min(params["K"], len(names)) + 1))
        if tables > MAX_COMBINATIONS:
            yield ("K",), (f"K = {params['K']}: the sets of at most K of {len(names)} "
                           f"variables make {over(tables, 'contingency tables', MAX_COMBINATIONS)}")
        for var, rows in (params.get("matrix") or {}).items():
            if var not in names:
                yield ("matrix", var), f"'{var}' is not one of the compared variables"
            for cat, row in rows.items():
                total = sum(row.values())
                if abs(total - 1.0) > 1e-6:
                    yield ("matrix", var, cat), (f"the probabilities of row '{cat}' sum to "
                                                 f"{total:g}, not 1")

    def check_data(self, params, data):
        # EBIL and PRIL cross-tabulate each variable's categories: k x k cells
        for name in self.variables(params, data.meta):
            if name in data.frame:
                k = int(data.frame[name].nunique()) + 1  # (+ the missing value)
                if k * k > MAX_CELLS:
                    yield ("variables",), (f"'{name}' has {k - 1} categories: the cross-"
                                           f"tabulation of original and protected ones has "
                                           f"{over(k * k, 'cells', MAX_CELLS)}")
        for var, rows in (params.get("matrix") or {}).items():
            if var not in data.frame.columns:
                continue
            seen = set(text_codes(data.frame[var])[1])
            lacking = sorted(seen - {str(k) for k in rows}, key=_sort_key)
            if lacking:
                yield ("matrix", var), (f"no row for the categories {lacking[:5]} of "
                                        f"'{var}'")

    pairs_records = True

    def result_shape(self, params, meta):
        names = self.variables(params, meta)
        return record(
            reference=TEXT, variables=NAMES, records=COUNT, distance=NUMBER,
            distance_by_variable=by_variable(names), changed_by_variable=by_variable(names, COUNT),
            K=COUNT, ctbil=NUMBER, ctbil_relative=NUMBER,
            ctbil_by_order=Keyed(NUMBER, "order of the tables"),
            # by table (null beyond 200 tables)
            ctbil_tables=Keyed(NUMBER, "table").with_null(),
            ebil=NUMBER, ebil_by_variable=by_variable(names), pril=NUMBER,
            pril_by_variable=by_variable(names), pril_mean=NUMBER,
            matrix=by_variable(names, Text(("given", "estimated"))))

    def evaluate(self, data, params, rng, *, original):
        names = self.variables(params, data.meta)
        same_records(data, original, self.name)
        matrices = params.get("matrix") or {}
        n = len(data)
        fcols, gcols, cards = [], [], []
        distance = np.zeros(n)
        ebil_rec = np.zeros(n)
        pril_rec = np.zeros(n)
        by_var: dict = {"distance": {}, "changed": {}, "ebil": {}, "pril": {}}
        for name in names:
            for which, ds in (("reference", original), ("protected", data)):
                if name not in ds.frame.columns:
                    raise ValueError(f"'{name}' is not in the {which} data")
            matrix = matrices.get(name)
            extra = set()
            if matrix is not None:
                extra = {str(k) for k in matrix} | {str(j) for row in matrix.values()
                                                    for j in row}
            f, g, labels = shared_codes(original.frame[name], data.frame[name], extra)
            k = len(labels)
            fcols.append(f)
            gcols.append(g)
            cards.append(k)

            var = data.variables.get(name) or original.variables.get(name)
            ranks, domain = None, None
            if var is not None and var.type == "ordinal":
                # D(V): the declared order, unobserved categories included (the observed
                # ones in sorted order when none is declared)
                order = list(var.order) if var.order else sorted(
                    (v for v in labels if v != _MISSING), key=_sort_key)
                position = {v: i for i, v in enumerate(order)}
                ranks = np.array([position.get(v, -1) if v != _MISSING else -1
                                  for v in labels])
                domain = len(order)
                if domain < 2:
                    ranks = None
            d = direct_distance(f, g, ranks, domain)
            distance += d
            by_var["distance"][name] = float(d.mean()) if n else 0.0
            by_var["changed"][name] = int((f != g).sum())

            if matrix is None:
                post = posterior_from_data(f, g, k)
            else:
                shares = np.bincount(f, minlength=k) / max(n, 1)
                post = posterior_from_matrix(_transition(matrix, labels, name, shares), shares)
            h, pril = entropy_losses(f, g, post)
            if not np.isfinite(pril).all():
                r = int(np.flatnonzero(~np.isfinite(pril))[0])
                raise ValueError(f"'{name}': record {r} changed from '{labels[f[r]]}' to "
                                 f"'{labels[g[r]]}', which the given matrix makes impossible")
            ebil_rec += h
            pril_rec += pril
            by_var["ebil"][name] = float(h.sum())
            by_var["pril"][name] = float(pril.sum())

        p = len(names)
        f_all = np.column_stack(fcols) if fcols else np.empty((n, 0), np.int64)
        g_all = np.column_stack(gcols) if gcols else np.empty((n, 0), np.int64)
        table = ctbil(f_all, g_all, cards, int(params["K"]))
        n_tables = len(table["tables"])
        summary = {
            "reference": params["reference"],
            "variables": names,
            "records": n,
            "distance": float(distance.sum() / (n * p)) if n and p else 0.0,
            "distance_by_variable": by_var["distance"],
            "changed_by_variable": by_var["changed"],
            "K": int(params["K"]),
            "ctbil": table["total"],
            "ctbil_relative": table["total"] / (2 * n * n_tables) if n and n_tables else 0.0,
            "ctbil_by_order": {str(t): v for t, v in table["by_order"].items()},
            "ctbil_tables": {" x ".join(names[i] for i in s): v
                             for s, v in table["tables"].items()} if n_tables <= 200 else None,
            "ebil": float(ebil_rec.sum()),
            "ebil_by_variable": by_var["ebil"],
            "pril": float(pril_rec.sum()),
            "pril_by_variable": by_var["pril"],
            "pril_mean": float(pril_rec.mean()) if n else 0.0,
            "matrix": {name: ("given" if name in matrices else "estimated") for name in names},
        }
        per_record = pd.DataFrame({"distance": distance / p if p else distance,
                                   "ebil": ebil_rec, "pril": pril_rec}, index=data.frame.index)
        return MeasureResult(summary, per_record)


def _transition(matrix: dict, labels: list[str], name: str, shares: np.ndarray) -> np.ndarray:
    """The PRAM matrix over ``labels`` (rows: original category); the missing value, which
    PRAM leaves alone, keeps itself with probability 1. Every category present in the
    reference data (``shares > 0``) needs a row."""
    k = len(labels)
    index = {v: i for i, v in enumerate(labels)}
    out = np.zeros((k, k))
    for cat, row in matrix.items():
        for to, prob in row.items():
            out[index[str(cat)], index[str(to)]] = float(prob)
    if labels and labels[-1] == _MISSING:
        out[k - 1, k - 1] = 1.0
    lacking = [labels[i] for i in np.flatnonzero((shares > 0) & (out.sum(axis=1) == 0))]
    if lacking:
        raise ValueError(f"the matrix of '{name}' has no row for the categories {lacking[:5]}")
    return out
