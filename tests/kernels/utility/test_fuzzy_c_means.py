"""Fuzzy c-means (Bezdek 1981) and the fuzzy-clustering information loss (Ladra & Torra
2008)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.utility.fuzzy_c_means import (
    fuzzy_c_means,
    fuzzy_clustering_loss,
    memberships,
)


def test_memberships_by_hand():
    # centres at 0 and 4, a record at 1: squared distances 1 and 9; m = 2:
    # u = (1/1) / (1/1 + 1/9) = 0.9 and 0.1. m = 3: exponent 1/(m-1) = 1/2 on the squared
    # distances: (1/1) / (1 + 1/3) = 0.75 and 0.25. A record on a centre belongs to it.
    np.testing.assert_allclose(memberships(np.array([[1.0, 9.0]]), 2.0), [[0.9, 0.1]])
    np.testing.assert_allclose(memberships(np.array([[1.0, 9.0]]), 3.0), [[0.75, 0.25]])
    assert memberships(np.array([[0.0, 4.0]]), 2.0).tolist() == [[1.0, 0.0]]


def test_two_point_masses_by_hand():
    # records 0, 0, 10, 10 from centres 1 and 9: memberships of the records at 0 are
    # (1/1)/(1/1 + 1/81) = 81/82 for the first centre; the centres move to 10/82... and
    # converge to 0 and 10, where every record sits on a centre: objective 0
    x = np.array([[0.0], [0.0], [10.0], [10.0]])
    part = fuzzy_c_means(x, np.array([[1.0], [9.0]]))
    np.testing.assert_allclose(part.centres, [[0.0], [10.0]], atol=1e-6)
    assert part.objective == pytest.approx(0.0, abs=1e-9)
    np.testing.assert_allclose(part.membership, [[1, 0], [1, 0], [0, 1], [0, 1]], atol=1e-6)


def test_symmetric_example_by_hand():
    # records -1, 1 and 9, 11 from centres 0 and 10 (m = 2): by symmetry the centres stay
    # at the group means; each record has squared distances 1 and 81 (or 121 and 1...):
    # record -1: d2 = 1, 121 -> u = (1)/(1 + 1/121) = 121/122; record 1: d2 = 1, 81 ->
    # 81/82. v_1 = sum u^m x / sum u^m is not exactly 0: check the fixed-point equations
    # instead, and the objective J = sum u^m d2 at the fixed point
    x = np.array([[-1.0], [1.0], [9.0], [11.0]])
    part = fuzzy_c_means(x, np.array([[0.0], [10.0]]), max_iter=10_000, tol=1e-13)
    u, v = part.membership, part.centres
    w = u ** 2
    np.testing.assert_allclose(v[:, 0], (w.T @ x[:, 0]) / w.sum(axis=0), atol=1e-10)
    d2 = (x - v.T) ** 2
    assert part.objective == pytest.approx(float((w * d2).sum()), rel=1e-12)
    # and the symmetry of the data about 5: v_1 + v_2 = 10
    assert v.sum() == pytest.approx(10.0, abs=1e-9)


def test_identical_data_lose_nothing_and_clusters_are_matched():
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.normal(0, 1, (30, 2)), rng.normal(8, 1, (30, 2)),
                        rng.normal((0, 8), 1, (30, 2))])
    loss = fuzzy_clustering_loss(x, x.copy(), 3, np.random.default_rng(2))
    assert loss.centre_distance == 0.0 and loss.membership_distance == 0.0
    assert loss.objective_original == loss.objective_protected
    # noise moves the centres a little; the matching pairs each cluster with its own
    y = x + rng.normal(0, 0.3, x.shape)
    loss = fuzzy_clustering_loss(x, y, 3, np.random.default_rng(2))
    assert 0 < loss.centre_distance < 1.0
    assert 0 < loss.membership_distance < 0.3 * np.sqrt(len(x))
    assert loss.per_record.shape == (90,)
    with pytest.raises(ValueError, match="clusters for"):
        fuzzy_clustering_loss(x[:2], y[:2], 3, rng)
    with pytest.raises(ValueError, match="fuzzifier"):
        fuzzy_c_means(x, x[:2], m=1.0)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.floats(1.2, 4.0))
def test_memberships_are_a_fuzzy_partition(seed, m):
    # invariant: memberships in [0, 1], each record's summing to 1; d1, d2 >= 0
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(40, 3))
    loss = fuzzy_clustering_loss(x, x + rng.normal(0, 0.5, x.shape), 4, rng, m=m)
    for part in (loss.original, loss.protected):
        assert ((part.membership >= 0) & (part.membership <= 1)).all()
        np.testing.assert_allclose(part.membership.sum(axis=1), 1.0, atol=1e-12)
    assert loss.centre_distance >= 0 and loss.membership_distance >= 0
