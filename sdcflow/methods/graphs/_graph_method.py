"""What every graph method shares: the ``source``/``target`` parameters, the checks of the
declarations and of the edge list, and that it rebuilds the records (the edges)."""

from __future__ import annotations

from ...data.edge_list import edge_data_problems, edge_list_problems, edge_variables
from ...registry import Method, unchanged


class GraphMethod(Method):
    """A method that turns the edge list named by ``source`` and ``target`` into another
    edge list on (a subset of) the same node labels."""

    distribution = None  # it changes the records themselves
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
        yield from edge_data_problems(params, data)
