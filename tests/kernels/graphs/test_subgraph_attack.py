"""Subgraph (edge facts) re-identification (sdcflow.kernels.graphs.subgraph)."""

import networkx as nx
import pandas as pd
from helpers import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st
from networkx.algorithms.isomorphism import GraphMatcher

from sdcflow.kernels.graphs.attacks import re_identification
from sdcflow.kernels.graphs.subgraph import (
    ABSENT,
    FOUND,
    UNDECIDED,
    Pattern,
    embeds,
    known_subgraph,
    subgraph_candidates,
)

# a triangle 0-1-2 with a pendant node 3 at 2
LOLLIPOP = nx.Graph([(0, 1), (1, 2), (0, 2), (2, 3)])


def test_the_known_subgraph_is_the_first_edges_of_a_breadth_first_search():
    # from 3: its only edge 3-2, then 2's other neighbours in label order (0, then 1),
    # then 0's unseen edge 0-1
    assert known_subgraph(LOLLIPOP, 3, 1) == [(3, 2)]
    assert known_subgraph(LOLLIPOP, 3, 3) == [(3, 2), (2, 0), (2, 1)]
    assert known_subgraph(LOLLIPOP, 3, 9) == [(3, 2), (2, 0), (2, 1), (0, 1)]
    # from 0: 0-1, 0-2, then 1's unseen edge 1-2 (before 2's edge 2-3)
    assert known_subgraph(LOLLIPOP, 0, 3) == [(0, 1), (0, 2), (1, 2)]


def test_candidates_by_hand():
    # t = 1 (one edge at the target): every node of the lollipop has an edge: 4 each
    c, among, undecided = subgraph_candidates(LOLLIPOP, LOLLIPOP, edges=1)
    assert c.tolist() == [4, 4, 4, 4] and among.all() and undecided == 0
    # t = 3: 0 (and 1) know the triangle, seen from a corner: 0, 1, 2 embed it (3);
    # 2 knows a star of 3 edges centred on itself: only 2 has degree 3 (1);
    # 3 knows the path 3-2 with 2 joined to two more nodes: any node with a neighbour of
    # degree 3 (0, 1 and 3: 3)
    c, among, _ = subgraph_candidates(LOLLIPOP, LOLLIPOP, edges=3)
    assert c.tolist() == [3, 3, 1, 3] and among.all()
    # t = 4 (the whole graph): 0 and 1 are alike (2 candidates), 2 and 3 unique;
    # expected 1/2 + 1/2 + 1 + 1 = 3
    c, among, _ = subgraph_candidates(LOLLIPOP, LOLLIPOP, edges=4)
    assert c.tolist() == [2, 2, 1, 1]
    assert re_identification(c, among) == {"re_identified": 2, "expected": 3.0,
                                           "below_k": {"2": 2, "5": 4, "10": 4}}


def test_other_released_edges_may_exist_but_known_ones_must_be_present():
    # released: the lollipop with its edge 0-1 deleted and an edge 1-3 added (edges 1-2,
    # 0-2, 2-3, 1-3: the triangle 1-2-3 with 0 pendant at 2)
    released = nx.Graph([(1, 2), (0, 2), (2, 3), (1, 3)])
    c, among, _ = subgraph_candidates(LOLLIPOP, released, edges=3)
    # 0 knows the triangle 0-1-2 seen from a corner: the released triangle is 1-2-3, so
    # 1, 2, 3 embed it and 0 itself does not (3 candidates, 0 not among them)
    # 2 knows its star of 3 edges: released 2 still has degree 3 (1 candidate, itself)
    assert c.tolist()[0] == 3 and not among[0]
    assert c.tolist()[2] == 1 and among[2]


def test_a_bounded_search_over_estimates_the_risk():
    # a star of 6 leaves: a leaf's 3 known edges are the centre's 3 first edges; with a
    # limit of 1 step every search that has to try a neighbour is undecided: no other
    # node is a confirmed candidate, the target itself is counted: each leaf is unique
    star = nx.star_graph(6)
    c, among, undecided = subgraph_candidates(star, star, edges=3, search_limit=1)
    assert undecided > 0
    assert c.tolist()[1:] == [1] * 6 and among.all()
    # without the bound the 6 leaves are alike (6 candidates each)
    c, _, undecided = subgraph_candidates(star, star, edges=3)
    assert c.tolist()[1:] == [6] * 6 and undecided == 0


def test_embeds_outcomes():
    pattern = Pattern(known_subgraph(LOLLIPOP, 2, 3), 2)  # a star of 3 edges
    assert embeds(pattern, LOLLIPOP, 2, 100) == FOUND
    assert embeds(pattern, LOLLIPOP, 0, 100) == ABSENT  # degree 2 < 3
    assert embeds(pattern, nx.star_graph(5), 0, 1) == UNDECIDED


def _brute_force(original, released, edges):
    """Candidate counts by networkx's VF2 subgraph monomorphism, the target pinned."""
    counts = []
    for v in original:
        pattern = nx.Graph(known_subgraph(original, v, edges))
        pattern.add_node(v)
        nx.set_node_attributes(pattern, {n: n == v for n in pattern}, "root")
        count = 0
        for w in released:
            host = released.copy()
            nx.set_node_attributes(host, {n: n == w for n in host}, "root")
            matcher = GraphMatcher(host, pattern, node_match=lambda a, b: a["root"] == b["root"])
            count += matcher.subgraph_is_monomorphic()
        counts.append(count)
    return counts


@settings(max_examples=25, deadline=None)
@given(st.integers(5, 9), st.floats(0.2, 0.6), st.integers(0, 10_000), st.integers(1, 5))
def test_matches_a_brute_force_monomorphism_search(n, p, seed, edges):
    original = nx.gnp_random_graph(n, p, seed=seed)
    released = nx.gnp_random_graph(n, p, seed=seed + 1)
    c, _, undecided = subgraph_candidates(original, released, edges=edges)
    assert undecided == 0
    assert c.tolist() == _brute_force(original, released, edges)


def test_karate_club_figure():
    # Zachary's karate club against itself: every candidate count agrees with the brute
    # force; with 4 known edges nobody is unique (the smallest candidate sets hold 16
    # members), with 6 edges the smallest hold 7
    frame = pd.read_csv(ROOT / "recipes" / "data" / "karate_club.csv")
    karate = nx.Graph(list(zip(frame["member_a"], frame["member_b"])))
    c4, among4, _ = subgraph_candidates(karate, karate, edges=4)
    assert c4.tolist() == _brute_force(karate, karate, 4) and among4.all()
    assert c4.min() == 16 and re_identification(c4, among4)["re_identified"] == 0
    c6, _, _ = subgraph_candidates(karate, karate, edges=6)
    assert c6.min() == 7 and (c6 <= c4).all()  # more knowledge, fewer candidates


@settings(max_examples=25, deadline=None)
@given(st.integers(4, 12), st.floats(0.1, 0.7), st.integers(0, 10_000), st.integers(1, 5))
def test_more_known_edges_never_add_candidates(n, p, seed, edges):
    # the known subgraph of t + 1 edges extends that of t edges (the first edges of the
    # same search), so every embedding of the larger restricts to one of the smaller
    original = nx.gnp_random_graph(n, p, seed=seed)
    released = nx.gnp_random_graph(n, p, seed=seed + 1)
    fewer, among_fewer, _ = subgraph_candidates(original, released, edges=edges)
    more, among_more, _ = subgraph_candidates(original, released, edges=edges + 1)
    assert (more <= fewer).all() and not (among_more & ~among_fewer).any()
