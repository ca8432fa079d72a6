"""Categorical information loss kernels (sdcflow.kernels.utility.categorical_information_loss):
seed 000, section 4.

Expected values are computed by hand from the seed's formulas (worked out in the comments)
or, where stated, from the published formulas evaluated independently in the test."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.utility.categorical_information_loss import (
    ctbil,
    direct_distance,
    entropy_losses,
    posterior_from_data,
    posterior_from_matrix,
)


def test_direct_distance_nominal_and_ordinal():
    # codes 0..3 = a < b < c < d, code 4 = missing (outside the order)
    f = np.array([0, 0, 1, 4, 4])
    g = np.array([2, 0, 3, 0, 4])
    assert direct_distance(f, g).tolist() == [1, 0, 1, 1, 0]
    ranks = np.array([0, 1, 2, 3, -1])
    assert direct_distance(f, g, ranks, 4).tolist() == pytest.approx([2 / 3, 0, 2 / 3, 1, 0])
    # a domain of 7 categories of which the data hold only ranks 0..3: over 7 - 1
    assert direct_distance(f, g, ranks, 7).tolist() == pytest.approx([2 / 6, 0, 2 / 6, 1, 0])


def test_direct_distance_needs_the_domain_size_and_stays_within_one():
    f = np.array([0, 1])
    g = np.array([1, 0])
    with pytest.raises(ValueError, match="domain"):
        direct_distance(f, g, np.array([0, 4]))  # ranks without |D(V)|
    with pytest.raises(ValueError, match="rank 4 is outside a domain of 3"):
        direct_distance(f, g, np.array([0, 4]), 3)
    assert direct_distance(f, g, np.array([0, 4]), 5).tolist() == [1.0, 1.0]


def test_ctbil_by_hand():
    # F = (x,1) (x,2) (y,1); G = (x,1) (y,2) (y,1); codes x=0 y=1, 1=0 2=1
    f = np.array([[0, 0], [0, 1], [1, 0]])
    g = np.array([[0, 0], [1, 1], [1, 0]])
    out = ctbil(f, g, [2, 2], 2)
    # V1: F (x 2, y 1), G (x 1, y 2) -> 2; V2: (2, 1) both -> 0;
    # V1 x V2: F {x1, x2, y1}, G {x1, y2, y1} -> |x2| + |y2| = 2
    assert out["tables"] == {(0,): 2, (1,): 0, (0, 1): 2}
    assert out["by_order"] == {1: 2, 2: 2}
    assert out["total"] == 4
    assert ctbil(f, g, [2, 2], 1)["total"] == 2


def test_ctbil_handles_many_categories_without_overflow():
    rng = np.random.default_rng(9)
    f = rng.integers(0, 100_000, size=(1000, 5))
    out = ctbil(f, f.copy(), [100_000] * 5, 5)
    assert out["total"] == 0 and len(out["tables"]) == 31


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=40))
def test_ctbil_order_one_is_the_marginal_difference(rows):
    f = np.array([[a] for a, _ in rows])
    g = np.array([[b] for _, b in rows])
    expected = np.abs(np.bincount(f[:, 0], minlength=4) - np.bincount(g[:, 0], minlength=4)).sum()
    assert ctbil(f, g, [4], 3)["total"] == expected


def test_ebil_and_pril_by_hand():
    # f = a a b b, g = a a a b: P(V | V'=a) = (2/3, 1/3), P(V | V'=b) = (0, 1)
    f = np.array([0, 0, 1, 1])
    g = np.array([0, 0, 0, 1])
    post = posterior_from_data(f, g, 2)
    np.testing.assert_allclose(post, [[2 / 3, 0], [1 / 3, 1]])
    h, pril = entropy_losses(f, g, post)
    h_a = -(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3))
    assert h.tolist() == pytest.approx([h_a, h_a, h_a, 0])
    assert pril.tolist() == pytest.approx([-math.log(2 / 3), -math.log(2 / 3),
                                           -math.log(1 / 3), 0])


def test_posterior_from_matrix_reproduces_the_seed_new_york_example():
    # seed 000, "An alternative Information Loss Measure": towns recoded into the state;
    # P(V = NYC | V' = NY) = 7,322,564 / 17,990,455 = 0.407 and
    # P(V = Albany | V' = NY) = 101,082 / 17,990,455 = 0.0056 (the slide prints 0.05)
    population = np.array([7_322_564, 101_082, 17_990_455 - 7_322_564 - 101_082, 0], float)
    transition = np.array([[0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 1]], float)
    post = posterior_from_matrix(transition, population / population.sum())
    assert post[0, 3] == pytest.approx(0.407, abs=5e-4)
    assert post[1, 3] == pytest.approx(0.00562, abs=5e-6)
    _, pril = entropy_losses(np.array([0, 1]), np.array([3, 3]), post)
    assert pril[1] > pril[0]  # more is lost for Albany than for New York City


def test_posterior_from_a_pram_matrix_by_bayes():
    # p(V'=j | V=i) = [[0.8, 0.2], [0.1, 0.9]], pi = (0.5, 0.5):
    # P(V=0 | V'=0) = 0.4 / (0.4 + 0.05) = 8/9
    post = posterior_from_matrix(np.array([[0.8, 0.2], [0.1, 0.9]]), np.array([0.5, 0.5]))
    np.testing.assert_allclose(post, [[8 / 9, 0.1 / 0.55], [1 / 9, 0.45 / 0.55]])
