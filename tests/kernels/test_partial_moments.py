"""Moments combined from parts equal the moments of the whole (Chan, Golub & LeVeque
1983): checked against numpy's nanvar / cov on the whole data for any split."""

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.partial_moments import (
    column_part,
    column_variances_of,
    covariance_of,
    matrix_part,
    merge_columns,
    merge_matrices,
)
from sdcflow.kernels.perturbative.noise import column_variances, moments


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.lists(st.integers(0, 60), min_size=1, max_size=5))
def test_parts_give_the_moments_of_the_whole(seed, sizes):
    rng = np.random.default_rng(seed)
    x = rng.normal(1000, 50, (sum(sizes), 3))
    x[rng.random(x.shape) < 0.1] = np.nan
    cuts = np.cumsum([0, *sizes])
    parts = [x[a:b] for a, b in itertools.pairwise(cuts)]
    variances = column_variances_of(merge_columns([column_part(p) for p in parts]))
    np.testing.assert_allclose(variances, column_variances(x), rtol=1e-9, atol=1e-9)
    cov = covariance_of(merge_matrices([matrix_part(p) for p in parts]))
    np.testing.assert_allclose(cov, moments(x)[1], rtol=1e-9, atol=1e-9, equal_nan=True)


def test_a_worked_example():
    # 1, 2 | 3, 4, 5: mean 3, variance 2.5 (by hand: squared deviations 4+1+0+1+4 = 10, /4)
    parts = [column_part(np.array([[1.0], [2.0]])), column_part(np.array([[3.0], [4.0], [5.0]]))]
    n, mean, m2 = merge_columns(parts)
    assert (n[0], mean[0], m2[0]) == (5, 3, 10)
    assert column_variances_of((n, mean, m2))[0] == 2.5
