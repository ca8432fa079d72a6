"""Structural statistics of graphs (sdcflow.kernels.graphs.structure)."""

import networkx as nx
import numpy as np
import pytest

from sdcflow.kernels.graphs import structure
from sdcflow.kernels.graphs.structure import degree_distance, statistics


def test_karate_club_statistics():
    g = nx.Graph(nx.karate_club_graph().edges)  # without the edge weights
    s = statistics(g, 3, np.random.default_rng(0))
    # networkx's own figures for Zachary's karate club: average clustering 0.5706,
    # average shortest path 2.4082, diameter 5; the largest adjacency eigenvalue 6.7257
    assert s["nodes"] == 34 and s["edges"] == 78 and s["largest_component"] == 34
    assert s["clustering"] == pytest.approx(nx.average_clustering(g), abs=1e-6)
    assert s["mean_path_length"] == pytest.approx(nx.average_shortest_path_length(g), abs=1e-6)
    assert s["diameter"] == nx.diameter(g) == 5
    assert s["eigenvalues"][0] == pytest.approx(6.725698, abs=1e-6)
    assert len(s["eigenvalues"]) == 3


def test_path_lengths_on_the_largest_component_and_sampled_sources(monkeypatch):
    # a path of 5 nodes beside a triangle: the path is the largest component; its mean
    # distance over ordered pairs is (4x1 + 3x2 + 2x3 + 1x4) x 2 / 20 = 2
    g = nx.union(nx.path_graph(5), nx.complete_graph(range(10, 13)))
    s = statistics(g, 2, np.random.default_rng(0))
    assert s["largest_component"] == 5 and s["mean_path_length"] == 2.0
    assert s["diameter"] == 4
    # the triangle's eigenvalue 2 and the path's 2cos(pi/6) = 1.732
    assert s["eigenvalues"] == [2.0, pytest.approx(1.732051, abs=1e-6)]
    monkeypatch.setattr(structure, "EXACT_PATHS", 3)
    monkeypatch.setattr(structure, "PATH_SOURCES", 2)
    sampled = statistics(g, 0, np.random.default_rng(0))
    assert sampled["diameter"] <= 4 and sampled["eigenvalues"] == []


def test_degree_distance_by_hand():
    # degrees 1,2,2,1 against the star's 1,3,1,1: one edge end moves from a degree 2 to
    # a degree 3 and one from 2 to 1: (1 + 1) / 4 = 0.5
    star = nx.Graph([(0, 1), (1, 2), (1, 3)])
    assert degree_distance(nx.path_graph(4), star) == 0.5
    assert degree_distance(star, star) == 0.0
