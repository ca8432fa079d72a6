"""k-means (sdcflow.kernels.utility.kmeans): k-means++ seeding, Lloyd with Hamerly's bounds
against plain Lloyd, restarts on a subsample."""

import numpy as np
import pytest

from sdcflow.kernels.utility.kmeans import kmeans, kmeans_plus_plus, lloyd
from sdcflow.kernels.utility.partition_agreement import partition_agreement


def _plain_lloyd(x, centres, max_iter=300):
    labels = None
    for _ in range(max_iter):
        new = ((x[:, None, :] - centres[None]) ** 2).sum(-1).argmin(1)
        if labels is not None and (new == labels).all():
            break
        labels = new
        centres = np.array([x[labels == k].mean(0) if (labels == k).any() else centres[k]
                            for k in range(len(centres))])
    return labels


def test_lloyd_with_bounds_equals_plain_lloyd():
    rng = np.random.default_rng(1)
    for trial in range(10):
        x = rng.normal(size=(400, 3)) + rng.integers(0, 3, size=(400, 1))
        start = kmeans_plus_plus(x, 7, np.random.default_rng(trial))
        labels, _, inertia, _ = lloyd(x, start, tol=0)
        assert (labels == _plain_lloyd(x, start)).all()
        assert inertia == pytest.approx(
            sum(((x[labels == k] - x[labels == k].mean(0)) ** 2).sum() for k in set(labels)))


def _blobs(n_per, seed):
    rng = np.random.default_rng(seed)
    centres = np.array([[0, 0], [10, 0], [0, 10], [10, 10]], float)
    truth = np.repeat(np.arange(4), n_per)
    return centres[truth] + rng.normal(scale=0.5, size=(4 * n_per, 2)), truth


def test_kmeans_finds_well_separated_clusters():
    x, truth = _blobs(50, 2)
    labels, _ = kmeans(x, 4, np.random.default_rng(0))
    assert partition_agreement(truth, labels)["adjusted_rand"] == 1.0


def test_kmeans_on_a_subsample_then_all_records():
    x, truth = _blobs(500, 3)
    labels, inertia = kmeans(x, 4, np.random.default_rng(0), sample=200)
    assert len(labels) == 2000
    assert partition_agreement(truth, labels)["adjusted_rand"] == 1.0
    again = kmeans(x, 4, np.random.default_rng(0), sample=200)
    assert (again[0] == labels).all() and again[1] == inertia


def test_kmeans_is_deterministic_for_a_generator_seed():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(300, 3))
    a = kmeans(x, 5, np.random.default_rng(11))
    b = kmeans(x, 5, np.random.default_rng(11))
    assert (a[0] == b[0]).all() and a[1] == b[1]


def test_kmeans_with_duplicated_records_and_more_clusters_than_points():
    x = np.repeat(np.array([[0.0, 0.0], [1.0, 1.0]]), 5, axis=0)
    labels, inertia = kmeans(x, 4, np.random.default_rng(0))
    assert inertia == pytest.approx(0.0)
    assert len(set(labels[:5])) == 1 and len(set(labels[5:])) == 1
