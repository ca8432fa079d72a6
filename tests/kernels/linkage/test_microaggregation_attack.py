"""The group-interval transparency attack on microaggregation
(sdcflow.kernels.linkage.microaggregation_attack): Winkler (2004) on individual ranking,
intersected as in Nin, Herranz & Torra (2008)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.linkage.microaggregation_attack import group_intervals, interval_attack
from sdcflow.kernels.perturbative.microaggregation.aggregate import group_mean
from sdcflow.kernels.perturbative.microaggregation.univariate import individual_ranking


def ranked(X, k):
    """Individual ranking with group means, column by column."""
    return np.column_stack([group_mean(X[:, j], individual_ranking(X[:, j], k))
                            for j in range(X.shape[1])])


def test_group_intervals_are_the_runs():
    # hand: 1 2 3 | 10 11 12 -> means 2 and 11, intervals [1, 3] and [10, 12]
    x = np.array([12.0, 1, 11, 2, 10, 3])
    v, lo, hi = group_intervals(x, ranked(x[:, None], 3)[:, 0])
    assert v.tolist() == [2, 11] and lo.tolist() == [1, 10] and hi.tolist() == [3, 12]


def test_hand_example_two_variables():
    # a = 1..6 -> groups {0,1,2} (mean 2), {3,4,5} (mean 5);
    # b = 6,1,2,3,4,5 -> groups {1,2,3} (mean 2), {4,5,0} (mean 5).
    # B(record 0) = {0,1,2} & {0,4,5} = {0}; record 3: {3,4,5} & {1,2,3} = {3}; records 1, 2
    # share {1,2}, records 4, 5 share {4,5}: 2 certain re-identifications by hand
    X = np.array([[1.0, 6], [2, 1], [3, 2], [4, 3], [5, 4], [6, 5]])
    Y = ranked(X, 3)
    assert Y[:, 1].tolist() == [5, 2, 2, 2, 5, 5]
    r = interval_attack(X, Y)
    assert r.size.tolist() == [1, 2, 2, 1, 2, 2]
    assert r.certain.tolist() == [True, False, False, True, False, False]
    assert r.contains.all()
    # linkage inside {1, 2}: both protected records are (2, 2), a tie: credit 1/2 each
    assert r.credit.tolist() == [1, 0.5, 0.5, 1, 0.5, 0.5]


def test_one_variable_is_k_anonymous():
    # one variable alone: the intersection is the record's group (k = 3)
    x = np.arange(9.0)[:, None]
    r = interval_attack(x, ranked(x, 3))
    assert r.size.tolist() == [3] * 9 and not r.certain.any()


def test_value_tied_across_a_boundary_belongs_to_both_groups():
    # 1 2 2 | 2 5 6: the value 2 lies in both runs, so its records could be in either
    x = np.array([1.0, 2, 2, 2, 5, 6])[:, None]
    r = interval_attack(x, ranked(x, 3))
    assert r.size.tolist() == [3, 6, 6, 6, 3, 3]


def test_missing_values_constrain_nothing():
    # b is missing in record 0 (original and protected); its 5 observed values 1..5 form
    # one group (5 // 3 = 1 group), so b constrains nothing and each intersection is the
    # record's group of a (3 records); record 0's missing protected b fits every B_b
    X = np.array([[1.0, np.nan], [2, 1], [3, 2], [4, 3], [5, 4], [6, 5]])
    Y = X.copy()
    Y[:, 0] = ranked(X[:, :1], 3)[:, 0]
    Y[1:, 1] = ranked(X[1:, 1:], 3)[:, 0]
    assert Y[1:, 1].tolist() == [3] * 5
    r = interval_attack(X, Y)
    assert r.size.tolist() == [3] * 6 and r.contains.all()


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 5), st.integers(1, 4), st.integers(0, 10_000))
def test_own_record_always_in_its_intersection_for_individual_ranking(k, c, seed):
    # the attack is exact for individual ranking: the true record is never excluded
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 20, size=(5 * k + 3, c)).astype(float)
    r = interval_attack(X, ranked(X, k))
    assert r.contains.all()
    assert (r.size >= 1).all()
