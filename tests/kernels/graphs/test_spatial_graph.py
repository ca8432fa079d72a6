"""The synthetic spatial graph for a degree sequence (sdcflow.kernels.graphs.spatial)."""

import networkx as nx
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from sdcflow.kernels.graphs.edges import degrees, repeated_edges, self_loops
from sdcflow.kernels.graphs.spatial import assign_edges, correct_multigraph, spatial_graph

LINE = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 0.0], [6.0, 0.0]])


def test_assignment_joins_nearest_nodes_by_hand():
    # degrees 2, 2, 1, 1 on a line: whichever of nodes 0 and 1 goes first joins its two
    # nearest nodes with free ends (the other of 0/1, and 2); the second joins 3
    edges = assign_edges(np.array([2, 2, 1, 1]), LINE, np.random.default_rng(0))
    assert sorted(edges) in ([(0, 1), (0, 2), (1, 3)], [(0, 1), (0, 3), (1, 2)])


def test_assignment_goes_round_and_leaves_loops():
    # degrees 2, 2: node 0 joins node 1 twice (a multiple edge)
    assert assign_edges(np.array([2, 2]), LINE[:2], np.random.default_rng(0)) == [(0, 1)] * 2
    # degrees 3, 3, 1, 1 (not graphical): the first of 0/1 joins the three others; the
    # second has 2 free ends and nobody left: one loop
    edges = assign_edges(np.array([3, 3, 1, 1]), LINE, np.random.default_rng(0))
    assert sum(a == b for a, b in edges) == 1 and len(edges) == 4


def test_correction_switches_a_repeated_edge_with_a_near_one():
    # points 0, 1 close together, 2 and 3 further: the multigraph 0-1 twice, 2-3; the
    # copy of 0-1 is switched with 2-3 into 0-2 and 1-3 (x = 2 is the nearest to 0 of
    # the ends it may take): every degree kept
    points = np.array([[0.0, 0.0], [0.1, 0.0], [1.0, 0.0], [2.0, 0.0]])
    edges, info = correct_multigraph([(0, 1), (0, 1), (2, 3)], points)
    assert edges == [(0, 1), (0, 2), (1, 3)]
    assert info == {"loops": 0, "repeated_edges": 1, "switched": 1, "dropped": 0}
    # 0-1 twice and nothing else: no edge to switch with, the copy is dropped
    edges, info = correct_multigraph([(0, 1), (0, 1)], points[:2])
    assert edges == [(0, 1)] and info["dropped"] == 1


@given(st.integers(0, 10_000), st.sampled_from(["uniform", "normal"]))
def test_karate_degrees_in_a_simple_spatial_graph(seed, density):
    g = nx.Graph(nx.karate_club_graph().edges)
    d = np.array([g.degree(i) for i in range(34)])
    a, b, info = spatial_graph(d, density, np.random.default_rng(seed))
    assert len(self_loops(a, b)) == 0 and len(repeated_edges(a, b)) == 0
    got = degrees(34, a, b)
    assert (got <= d).all()
    # each dropped copy lowers two degrees by one (a dropped loop one degree by two)
    assert int((d - got).sum()) == 2 * info["dropped"]
    assert info["switched"] + info["dropped"] == info["loops"] + info["repeated_edges"]
