"""sdcMicro's dUtility figures (sdcflow.kernels.utility.sdcmicro_utility), each against its
definition in sdcMicro 5.8.1's R/dUtility.R (dUtilityWORK), worked out by hand in the
comments; the published figure on sdcMicro's testdata is in
tests/measures/utility/test_information_loss_measure.py."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from sdcflow.kernels.utility.sdcmicro_utility import (
    eigen,
    il1,
    il1old,
    il1s,
    pairwise_scaled_covariance,
    sdcmicro_utility,
)

# x: 3 records, 2 variables, a zero and a missing value; y: the protected values
X = np.array([[2.0, 0.0], [4.0, 10.0], [6.0, np.nan]])
Y = np.array([[3.0, 1.0], [4.0, 12.0], [3.0, 5.0]])


def test_il1_by_hand_leaves_out_zeros_and_missing_cells():
    # 100 |x - y| / |x|: 100 * 1/2 + 0 + 100 * 3/6 for variable 1; variable 2: x = 0 gives
    # Inf (left out), 100 * 2/10, and the missing cell NA (left out): 50 + 0 + 50 + 20
    assert il1(X, Y) == pytest.approx(120.0)
    # x = 0 = y gives 0/0 = NaN in R, also left out
    assert il1(np.array([[0.0], [1.0]]), np.array([[0.0], [2.0]])) == pytest.approx(100.0)


def test_il1s_is_a_sum_and_il1old_its_mean_over_all_cells():
    # S_1 = sd(2, 4, 6) = 2, S_2 = sd(0, 10) = sqrt(50) (the observed values)
    s1, s2 = 2.0, math.sqrt(50.0)
    total = (1 + 0 + 3) / (s1 * math.sqrt(2)) + (1 + 2) / (s2 * math.sqrt(2))
    assert il1s(X, Y) == pytest.approx(total)
    # IL1old divides by dim(x)[1] * dim(x)[2] = 6 cells, the missing one included
    assert il1old(X, Y) == pytest.approx(total / 6)


def test_a_changed_constant_variable_makes_il1s_infinite_in_sdcmicro():
    # S = 0: |x - y| / 0 is Inf where the value changed (sdcMicro's sum is Inf): None;
    # where nothing changed 0/0 = NaN is left out by na.rm
    x = np.array([[1.0, 5.0], [3.0, 5.0]])
    assert il1s(x, np.array([[1.0, 6.0], [3.0, 5.0]])) is None
    assert il1old(x, np.array([[1.0, 6.0], [3.0, 5.0]])) is None
    assert il1s(x, np.array([[2.0, 5.0], [3.0, 5.0]])) == pytest.approx(
        1 / (math.sqrt(2) * math.sqrt(2)))


def test_eigen_of_two_complete_variables_by_hand():
    # complete data: var(scale(x)) is the correlation matrix, eigenvalues 1 + r and 1 - r
    rng = np.random.default_rng(5)
    z = rng.normal(size=(200, 2))
    x = np.column_stack([z[:, 0], z[:, 0] + z[:, 1]])
    y = np.column_stack([z[:, 0], z[:, 0] + 2 * z[:, 1]])
    r1 = np.corrcoef(x, rowvar=False)[0, 1]
    r2 = np.corrcoef(y, rowvar=False)[0, 1]
    expected = abs(r1 - r2) / (1 + r1) + abs(r1 - r2) / (1 - r1)
    assert eigen(x, y) == pytest.approx(expected)


def test_pairwise_covariance_of_scaled_columns_as_r():
    # R's var(scale(x), use = "pairwise.complete.obs"), independently: pandas' cov uses
    # the pairwise complete observations too (scale: mean and sd of each column's
    # observed values)
    rng = np.random.default_rng(1)
    x = rng.normal(size=(40, 3))
    x[[1, 5, 9], 0] = np.nan
    x[[2, 5, 30], 2] = np.nan
    frame = pd.DataFrame(x)
    expected = ((frame - frame.mean()) / frame.std()).cov().to_numpy()
    np.testing.assert_allclose(pairwise_scaled_covariance(x), expected, rtol=1e-12)
    e1 = np.sort(np.linalg.eigvalsh(expected))[::-1]
    y = x + rng.normal(scale=0.5, size=x.shape)
    fy = pd.DataFrame(y)
    e2 = np.sort(np.linalg.eigvalsh(((fy - fy.mean()) / fy.std()).cov().to_numpy()))[::-1]
    assert eigen(x, y) == pytest.approx(float((np.abs(e1 - e2) / e1).sum()))


def test_eigen_is_none_where_sdcmicro_has_no_number():
    x = np.column_stack([np.arange(10.0), np.ones(10)])  # constant: scale gives NaN
    assert eigen(x, x + 1) is None
    a = np.arange(10.0) ** 1.5
    b = np.sqrt(np.arange(10.0))
    singular = np.column_stack([a, b, a + b])  # an eigenvalue 0 of the original
    assert eigen(singular, singular + 0.1 * np.arange(30.0).reshape(10, 3) ** 2) is None


def test_identical_data_lose_nothing():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(50, 3)) @ rng.normal(size=(3, 3))
    assert sdcmicro_utility(x, x.copy()) == {"IL1": 0.0, "IL1s": 0.0, "IL1old": 0.0,
                                             "eigen": 0.0}


@settings(max_examples=25, deadline=None)
@given(arrays(np.float64, (12, 2), elements=st.floats(-1e3, 1e3).filter(lambda v: abs(v) > 1e-3)),
       st.floats(0.5, 3.0))
def test_scaling_the_differences_scales_il1_and_il1s(x, factor):
    # IL1 and IL1s are sums of |x - y| over fixed divisors: y = x + factor * d multiplies
    # them by factor; IL1old stays IL1s / (n p)
    d = np.linspace(-1.0, 1.0, x.size).reshape(x.shape)
    base = sdcmicro_utility(x, x + d)
    scaled = sdcmicro_utility(x, x + factor * d)
    assert scaled["IL1"] == pytest.approx(factor * base["IL1"], rel=1e-9)
    if base["IL1s"] is not None:
        assert scaled["IL1s"] == pytest.approx(factor * base["IL1s"], rel=1e-9)
        assert scaled["IL1old"] == pytest.approx(scaled["IL1s"] / x.size, rel=1e-12)


def test_edge_cases_as_r():
    # no variables or no records: R's sum over nothing is 0, IL1old divides 0 by 0 (NaN)
    # and eigen has no matrix; a variable with one observed value has no sd (NA in R),
    # so its standardised distances are left out
    for shape in ((5, 0), (0, 2)):
        assert sdcmicro_utility(np.empty(shape), np.empty(shape)) == {
            "IL1": 0.0, "IL1s": 0.0, "IL1old": None, "eigen": None}
    x, y = np.array([[1.0], [np.nan]]), np.array([[2.0], [3.0]])
    assert sdcmicro_utility(x, y) == {"IL1": 100.0, "IL1s": 0.0, "IL1old": 0.0,
                                      "eigen": None}
