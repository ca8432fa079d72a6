"""``learned_linkage``: the worst-case re-identification risk of distance-based record
linkage, with the distance whose parameters link the most records correctly (Torra, "Data
privacy: supervised approaches for disclosure risk assessment", 2016, "Worst-case scenario":
"Maximum information: use original file to attack; most effective reidentification method:
use ML", and "Formalization of the problem"). The parameters are found by Torra's (2016)
mixed-integer linear program, solved with HiGHS; see
:mod:`sdcflow.kernels.linkage.learned_linkage`.

The links reported are recomputed over all records with the learned distance (ties
count ``1/t``), so they do not depend on the program's candidate restriction or
tolerances; the distance kept is the best of the MILP's, the LP relaxation's, equal
weights and single variables or order statistics (``program.solution`` says which).
Records with a missing value in the variables take no part (they count as not
re-identified). The program is solved to optimality unless ``time_limit`` stops it
(``status`` says so; the result then depends on the machine's speed)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ...kernels.linkage.aggregators import MAX_CHOQUET_VARIABLES
from ...kernels.linkage.coordinates import standardize
from ...kernels.linkage.distance_linkage import nearest_links
from ...kernels.linkage.learned_forms import CHOQUET
from ...kernels.linkage.learned_linkage import FORMS, learn_distance
from ...kernels.linkage.links import Links
from ...plugins.limits import MAX_CELLS, over
from ...plugins.registry import Measure, MeasureResult, register
from ...plugins.results import COUNT, FLAG, NAMES, NUMBER, TEXT, ListOf, Record, by_variable, record
from ..reference import REFERENCE, same_records
from .record_linkage import VARIABLES, check_variables, links_frame, values

_ALL_PAIRS_UP_TO = 300  # records: beyond, candidates "auto" restricts to nearest neighbours
_STATUS = {0: "optimal", 1: "time or iteration limit reached", 2: "infeasible",
           3: "unbounded", 4: "other"}


@register
class LearnedLinkage(Measure):
    name = "learned_linkage"
    public_params = (
        "variables", "form", "relax", "max_records", "time_limit", "candidates", "neighbours",
        "margin", "standardize", "reference",
    )
    risk_measure = True
    summary = ("Worst-case distance-based linkage: the weighted mean, OWA, Choquet integral "
               "or bilinear form that links the most records, by MILP (HiGHS).")
    types = ("integer", "continuous")
    default_roles = ("numeric",)
    default_numeric = True
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": VARIABLES,
            "form": {"enum": list(FORMS), "default": "weighted_mean",
                     "description": "weighted_mean: sum_j w_j (a_j - b_j)^2, w_j >= 0, sum 1; "
                                    "owa: the same weights on the squared differences in "
                                    "decreasing order (OWA operator); choquet: Choquet "
                                    "integral of the squared differences for a monotone "
                                    "fuzzy measure (2^c - 2 parameters, at most "
                                    f"{MAX_CHOQUET_VARIABLES} variables); "
                                    "choquet_submodular: the same with a submodular "
                                    "measure (mu(A) + mu(B) >= mu(A | B) + mu(A & B)); "
                                    "bilinear: (a - b)' M (a - b), M symmetric with the "
                                    "linear conditions of positive semidefiniteness "
                                    "(M_jj >= 0, trace 1, |M_jl| <= (M_jj + M_ll)/2); "
                                    "bilinear_pd: the same with M positive definite "
                                    "(cutting planes v' M v >= 1e-6)."},
            "relax": {"type": "boolean", "default": False,
                      "description": "Solve the LP relaxation (b_i in [0, 1]) instead of the "
                                     "MILP."},
            "max_records": {"type": "integer", "minimum": 2, "default": 1000,
                            "description": "Refuse data with more records (the program "
                                           "grows with the number of pairs)."},
            "time_limit": {"type": "number", "exclusiveMinimum": 0, "default": 60,
                           "description": "Seconds HiGHS may spend; the best solution found "
                                          "by then is used."},
            "candidates": {"enum": ["auto", "all", "nearest"], "default": "auto",
                           "description": "Pairs constrained: all (n (n - 1)), nearest "
                                          "(each record's `neighbours` nearest originals per "
                                          "variable and under equal weights), auto: all up "
                                          "to 300 records, else nearest."},
            "neighbours": {"type": "integer", "minimum": 1, "default": 25,
                           "description": "Nearest originals per variable for candidates "
                                          "nearest."},
            "margin": {"type": "number", "exclusiveMinimum": 0, "default": 1e-6,
                       "description": "How much nearer (in standardised squared units) the "
                                      "own original must be than every other for the "
                                      "program to count a link."},
            "standardize": {"enum": ["original", "each"], "default": "original",
                            "description": "z-scores with the original's means and standard "
                                           "deviations, or each file with its own."},
            "reference": REFERENCE,
        },
    }

    def check(self, params, meta):
        names = self.variables(params, meta)
        yield from check_variables(params, names)
        if params.get("form") in CHOQUET and len(names) > MAX_CHOQUET_VARIABLES:
            yield ("form",), (f"a fuzzy measure on {len(names)} variables has "
                              f"{2 ** len(names) - 2} parameters: form {params['form']} takes at most "
                              f"{MAX_CHOQUET_VARIABLES} variables (name them in `variables`)")

    def check_data(self, params, data):
        # only against the data as loaded when they are the reference (a later reference
        # step, e.g. a sample, may hold fewer records)
        if params.get("reference", "original") == "original" \
                and len(data) > params["max_records"]:
            yield ("max_records",), _too_many(len(data), params["max_records"])
            return
        # the program's matrix: one row per candidate pair, one column per parameter of
        # the distance (c squared differences, and c (c - 1) / 2 products for bilinear)
        n, c = min(len(data), params["max_records"]), len(self.variables(params, data.meta))
        mode = params["candidates"]
        if mode == "auto":
            mode = "all" if n <= _ALL_PAIRS_UP_TO else "nearest"
        per_record = n - 1 if mode == "all" else min(n - 1, (c + 1) * params["neighbours"])
        form = params["form"]
        # coefficients per pair row (choquet: sparse, c of each of the two integrals)
        width = {"weighted_mean": c, "owa": c, "choquet": 2 * c,
                 "choquet_submodular": 2 * c}.get(form, c * (c + 1) // 2)
        cells = n * per_record * width
        if cells > MAX_CELLS:
            key = "max_records" if mode == "all" else "neighbours"
            yield (key,), (f"{n} records with {per_record} candidate originals each and "
                           f"{width} distance parameters make a program of "
                           f"{over(cells, 'coefficients', MAX_CELLS)}")

    pairs_records = True

    def result_shape(self, params, meta):
        names = self.variables(params, meta)
        fields = {"form": TEXT, "reference": TEXT, "variables": NAMES, "records": COUNT,
                  "used_records": COUNT, "correct": NUMBER, "percent": NUMBER,
                  "correct_any": COUNT, "percent_correct_any": NUMBER,
                  "equal_weights": record(correct=NUMBER, percent=NUMBER)}
        # learned only with two complete records or more: the data decide
        learned = {"program": record(status=TEXT, solution=TEXT, message=TEXT,
                                     objective=NUMBER, relaxed=FLAG, constraints=COUNT,
                                     candidates=TEXT, unlinkable=COUNT, margin=NUMBER,
                                     cuts=COUNT)}
        form = params["form"]
        if form == "weighted_mean":
            learned["weights"] = by_variable(names)
        elif form == "owa":
            learned["owa_weights"] = ListOf(NUMBER)
        elif form in CHOQUET:
            learned["fuzzy_measure"] = ListOf(Record({"variables": NAMES, "value": NUMBER}))
        else:
            learned.update(matrix=ListOf(ListOf(NUMBER)), min_eigenvalue=NUMBER)
        return Record(fields, learned)

    def evaluate(self, data, params, rng, *, original):
        names = self.variables(params, data.meta)
        same_records(data, original, self.name)
        n = len(data)
        if n > params["max_records"]:
            raise ValueError(_too_many(n, params["max_records"]))
        xo, xp = values(original, names), values(data, names)
        zo, zp = standardize(xo, xp, params["standardize"])
        complete = ~(np.isnan(zo).any(axis=1) | np.isnan(zp).any(axis=1))
        rows = np.flatnonzero(complete)
        mode = params["candidates"]
        if mode == "auto":
            mode = "all" if len(rows) <= _ALL_PAIRS_UP_TO else "nearest"
        neighbours = None if mode == "all" else params["neighbours"]
        form = params["form"]
        c = len(names)
        if len(rows) >= 2 and c:
            learned = learn_distance(zp[rows], zo[rows], form=form, relax=params["relax"],
                                     margin=params["margin"], neighbours=neighbours,
                                     time_limit=params["time_limit"])
        else:
            learned = None
        equal = nearest_links(zp[rows], zo[rows])
        links_sub = learned.links if learned is not None else equal
        links = _expand(links_sub, rows, n)
        summary = {
            "form": form,
            "reference": params["reference"],
            "variables": names,
            "records": n,
            "used_records": len(rows),
            "correct": round(float(links.credit.sum()), 6),
            "percent": round(100.0 * float(links.credit.sum()) / n, 6) if n else 0.0,
            "correct_any": int(np.count_nonzero(links.correct)),
            "percent_correct_any": round(100.0 * np.count_nonzero(links.correct) / n, 6) if n else 0.0,
            "equal_weights": {
                "correct": round(float(equal.credit.sum()), 6),
                "percent": round(100.0 * float(equal.credit.sum()) / n, 6) if n else 0.0,
            },
        }
        if learned is not None:
            if form == "weighted_mean":
                summary["weights"] = {v: round(float(w), 12)
                                      for v, w in zip(names, learned.weights, strict=True)}
            elif form == "owa":
                summary["owa_weights"] = [round(float(w), 12) for w in learned.weights]
            elif form in CHOQUET:
                summary["fuzzy_measure"] = [
                    {"variables": [v for j, v in enumerate(names) if mask >> j & 1],
                     "value": round(float(learned.measure[mask]), 12)}
                    for mask in range(1, 2 ** c)]
            else:
                summary["matrix"] = [[round(float(x), 12) for x in row] for row in learned.matrix]
                summary["min_eigenvalue"] = float(np.linalg.eigvalsh(learned.matrix).min())
            summary["program"] = {
                "status": _STATUS.get(learned.status, str(learned.status)),
                "solution": learned.source,
                "message": learned.message,
                "objective": round(learned.objective, 6),
                "relaxed": params["relax"],
                "constraints": learned.constraints,
                "candidates": "nearest" if learned.restricted else "all",
                "unlinkable": learned.never,
                "margin": params["margin"],
                "cuts": learned.cuts,
            }
        return MeasureResult(summary, links_frame(links))


def _too_many(n: int, limit: int) -> str:
    return (f"{n} records exceed max_records = {limit}: the program has one binary variable "
            f"per record and up to n (n - 1) constraints; raise max_records (and time_limit) "
            f"or evaluate a sample")



def _expand(links: Links, rows: np.ndarray, n: int) -> Links:
    """Links of the complete records placed back among all ``n`` (others: not linked)."""
    linked = np.full(n, -1, dtype=np.int64)
    ties = np.zeros(n, dtype=np.int64)
    correct = np.zeros(n, dtype=bool)
    ok = links.linked >= 0
    linked[rows[ok]] = rows[links.linked[ok]]
    ties[rows] = links.ties
    correct[rows] = links.correct
    return Links(linked, ties, correct)
