"""Edge lists of undirected simple graphs (sdcflow.kernels.graphs.edges)."""

import numpy as np

from sdcflow.kernels.graphs.edges import (
    canonical,
    degrees,
    index_nodes,
    repeated_edges,
    self_loops,
)


def test_nodes_are_the_sorted_labels():
    labels, u, v = index_nodes(np.array(["b", "a", "c"], dtype=object),
                               np.array(["c", "b", "a"], dtype=object))
    assert labels.tolist() == ["a", "b", "c"]
    assert u.tolist() == [1, 0, 2] and v.tolist() == [2, 1, 0]


def test_loops_and_repeats_in_either_direction():
    # edges 0-1, 1-0 (the same undirected edge), 2-2 (a loop), 1-2, 0-1 again
    u, v = np.array([0, 1, 2, 1, 0]), np.array([1, 0, 2, 2, 1])
    assert self_loops(u, v).tolist() == [2]
    assert sorted(repeated_edges(u, v).tolist()) == [1, 4]


def test_degrees_and_canonical_order():
    u, v = np.array([2, 0, 3]), np.array([0, 1, 2])  # a path 1-0-2-3
    assert degrees(4, u, v).tolist() == [2, 1, 2, 1]
    a, b = canonical(u, v)
    assert list(zip(a.tolist(), b.tolist())) == [(0, 1), (0, 2), (2, 3)]
