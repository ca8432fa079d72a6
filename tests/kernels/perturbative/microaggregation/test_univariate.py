"""Optimal univariate microaggregation and individual ranking (sdcflow.kernels.perturbative.microaggregation.univariate)."""

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.perturbative.microaggregation.univariate import (
    individual_ranking,
    optimal_univariate,
)


def sse(x, labels):
    return sum(((x[labels == g] - x[labels == g].mean()) ** 2).sum() for g in np.unique(labels))


def brute_force_sse(x, k):
    """The best SSE over every partition of x into groups of k .. 2k-1 values (any
    groups, not only consecutive ones: this also checks that the optimum is contiguous)."""
    n = len(x)
    best = np.inf

    def rec(remaining, total):
        nonlocal best
        if not remaining:
            best = min(best, total)
            return
        first, rest = remaining[0], remaining[1:]
        for size in range(k, 2 * k):
            if size - 1 > len(rest):
                break
            for others in itertools.combinations(rest, size - 1):
                group = x[[first, *others]]
                left = [i for i in rest if i not in others]
                rec(left, total + ((group - group.mean()) ** 2).sum())

    rec(list(range(n)), 0.0)
    return best


def test_toy_case():
    # x = (2,3,3,20,21), k = 2: {2,3,3} and {20,21}
    assert optimal_univariate(np.array([2, 3, 3, 20, 21.0]), 2).tolist() == [0, 0, 0, 1, 1]


@settings(max_examples=120, deadline=None)
@given(st.lists(st.integers(0, 12), min_size=2, max_size=9), st.integers(1, 3))
def test_matches_brute_force_optimum(values, k):
    x = np.array(values, float)
    if len(x) < k:
        return
    labels = optimal_univariate(x, k)
    sizes = np.bincount(labels)
    assert sizes.min() >= k and sizes.max() <= 2 * k - 1
    assert abs(sse(x, labels) - brute_force_sse(x, k)) < 1e-9


def test_large_values_keep_precision():
    # Welford sums: tiny groups far from zero are cut exactly
    x = 1e9 + np.array([0.0, 0.0, 0.001, 0.002, 0.002, 0.003])
    assert optimal_univariate(x, 3).tolist() == [0, 0, 0, 1, 1, 1]


def test_individual_ranking_groups_of_k_with_the_remainder_last():
    x = np.array([5.0, 1, 4, 2, 3, 6, 7])
    # sorted: 1 2 3 | 4 5 6 7
    assert individual_ranking(x, 3).tolist() == [1, 0, 1, 0, 0, 1, 1]
