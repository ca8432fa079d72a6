"""``relabel_nodes``: replace the node labels of a graph by the numbers 1..n in a random
order, so that the released edge list does not carry the original node identifiers (the
"naive anonymisation" every graph release starts with: Backstrom, Dwork and Kleinberg,
"Wherefore art thou r3579x?", 2007). Run it last: measures that compare with the original
graph match nodes by their labels. Node attributes (``variables.NAME.nodes``) are keyed
by the original labels, so the node variables leave it without them.

The order is drawn from the step's generator keyed also by the edge list it relabels
(:func:`sdcflow.kernels.keyed.keyed_generator`): drawn from the seed alone, it would be
a function of the seed and the number of nodes, and an intruder who knows a few original
edges could try seeds until the relabelled graph holds them, finding the seed and with
it every label."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ...data.edge_list import EDGE_PARAMS, edge_dataset, nodes_and_edges
from ...kernels.graphs.edges import canonical
from ...kernels.keyed import keyed_generator
from ...plugins.registry import MethodResult, Output, register
from ._graph_method import GraphMethod


@register
class RelabelNodes(GraphMethod):
    name = "relabel_nodes"
    public_params = ("source", "target")
    protects = False  # replaces node labels (identifiers), not the graph: not protection
    keeps_risk = True  # the structure (what the graph measures attack) stays as it was
    summary = "Replace the node labels of a graph by 1..n in a random order."
    version = "2"  # 2: the order keyed by the edge list too (not searchable from the seed)
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["source", "target"],
        "properties": {**EDGE_PARAMS},
    }

    def outputs(self, params, meta):
        return {n: Output(var.evolve(nodes=None)) for n, var in meta.variables.items()}

    def apply(self, data, params, rng):
        labels, u, v = nodes_and_edges(data, params)
        data = type(data)(data.frame, {n: var.evolve(nodes=None)
                                       for n, var in data.variables.items()}, data.constraints)
        edges = np.stack([u, v]).astype("<i8")
        names = "\n".join(map(str, labels)).encode("utf-8")
        rng = keyed_generator(rng, names, edges.tobytes())
        new = rng.permutation(len(labels)).astype(np.int64)  # node i becomes new[i] + 1
        a, b = canonical(new[u], new[v])
        text = data.variables[params["source"]].type != "integer"
        numbers = np.arange(1, len(labels) + 1)
        names = np.array([f"{i}" for i in numbers], dtype=object) if text else numbers
        return MethodResult(edge_dataset(data, params, names, a, b),
                            {"nodes": len(labels), "edges": len(a)})
