"""Degree and 1-neighbourhood re-identification (sdcflow.kernels.graphs.attacks)."""

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.graphs.attacks import (
    degree_candidates,
    neighbour_degree_candidates,
    neighbourhood_candidates,
    re_identification,
)

# a triangle 0-1-2 with a pendant node 3 at 2: degrees 2, 2, 3, 1
LOLLIPOP = nx.Graph([(0, 1), (1, 2), (0, 2), (2, 3)])
PATH = nx.path_graph(4)  # 0-1-2-3: degrees 1, 2, 2, 1


def test_degree_attack_by_hand():
    # lollipop: nodes 2 (degree 3) and 3 (degree 1) are unique; 0 and 1 share degree 2:
    # 2 re-identified, expected 1 + 1 + 1/2 + 1/2 = 3
    c, among = degree_candidates(LOLLIPOP, LOLLIPOP)
    assert c.tolist() == [2, 2, 1, 1] and among.all()
    assert re_identification(c, among) == {"re_identified": 2, "expected": 3.0,
                                           "below_k": {"2": 2, "5": 4, "10": 4}}
    # the path released as the star centred on 1 (edges 0-1, 1-2, 1-3): the released
    # degrees are 1, 3, 1, 1; nodes 0 and 3 (degree 1) have 3 candidates each, nodes 1
    # and 2 (degree 2) none: expected 1/3 + 1/3
    star = nx.Graph([(0, 1), (1, 2), (1, 3)])
    c, among = degree_candidates(PATH, star)
    assert c.tolist() == [3, 0, 0, 3] and among.tolist() == [True, False, False, True]
    result = re_identification(c, among)
    assert result["re_identified"] == 0 and result["expected"] == round(2 / 3, 6)


def test_neighbourhood_attack_by_hand():
    # lollipop: 0 and 1 see the triangle from a degree-2 corner (2 candidates); 2 sees
    # the whole graph from the degree-3 node, 3 one edge from its end: both unique
    c, among = neighbourhood_candidates(LOLLIPOP, LOLLIPOP)
    assert c.tolist() == [2, 2, 1, 1] and among.all()
    # path: the ends see an edge from an end, the middle nodes a path of 3 from its
    # middle: 2 candidates each, none re-identified
    c, among = neighbourhood_candidates(PATH, PATH)
    assert c.tolist() == [2, 2, 2, 2]
    assert re_identification(c, among)["expected"] == 2.0


def test_neighbourhood_tells_apart_nodes_of_equal_degree():
    # two nodes of degree 2: 0 in a triangle (its neighbours joined), 4 on a path (not)
    g = nx.Graph([(0, 1), (0, 2), (1, 2), (2, 3), (3, 4), (4, 5)])
    degree = dict(zip(g.nodes, degree_candidates(g, g)[0].tolist()))
    neigh = dict(zip(g.nodes, neighbourhood_candidates(g, g)[0].tolist()))
    # degree 2: nodes 0, 1, 3, 4 share it (4 candidates each); their 1-neighbourhoods:
    # 0 and 1 a triangle, 3 the path 2-3-4 and 4 the path 3-4-5 seen from the middle
    # (2 candidates each)
    assert degree[0] == degree[4] == 4
    assert neigh[0] == neigh[1] == 2 and neigh[3] == neigh[4] == 2


def test_a_node_absent_from_the_release_has_no_candidate_by_neighbourhood():
    released = nx.Graph([(0, 1), (1, 2)])
    released.add_node(3)  # 3 lost its edge
    c, among = neighbourhood_candidates(PATH, released)
    # 0 (an edge seen from its end): 0 and 2 in the release; 3 is not among them
    assert c.tolist()[0] == 2 and among.tolist() == [True, True, False, False]


def test_neighbour_degrees_attack_by_hand():
    # lollipop: 0 and 1 have neighbours of degrees (2, 3), 2 has (1, 2, 2), 3 has (3):
    # 2 and 3 unique, 0 and 1 two candidates, as by degree
    c, among = neighbour_degree_candidates(LOLLIPOP, LOLLIPOP)
    assert c.tolist() == [2, 2, 1, 1] and among.all()
    # a path of 5 (0-1-2-3-4): degrees 1,2,2,2,1 give 2 and 3 candidates by degree; the
    # neighbours' degrees (2), (1,2), (2,2), (1,2), (2) single out the middle node
    c, among = neighbour_degree_candidates(nx.path_graph(5), nx.path_graph(5))
    assert c.tolist() == [2, 2, 1, 2, 2]
    assert degree_candidates(nx.path_graph(5), nx.path_graph(5))[0].tolist() == [2, 3, 3, 3, 2]


def test_degree_and_attributes_attack_by_hand():
    from sdcflow.kernels.graphs.attacks import degree_attribute_candidates

    # lollipop, genders f, m, f, f: 0 and 1 share degree 2 but not their gender, so all
    # four are unique (expected 4, where the degree alone gives 3)
    genders = {0: ("f",), 1: ("m",), 2: ("f",), 3: ("f",)}
    c, among = degree_attribute_candidates(LOLLIPOP, LOLLIPOP, genders)
    assert c.tolist() == [1, 1, 1, 1] and among.all()
    assert re_identification(c, among)["expected"] == 4.0
    # the path 0-1-2-3 released as the star on 1 (degrees 1, 3, 1, 1), ages 30, 30, 40, 30:
    # 0 (degree 1, 30) has the candidates 0 and 3 (2 is 40); 3 likewise; 1 and 2 (degree
    # 2) none; a node without attributes matches nothing
    ages = {0: ("30",), 1: ("30",), 2: ("40",), 3: ("30",)}
    star = nx.Graph([(0, 1), (1, 2), (1, 3)])
    c, among = degree_attribute_candidates(PATH, star, ages)
    assert c.tolist() == [2, 0, 0, 2] and among.tolist() == [True, False, False, True]
    c, among = degree_attribute_candidates(PATH, star, {**ages, 3: None})
    assert c.tolist() == [1, 0, 0, 0] and among.tolist() == [True, False, False, False]


def test_degree_and_club_on_the_karate_club():
    from collections import Counter

    from sdcflow.kernels.graphs.attacks import degree_attribute_candidates

    # networkx's karate club with each member's club (Mr. Hi or Officer): the candidates
    # are the sizes of the (degree, club) groups, counted here directly; 6 members are
    # unique by degree alone, 9 by degree and club
    karate = nx.karate_club_graph()
    clubs = {v: (karate.nodes[v]["club"],) for v in karate}
    groups = Counter((karate.degree(v), clubs[v]) for v in karate)
    c, among = degree_attribute_candidates(karate, karate, clubs)
    assert c.tolist() == [groups[(karate.degree(v), clubs[v])] for v in karate]
    assert re_identification(c, among)["re_identified"] == 9
    assert re_identification(*degree_candidates(karate, karate))["re_identified"] == 6


@settings(max_examples=30, deadline=None)
@given(st.integers(3, 15), st.floats(0.1, 0.8), st.integers(0, 10_000),
       st.lists(st.sampled_from("ab"), min_size=15, max_size=15))
def test_attributes_only_narrow_the_degree_candidates(n, p, seed, values):
    from sdcflow.kernels.graphs.attacks import degree_attribute_candidates

    # a candidate by degree and attributes is a candidate by degree: never more of them
    original = nx.gnp_random_graph(n, p, seed=seed)
    released = nx.gnp_random_graph(n, p, seed=seed + 1)
    attributes = {v: (values[v],) for v in original}
    by_degree, among_degree = degree_candidates(original, released)
    both, among_both = degree_attribute_candidates(original, released, attributes)
    assert (both <= by_degree).all() and not (among_both & ~among_degree).any()
    # with one attribute value for all, they are the degree candidates
    same = degree_attribute_candidates(original, released, dict.fromkeys(original, ("a",)))
    assert same[0].tolist() == by_degree.tolist()
