"""Utility kernels (sdcflow.kernels.utility.utility): k-means, partition agreement (seed 000,
"Specific Information Loss Measure") and propensity scores (seed 002, section 2.6).

Expected values are hand-computed pair counts and entropies (worked out in the comments),
known identities, or independent reference computations named in the test."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from sdcflow.kernels.utility.utility import (
    _design,
    kmeans,
    kmeans_plus_plus,
    lloyd,
    logistic_fit,
    main_effects,
    partition_agreement,
    product_terms,
    propensity_utility,
)


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


# --- propensity ---------------------------------------------------------------------------

def test_propensity_by_hand_with_one_binary_variable():
    # original x = 0 0 1 1, protected x = 0 1 1 1: the model is saturated, so
    # p(T=1 | x=0) = 1/3 and p(T=1 | x=1) = 3/5; c = 1/2 and
    # U = (3 (1/3 - 1/2)^2 + 5 (3/5 - 1/2)^2) / 8 = (1/12 + 1/20) / 8 = 1/60
    x = np.array([[0.0], [0.0], [1.0], [1.0]])
    y = np.array([[0.0], [1.0], [1.0], [1.0]])
    out, scores = propensity_utility(x, y)
    assert out["U"] == pytest.approx(1 / 60)
    assert out["pmse"] == out["U"]
    assert scores.tolist() == pytest.approx([1 / 3, 1 / 3, 3 / 5, 3 / 5, 1 / 3, 3 / 5, 3 / 5, 3 / 5])
    # Snoke et al.'s null expectation with k = 2 parameters: (k-1)(1-c)^2 c / N = 1/64
    assert out["null_expected"] == pytest.approx(1 / 64)
    assert out["ratio"] == pytest.approx(64 / 60)
    # the same variable as categorical codes goes through the merged-pattern path
    coded, _ = propensity_utility(np.empty((4, 0)), np.empty((4, 0)), x.astype(int),
                                  y.astype(int), [2])
    assert coded["U"] == pytest.approx(1 / 60)


def test_identical_data_give_zero():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(500, 4))
    codes = rng.integers(0, 3, size=(500, 2))
    for kwargs in ({}, {"interactions": True, "squares": True}):
        out, _ = propensity_utility(x, x.copy(), codes, codes.copy(), [3, 3], **kwargs)
        assert out["U"] <= 1e-12
        assert out["converged"]


def test_clearly_different_data_are_separated():
    rng = np.random.default_rng(6)
    x = rng.normal(size=(200, 2))
    out, scores = propensity_utility(x, x + 20)
    assert out["U"] == pytest.approx(0.25, abs=1e-6)  # the maximum c (1 - c)
    assert out["separated"]
    assert scores[:200].max() < 1e-3 and scores[200:].min() > 1 - 1e-3


def test_main_effects_do_not_see_a_mean_preserving_change():
    # a within-column permutation keeps every mean: the intercept-only fit is the MLE;
    # the squares see the unchanged variances neither, the interactions see the covariance
    rng = np.random.default_rng(7)
    x = rng.normal(size=(400, 2)) @ np.array([[1.0, 0.8], [0.0, 0.6]])
    y = np.column_stack([x[:, 0], rng.permutation(x[:, 1])])
    assert propensity_utility(x, y)[0]["U"] < 1e-20
    assert propensity_utility(x, y, squares=True)[0]["U"] < 1e-20
    assert propensity_utility(x, y, interactions=True)[0]["U"] > 0.01


def test_logistic_fit_matches_a_general_optimiser():
    rng = np.random.default_rng(8)
    x = rng.normal(size=(300, 3))
    t = (rng.random(300) < 1 / (1 + np.exp(-(0.3 + x @ [1.0, -0.5, 0.2])))).astype(float)
    design = np.column_stack([np.ones(300), x])

    def nll(b):
        eta = design @ b
        return np.sum(np.logaddexp(0, eta) - t * eta)

    reference = minimize(nll, np.zeros(4), method="BFGS", options={"gtol": 1e-10}).x
    probs, fit = logistic_fit(lambda a, b: design[a:b], 300, 4, t)
    assert fit["converged"]
    np.testing.assert_allclose(probs, 1 / (1 + np.exp(-(design @ reference))), atol=1e-6)


def test_design_terms():
    # two numeric columns and a categorical one with 3 categories (2 indicators)
    groups = np.array([0, 1, 2, 2])
    numeric = np.array([True, True, False, False])
    assert product_terms(groups, numeric) == []
    assert product_terms(groups, numeric, squares=True) == [(0, 0), (1, 1)]
    assert product_terms(groups, numeric, interactions=True) == [
        (0, 1), (0, 2), (0, 3), (1, 2), (1, 3)]
    main = main_effects(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[0], [2]]), [3])
    assert main.tolist() == [[1, 2, 0, 0], [3, 4, 0, 1]]
    assert _design(main, [(0, 1)]).tolist() == [[1, 1, 2, 0, 0, 2], [1, 3, 4, 0, 1, 12]]


def test_unequal_sizes_use_the_share_of_protected_records():
    rng = np.random.default_rng(9)
    x = rng.normal(size=(300, 2))
    out, _ = propensity_utility(x, x[:100])
    assert out["c"] == pytest.approx(0.25)
    assert out["maximum"] == pytest.approx(0.1875)
    assert out["U"] < out["null_expected"] * 10
