"""Super-node generalisation (Hay et al. 2008; sdcflow.kernels.graphs.supernodes)."""

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdcflow.kernels.graphs.supernodes import (
    block_counts,
    log_likelihood,
    partition,
    sample_graph,
)

PATH_U, PATH_V = np.array([0, 1, 2]), np.array([1, 2, 3])  # the path 0-1-2-3


@pytest.mark.parametrize("groups,expected", [
    # {0,1} {2,3}: one edge in each pair of 1 possible pair, 1 edge of 4 between: C(4,1)
    ([0, 0, 1, 1], -math.log(4)),
    # {0,2} {1,3}: no edge inside, all 3 between: C(4,3) = 4
    ([0, 1, 0, 1], -math.log(4)),
    # {0,3} {1,2}: 1-2 inside, 2 of 4 between: C(4,2) = 6
    ([0, 1, 1, 0], -math.log(6)),
])
def test_log_likelihood_by_hand(groups, expected):
    groups = np.array(groups)
    counts = block_counts(groups, 2, PATH_U, PATH_V)
    # off the diagonal an edge is counted twice (symmetric), inside once: 3 edges
    assert counts.sum() + np.trace(counts) == 2 * 3
    assert log_likelihood(np.bincount(groups), counts) == pytest.approx(expected)


def test_annealing_finds_two_cliques():
    # two disjoint 4-cliques and k = 4: the partition into the cliques has likelihood 1
    # (every pair inside joined, none between): log L = 0, the maximum
    g = nx.disjoint_union(nx.complete_graph(4), nx.complete_graph(4))
    u = np.array([a for a, _ in g.edges])
    v = np.array([b for _, b in g.edges])
    groups, info = partition(8, u, v, 4, np.random.default_rng(3), iterations=2000)
    assert info["log_likelihood"] == 0.0 and info["supernodes"] == 2
    assert len(set(groups[:4])) == 1 and len(set(groups[4:])) == 1


@given(st.integers(0, 1000))
def test_karate_partition_and_sample(seed):
    g = nx.Graph(nx.karate_club_graph().edges)
    u = np.array([a for a, _ in g.edges])
    v = np.array([b for _, b in g.edges])
    rng = np.random.default_rng(seed)
    groups, info = partition(34, u, v, 3, rng, iterations=300)
    sizes = np.bincount(groups)
    assert len(sizes) == 11 and sizes.min() >= 3 == info["smallest"]
    counts = block_counts(groups, 11, u, v)
    # the annealing updated its counts and log L move by move, undoing rejected moves:
    # its final figure is log L of the partition computed afresh
    assert info["log_likelihood"] == pytest.approx(log_likelihood(sizes, counts), abs=1e-5)
    a, b = sample_graph(groups, counts, rng)
    # the sample has exactly the generalised graph's counts, and no edge twice
    assert (block_counts(groups, 11, a, b) == counts).all()
    assert len(set(zip(a.tolist(), b.tolist()))) == len(a) == 78
