"""Projected microaggregation (sdcflow.kernels.perturbative.microaggregation.projected)."""

import numpy as np

from sdcflow.kernels.perturbative.microaggregation.projected import first_component, projected


def test_toy_case():
    X = np.array([[2, 1], [3, 2], [3, 2], [20, 19], [21, 20]], float)
    assert projected(X, 2).tolist() == [0, 0, 0, 1, 1]


def test_first_component_is_signed_deterministically():
    X = np.array([[0, 0], [1, 1], [2, 2.0]])
    np.testing.assert_allclose(first_component(X), [np.sqrt(0.5)] * 2)
    np.testing.assert_allclose(first_component(-X), [np.sqrt(0.5)] * 2)


def test_group_sizes_and_a_given_direction():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((500, 3))
    sizes = np.bincount(projected(X, 4))
    assert sizes.min() >= 4 and sizes.max() <= 7
    # along the first axis only, the groups are contiguous in that coordinate
    labels = projected(X, 4, direction=np.array([1.0, 0, 0]))
    order = np.argsort(X[:, 0], kind="stable")
    assert (np.diff(labels[order]) >= 0).all()


def test_cost_is_the_multivariate_sse():
    # two records share the projection but differ in the second coordinate: the cut
    # follows the original variables
    X = np.array([[0, 0], [0, 10], [1, 0], [1, 10]], float)
    labels = projected(X, 2, direction=np.array([1.0, 0.0]))
    assert np.bincount(labels).tolist() == [2, 2]
