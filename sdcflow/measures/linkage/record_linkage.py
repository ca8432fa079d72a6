"""``record_linkage``: the share of protected records an intruder re-identifies by linking
them to the original records (Torra, "Data privacy: supervised approaches for disclosure
risk assessment", 2016, "Disclosure risk assessment", re-identification by record linkage;
Torra, "Masking methods", 2013, "Rank swapping: Example II", DBRL and PRL per scenario, DLD
and PLD).

Each protected record is linked to the original record(s) nearest to it (distance-based
record linkage, DBRL) or of highest Fellegi-Sunter weight (probabilistic record linkage,
PRL); the link is correct when it goes to the record's own original (records are compared
by position). See :mod:`sdcflow.kernels.linkage.linkage` for the computations.

A risk measure's default must be the strong attack: which distance links most depends on
the masking (Euclidean beats Mahalanobis on some microaggregated files, Mahalanobis with
the covariance of the differences beats Euclidean on others), so the default, ``method:
strongest``, runs the distance-based linkages that scale to large files -- Euclidean on
z-scores and Mahalanobis with either covariance (DBRLM-COV and DBRLM-COV0 of Torra,
Abowd & Domingo-Ferrer 2006) -- and reports, for each scenario, the one that links most
records, as an intruder who tries them on a few known individuals would choose. Kernel
DBRL (every pair) and PRL are run when asked for.

Also the helpers the other linkage measures share (values as arrays, scenarios)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import ClassVar

import numpy as np
import pandas as pd

from ...data.codes import ordered_values
from ...data.dataset import Dataset
from ...kernels.linkage.coordinates import mahalanobis_transform, standardize, weighted
from ...kernels.linkage.distance_linkage import nearest_links
from ...kernels.linkage.links import Links
from ...kernels.linkage.pairwise_links import kernel_distance, pairwise_links
from ...kernels.linkage.probabilistic_linkage import probabilistic_links
from ...plugins.distribution import Whole
from ...plugins.plain_words import figure
from ...plugins.registry import Measure, MeasureResult, register, variables_param
from ...plugins.results import (
    COUNT,
    FLAG,
    NAMES,
    NUMBER,
    TEXT,
    ListOf,
    Record,
    Text,
    by_values,
    by_variable,
    value_key,
)
from ..reference import REFERENCE, same_records

SCENARIOS = ("all", "prefixes", "subsets")
MAX_SUBSET_VARIABLES = 12  # 2^12 - 1 = 4,095 linkages
# the linkages of method 'strongest': (label, method, covariance), in the order that
# breaks a tie (the first of equally successful ones is reported)
STRONGEST = (("distance", "distance", None), ("mahalanobis_cov", "mahalanobis", "cov"),
             ("mahalanobis_cov0", "mahalanobis", "cov0"))
# the agreement tolerances probabilistic linkage tries by default: which links most
# depends on the masking (on CASC, 0.2 beats 0.1 by 20 to 50 points after MDAV or rank
# swapping, 0.5 wins after noise)
TOLERANCES = (0.05, 0.1, 0.2, 0.5)
COVARIANCE_TEXT = {
    "cov0": "cov0: pooled covariance of both files, Moore-Penrose pseudo-inverse",
    "cov": "cov: covariance of the differences (Var[V] + Var[V'] - 2 Cov[V, V']), "
           "Moore-Penrose pseudo-inverse"}

VARIABLES = variables_param("The variables the intruder knows (default: every numeric "
                            "(integer or continuous) variable with role numeric).")
SCENARIO_PARAM = {
    "enum": list(SCENARIOS), "default": "all",
    "description": "all: the intruder knows every variable; prefixes: the first 1, 2, ..., "
                   "c variables (the nested scenarios of Torra's (2013) table), averaged; "
                   "subsets: every subset of each size 1..c, averaged per size, then over "
                   "the sizes."}


# ------------------------------------------------------------------------ shared helpers


def values(data: Dataset, names: list[str]) -> np.ndarray:
    """The variables as a float matrix (records x variables), missing values as NaN; an
    ordinal variable as the position of its category in the declared order."""
    if not names:
        return np.zeros((len(data), 0))
    return np.column_stack([ordered_values(data.frame[name], data.variables.get(name))
                            for name in names])


def scenario_sets(c: int, mode: str) -> list[tuple[int, ...]]:
    """The sets of variable positions the intruder knows, one per scenario."""
    if mode == "all":
        return [tuple(range(c))]
    if mode == "prefixes":
        return [tuple(range(k)) for k in range(1, c + 1)]
    if mode == "subsets":
        return [s for k in range(1, c + 1) for s in itertools.combinations(range(c), k)]
    raise ValueError(f"unknown scenarios {mode!r}")


def run_scenarios(names: list[str], mode: str, n: int,
                  one: Callable[[list[int]], dict], keys: tuple[str, ...]) -> dict:
    """Evaluate ``one(columns)`` (a dict with the counts ``keys``) on every scenario and
    summarise: for ``all`` the counts and their percentages; for ``prefixes`` each
    scenario and the mean; for ``subsets`` the mean per number of known variables and the
    mean of those means. The keys of the result: each count, ``percent_<count>`` (the
    first count's is plain ``percent``), and ``by_scenario`` / ``by_size``."""
    sets = scenario_sets(len(names), mode)
    results = [(s, one(list(s))) for s in sets]

    def pct(x):
        return round(100.0 * x / n, 6) if n else 0.0

    def figures(counts: dict) -> dict:
        out = {}
        for i, k in enumerate(keys):
            out[k] = round(float(counts[k]), 6)
            out["percent" if i == 0 else f"percent_{k}"] = pct(counts[k])
        return out

    if mode == "all":
        return figures(results[0][1])
    if mode == "prefixes":
        rows = [{"variables": [names[j] for j in s], **figures(r)} for s, r in results]
        mean = {k: float(np.mean([r[k] for _, r in results])) for k in keys}
        return {**figures(mean), "by_scenario": rows}
    by_size = {}
    for size in range(1, len(names) + 1):
        here = [r for s, r in results if len(s) == size]
        mean = {k: float(np.mean([r[k] for r in here])) for k in keys}
        by_size[str(size)] = {"scenarios": len(here), **figures(mean)}
    mean = {k: float(np.mean([by_size[str(s)][k] for s in range(1, len(names) + 1)]))
            for k in keys}
    return {**figures(mean), "by_size": by_size}


def scenario_fields(names: list[str], mode: str, keys: tuple[str, ...]) -> dict:
    """The shapes of the fields :func:`run_scenarios` returns."""

    def figures() -> dict:
        out: dict = {}
        for i, k in enumerate(keys):
            out[k] = NUMBER
            out["percent" if i == 0 else f"percent_{k}"] = NUMBER
        return out

    out = figures()
    if mode == "prefixes":
        out["by_scenario"] = ListOf(Record({"variables": NAMES, **figures()}))
    elif mode == "subsets":
        out["by_size"] = by_values("number of variables known", range(1, len(names) + 1),
                                   Record({"scenarios": COUNT, **figures()}))
    return out


def check_variables(params: Mapping, names: list[str]):
    """Findings shared by the linkage measures: no variables, too many for subsets."""
    if not names:
        yield ("variables",), "no variables: name them or declare numeric variables"
    if params.get("scenarios") == "subsets" and len(names) > MAX_SUBSET_VARIABLES:
        yield ("scenarios",), (f"subsets of {len(names)} variables are {2 ** len(names) - 1} "
                               f"linkages; use at most {MAX_SUBSET_VARIABLES} variables or "
                               "scenarios: prefixes")


def links_frame(links: Links, with_linked: bool = True) -> pd.DataFrame:
    """The per-record table of a linkage (``linked``: position of the linked original,
    the lowest of the tied ones; ``ties``; ``correct``; ``credit`` = 1/ties if correct)."""
    columns = {}
    if with_linked:
        linked = pd.array(links.linked, dtype="Int64")
        linked[links.linked < 0] = pd.NA
        columns["linked"] = linked
    columns["ties"] = links.ties
    columns["correct"] = links.correct
    columns["credit"] = links.credit
    return pd.DataFrame(columns)


# ----------------------------------------------------------------------------- the measure


@register
class RecordLinkage(Measure):
    distribution = Whole()  # every protected record against every original one
    name = "record_linkage"
    public_params = (
        "method", "covariance", "degree", "variables", "scenarios", "weights", "tolerance",
        "standardize", "reference",
    )
    # 2: method strongest (the most successful of Euclidean and both Mahalanobis
    # covariances) by default, was distance; covariance cov by default, was cov0; the
    # most successful of several tolerances in PRL by default, was 0.1
    version = "2"
    risk_measure = True
    summary = ("Re-identification by record linkage (distance-based or probabilistic): "
               "correct links overall and per scenario.")
    types = ("integer", "continuous")
    default_roles = ("numeric",)
    default_numeric = True
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "method": {
                "enum": ["strongest", "distance", "mahalanobis", "weighted", "kernel",
                         "probabilistic"],
                "default": "strongest",
                "description": "strongest: for each scenario the most successful of "
                               "distance, mahalanobis with covariance cov and with cov0 "
                               "(the strongest attack of these); distance: Euclidean on "
                               "standardised values; mahalanobis: with the pseudo-inverse "
                               "of a covariance (`covariance`); weighted: weighted "
                               "Euclidean with `weights`; kernel: Euclidean in the feature "
                               "space of the polynomial kernel (1 + <a, b>)^degree (kernel "
                               "DBRL); probabilistic: Fellegi-Sunter with EM.",
            },
            "covariance": {
                "enum": ["cov", "cov0"], "default": "cov",
                "description": "method mahalanobis: cov, Var[V] + Var[V'] - 2 Cov[V, V'] "
                               "(the covariance of the differences, record i paired with "
                               "record i: the stronger attack); cov0, Var[V] + Var[V'] (the "
                               "pooled covariance of both files; the cross-covariance "
                               "taken as 0).",
            },
            "degree": {
                "type": "integer", "minimum": 1, "maximum": 10, "default": 2,
                "description": "method kernel: the degree of the polynomial kernel (1: the "
                               "Euclidean distance).",
            },
            "variables": VARIABLES,
            "scenarios": SCENARIO_PARAM,
            "weights": {
                "type": "object", "additionalProperties": {"type": "number", "minimum": 0},
                "description": "method weighted: the weight of each variable in the squared "
                               "distance (variables not listed weigh 1).",
            },
            "tolerance": {
                "anyOf": [{"type": "number", "minimum": 0},
                          {"type": "array", "minItems": 1, "maxItems": 10,
                           "uniqueItems": True, "items": {"type": "number", "minimum": 0}}],
                "default": list(TOLERANCES),
                "description": "method probabilistic: two values agree when they differ by "
                               "at most this fraction of the original's standard deviation "
                               "(0: equal values only); a list: the most successful of them "
                               "(default 0.05, 0.1, 0.2, 0.5).",
            },
            "standardize": {
                "enum": ["original", "each"], "default": "original",
                "description": "Distance methods: z-scores with the original's means and "
                               "standard deviations for both files, or each file with its "
                               "own (Torra's (2016) diff_i).",
            },
            "reference": REFERENCE,
        },
    }

    def explain(self, params, result):
        if not isinstance(result, dict) or "percent" not in result:
            return self.summary
        method = result.get("method", params.get("method"))
        if method == "strongest":
            method = f"the strongest of {', '.join(label for label, _, _ in STRONGEST)}: " \
                     f"{result.get('strongest')}"
        return ("An intruder who holds the original values links each released record to the "
                f"closest original record ({method} record linkage): "
                f"{figure(result['percent'])}% of the records are linked to their own "
                "original.")

    def check(self, params, meta):
        names = self.variables(params, meta)
        yield from check_variables(params, names)
        weights = params.get("weights") or {}
        if weights and params.get("method") != "weighted":
            yield ("weights",), "weights are used only with method: weighted"
        for name in weights:
            if name not in names:
                yield ("weights", name), f"'{name}' is not one of the linkage variables"

    pairs_records = True

    def result_shape(self, params, meta):
        names = self.variables(params, meta)
        method = params["method"]
        fields = {"method": Text((method,)), "reference": TEXT, "variables": NAMES,
                  "records": COUNT, "scenarios": TEXT,
                  **scenario_fields(names, params["scenarios"],
                                    ("correct", "correct_any", "not_linked")),
                  "ties": TEXT}
        if method == "probabilistic":
            fields["em"] = Record({"m": by_variable(names), "u": by_variable(names),
                                   "p": NUMBER, "iterations": COUNT, "converged": FLAG})
            fields["tolerance"] = NUMBER
            if isinstance(params.get("tolerance"), list):
                fields["by_tolerance"] = by_values("tolerance", params["tolerance"], NUMBER)
        else:
            fields["standardize"] = TEXT
        if method == "mahalanobis":
            fields.update(covariance=TEXT, mahalanobis_rank=COUNT.with_null())
        if method == "strongest":
            labels = tuple(label for label, _, _ in STRONGEST)
            fields.update(strongest=Text(labels),
                          by_method=Record({label: NUMBER for label in labels}))
        if method == "weighted":
            fields["weights"] = by_variable(names)
        if method == "kernel":
            fields["degree"] = COUNT
        return Record(fields)

    def evaluate(self, data, params, rng, *, original):
        names = self.variables(params, data.meta)
        same_records(data, original, self.name)
        n = len(data)
        method = params["method"]
        xo, xp = values(original, names), values(data, names)
        zo, zp = standardize(xo, xp, params.get("standardize", "original"))
        if method == "weighted":
            w = np.array([float((params.get("weights") or {}).get(v, 1.0)) for v in names])
            zo, zp = weighted(zo, w), weighted(zp, w)
        extra: dict = {}

        def link(how: str, option, cols: list[int]) -> Links:
            """One linkage; ``option``: the covariance (mahalanobis) or the tolerance
            (probabilistic)."""
            if how == "probabilistic":
                return probabilistic_links(xo[:, cols], xp[:, cols], option)
            a, b = zo[:, cols], zp[:, cols]
            if how == "mahalanobis":
                a, b, info = mahalanobis_transform(a, b, option)
                extra["mahalanobis_rank"] = info["rank"]
            if how == "kernel":
                return pairwise_links(b, a, distance=kernel_distance(params["degree"]))
            return nearest_links(b, a)

        tolerances = params.get("tolerance", list(TOLERANCES))
        tolerances = tolerances if isinstance(tolerances, list) else [tolerances]
        if method == "strongest":
            attacks = STRONGEST
        elif method == "probabilistic":
            attacks = tuple((value_key(t), method, t) for t in tolerances)
        else:
            attacks = ((method, method, params.get("covariance", "cov")),)
        full: list = []

        def one(cols: list[int]) -> dict:
            # the most successful attack (the first of equally successful ones)
            tried = [(label, link(how, cov, cols)) for label, how, cov in attacks]
            label, links = max(tried, key=lambda t: float(t[1].credit.sum()))
            if len(cols) == len(names):
                full.append((label, links, tried))
            return {"correct": float(links.credit.sum()),
                    "correct_any": float(np.count_nonzero(links.correct)),
                    "not_linked": float(np.count_nonzero(links.ties == 0))}

        figures = run_scenarios(names, params["scenarios"], n, one,
                                ("correct", "correct_any", "not_linked"))
        strongest, links, tried = full[-1]
        summary = {
            "method": method,
            "reference": params["reference"],
            "variables": names,
            "records": n,
            "scenarios": params["scenarios"],
            **figures,
            "ties": "a correct link among t equally near (equally weighted) originals counts "
                    "1/t in correct, 1 in correct_any",
        }
        if method == "probabilistic":
            em = links.info["em"]
            summary["em"] = {"m": dict(zip(names, em["m"], strict=True)),
                             "u": dict(zip(names, em["u"], strict=True)),
                             "p": em["p"], "iterations": em["iterations"],
                             "converged": em["converged"]}
            summary["tolerance"] = float({label: t for label, _, t in attacks}[strongest])
            if isinstance(params.get("tolerance"), list):
                summary["by_tolerance"] = {label: round(100.0 * float(t.credit.sum()) / n, 6)
                                           if n else 0.0 for label, t in tried}
        else:
            summary["standardize"] = params.get("standardize", "original")
        if method == "mahalanobis":
            summary["covariance"] = COVARIANCE_TEXT[params.get("covariance", "cov")]
            summary["mahalanobis_rank"] = extra.get("mahalanobis_rank")
        if method == "strongest":
            summary["strongest"] = strongest
            summary["by_method"] = {label: round(100.0 * float(t.credit.sum()) / n, 6)
                                    if n else 0.0 for label, t in tried}
        if method == "weighted":
            summary["weights"] = {v: float((params.get("weights") or {}).get(v, 1.0))
                                  for v in names}
        if method == "kernel":
            summary["degree"] = params["degree"]
        return MeasureResult(summary, links_frame(links, method != "probabilistic"))
