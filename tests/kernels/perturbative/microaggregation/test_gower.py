"""Gower-distance microaggregation of mixed data
(sdcflow.kernels.perturbative.microaggregation.gower; sdcMicro's microaggrGower)."""

import numpy as np
import pytest

from sdcflow.kernels.perturbative.microaggregation.gower import (
    gower_neighbours,
    neighbourhood_mean,
    neighbourhood_median,
    neighbourhood_sample,
)


def test_neighbours_by_hand():
    # x in [0, 10] (range 10), category a/b. Gower distance = mean of |dx| / 10 and the
    # category mismatch: d(0, 1) = (0.1 + 0) / 2 = 0.05, d(0, 2) = (0.2 + 1) / 2 = 0.6,
    # d(0, 3) = (1.0 + 0) / 2 = 0.5; d(2, 3) = (0.8 + 1) / 2 = 0.9, d(1, 2) = 0.55
    x = np.array([[0.0], [1], [2], [10]])
    cat = np.array([[0], [0], [1], [0]])
    near = gower_neighbours(x, cat, 3)
    assert near[0].tolist() == [0, 1, 3]   # 0.05 < 0.5 < 0.6
    assert near[2].tolist() == [2, 1, 0]   # 0.55 < 0.6 < 0.9
    # numeric only: plain |dx| / range
    assert gower_neighbours(x, np.zeros((4, 0)), 2)[3].tolist() == [3, 2]
    # weights: the category alone decides, ties go to the record first in the file
    assert gower_neighbours(x, cat, 3, weights=[0, 1])[2].tolist() == [2, 0, 1]


def test_the_record_itself_comes_first_even_among_duplicates():
    x = np.zeros((4, 1))
    near = gower_neighbours(x, np.zeros((4, 0)), 2)
    assert near[:, 0].tolist() == [0, 1, 2, 3]


def test_aggregates():
    near = np.array([[0, 1, 2], [1, 0, 2], [2, 1, 0]])
    x = np.array([1.0, 2, 9])
    assert neighbourhood_mean(x, near).tolist() == [4, 4, 4]
    assert neighbourhood_median(x, near).tolist() == [2, 2, 2]


def test_sampled_categories_follow_the_frequencies():
    # a neighbourhood holding the codes 5, 5, 7: code 5 with probability 2/3; 30,000
    # draws, within 4 standard errors (sqrt(2/9 / 30000) = 0.0027)
    n = 30_000
    near = np.tile([0, 1, 2], (n, 1))
    codes = np.array([5, 5, 7])
    drawn = neighbourhood_sample(codes, near, np.random.default_rng(3))
    assert set(np.unique(drawn)) == {5, 7}
    assert abs(np.mean(drawn == 5) - 2 / 3) < 4 * 0.0027


def test_bad_weights():
    with pytest.raises(ValueError, match="weight"):
        gower_neighbours(np.zeros((3, 1)), np.zeros((3, 0)), 2, weights=[1, 2])
