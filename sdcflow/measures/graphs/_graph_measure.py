"""What the graph measures share: the ``source``/``target`` parameters and their checks,
the reference graph, and turning an edge list into a :class:`networkx.Graph`."""

from __future__ import annotations

import networkx as nx

from ...data.dataset import Dataset
from ...data.edge_list import (
    EDGE_PARAMS,
    edge_data_problems,
    edge_list_problems,
    edge_variables,
    nodes_and_edges,
    work_problems,
)
from ...plugins.registry import Measure
from ..reference import REFERENCE

GRAPH_MEASURE_PARAMS = {**EDGE_PARAMS, "reference": REFERENCE}


def as_graph(data: Dataset, params) -> nx.Graph:
    """The graph of an edge list, its nodes the labels (Python values)."""
    labels, u, v = nodes_and_edges(data, params)
    names = labels.tolist()
    graph = nx.Graph()
    graph.add_nodes_from(names)
    graph.add_edges_from((names[a], names[b]) for a, b in zip(u.tolist(), v.tolist()))
    return graph


class GraphMeasure(Measure):
    """A measure comparing the graph of the evaluated edge list with that of its reference
    (the original edge list unless ``reference`` names a step)."""

    def named_variables(self, params):
        return edge_variables(params)

    def check(self, params, meta):
        yield from edge_list_problems(params, meta, alone=False)

    def check_data(self, params, data):
        problems = list(edge_data_problems(params, data))
        yield from problems
        if problems or len(data) == 0:
            return
        labels, u, v = nodes_and_edges(data, params)
        yield from work_problems(self.work(params, len(labels), u, v))

    def work(self, params, n: int, u, v) -> list[tuple]:
        """What the measure would do on the graph it measures (``n`` nodes, edges
        ``(u, v)``; its reference is taken to be alike), as
        :func:`~sdcflow.data.edge_list.work_problems` checks it: none by default."""
        return []
