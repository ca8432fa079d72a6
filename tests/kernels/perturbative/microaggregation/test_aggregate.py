"""Cluster representatives (sdcflow.kernels.perturbative.microaggregation.aggregate), seed 001's Propositions."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.perturbative.microaggregation.aggregate import (
    group_geometric_mean,
    group_lower_median,
    group_mean,
    group_median,
    group_onestep,
    group_plurality,
    group_trimmed_mean,
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


# --- robust means (sdcMicro's measure = "median" / "trim" / "onestep") ------------------

def test_robust_means_by_hand():
    x = np.array([1.0, 2, 3, 4, 100, 10, 20, 30, 40])
    labels = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1])
    # R: median(c(1,2,3,4,100)) = 3, median(c(10,20,30,40)) = 25
    assert group_median(x, labels).tolist() == [3] * 5 + [25] * 4
    # R: mean(c(1,2,3,4,100), trim = 0.2) drops floor(5 * 0.2) = 1 at each end: 3;
    # mean(c(10,20,30,40), trim = 0.2) drops floor(0.8) = 0: 25
    np.testing.assert_allclose(group_trimmed_mean(x, labels, 0.2), [3] * 5 + [25] * 4)
    # trim = 0.25 of 4 drops 1 each end: mean(20, 30) = 25; of 5 drops 1: 3
    np.testing.assert_allclose(group_trimmed_mean(x, labels, 0.25)[[0, 5]], [3, 25])
    # onestep, first group: median 3, mad = 1.4826 * median(2,1,0,1,97) = 1.4826, limits
    # 3 -+ 3/1.486 * 1.4826: 100 is clipped to 5.99313..., mean (1+2+3+4+5.99313) / 5
    limit = 3 / 1.486 * 1.4826
    np.testing.assert_allclose(group_onestep(x, labels)[0], (10 + 3 + limit) / 5)
    # second group: median 25, mad = 1.4826 * 10 -> limits 25 -+ 29.93: nothing clipped
    np.testing.assert_allclose(group_onestep(x, labels)[5], 25.0)


def test_trimmed_mean_zero_is_the_mean():
    rng = np.random.default_rng(2)
    x = rng.normal(size=60)
    labels = rng.integers(0, 7, 60)
    labels = np.unique(labels, return_inverse=True)[1]
    np.testing.assert_allclose(group_trimmed_mean(x, labels, 0.0), group_mean(x, labels))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=30), st.floats(0, 0.49))
def test_robust_means_lie_within_the_group(values, trim):
    x = np.array(values)
    labels = np.zeros(len(x), dtype=np.int64)
    for f in (lambda: group_trimmed_mean(x, labels, trim), lambda: group_onestep(x, labels)):
        out = f()
        assert (out >= x.min() - 1e-6).all() and (out <= x.max() + 1e-6).all()
