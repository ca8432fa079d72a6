"""Direct pairwise linkage, kernel DBRL (sdcflow.kernels.linkage.pairwise_links) and the
COV Mahalanobis coordinates (sdcflow.kernels.linkage.coordinates)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.linkage.coordinates import mahalanobis_transform
from sdcflow.kernels.linkage.distance_linkage import nearest_links
from sdcflow.kernels.linkage.pairwise_links import kernel_distance, pairwise_links


def test_kernel_distance_by_hand():
    # K(x, y) = (1 + <x, y>)^2. p = (1, 0): K(p, p) = 4.
    # o1 = (0, 1): K(p, o1) = 1, K(o1, o1) = 4 -> d^2 = 4 - 2 + 4 = 6
    # o2 = (2, 0): K(p, o2) = 9, K(o2, o2) = 25 -> d^2 = 4 - 18 + 25 = 11
    p = np.array([[1.0, 0.0]])
    o = np.array([[0.0, 1.0], [2.0, 0.0]])
    np.testing.assert_allclose(kernel_distance(2)(p, o), [[6.0, 11.0]])
    # Euclidean: o2 is nearer (1 < 2); in the feature space of degree 2, o1 is
    kernel = pairwise_links(p, o, truth=np.array([0]), distance=kernel_distance(2))
    plain = pairwise_links(p, o, truth=np.array([0]))
    assert kernel.linked.tolist() == [0] and kernel.correct.tolist() == [True]
    assert plain.linked.tolist() == [1] and plain.correct.tolist() == [False]


def test_degree_one_is_euclidean():
    # (1 + p.p) - 2 (1 + p.o) + (1 + o.o) = |p - o|^2; integer data: exact, ties kept
    rng = np.random.default_rng(2)
    zo = rng.integers(0, 3, size=(40, 3)).astype(float)
    zp = zo + rng.integers(-1, 2, size=(40, 3))
    a = pairwise_links(zp, zo, distance=kernel_distance(1), block_elements=60)
    b = nearest_links(zp, zo)
    assert a.ties.tolist() == b.ties.tolist()
    assert a.correct.tolist() == b.correct.tolist()
    assert a.linked.tolist() == b.linked.tolist()


def test_partial_files():
    # three originals; the release holds records 2 and 0 (in that order) and a record
    # whose original the intruder does not hold (truth -1): never correct, but linked
    zo = np.array([[0.0], [10.0], [20.0]])
    zp = np.array([[19.0], [1.0], [11.0]])
    links = pairwise_links(zp, zo, truth=np.array([2, 0, -1]))
    assert links.linked.tolist() == [2, 0, 1]
    assert links.correct.tolist() == [True, True, False]
    assert links.ties.tolist() == [1, 1, 1]
    # missing values: the protected record is not linked, the original not a candidate
    zp2 = np.array([[np.nan], [1.0], [11.0]])
    zo2 = np.array([[0.0], [np.nan], [20.0]])
    links = pairwise_links(zp2, zo2, truth=np.array([2, 0, 1]))
    assert links.ties.tolist() == [0, 1, 1]
    assert links.linked.tolist() == [-1, 0, 2] and links.correct.tolist() == [False, True, False]


def test_refuses_bad_input():
    with pytest.raises(ValueError, match="say which original"):
        pairwise_links(np.zeros((2, 1)), np.zeros((3, 1)))
    with pytest.raises(ValueError, match="truth"):
        pairwise_links(np.zeros((2, 1)), np.zeros((3, 1)), truth=np.array([0, 3]))
    with pytest.raises(ValueError, match="same variables"):
        pairwise_links(np.zeros((2, 1)), np.zeros((2, 2)))


def test_cov_mahalanobis_is_the_covariance_of_the_differences():
    # DBRLM-COV (Torra, Abowd & Domingo-Ferrer 2006): (a - b)' [Var V + Var V' -
    # 2 Cov(V, V')]^-1 (a - b), computed here from the three matrices separately
    rng = np.random.default_rng(7)
    o = rng.normal(size=(50, 3)) @ np.array([[1.0, 0.5, 0.0], [0.0, 1.0, 0.3], [0, 0, 1]])
    p = 0.6 * o + rng.normal(size=(50, 3))
    both = np.cov(np.hstack([o, p]), rowvar=False)
    S = both[:3, :3] + both[3:, 3:] - both[:3, 3:] - both[3:, :3]
    a, b, info = mahalanobis_transform(o, p, "cov")
    assert info["rank"] == 3
    i, k = 4, 9
    delta = p[i] - o[k]
    expected = delta @ np.linalg.inv(S) @ delta
    assert ((b[i] - a[k]) ** 2).sum() == pytest.approx(expected, rel=1e-9)
    # COV0: Var V + Var V' (the cross-covariance taken as 0) up to the factor 2 of the
    # pooled covariance, which does not change the links
    a0, b0, _ = mahalanobis_transform(o, p, "cov0")
    expected0 = delta @ np.linalg.inv(both[:3, :3] + both[3:, 3:]) @ delta
    assert ((b0[i] - a0[k]) ** 2).sum() == pytest.approx(2 * expected0, rel=1e-9)
    with pytest.raises(ValueError, match="unknown covariance"):
        mahalanobis_transform(o, p, "cov1")


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 20))
def test_more_candidates_never_add_correct_links(seed, extra):
    # an intruder holding more individuals can only lose links: if the own original is
    # nearest among all candidates it is nearest among a subset of them, with no more
    # ties (integer coordinates: many ties)
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 4, size=(10 + extra, 2)).astype(float)
    y = x[:10] + rng.integers(-1, 2, size=(10, 2))
    truth = np.arange(10)
    full = pairwise_links(y, x, truth)
    part = pairwise_links(y, x[:10], truth)
    assert (full.credit <= part.credit).all()
    assert not (full.correct & ~part.correct).any()
