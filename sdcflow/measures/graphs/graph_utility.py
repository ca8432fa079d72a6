"""``graph_utility``: structural statistics of the evaluated graph beside those of its
reference, and the distance between their degree distributions (the kernel and its
references are in :mod:`sdcflow.kernels.graphs.structure`). Nodes need not be matched, so
it may follow ``relabel_nodes``."""

from __future__ import annotations

from typing import ClassVar

from ...data.edge_list import two_edge_paths
from ...kernels.graphs.structure import degree_distance, statistics
from ...plugins.limits import MAX_LOOP_STEPS
from ...plugins.registry import MeasureResult, register
from ...plugins.results import COUNT, NUMBER, TEXT, ListOf, record
from ._graph_measure import GRAPH_MEASURE_PARAMS, GraphMeasure, as_graph


@register
class GraphUtility(GraphMeasure):
    name = "graph_utility"
    public_params = ("source", "target", "reference", "eigenvalues")
    risk_measure = False
    summary = ("Degree distribution distance, clustering, path lengths and spectrum of a "
               "graph against the original.")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["source", "target"],
        "properties": {
            **GRAPH_MEASURE_PARAMS,
            "eigenvalues": {"type": "integer", "minimum": 0, "maximum": 50, "default": 5,
                            "description": "How many of the largest eigenvalues of the "
                                           "adjacency matrix to report."},
        },
    }

    def work(self, params, n, u, v):
        # the clustering coefficient walks each node's neighbours' neighbours (networkx);
        # ARPACK's largest eigenvalues cost about nodes x eigenvalues^2 steps
        c = params["eigenvalues"]
        return [((), 2 * two_edge_paths(n, u, v), MAX_LOOP_STEPS, "steps",
                 (f"the clustering of a graph of {n} nodes and of its reference (their "
                 "paths of two edges)")),
                (("eigenvalues",), 2 * n * c * c if n > 1000 else 0, MAX_LOOP_STEPS, "steps",
                 (f"the {c} largest eigenvalues of a graph of {n} nodes and of its reference "
                 "(nodes x eigenvalues^2 each)"))]

    def result_shape(self, params, meta):
        stats = record(nodes=COUNT, edges=COUNT, mean_degree=NUMBER, clustering=NUMBER,
                       largest_component=COUNT, mean_path_length=NUMBER, diameter=COUNT,
                       eigenvalues=ListOf(NUMBER))
        return record(reference=TEXT, degree_distance=NUMBER, original=stats,
                      released=stats, clustering_change=NUMBER, path_length_change=NUMBER)

    def evaluate(self, data, params, rng, *, original):
        before, after = as_graph(original, params), as_graph(data, params)
        a = statistics(before, params["eigenvalues"], rng)
        b = statistics(after, params["eigenvalues"], rng)
        return MeasureResult({
            "reference": params["reference"],
            "degree_distance": degree_distance(before, after),
            "original": a, "released": b,
            "clustering_change": round(b["clustering"] - a["clustering"], 6),
            "path_length_change": round(b["mean_path_length"] - a["mean_path_length"], 6),
        })
