"""The query-log kernels (sdcflow.kernels.semantic.query_logs): classification of queries,
the modified Hausdorff distance between profiles, the aggregated profile, MDAV on
profiles, linkage and loss. Expected values are worked by hand from the definitions in
the module's docstring (Navarro-Arribas, Torra, Erola & Castella-Roca 2012 for the
method; Dubuisson & Jain 1994 for the profile distance)."""

import json
from fractions import Fraction

import numpy as np
import pytest
from helpers import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.semantic.distances import semantic_distances
from sdcflow.kernels.semantic.query_logs import (
    aggregate_profile,
    classify_queries,
    group_profiles,
    information_loss,
    linkage_candidates,
    profile_distances,
    profile_mdav,
    profiles,
)
from sdcflow.kernels.semantic.taxonomy import from_tree

# Topic (0) > Sport (1) > football (2), tennis (3); Food (4) > pasta (5), soup (6)
TOY = from_tree({"Topic": {"Sport": ["football", "tennis"], "Food": ["pasta", "soup"]}})
LEAVES = np.array([2, 3, 5, 6])
# path distances between the leaves (2 within a branch, 4 across) scaled by the largest
D = semantic_distances(TOY, LEAVES, "path") / 4.0
# six users' profiles over (football, tennis, pasta, soup)
COUNTS = np.array([[2, 1, 0, 0],   # u1: football, football, tennis
                   [1, 1, 0, 0],   # u2: football, tennis
                   [0, 1, 0, 0],   # u3: tennis
                   [0, 0, 1, 1],   # u4: pasta, soup
                   [0, 0, 1, 0],   # u5: pasta
                   [1, 0, 0, 2]])  # u6: soup, soup, football


def test_toy_distances():
    assert D.tolist() == [[0, .5, 1, 1], [.5, 0, 1, 1], [1, 1, 0, .5], [1, 1, .5, 0]]


def test_profile_distances_by_hand():
    d = profile_distances(COUNTS, COUNTS, D)
    assert np.allclose(np.diag(d), 0) and np.allclose(d, d.T)
    # u1 -> u3: football (2/3) is 0.5 from tennis, tennis (1/3) 0: 1/3; u3 -> u1: 0
    assert d[0, 2] == pytest.approx(1 / 3)
    assert d[0, 1] == 0  # the same concepts, other counts: 0 (a set distance)
    assert d[1, 2] == pytest.approx(0.25)
    assert d[3, 4] == pytest.approx(0.25)
    # u4 -> u6: pasta 1/2 x 0.5 (soup) = 0.25; u6 -> u4: football 1/3 x 1 = 1/3
    assert d[3, 5] == pytest.approx(1 / 3)
    # u5 -> u6: 0.5; u6 -> u5: soup 2/3 x 0.5 + football 1/3 x 1 = 2/3
    assert d[4, 5] == pytest.approx(2 / 3)
    # u3 -> u6: tennis 0.5 from football; u6 -> u3: soup 2/3 x 1 + football 1/3 x 0.5
    assert d[2, 5] == pytest.approx(5 / 6)
    assert d[0, 3] == 1.0


def test_aggregate_profile_by_hand():
    # all six: 12 queries, m = 2; quotas 2 x (4, 3, 2, 3) / 12 = (.67, .5, .33, .5): none
    # whole, the two largest remainders football (.67), then tennis and soup tie (.5)
    # with equal pooled counts (3): tennis, listed first
    assert aggregate_profile(COUNTS).tolist() == [1, 1, 0, 0]
    # u4..u6: pooled (1, 0, 2, 3), m = 2: soup 1 whole, then pasta's remainder (.67)
    assert aggregate_profile(COUNTS[3:]).tolist() == [0, 0, 1, 1]
    # m is the mean number of queries rounded half up: 1.5 -> 2, 2.5 -> 3
    assert aggregate_profile([[1, 0, 0, 0], [0, 2, 0, 0]]).sum() == 2
    assert aggregate_profile([[3, 0, 0, 0], [0, 2, 0, 0]]).tolist() == [2, 1, 0, 0]
    assert aggregate_profile(np.zeros((2, 4), dtype=int)).tolist() == [0, 0, 0, 0]


def test_mdav_on_the_six_users_by_hand():
    # 6 = 2k users (k = 3): one group around the user farthest from the centroid
    # (football, tennis): u4 and u5 at 1, the first, u4, with its 2 nearest, u5 (0.25)
    # and u6 (1/3); the rest u1..u3 form the last group
    labels = profile_mdav(COUNTS, D, 3)
    assert labels.tolist() == [1, 1, 1, 0, 0, 0]
    released = group_profiles(COUNTS, labels)
    assert released.tolist() == [[0, 0, 1, 1], [1, 1, 0, 0]]
    protected = released[labels]
    # linkage: every user's nearest released profiles are their group's three
    candidates = linkage_candidates(COUNTS, protected, D)
    assert candidates.sum(axis=1).tolist() == [3] * 6
    assert candidates[np.arange(6), np.arange(6)].all()
    # loss: u3 0.25, u5 0.25, u6 1/3 (soup 2/3 x 0 + football 1/3 x 1 from (pasta,
    # soup); back: pasta 1/2 x 0.5), the others 0
    loss = information_loss(COUNTS, protected, D)
    assert loss == pytest.approx([0, 0, .25, 0, .25, 1 / 3])


def test_mdav_with_fewer_than_k_users_makes_one_group():
    assert profile_mdav(COUNTS[:2], D, 3).tolist() == [0, 0]


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 5), st.lists(st.lists(st.integers(0, 3), min_size=4, max_size=4)
                                   .filter(any), min_size=1, max_size=25))
def test_every_group_has_k_to_2k_minus_1_users_and_linkage_at_most_1_over_k(k, rows):
    counts = np.array(rows)
    labels = profile_mdav(counts, D, k)
    sizes = np.bincount(labels)
    assert (labels >= 0).all() and (sizes > 0).all()
    if len(counts) >= k:
        assert sizes.min() >= k and sizes.max() <= 2 * k - 1
    else:
        assert sizes.tolist() == [len(counts)]
    # the intruder's candidates for every user hold their whole group (identical
    # released profiles): a user is re-identified with probability at most 1 / k
    protected = group_profiles(counts, labels)[labels]
    candidates = linkage_candidates(counts, protected, D)
    mine = candidates[np.arange(len(counts)), np.arange(len(counts))]
    probability = np.where(mine, 1.0 / candidates.sum(axis=1), 0.0)
    assert probability.max() <= 1.0 / min(k, len(counts)) + 1e-12
    for g, size in enumerate(sizes):
        assert (candidates[:, labels == g].sum(axis=1) % size == 0).all()


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(st.integers(0, 5), min_size=4, max_size=4), min_size=1,
                max_size=6))
def test_aggregate_profile_keeps_the_mean_size_and_the_quotas(rows):
    counts = np.array(rows)
    out = aggregate_profile(counts)
    total, n = int(counts.sum()), len(counts)
    m = int(Fraction(total, n) + Fraction(1, 2)) if total else 0
    assert out.sum() == m
    if total:  # Hamilton: every concept gets its quota rounded down or up
        quota = [Fraction(m * int(c), total) for c in counts.sum(axis=0)]
        assert all(int(q) <= o <= int(q) + 1 for q, o in zip(quota, out.tolist()))


def test_classification_in_the_shipped_taxonomy():
    spec = json.loads((ROOT / "sdcflow" / "data" / "taxonomies" / "search_topics.json")
                      .read_text())
    tax = from_tree(spec["tree"])
    name = tax.names.__getitem__
    queries = ["cheap flights", "train flights", "ferry car hire", "weather Northby",
               "Credit Card savings", "credit", "Football", "team sports", "hotel beach",
               "  soup  "]
    got = [name(c) for c in classify_queries(tax, queries)]
    # a word or phrase's concept; the least common subsumer of several; the root when
    # none is known ("credit" alone is not "credit card")
    assert got == ["flights", "Transport", "Transport", "Topic", "Banking", "Topic",
                   "football", "Team sports", "Travel", "soup"]


def test_profiles_counts_queries():
    out = profiles(np.array([0, 0, 1, 0]), np.array([1, 1, 0, 2]), 2, 3)
    assert out.tolist() == [[0, 2, 1], [1, 0, 0]]


def test_deterministic():
    rng = np.random.default_rng(5)
    counts = rng.integers(0, 3, (40, 4))
    counts[counts.sum(axis=1) == 0, 0] = 1
    assert np.array_equal(profile_mdav(counts, D, 3), profile_mdav(counts.copy(), D, 3))
