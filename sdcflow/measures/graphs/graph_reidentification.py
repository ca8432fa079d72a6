"""``graph_reidentification``: how many nodes of the released graph an intruder
re-identifies from a target's degree, its neighbours' degrees, its 1-neighbourhood or a
connected subgraph of ``edges`` edges around it in the original graph (the kernels and
references are in :mod:`sdcflow.kernels.graphs.attacks` and
:mod:`sdcflow.kernels.graphs.subgraph`). Nodes are matched
by their labels: measure before ``relabel_nodes``."""

from __future__ import annotations

from typing import ClassVar

from ...kernels.graphs.attacks import (
    degree_candidates,
    neighbour_degree_candidates,
    neighbourhood_candidates,
    re_identification,
)
from ...kernels.graphs.subgraph import subgraph_candidates
from ...registry import MeasureResult, register
from ...results import COUNT, NUMBER, TEXT, by_values, record
from ._graph_measure import GRAPH_MEASURE_PARAMS, GraphMeasure, as_graph

ATTACKS = {"degree": degree_candidates, "neighbour_degrees": neighbour_degree_candidates,
           "neighbourhood": neighbourhood_candidates, "subgraph": subgraph_candidates}
DEFAULT_ATTACKS = ["degree", "neighbour_degrees", "neighbourhood"]


@register
class GraphReidentification(GraphMeasure):
    name = "graph_reidentification"
    summary = "Nodes re-identified by degree, neighbourhood and subgraph attacks on a graph."
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["source", "target"],
        "properties": {
            **GRAPH_MEASURE_PARAMS,
            "attacks": {"type": "array", "minItems": 1, "uniqueItems": True,
                        "items": {"enum": list(ATTACKS)},
                        "default": DEFAULT_ATTACKS,
                        "description": "What the intruder knows of a target: its degree, "
                                       "its neighbours' degrees (Hay et al. 2008), its "
                                       "1-neighbourhood (Zhou and Pei 2008), a connected "
                                       "subgraph around it (Hay et al. 2008's edge facts; "
                                       "not in the default: costlier)."},
            "edges": {"type": "integer", "minimum": 1, "maximum": 20, "default": 4,
                      "description": "Subgraph attack: the number of edges the intruder "
                                     "knows around the target."},
            "search_limit": {"type": "integer", "minimum": 1, "default": 10000,
                             "description": "Subgraph attack: the steps one embedding "
                                            "search may take before it is left "
                                            "undecided (counted so as to over-estimate "
                                            "the risk)."},
        },
    }

    def result_shape(self, params, meta):
        attack = record(re_identified=COUNT, expected=NUMBER,
                        below_k=by_values("k", [2, 5, 10], COUNT))
        shapes = {name: attack for name in params["attacks"]}
        if "subgraph" in shapes:
            shapes["subgraph"] = record(re_identified=COUNT, expected=NUMBER,
                                        below_k=by_values("k", [2, 5, 10], COUNT),
                                        undecided=COUNT)
        return record(reference=TEXT, nodes=COUNT, unmatched_nodes=COUNT, **shapes)

    def evaluate(self, data, params, rng, *, original):
        before = as_graph(original, params)
        after = as_graph(data, params)
        unmatched = sum(1 for v in after.nodes if v not in before)
        after.add_nodes_from(before.nodes)  # a node with no edge left is isolated
        out = {"reference": params["reference"], "nodes": before.number_of_nodes(),
               "unmatched_nodes": unmatched}
        for name in params["attacks"]:
            if name == "subgraph":
                candidates, among, undecided = subgraph_candidates(
                    before, after, edges=params["edges"], search_limit=params["search_limit"])
                out[name] = {**re_identification(candidates, among), "undecided": undecided}
            else:
                out[name] = re_identification(*ATTACKS[name](before, after))
        return MeasureResult(out)
