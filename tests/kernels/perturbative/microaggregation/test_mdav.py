"""MDAV kernel (sdcflow.kernels.perturbative.microaggregation.mdav): the textbook partition, exactly."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from mdav_reference import mdav_reference

from sdcflow.data.io import builtin_path
from sdcflow.kernels.perturbative.microaggregation.aggregate import group_mean
from sdcflow.kernels.perturbative.microaggregation.mdav import mdav


def test_toy_example_of_the_issue():
    # x = (2,3,3,20,21), y = (1,2,2,19,20), k = 2: groups with means (2.667, 1.667) and
    # (20.5, 19.5): the last three records cannot be split (remainder rule)
    X = np.array([[2, 1], [3, 2], [3, 2], [20, 19], [21, 20]], float)
    labels = mdav(X, 2)
    means = np.column_stack([group_mean(X[:, j], labels) for j in range(2)])
    np.testing.assert_allclose(means[0], [8 / 3, 5 / 3])
    np.testing.assert_allclose(means[3], [20.5, 19.5])
    assert np.bincount(labels).tolist() == [2, 3]


def test_seed_004_table_on_francdat():
    # seed 004, "Example of micro-aggregation" (aggregation level 2, rounded to two
    # digits): francdat Num1..Num3 standardised as sdcMicro does
    d = pd.read_csv(builtin_path("francdat"))
    X = d[["Num1", "Num2", "Num3"]].to_numpy(float)
    Z = (X - X.mean(0)) / X.std(0, ddof=1)
    labels = mdav(Z, 2)
    mic = np.round(np.column_stack([group_mean(X[:, j], labels) for j in range(3)]), 2)
    assert mic.tolist() == [[0.65, 0.85, 8.5], [0.15, 0.51, 15.0], [0.15, 0.51, 15.0],
                            [1.45, 5.2, 52.5], [0.65, 0.85, 8.5], [1.45, 5.2, 52.5],
                            [0.12, 0.26, 3.0], [0.12, 0.26, 3.0]]


@pytest.mark.parametrize("k, expected", [(3, 5.69), (4, 7.49), (5, 9.09), (10, 14.16)])
def test_census_information_loss_matches_the_literature(k, expected):
    # SSE/SST (%) of MDAV on the standardised CASC Census file as published by
    # Domingo-Ferrer & Torra (2005) and Solanas & Martinez-Balleste (2006): 5.69, 7.49,
    # 9.09 and 14.16 for k = 3, 4, 5, 10
    X = pd.read_csv(builtin_path("casc_census")).to_numpy(float)
    Z = (X - X.mean(0)) / X.std(0, ddof=1)
    labels = mdav(Z, k)
    sse = sum(((Z[:, j] - group_mean(Z[:, j], labels)) ** 2).sum() for j in range(Z.shape[1]))
    sst = ((Z - Z.mean(0)) ** 2).sum()
    assert round(100 * sse / sst, 2) == expected


def test_equal_to_the_reference_on_a_few_thousand_records():
    rng = np.random.default_rng(2026)
    X = rng.standard_normal((4000, 3))
    assert np.array_equal(mdav(X, 3), mdav_reference(X, 3))


def test_equal_to_the_reference_with_many_ties():
    rng = np.random.default_rng(7)
    X = rng.integers(0, 4, (1500, 2)).astype(float)  # every distance is tied many times
    assert np.array_equal(mdav(X, 4), mdav_reference(X, 4))


@pytest.mark.parametrize("least_top", [1, 5, 64])
def test_partial_rankings_that_run_out_give_the_same_partition(least_top):
    # the rankings sort only their top (at least least_top records): small tops make
    # them run out and be renewed all the time, on normal data and on heavy ties, in 2
    # (64 cones of directions), 3 (96), 5 (160) and 7 dimensions (14); and on a sphere,
    # where every record is about as far from the centroid and the scans give up for
    # the k-d tree
    rng = np.random.default_rng(least_top)
    sphere = rng.standard_normal((1500, 3))
    sphere /= np.linalg.norm(sphere, axis=1, keepdims=True)
    for X, k in [(rng.standard_normal((3000, 3)), 3),
                 (rng.standard_normal((2000, 2)), 3),
                 (rng.integers(0, 3, (1200, 3)).astype(float), 4),
                 (rng.standard_normal((1500, 5)) ** 3, 3),
                 (rng.standard_normal((2000, 7)) ** 3, 5),
                 (sphere, 3)]:
        assert np.array_equal(mdav(X, k, least_top=least_top), mdav_reference(X, k))


@settings(max_examples=80, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 120), st.integers(1, 4)),
              elements=st.integers(-5, 5).map(float)),
       st.integers(1, 6))
def test_group_sizes_and_reference(X, k):
    labels = mdav(X, k, least_top=3)
    sizes = np.bincount(labels)
    if len(X) >= k:
        assert sizes.min() >= k and sizes.max() <= max(2 * k - 1, k)
        assert (sizes[:-1] == k).all()  # every group has k records but the last
    if k > 1:
        assert np.array_equal(labels, mdav_reference(X, k))


def test_k_one_and_empty():
    assert mdav(np.zeros((3, 2)), 1).tolist() == [0, 1, 2]
    assert mdav(np.zeros((0, 2)), 3).tolist() == []
