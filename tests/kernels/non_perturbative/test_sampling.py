"""Sampling kernels (sdcflow.kernels.non_perturbative.sampling)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.non_perturbative.sampling import allocate, stratified_sample


def test_fraction_allocation_rounds_and_keeps_one():
    assert allocate(np.array([646, 3934, 3]), fraction=0.1).tolist() == [65, 393, 1]
    assert allocate(np.array([0, 10]), fraction=0.05).tolist() == [0, 1]


def test_total_allocation_by_largest_remainder():
    # shares 3.33, 6.67 of 10 -> 3 and 7
    assert allocate(np.array([100, 200]), total=10).tolist() == [3, 7]
    assert allocate(np.array([1, 1, 1]), total=2).tolist() == [1, 1, 0]


def test_sample_sizes_per_group_and_determinism():
    groups = np.array([0, 1, 0, 1, 0, 1, 0, 0])
    a = stratified_sample(groups, np.array([2, 1]), np.random.default_rng(3))
    b = stratified_sample(groups, np.array([2, 1]), np.random.default_rng(3))
    assert np.array_equal(a, b)
    assert (groups[a] == 0).sum() == 2 and (groups[a] == 1).sum() == 1
    assert np.all(np.diff(a) > 0)  # sorted, no repeats


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=60), st.floats(0.05, 1.0),
       st.integers(0, 2**32 - 1))
def test_every_stratum_gets_its_allocation(group_list, fraction, seed):
    groups = np.unique(np.array(group_list), return_inverse=True)[1].reshape(-1)
    sizes = np.bincount(groups)
    n_h = allocate(sizes, fraction=fraction)
    chosen = stratified_sample(groups, n_h, np.random.default_rng(seed))
    assert np.bincount(groups[chosen], minlength=len(sizes)).tolist() == n_h.tolist()
    assert len(set(chosen.tolist())) == len(chosen)
