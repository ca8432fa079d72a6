"""Propensity scores (sdcflow.kernels.utility.propensity; seed 002, section 2.6).

Expected values are hand-computed (worked out in the comments) or known identities."""

import numpy as np
import pytest

from sdcflow.kernels.utility.propensity import (
    _design,
    main_effects,
    product_terms,
    propensity_utility,
)


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
