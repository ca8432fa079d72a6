"""Coordinates for record linkage (sdcflow.kernels.linkage.coordinates): z-scores, weights,
Mahalanobis, agreement coordinates."""

import numpy as np
import pytest

from sdcflow.kernels.linkage.coordinates import (
    agreement_coordinates,
    mahalanobis_transform,
    standardize,
    weighted,
)
from sdcflow.kernels.linkage.distance_linkage import nearest_links


def test_standardize_with_the_original_moments():
    original = np.array([[1.0, 10.0], [3.0, 10.0], [5.0, 10.0]])
    protected = np.array([[3.0, 11.0], [5.0, 10.0], [7.0, 9.0]])
    zo, zp = standardize(original, protected)
    # original mean 3, sd 2 (ddof 1); the constant column keeps sd 1
    np.testing.assert_allclose(zo[:, 0], [-1, 0, 1])
    np.testing.assert_allclose(zp[:, 0], [0, 1, 2])
    np.testing.assert_allclose(zp[:, 1], [1, 0, -1])
    _, zp_each = standardize(original, protected, "each")
    np.testing.assert_allclose(zp_each[:, 0], [-1, 0, 1])


def test_weighted_distance():
    a = np.array([[0.0, 0.0]])
    b = np.array([[1.0, 2.0]])
    d = ((weighted(a, [3.0, 0.5]) - weighted(b, [3.0, 0.5])) ** 2).sum()
    assert d == pytest.approx(3 * 1 + 0.5 * 4)


def test_mahalanobis_transform_is_the_pseudo_inverse_distance():
    rng = np.random.default_rng(5)
    original = rng.normal(size=(200, 3)) @ np.array([[2, 0, 0], [1, 1, 0], [0, 0.5, 3]])
    protected = original + rng.normal(scale=0.3, size=original.shape)
    a, b, info = mahalanobis_transform(original, protected, "cov0")
    assert info["rank"] == 3
    pooled = (199 * np.cov(original.T) + 199 * np.cov(protected.T)) / 398
    inv = np.linalg.pinv(pooled)
    delta = protected[7] - original[3]
    assert ((b[7] - a[3]) ** 2).sum() == pytest.approx(delta @ inv @ delta, rel=1e-9)


def test_mahalanobis_collinear_variables_use_the_pseudo_inverse():
    rng = np.random.default_rng(6)
    x = rng.normal(size=(100, 1))
    original = np.hstack([x, 2 * x])  # rank 1: every record on the line (1, 2)
    # random moves off the line give the pooled covariance a second direction
    protected = original + rng.uniform(-1, 1, size=(100, 1)) * np.array([[2.0, -1.0]])
    assert mahalanobis_transform(original, protected, "cov0")[2]["rank"] == 2
    # a constant move orthogonal to the line keeps both files on parallel lines: the
    # pooled covariance has rank 1, the pseudo-inverse ignores the orthogonal direction,
    # and every record links to its own original
    a, b, info = mahalanobis_transform(original, original + 0.5 * np.array([[2.0, -1.0]]),
                                       "cov0")
    assert info["rank"] == 1 and a.shape == (100, 1)
    links = nearest_links(b, a)
    assert links.credit.sum() == 100


def test_mahalanobis_cov_of_paired_rows():
    # the covariance of the differences of the given pairs, applied to whole files of
    # other lengths (an intruder holding some of the individuals)
    rng = np.random.default_rng(7)
    original = rng.normal(size=(50, 2))
    protected = original[:30] + rng.normal(scale=[0.5, 0.1], size=(30, 2))
    pairs = (original[:30], protected)
    a, b, info = mahalanobis_transform(original, protected, "cov", pairs=pairs)
    assert a.shape == (50, 2) and b.shape == (30, 2) and info["rank"] == 2
    inv = np.linalg.inv(np.cov((original[:30] - protected).T))
    delta = protected[4] - original[40]
    assert ((b[4] - a[40]) ** 2).sum() == pytest.approx(delta @ inv @ delta, rel=1e-9)
    with pytest.raises(ValueError, match="needs paired records"):
        mahalanobis_transform(original, protected, "cov")


def test_agreement_within_the_tolerance():
    original = np.array([[0.0], [1.0], [2.0], [3.0]])  # sd 1.2910
    protected = np.array([[0.1], [1.2], [2.0], [3.5]])
    so, sp = agreement_coordinates(original, protected, tolerance=0.1)  # 0.1291
    assert (np.abs(so - sp) <= 1).ravel().tolist() == [True, False, True, False]
    so, sp = agreement_coordinates(original, protected, tolerance=0.0)  # equality
    assert (np.abs(so - sp) <= 1).ravel().tolist() == [False, False, True, False]
