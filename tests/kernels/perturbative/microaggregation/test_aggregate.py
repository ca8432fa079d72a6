"""Cluster representatives (sdcflow.kernels.perturbative.microaggregation.aggregate), seed 001's Propositions."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.perturbative.microaggregation.aggregate import (
    group_geometric_mean,
    group_lower_median,
    group_mean,
    group_plurality,
)

LABELS = np.array([0, 0, 0, 1, 1])


def test_seed_001_median_breaks_a_sum_the_mean_keeps_it():
    # seed 001: V = V1 + V2 with (3,1,2), (6,0,6), (8,2,6): the means 17/3 = 3/3 + 14/3
    v1, v2 = np.array([1.0, 0, 2]), np.array([2.0, 6, 6])
    lab = np.zeros(3, dtype=int)
    v = v1 + v2
    assert group_mean(v, lab)[0] == group_mean(v1, lab)[0] + group_mean(v2, lab)[0] == 17 / 3
    # the medians are 6, 1 and 6: 6 != 1 + 6
    assert group_lower_median(v, lab)[0] == 6
    assert group_lower_median(v1, lab)[0] + group_lower_median(v2, lab)[0] == 7


def test_weighted_mean_and_lower_median():
    x = np.array([1.0, 2, 3, 10, 20])
    assert group_mean(x, LABELS, np.array([1, 1, 2, 1, 3.0])).tolist() == [2.25] * 3 + [17.5] * 2
    assert group_lower_median(x, LABELS).tolist() == [2, 2, 2, 10, 10]


def test_geometric_mean_of_a_factor_keeps_a_product():
    price = np.array([10.0, 20, 40])
    vat = np.array([0.1, 0.2, 0.0])
    retail = price * (1 + vat)
    lab = np.zeros(3, dtype=int)
    p = group_geometric_mean(price, lab)
    v = group_geometric_mean(vat, lab, offset=1.0)
    r = group_geometric_mean(retail, lab)
    np.testing.assert_allclose(p * (1 + v), r)
    np.testing.assert_allclose(p[0], 20.0)


def test_plurality_prefers_observed_then_smallest():
    codes = np.array([1, 1, 2, -1, -1, 0, 3, 3, 0])
    labels = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2])
    assert group_plurality(codes, labels).tolist() == [1, 1, 1, -1, -1, 0, 0, 0, 0]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(0.1, 100), st.floats(0.1, 100)), min_size=1, max_size=20),
       st.integers(1, 4))
def test_mean_keeps_every_linear_relation(pairs, groups):
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    labels = np.arange(len(a)) % groups
    labels = np.unique(labels, return_inverse=True)[1].reshape(-1)
    np.testing.assert_allclose(group_mean(a + 2 * b, labels),
                               group_mean(a, labels) + 2 * group_mean(b, labels))
    # internality: between the group's minimum and maximum
    for g in np.unique(labels):
        m = group_mean(a, labels)[labels == g][0]
        assert a[labels == g].min() - 1e-9 <= m <= a[labels == g].max() + 1e-9
