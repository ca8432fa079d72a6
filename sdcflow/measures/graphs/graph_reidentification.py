"""``graph_reidentification``: how many nodes of the released graph an intruder
re-identifies from a target's degree, its neighbours' degrees or its 1-neighbourhood in
the original graph (the
kernels and references are in :mod:`sdcflow.kernels.graphs.attacks`). Nodes are matched
by their labels: measure before ``relabel_nodes``."""

from __future__ import annotations

from typing import ClassVar

from ...kernels.graphs.attacks import (
    degree_candidates,
    neighbour_degree_candidates,
    neighbourhood_candidates,
    re_identification,
)
from ...registry import MeasureResult, register
from ...results import COUNT, NUMBER, TEXT, by_values, record
from ._graph_measure import GRAPH_MEASURE_PARAMS, GraphMeasure, as_graph

ATTACKS = {"degree": degree_candidates, "neighbour_degrees": neighbour_degree_candidates,
           "neighbourhood": neighbourhood_candidates}


@register
class GraphReidentification(GraphMeasure):
    name = "graph_reidentification"
    summary = "Nodes re-identified by degree and by 1-neighbourhood attacks on a graph."
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["source", "target"],
        "properties": {
            **GRAPH_MEASURE_PARAMS,
            "attacks": {"type": "array", "minItems": 1, "uniqueItems": True,
                        "items": {"enum": list(ATTACKS)},
                        "default": list(ATTACKS),
                        "description": "What the intruder knows of a target: its degree, "
                                       "its neighbours' degrees (Hay et al. 2008), its "
                                       "1-neighbourhood (Zhou and Pei 2008)."},
        },
    }

    def result_shape(self, params, meta):
        attack = record(re_identified=COUNT, expected=NUMBER,
                        below_k=by_values("k", [2, 5, 10], COUNT))
        return record(reference=TEXT, nodes=COUNT, unmatched_nodes=COUNT,
                      **{name: attack for name in params["attacks"]})

    def evaluate(self, data, params, rng, *, original):
        before = as_graph(original, params)
        after = as_graph(data, params)
        unmatched = sum(1 for v in after.nodes if v not in before)
        after.add_nodes_from(before.nodes)  # a node with no edge left is isolated
        out = {"reference": params["reference"], "nodes": before.number_of_nodes(),
               "unmatched_nodes": unmatched}
        for name in params["attacks"]:
            out[name] = re_identification(*ATTACKS[name](before, after))
        return MeasureResult(out)
