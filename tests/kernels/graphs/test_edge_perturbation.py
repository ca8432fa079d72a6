"""Random edge perturbation (sdcflow.kernels.graphs.perturbation)."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdcflow.kernels.graphs.edges import degrees, repeated_edges, self_loops
from sdcflow.kernels.graphs.perturbation import perturb_edges

KARATE = nx.karate_club_graph()
U = np.array([x for x, _ in KARATE.edges])
V = np.array([y for _, y in KARATE.edges])
ORIGINAL = {(min(x, y), max(x, y)) for x, y in KARATE.edges}


def _edges(a, b):
    return set(zip(a.tolist(), b.tolist()))


@given(st.integers(0, 78), st.integers(0, 1000))
def test_add_delete_replaces_m_edges(m, seed):
    a, b, info = perturb_edges(34, U, V, m, "add_delete", np.random.default_rng(seed))
    new = _edges(a, b)
    # m edges deleted, m pairs not joined originally added: 78 edges, 78 - m original
    assert len(a) == len(new) == 78 == info["edges_after"]
    assert len(new & ORIGINAL) == 78 - m and len(new - ORIGINAL) == m
    assert len(self_loops(a, b)) == 0 and len(repeated_edges(a, b)) == 0


def test_add_and_delete_alone():
    rng = np.random.default_rng(3)
    a, b, info = perturb_edges(34, U, V, 10, "delete", rng)
    assert _edges(a, b) < ORIGINAL and len(a) == 68 == info["edges_after"]
    a, b, info = perturb_edges(34, U, V, 10, "add", rng)
    assert _edges(a, b) > ORIGINAL and len(a) == 88 == info["edges_after"]
    # a dense case: 4 nodes, 5 of the 6 pairs joined, so the one free pair is added
    a, b, _ = perturb_edges(4, np.array([0, 0, 0, 1, 1]), np.array([1, 2, 3, 2, 3]), 1, "add",
                            rng)
    assert (2, 3) in _edges(a, b)
    with pytest.raises(ValueError, match="only 0 node pairs"):
        perturb_edges(3, np.array([0, 0, 1]), np.array([1, 2, 2]), 1, "add", rng)


@given(st.integers(0, 1000))
def test_switch_keeps_every_degree(seed):
    a, b, info = perturb_edges(34, U, V, 20, "switch", np.random.default_rng(seed))
    assert degrees(34, a, b).tolist() == degrees(34, U, V).tolist()
    assert len(repeated_edges(a, b)) == 0 and len(self_loops(a, b)) == 0
    # each switch replaces two edges by two new ones: at most 2 x 20 edges differ
    assert info["switched"] == 20 and 0 < len(_edges(a, b) - ORIGINAL) <= 40


def test_same_generator_same_graph():
    one = perturb_edges(34, U, V, 8, "add_delete", np.random.default_rng(9))
    two = perturb_edges(34, U, V, 8, "add_delete", np.random.default_rng(9))
    assert one[0].tolist() == two[0].tolist() and one[1].tolist() == two[1].tolist()
