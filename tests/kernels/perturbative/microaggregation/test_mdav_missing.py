"""MDAV with missing values, sdcMicro's convention
(sdcflow.kernels.perturbative.microaggregation.mdav_missing)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.perturbative.microaggregation.mdav import mdav
from sdcflow.kernels.perturbative.microaggregation.mdav_missing import _distances, mdav_missing


def test_distance_rule_by_hand():
    # sdcMicro's Mdav.cpp: one side missing adds the variable's squared range (here 100
    # and 121), both missing add nothing
    Z = np.array([[np.nan, 10.5], [10.0, np.nan], [np.nan, np.nan], [1.0, 2.0]])
    q = np.array([np.nan, 10.0])
    penalty = np.array([100.0, 121.0])
    assert _distances(Z, q, penalty).tolist() == [0.25, 100 + 121, 121, 100 + 64]


def test_hand_example():
    # six records, k = 3: fewer than 3k, so one group around the record farthest from
    # the centroid (4.2, 5.4167). Record 5 (x missing) is at 100 + 5.08^2 = 125.8 (the
    # others at most 64.8), and its nearest are records 3 and 4 (100 + 0.25 each)
    Z = np.array([[0.0, 0], [0, 1], [1, 0], [10, 10], [10, 11], [np.nan, 10.5]])
    labels = mdav_missing(Z, 3)
    assert labels.tolist() == [1, 1, 1, 0, 0, 0]


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 4), st.integers(1, 3), st.integers(0, 10_000))
def test_same_groups_as_mdav_on_complete_data(k, d, seed):
    rng = np.random.default_rng(seed)
    Z = rng.integers(0, 5, size=(7 * k + 2, d)).astype(float)  # many ties
    assert mdav_missing(Z, k).tolist() == mdav(Z, k).tolist()


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 4), st.integers(0, 10_000))
def test_groups_have_k_to_2k_minus_1_records(k, seed):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(6 * k + 1, 3))
    Z[rng.random(Z.shape) < 0.3] = np.nan
    sizes = np.bincount(mdav_missing(Z, k))
    assert (sizes >= k).all() and (sizes <= 2 * k - 1).all()
