"""``graph_reidentification``: how many nodes of the released graph an intruder
re-identifies from a target's degree, its neighbours' degrees, its 1-neighbourhood, a
connected subgraph of ``edges`` edges around it in the original graph, or its degree and
its node attributes (``variables.NAME.nodes``) (the kernels and
references are in :mod:`sdcflow.kernels.graphs.attacks` and
:mod:`sdcflow.kernels.graphs.subgraph`). Nodes are matched
by their labels: measure before ``relabel_nodes``."""

from __future__ import annotations

from typing import ClassVar

from ...data.edge_list import two_edge_paths
from ...data.node_attributes import attribute_rows
from ...kernels.graphs.attacks import (
    degree_attribute_candidates,
    degree_candidates,
    neighbour_degree_candidates,
    neighbourhood_candidates,
    re_identification,
)
from ...kernels.graphs.subgraph import subgraph_candidates
from ...plugins.limits import MAX_LOOP_STEPS
from ...plugins.registry import MeasureResult, register
from ...plugins.results import COUNT, NUMBER, TEXT, by_values, record
from ._graph_measure import GRAPH_MEASURE_PARAMS, GraphMeasure, as_graph

ATTACKS = {"degree": degree_candidates, "neighbour_degrees": neighbour_degree_candidates,
           "neighbourhood": neighbourhood_candidates, "subgraph": subgraph_candidates,
           "degree_attributes": degree_attribute_candidates}
DEFAULT_ATTACKS = ["degree", "neighbour_degrees", "neighbourhood"]
# the cost of the neighbourhood attack in loop steps (about a microsecond each;
# sdcflow.plugins.limits): a node's neighbourhood copied and hashed
NEIGHBOURHOOD_STEPS = 500


@register
class GraphReidentification(GraphMeasure):
    name = "graph_reidentification"
    public_params = ("source", "target", "reference", "attacks", "edges", "search_limit")
    risk_measure = True
    summary = ("Nodes re-identified by degree, neighbourhood, subgraph and node-attribute "
               "attacks on a graph.")
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
                                       "not in the default: costlier), its degree and "
                                       "node attributes (variables.NAME.nodes)."},
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

    def check(self, params, meta):
        yield from super().check(params, meta)
        if "degree_attributes" in (params.get("attacks") or []) and \
                _nodes(meta.variables, params) is None:
            yield ("attacks",), ("the degree_attributes attack needs node attributes: "
                                 f"declare variables.{params.get('source')}.nodes: "
                                 "{file: ..., id: ...} (relabel_nodes drops them: measure "
                                 "before it)")

    def work(self, params, n, u, v):
        paths = two_edge_paths(n, u, v)
        out = []
        if "neighbourhood" in params["attacks"]:
            # every node's 1-neighbourhood, in both graphs, copied and hashed
            out.append((("attacks",), 2 * (NEIGHBOURHOOD_STEPS * n + paths), MAX_LOOP_STEPS,
                        "steps", (f"the neighbourhood attack on {n} nodes (about "
                        f"{NEIGHBOURHOOD_STEPS} steps a node, and the graph's {paths} paths "
                        "of two edges)")))
        if "subgraph" in params["attacks"]:
            # each distinct known subgraph (up to one per node) searched for around every
            # released node, a step at least each
            out.append((("attacks",), n * n + params["edges"] * paths,
                        MAX_LOOP_STEPS, "steps", (f"the subgraph attack on {n} nodes (up to "
                        f"{n} x {n} searches)")))
        return out

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
            elif name == "degree_attributes":
                nodes = _nodes(original.variables, params)
                labels = list(after.nodes)
                rows = dict(zip(labels, attribute_rows(nodes, labels)))
                out[name] = re_identification(*degree_attribute_candidates(before, after, rows))
            else:
                out[name] = re_identification(*ATTACKS[name](before, after))
        return MeasureResult(out)


def _nodes(variables, params):
    """The node attributes declared on the source variable, else on the target."""
    for key in ("source", "target"):
        var = variables.get(params.get(key))
        if var is not None and var.nodes is not None:
            return var.nodes
    return None
