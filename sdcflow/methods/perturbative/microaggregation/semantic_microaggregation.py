"""``semantic_microaggregation``: microaggregation of nominal variables by their
semantics (S. Martinez, D. Sanchez, A. Valls, "Semantic adaptive microaggregation of
categorical microdata", Computers & Security 31(5), 2012; D. Abril, G. Navarro-Arribas,
V. Torra, "Towards semantic microaggregation of categorical data for confidential
documents", MDAI 2010): MDAV groups of k .. 2k-1 records by a semantic distance in each
variable's taxonomy (summed over the variables, each scaled to [0, 1]), each group's
values replaced by their least common subsumer or their semantic centroid (the concept
between the values and that subsumer with the least sum of distances to them). The
released combination of the variables is then shared by at least k records, a missing
value (kept missing) matching any value, as k-anonymity counts it."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ....kernels.semantic.distances import (
    DISTANCES,
    NEEDS_IC,
    information_content,
    semantic_distances,
)
from ....kernels.semantic.microaggregation import group_representatives, semantic_mdav
from ....plugins.limits import MAX_CELLS, MAX_DISTANCES, over
from ....plugins.progress import step_progress
from ....plugins.registry import Method, MethodResult, Output, register, variables_param
from ..._semantic import as_text, data_problems, data_taxonomy, taxonomy_problems
from ...non_perturbative.semantic_generalisation import _generalised


@register
class SemanticMicroaggregation(Method):
    name = "semantic_microaggregation"
    public_params = ("variables", "k", "distance", "representative")
    protects = True
    summary = ("Replace groups of k..2k-1 semantically close records by their least common "
               "subsumer or centroid concept.")
    roles = ("key", "sensitive")
    types = ("categorical",)
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["variables"],
        "properties": {
            "variables": variables_param("Categorical variables with a taxonomy, "
                                         "aggregated together."),
            "k": {"type": "integer", "minimum": 1, "default": 3,
                  "description": "Group size: every group has k .. 2k-1 records."},
            "distance": {"enum": list(DISTANCES), "default": "wu_palmer",
                         "description": "Semantic distance: path (edges), wu_palmer, lin or "
                                        "jiang_conrath (information content counted in the "
                                        "data)."},
            "representative": {"enum": ["lcs", "centroid"], "default": "lcs",
                               "description": "A group's value: the least common subsumer "
                                              "of its values, or their semantic centroid."},
        },
    }

    def explain(self, params, result):
        """The options the recipe chose: the distance and the group's value."""
        k = params.get("k", 3)
        names = ", ".join(params.get("variables") or ()) or "the variables"
        distance = {"path": "the path length between concepts",
                    "wu_palmer": "Wu & Palmer's similarity",
                    "lin": "Lin's similarity", "jiang_conrath": "Jiang & Conrath's distance"
                    }.get(params.get("distance", "wu_palmer"), params.get("distance"))
        value = ("the least common subsumer of their values (the most specific concept "
                 "above them all)" if params.get("representative", "lcs") == "lcs"
                 else "their semantic centroid (the concept closest to them all)")
        return (f"The records were put in groups of {k} to {2 * k - 1} semantically close "
                f"records by {distance} over the taxonomies of {names}; each group's "
                f"values were replaced by {value}.")

    def check(self, params, meta):
        for i, name in enumerate(params["variables"]):
            yield from taxonomy_problems(name, ("variables", i), meta)

    def outputs(self, params, meta):
        return {name: Output(_generalised(meta.variables[name]))
                for name in params["variables"] if name in meta.variables}

    def check_data(self, params, data):
        n, k = len(data), params["k"]
        if k > n:
            yield ("k",), f"k = {k} is larger than the number of records ({n})"
        # each MDAV round scans the remaining records a few times: about n^2 / k
        work = 2.0 * n * n / k * len(params["variables"])
        if work > MAX_DISTANCES:
            yield ("k",), (f"k = {k} on {n} records needs "
                           f"{over(work, 'distances', MAX_DISTANCES)}")
        for i, name in enumerate(params["variables"]):
            problems = list(data_problems(data, name, ("variables", i)))
            yield from problems
            if problems or name not in data.variables:
                continue
            tax, codes = data_taxonomy(data, name)
            candidates = _candidates(tax, codes)
            size = len(candidates) ** 2
            # (their least common subsumers are found level by level of the taxonomy)
            levels = int(tax.depth[candidates].max(initial=0)) + 1
            if size > MAX_CELLS:
                yield ("variables", i), (f"the distances between the concepts of '{name}' "
                                         f"make {over(size, 'cells', MAX_CELLS)}")
            elif size * levels > MAX_DISTANCES:
                yield ("variables", i), (
                    f"the least common subsumers of the {len(candidates)} concepts of "
                    f"'{name}', over {levels} levels, make "
                    f"{over(size * levels, 'comparisons', MAX_DISTANCES)}")

    def apply(self, data, params, rng):
        names, k = params["variables"], params["k"]
        report = step_progress()
        taxonomies, codes, x, D, candidates = [], [], [], [], []
        for name in names:
            tax, c = data_taxonomy(data, name)
            cand = _candidates(tax, c)
            dist = np.zeros((0, 0))
            if len(cand):  # (no candidate: every value missing)
                ic = None
                if params["distance"] in NEEDS_IC:
                    ic = information_content(tax, np.bincount(c[c >= 0],
                                                              minlength=len(tax.names)))
                dist = semantic_distances(tax, cand, params["distance"], ic)
            top = dist.max(initial=0.0)
            dist = dist / top if top > 0 else dist
            position = np.full(len(tax.names), -1, dtype=np.int64)
            position[cand] = np.arange(len(cand))
            taxonomies.append(tax)
            codes.append(c)
            x.append(np.where(c >= 0, position[c], -1))
            D.append(dist)
            candidates.append(cand)
        # a variable without values (every record missing) matches every record: it
        # takes no part in the grouping and stays missing
        present = [i for i, cand in enumerate(candidates) if len(cand)]
        if present:
            labels = semantic_mdav([x[i] for i in present], [D[i] for i in present], k)
        else:
            labels = np.full(len(data), -1, dtype=np.int64)  # nothing to group
        if report is not None:
            report(1.0)
        columns, new_vars, info_vars = {}, [], {}
        for name, tax, c, dist, cand in zip(names, taxonomies, codes, D, candidates,
                                            strict=True):
            out = group_representatives(tax, c, labels, params["representative"], dist, cand)
            columns[name] = as_text(tax, out, data.frame.index)
            new_vars.append(_generalised(data.variables[name], tax))
            info_vars[name] = {"changed": int((out != c).sum()),
                               "distinct_before": len(np.unique(c[c >= 0])),
                               "distinct_after": len(np.unique(out[out >= 0])),
                               "missing": int((c < 0).sum())}
        sizes = np.bincount(labels[labels >= 0])
        info = {"k": k, "distance": params["distance"],
                "representative": params["representative"],
                "groups_formed": len(sizes),
                "smallest_group": int(sizes.min()) if len(sizes) else 0,
                "variables": info_vars}
        return MethodResult(data.with_columns(columns, new_vars), info)


def _candidates(tax, codes: np.ndarray) -> np.ndarray:
    """The concepts a value may become: the data's values and all their ancestors."""
    out: set[int] = set()
    for c in np.unique(codes[codes >= 0]):
        out.update(tax.ancestors(int(c)))
    return np.array(sorted(out), dtype=np.int64)
