"""Agreement between partitions (sdcflow.kernels.utility.partition_agreement; seed 000,
"Specific Information Loss Measure").

Expected values are hand-computed pair counts and entropies (worked out in the comments)
or known identities."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.utility.partition_agreement import partition_agreement


def test_partition_agreement_by_hand():
    # u: {0,1,2} {3,4} {5}; v: {0,1} {2,3} {4,5}; n = 6, T = 15 pairs
    # together in u: 3 + 1 = 4, in v: 1 + 1 + 1 = 3, in both: {0,1} = 1
    # a = 1, b = 3, c = 2, d = 15 - 6 = 9
    u = np.array([0, 0, 0, 1, 1, 2])
    v = np.array([0, 0, 1, 1, 2, 2])
    out = partition_agreement(u, v)
    assert out["pairs"] == {"together_both": 1, "together_original_only": 3,
                            "together_protected_only": 2, "apart_both": 9}
    assert out["rand"] == pytest.approx(10 / 15)
    assert out["jaccard"] == pytest.approx(1 / 6)
    # E = 4 * 3 / 15 = 0.8; ARI = (1 - 0.8) / ((4 + 3) / 2 - 0.8) = 0.2 / 2.7
    assert out["adjusted_rand"] == pytest.approx(0.2 / 2.7)
    assert out["wallace_original_to_protected"] == pytest.approx(1 / 4)
    assert out["wallace_protected_to_original"] == pytest.approx(1 / 3)

    def h(*sizes):
        return -sum(s / 6 * math.log(s / 6) for s in sizes)

    # cells of u x v: {0,1} {2} {3} {4} {5}
    assert out["mantaras"] == pytest.approx(2 - (h(3, 2, 1) + h(2, 2, 2)) / h(2, 1, 1, 1, 1))


def test_independent_partitions_have_ari_near_zero_and_mantaras_one():
    # u splits by the first bit, v by the second: every u-cluster meets every v-cluster
    # equally, H(u, v) = H(u) + H(v) -> Mantaras 1; ARI = (a - E) / (...) with a = E
    u = np.array([0, 0, 1, 1] * 25)
    v = np.array([0, 1, 0, 1] * 25)
    out = partition_agreement(u, v)
    assert out["mantaras"] == pytest.approx(1.0)
    assert out["adjusted_rand"] < 0.0  # a little below E, as for any pair-count table this even
    assert out["adjusted_rand"] > -0.02


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=2, max_size=60), st.permutations(range(6)))
def test_identical_partitions_up_to_relabelling(labels, relabel):
    u = np.array(labels)
    v = np.array(relabel)[u] + 100
    out = partition_agreement(u, v)
    for key in ("rand", "jaccard", "adjusted_rand", "wallace_original_to_protected",
                "wallace_protected_to_original"):
        assert out[key] == pytest.approx(1.0)
    assert out["mantaras"] == pytest.approx(0.0, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 4)), min_size=2, max_size=60))
def test_symmetry_and_ranges(rows):
    u = np.array([a for a, _ in rows])
    v = np.array([b for _, b in rows])
    one, two = partition_agreement(u, v), partition_agreement(v, u)
    for key in ("rand", "jaccard", "adjusted_rand", "mantaras"):
        assert one[key] == pytest.approx(two[key])
    assert one["wallace_original_to_protected"] == pytest.approx(
        two["wallace_protected_to_original"])
    for key in ("rand", "jaccard", "wallace_original_to_protected", "mantaras"):
        assert 0 <= one[key] <= 1 + 1e-12
