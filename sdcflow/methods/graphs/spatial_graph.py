"""``spatial_graph``: replace a graph by a synthetic spatial graph with the same degree
sequence (the kernel and its reference are in :mod:`sdcflow.kernels.graphs.spatial`)."""

from __future__ import annotations

from typing import ClassVar

from ...data.edge_list import EDGE_PARAMS, edge_dataset, nodes_and_edges
from ...kernels.graphs.edges import canonical, degrees
from ...kernels.graphs.spatial import DENSITIES, spatial_graph
from ...plugins.limits import MAX_NODE_PAIRS
from ...plugins.registry import MethodResult, register
from ._graph_method import GraphMethod


@register
class SpatialGraph(GraphMethod):
    name = "spatial_graph"
    public_params = ("source", "target", "density")
    protects = True
    summary = "A synthetic spatial graph with the degree sequence of the graph."
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["source", "target"],
        "properties": {
            **EDGE_PARAMS,
            "density": {"enum": list(DENSITIES), "default": "uniform",
                        "description": "Where the nodes are placed: uniform on the unit "
                                       "square, or standard normal in the plane."},
        },
    }

    def work(self, params, n, u, v):
        # each node's distances to the nodes still free: up to n x n
        return [((), n * n, MAX_NODE_PAIRS, "distances",
                 f"placing {n} nodes (each one's distance to every other)")]

    def apply(self, data, params, rng):
        labels, u, v = nodes_and_edges(data, params)
        d = degrees(len(labels), u, v)
        a, b, info = spatial_graph(d, params["density"], rng)
        a, b = canonical(a, b)
        kept = len({(int(x), int(y)) for x, y in zip(*canonical(u, v))} &
                   {(int(x), int(y)) for x, y in zip(a, b)})
        info = {"edges_before": len(u), "edges_after": len(a), "original_edges_kept": kept,
                **info}
        return MethodResult(edge_dataset(data, params, labels, a, b), info)
