"""Worst-case linkage with learned distances (sdcflow.kernels.linkage.learned_linkage)."""

import numpy as np
import pytest

from sdcflow.kernels.linkage.coordinates import standardize, weighted
from sdcflow.kernels.linkage.distance_linkage import nearest_links
from sdcflow.kernels.linkage.learned_linkage import (
    candidate_pairs,
    learn_distance,
    matrix_links,
)


def noisy(n=60, seed=3, exact=2, scale=1.0):
    """Three variables; all but ``exact`` get noise of ``scale`` standard deviations."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3))
    y = x.copy()
    for j in range(3):
        if j != exact:
            y[:, j] += rng.normal(scale=scale, size=n)
    return standardize(x, y)


def test_the_noise_free_variable_dominates():
    zo, zp = noisy()
    equal = nearest_links(zp, zo).credit.sum()
    learned = learn_distance(zp, zo)
    assert learned.status == 0 and learned.source == "milp"
    # the noise-free variable alone links every record: the program finds 60 of 60
    assert learned.objective == pytest.approx(60)
    assert learned.correct == 60 > equal
    w = learned.weights
    assert w.sum() == pytest.approx(1) and (w >= 0).all()
    assert np.argmax(w) == 2 and w[2] > 0.9
    links = nearest_links(weighted(zp, w), weighted(zo, w))
    assert links.credit.sum() == 60


def test_hand_made_three_records():
    # variable 0 keeps every record nearest its own original, variable 1 sends every
    # record to the next one: only weights with w_0 large enough link all three
    zo = np.array([[0.0, 0.0], [10.0, 1.0], [20.0, 2.0]])
    zp = np.array([[0.5, 1.0], [10.5, 2.0], [20.5, 0.0]])
    learned = learn_distance(zp, zo)
    assert learned.objective == pytest.approx(3) and learned.correct == 3
    # with w = (a, 1 - a), record 0's own distance 0.25a + (1 - a) must be below its
    # distance to original 1, 90.25a: a > 1/90.5; the program's solution satisfies it
    assert learned.weights[0] > 1 / 90.5


def test_objective_matches_the_recomputed_links_when_all_pairs_are_constrained():
    zo, zp = noisy(n=50, seed=8, exact=-1, scale=0.4)  # noise on every variable
    learned = learn_distance(zp, zo)
    assert learned.status == 0
    found = nearest_links(weighted(zp, learned.weights), weighted(zo, learned.weights))
    # the program counts a record when its own original is nearer by the margin; the
    # links recomputed exactly can only add records tied within the margin
    assert found.credit.sum() >= learned.objective - 1e-6
    assert learned.correct >= nearest_links(zp, zo).credit.sum()


def test_relaxation_and_determinism():
    zo, zp = noisy(n=40, seed=11, exact=-1, scale=0.5)
    first = learn_distance(zp, zo, relax=True)
    second = learn_distance(zp, zo, relax=True)
    assert first.source in ("lp", "equal", "variable")
    np.testing.assert_array_equal(first.weights, second.weights)
    exact = learn_distance(zp, zo)
    again = learn_distance(zp, zo)
    np.testing.assert_array_equal(exact.weights, again.weights)
    # the relaxation's weights are among the candidates of the exact run
    assert exact.correct >= first.correct


def test_bilinear_form():
    zo, zp = noisy(n=25, seed=4, exact=-1, scale=0.5)
    learned = learn_distance(zp, zo, form="bilinear")
    M = learned.matrix
    np.testing.assert_allclose(M, M.T)
    assert np.trace(M) == pytest.approx(1)
    diag = np.diag(M)
    assert (diag >= -1e-9).all()
    for j in range(3):
        for k in range(3):
            if j != k:
                assert abs(M[j, k]) <= (diag[j] + diag[k]) / 2 + 1e-7
    links = matrix_links(zp, zo, M)
    assert links.credit.sum() == learned.correct
    # the identity / c (equal weights) is one of the candidates kept
    assert learned.correct >= nearest_links(zp, zo).credit.sum()


def test_matrix_links_with_the_identity_are_euclidean():
    rng = np.random.default_rng(2)
    zo = rng.integers(0, 3, size=(30, 2)).astype(float)  # ties
    zp = zo + rng.integers(-1, 2, size=(30, 2))
    a = matrix_links(zp, zo, np.eye(2), block_elements=50)
    b = nearest_links(zp, zo)
    assert a.ties.tolist() == b.ties.tolist()
    assert a.correct.tolist() == b.correct.tolist()
    assert a.linked.tolist() == b.linked.tolist()


def test_candidate_restriction():
    zo, zp = noisy(n=120, seed=1, exact=-1, scale=0.3)
    lists = candidate_pairs(zp, zo, 5)
    assert all(i not in cand for i, cand in enumerate(lists))
    # at most 6 nearest under each of 3 variables and under equal weights
    assert max(len(c) for c in lists) <= 24
    learned = learn_distance(zp, zo, neighbours=5, relax=True)
    assert learned.restricted and learned.status == 0
    full = candidate_pairs(zp, zo, None)
    assert all(len(c) == 119 for c in full)


def test_refuses_bad_input():
    with pytest.raises(ValueError, match="linked by position"):
        learn_distance(np.zeros((3, 2)), np.zeros((4, 2)))
    with pytest.raises(ValueError, match="missing"):
        learn_distance(np.array([[np.nan, 1.0], [1.0, 2.0]]), np.zeros((2, 2)))
