"""``supernode_generalisation``: partition the nodes into super-nodes of at least ``k``
and release a graph drawn from the generalised graph (Hay et al. 2008; the kernel is
:mod:`sdcflow.kernels.graphs.supernodes`)."""

from __future__ import annotations

from typing import ClassVar

from ...data.edge_list import EDGE_PARAMS, edge_dataset, nodes_and_edges
from ...kernels.graphs.edges import canonical
from ...kernels.graphs.supernodes import block_counts, partition, sample_graph
from ...plugins.limits import MAX_CELLS, MAX_LOOP_STEPS
from ...plugins.registry import MethodResult, register
from ._graph_method import GraphMethod

# an annealing move: a dozen NumPy calls over the super-nodes (about 100 microseconds)
MOVE_STEPS = 100


@register
class SupernodeGeneralisation(GraphMethod):
    name = "supernode_generalisation"
    public_params = ("source", "target", "k", "iterations")
    protects = True
    k_counts_nodes = True
    summary = ("Generalise a graph into super-nodes of at least k nodes and release a "
               "graph drawn from it.")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["source", "target", "k"],
        "properties": {
            **EDGE_PARAMS,
            "k": {"type": "integer", "minimum": 2,
                  "description": "Least number of nodes in a super-node."},
            "iterations": {"type": "integer", "minimum": 0, "maximum": 10_000_000,
                           "default": 10_000,
                           "description": "Simulated annealing moves tried."},
        },
    }

    def work(self, params, n, u, v):
        k, iterations = params["k"], params["iterations"]
        g = max(n // k, 1)
        largest = n - (g - 1) * k  # (the last super-node takes the rest)
        return [
            (("k",), g * g, MAX_CELLS, "cells", (f"the edge counts between the {g} "
             f"super-nodes of {n} nodes for k = {k}")),
            (("k",), largest * (largest - 1) // 2, MAX_CELLS, "cells",
             f"the node pairs inside a super-node of {largest} nodes"),
            (("iterations",), iterations * (MOVE_STEPS + g), MAX_LOOP_STEPS, "steps",
             (f"{iterations} annealing moves among {g} super-nodes (about {MOVE_STEPS} + {g} "
             "steps each)"))]

    def apply(self, data, params, rng):
        labels, u, v = nodes_and_edges(data, params)
        groups, info = partition(len(labels), u, v, params["k"], rng,
                                 iterations=params["iterations"])
        counts = block_counts(groups, info["supernodes"], u, v)
        a, b = canonical(*sample_graph(groups, counts, rng))
        original = {(int(x), int(y)) for x, y in zip(*canonical(u, v))}
        info = {**info, "edges": len(a),
                "original_edges_kept": sum((int(x), int(y)) in original for x, y in zip(a, b))}
        return MethodResult(edge_dataset(data, params, labels, a, b), info)
