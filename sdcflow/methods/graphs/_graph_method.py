"""What every graph method shares: the ``source``/``target`` parameters, the checks of the
declarations and of the edge list, and that it rebuilds the records (the edges)."""

from __future__ import annotations

from ...data.edge_list import (
    edge_data_problems,
    edge_list_problems,
    edge_variables,
    nodes_and_edges,
    work_problems,
)
from ...plugins.registry import Method, unchanged


class GraphMethod(Method):
    """A method that turns the edge list named by ``source`` and ``target`` into another
    edge list on (a subset of) the same node labels."""

    distribution = None  # it changes the records themselves
    # a method whose ``k`` counts nodes (groups or equal degrees of at least k nodes)
    k_counts_nodes = False
    households = "own"  # (a graph has no households)

    def named_variables(self, params):
        return edge_variables(params)

    def reads(self, params, meta):
        return None

    def writes(self, params, meta):
        return None  # the records (edges) change

    def outputs(self, params, meta):
        return unchanged(meta.variables, meta)

    def check(self, params, meta):
        yield from edge_list_problems(params, meta, alone=True)

    def check_data(self, params, data):
        problems = list(edge_data_problems(params, data))
        yield from problems
        if problems or len(data) == 0:
            return
        labels, u, v = nodes_and_edges(data, params)
        if self.k_counts_nodes and params["k"] > len(labels):
            yield ("k",), f"k = {params['k']} is larger than the number of nodes ({len(labels)})"
            return
        yield from work_problems(self.work(params, len(labels), u, v))

    def work(self, params, n: int, u, v) -> list[tuple]:
        """What the method would do on a graph of ``n`` nodes and edges ``(u, v)``, as
        :func:`~sdcflow.data.edge_list.work_problems` checks it (its limits are in
        :mod:`sdcflow.plugins.limits`): none by default (linear work)."""
        return []
