"""k-degree anonymity (Liu and Terzi 2008): the degree anonymisation by dynamic
programming, the Erdos-Gallai test, the Havel-Hakimi construction."""

from collections import Counter
from itertools import combinations, pairwise

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdcflow.kernels.graphs.k_degree import (
    anonymise_degrees,
    construct_graph,
    is_graphical,
    k_degree_anonymise,
    supergraph_edges,
)


def test_degree_anonymisation_hand_examples():
    # 5,4,3,3,2,2,1 with k = 2: groups {5,4} {3,3} {2,2,1} cost 1 + 0 + 1 = 2, the least
    # (e.g. {5,4} {3,3,2} {2,1} costs 3)
    d = np.array([5, 4, 3, 3, 2, 2, 1])
    assert anonymise_degrees(d, 2).tolist() == [5, 5, 3, 3, 2, 2, 2]
    # k = 3: {5,4,3,3} {2,2,1} costs (1+2+2) + 1 = 6; {5,4,3} {3,2,2,1} costs 3 + 4 = 7
    assert anonymise_degrees(d, 3).tolist() == [5, 5, 5, 5, 2, 2, 2]
    # the result is given back in the order of the input
    assert anonymise_degrees(np.array([1, 3, 2, 3]), 2).tolist() == [2, 3, 2, 3]


def _brute_force_cost(d, k):
    """The least cost over every split of the sorted sequence into consecutive groups of
    at least k (no upper bound on the group size, unlike the programme)."""
    s = sorted(d, reverse=True)
    n = len(s)
    best = None
    for cuts_count in range(n // k):
        for cuts in combinations(range(1, n), cuts_count):
            bounds = [0, *cuts, n]
            if any(b - a < k for a, b in pairwise(bounds)):
                continue
            cost = sum(s[a] * (b - a) - sum(s[a:b]) for a, b in pairwise(bounds))
            best = cost if best is None else min(best, cost)
    return best


@given(st.lists(st.integers(0, 9), min_size=2, max_size=10), st.integers(1, 4))
def test_dynamic_programme_is_optimal_and_k_anonymous(d, k):
    k = min(k, len(d))
    out = anonymise_degrees(np.array(d), k)
    assert (out >= np.array(d)).all()
    assert all(c >= k for c in Counter(out.tolist()).values())
    assert int((out - np.array(d)).sum()) == _brute_force_cost(d, k)


def test_erdos_gallai_hand_examples():
    assert is_graphical(np.array([3, 3, 3, 3]))  # K4
    assert is_graphical(np.array([2, 2, 2]))  # a triangle
    # 3,3,1,1: r = 2 gives 6 > 2 + min(2,1) + min(2,1) = 4
    assert not is_graphical(np.array([3, 3, 1, 1]))
    assert not is_graphical(np.array([1, 1, 1]))  # odd sum
    assert not is_graphical(np.array([3, 1, 1]))  # a degree above n - 1


@given(st.lists(st.integers(0, 6), min_size=1, max_size=8))
def test_erdos_gallai_agrees_with_networkx(d):
    assert is_graphical(np.array(d)) == nx.is_graphical(d, method="eg")


def test_construction_prefers_original_edges_among_ties():
    # the path 0-3-2-1 (degrees 1, 1, 2, 2): Havel-Hakimi takes node 2, joins 3 (degree
    # 2), then one of 0 and 1 (both degree 1): 1, its original neighbour, rather than 0;
    # then 3 to 0
    original = {(0, 3), (2, 3), (1, 2)}
    a, b = construct_graph(np.array([1, 1, 2, 2]), original)
    assert set(zip(a.tolist(), b.tolist())) == original
    # without preferences the ties go by index: 2-3, 0-2, then 3 to 1
    a, b = construct_graph(np.array([1, 1, 2, 2]))
    assert set(zip(a.tolist(), b.tolist())) == {(2, 3), (0, 2), (1, 3)}
    with pytest.raises(ValueError, match="not graphical"):
        construct_graph(np.array([3, 3, 1, 1]))


@given(st.integers(0, 10_000))
def test_construction_realises_graphical_sequences(seed):
    g = nx.gnp_random_graph(9, 0.4, seed=seed)
    d = np.array([g.degree(i) for i in range(9)])
    a, b = construct_graph(d)
    h = nx.Graph()
    h.add_nodes_from(range(9))
    h.add_edges_from(zip(a.tolist(), b.tolist()))
    assert h.number_of_edges() == len(a)  # no edge twice
    assert all(x != y for x, y in zip(a, b))
    assert [h.degree(i) for i in range(9)] == d.tolist()


def test_supergraph_greedy_by_hand():
    # the path 0-1-2 needing one more edge at 0 and at 2: the edge 0-2 (a triangle)
    assert supergraph_edges(np.array([1, 0, 1]), {(0, 1), (1, 2)}) == [(0, 2)]
    # 0 and 1 each need one more, but are already joined: the greedy is stuck
    assert supergraph_edges(np.array([1, 1]), {(0, 1)}) is None
    # needs 2, 1, 1 on the edge 2-3 (node 3 needs nothing): 0 joins 1 and 2 (largest
    # needs, then index); 1 and 2 are then done
    assert supergraph_edges(np.array([2, 1, 1, 0]), {(2, 3)}) == [(0, 1), (0, 2)]


@pytest.mark.parametrize("construction", ["supergraph", "havel_hakimi"])
def test_karate_club_is_made_3_degree_anonymous(construction):
    g = nx.karate_club_graph()
    u = np.array([x for x, _ in g.edges])
    v = np.array([y for _, y in g.edges])
    a, b, info = k_degree_anonymise(34, u, v, 3, np.random.default_rng(1),
                                    construction=construction)
    assert info["construction"] == construction
    h = nx.Graph(list(zip(a.tolist(), b.tolist())))
    counts = Counter(dict(h.degree).values())
    assert min(counts.values()) >= 3
    assert h.number_of_edges() == len(a) == info["edges_after"]
    # every node keeps at least its degree, and the increase is the one reported
    assert all(h.degree(i) >= g.degree(i) for i in range(34))
    assert sum(h.degree(i) - g.degree(i) for i in range(34)) == info["degree_increase"]
    assert info["original_edges_kept"] == sum(h.has_edge(*e) for e in g.edges)
    if construction == "supergraph":  # every friendship kept, degree_increase / 2 added
        assert info["original_edges_kept"] == 78
        assert info["edges_after"] == 78 + info["degree_increase"] // 2
