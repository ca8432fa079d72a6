"""Fuzzy microaggregation for the transparency principle
(sdcflow.kernels.perturbative.microaggregation.fuzzy_c_means; Torra 2017)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.perturbative.microaggregation.fuzzy_c_means import (
    fuzzy_c_means,
    fuzzy_centres,
    random_assignment,
)
from sdcflow.kernels.perturbative.microaggregation.mdav import mdav
from sdcflow.kernels.utility.fuzzy_c_means import memberships


def test_memberships_by_hand():
    # fuzzy c-means, m = 2: u_1 = 1 / (1 + (d1/d2)^2); d = (1, 2) -> 1 / (1 + 1/4) = 0.8
    # (the shared kernel takes squared distances)
    d = np.array([[1.0, 2.0], [3.0, 3.0], [0.0, 5.0], [0.0, 0.0]])
    np.testing.assert_allclose(memberships(d ** 2, 2.0),
                               [[0.8, 0.2], [0.5, 0.5], [1, 0], [0.5, 0.5]])
    # m = 3: exponent 2 / (m - 1) = 1 -> 1 / (1 + 1/2) = 2/3
    np.testing.assert_allclose(memberships(np.array([[1.0, 4.0]]), 3.0), [[2 / 3, 1 / 3]])


def test_two_separated_clusters_and_a_middle_record():
    # records at 0, 1 and 10, 11, and one at 5.5 exactly between the clusters' centres
    X = np.array([[0.0], [1], [10], [11], [5.5]])
    labels = np.array([0, 0, 1, 1, 0])
    idx, u = fuzzy_c_means(X, labels, neighbours=2, iterations=50)
    mid = dict(zip(idx[4], u[4], strict=True))
    # by symmetry the centres end at c and 11 - c, so the middle record is equidistant
    np.testing.assert_allclose([mid[0], mid[1]], [0.5, 0.5], atol=1e-9)
    centres = fuzzy_centres(X[:, 0], idx, u, 2.0, 2)
    np.testing.assert_allclose(centres.sum(), 11.0, atol=1e-9)
    # the middle record (membership 1/2, weight 1/4 each) pulls each centre towards it,
    # past the crisp mean of 0 and 1
    assert 0.5 < centres[0] < 5.5


def test_one_cluster_is_the_mean():
    X = np.array([[1.0, 2], [3, 4], [5, 9]])
    idx, u = fuzzy_c_means(X, np.zeros(3, dtype=np.int64))
    np.testing.assert_allclose(fuzzy_centres(X[:, 1], idx, u, 2.0, 1), [5.0])


def test_linear_relation_kept_by_the_centres():
    # a centre is a weighted mean with the same weights for every variable: a + b == s
    rng = np.random.default_rng(4)
    a, b = rng.gamma(2, 1, 90), rng.gamma(2, 1, 90)
    X = np.column_stack([a, b])
    labels = mdav(X, 3)
    idx, u = fuzzy_c_means(X, labels)
    c = int(labels.max()) + 1
    np.testing.assert_allclose(fuzzy_centres(a, idx, u, 2.0, c) + fuzzy_centres(b, idx, u, 2.0, c),
                               fuzzy_centres(a + b, idx, u, 2.0, c))


def test_draws_follow_the_memberships():
    # 100,000 draws among memberships (0.8, 0.2): the share of the first within 4 standard
    # errors (sqrt(0.16 / 1e5) = 0.00126)
    n = 100_000
    idx = np.tile([7, 3], (n, 1))
    u = np.tile([0.8, 0.2], (n, 1))
    chosen = random_assignment(idx, u, np.random.default_rng(1))
    assert set(np.unique(chosen)) == {3, 7}
    assert abs(np.mean(chosen == 7) - 0.8) < 4 * 0.00126


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 4), st.integers(0, 10_000))
def test_memberships_are_probabilities(k, seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(8 * k, 2)).astype(float)  # ties and records on centres
    idx, u = fuzzy_c_means(X, mdav(X, k))
    assert (u >= 0).all() and np.allclose(u.sum(axis=1), 1.0)
    chosen = random_assignment(idx, u, rng)
    centres = fuzzy_centres(X[:, 0], idx, u, 2.0, int(idx.max()) + 1)
    assert np.isfinite(centres[chosen]).all()
