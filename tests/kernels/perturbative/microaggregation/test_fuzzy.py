"""Fuzzy microaggregation weights (sdcflow.kernels.perturbative.microaggregation.fuzzy), seed 001."""

import warnings

import numpy as np

from sdcflow.kernels.perturbative.microaggregation.aggregate import group_mean
from sdcflow.kernels.perturbative.microaggregation.fuzzy import fuzzy_weights
from sdcflow.kernels.perturbative.microaggregation.mdav import mdav


def test_weights_are_a_convex_combination_per_group():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((300, 2))
    labels = mdav(X, 3)
    kappa = fuzzy_weights(X, labels)
    assert (kappa >= 0).all()
    np.testing.assert_allclose(np.bincount(labels, weights=kappa), 1.0)


def test_central_records_weigh_more():
    # a group of three on a line, the middle one at its prototype; another group far away
    X = np.array([[0.0, 0], [1, 0], [2, 0], [10, 0], [11, 0], [12, 0]])
    labels = np.array([0, 0, 0, 1, 1, 1])
    kappa = fuzzy_weights(X, labels, neighbours=2)
    assert kappa[1] > kappa[0] and kappa[1] > kappa[2]
    assert np.isclose(kappa[:3].sum(), 1.0)
    # record 2 is nearer the other group's prototype than record 0: less membership
    assert kappa[0] > kappa[2]


def test_linear_relation_kept_with_fuzzy_weights():
    # Proposition 1: the same kappa for every variable keeps a + b == c exactly
    rng = np.random.default_rng(4)
    a, b = rng.gamma(2, 1, 90), rng.gamma(2, 1, 90)
    X = np.column_stack([a, b])
    labels = mdav(X, 3)
    kappa = fuzzy_weights(X, labels)
    np.testing.assert_allclose(group_mean(a, labels, kappa) + group_mean(b, labels, kappa),
                               group_mean(a + b, labels, kappa))


def test_group_on_other_prototypes_gets_equal_weights():
    # Group 2 holds the values 0 and 2, which are exactly the prototypes of groups 0 and 1:
    # fuzzy c-means gives each record membership 0 to its own prototype, so the weights
    # mu^m / sum mu^m are 0/0. Equal weights (the plain mean, 1) are used instead of NaN.
    X = np.array([[0.0], [0.0], [2.0], [2.0], [0.0], [2.0]])
    labels = np.array([0, 0, 1, 1, 2, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kappa = fuzzy_weights(X, labels)
    np.testing.assert_allclose(kappa, [0.5] * 6)
    assert np.bincount(labels, weights=kappa * X[:, 0]).tolist() == [0.0, 2.0, 1.0]
