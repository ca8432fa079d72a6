"""PRAM kernel (sdcflow.kernels.perturbative.pram): default and invariant Markov matrices, sampling
(seed 000 "PRAM"; seed 004 "PRAM Example"; Gouweleeuw et al. 1998; sdcMicro's pram)."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.perturbative.pram import (
    default_matrix,
    expected_changes,
    invariant_matrix,
    matrix_problems,
    pram,
    sdcmicro_matrix,
    uniform_spread,
)

# Seed 004, "PRAM Example": sdcMicro's final (invariant) transition matrix for walls of
# testdata (categories 2, 3, 9), and the walls frequencies of testdata (1203, 3327, 50).
SEED_WALLS = np.array([
    [0.976466014, 0.0149648, 0.008569182],
    [0.005411079, 0.9944792, 0.000109713],
    [0.206174522, 0.0073003, 0.786525178]])
WALLS_FREQ = np.array([1203.0, 3327.0, 50.0])


def test_default_matrix_keeps_with_retention_and_spreads_the_rest():
    P = default_matrix(4, 0.8)
    assert np.allclose(np.diag(P), 0.8) and np.allclose(P.sum(axis=1), 1)
    assert np.allclose(P[0, 1:], 0.2 / 3)  # uniform over the others, as sdcMicro
    Pf = default_matrix(3, 0.7, np.array([10.0, 30.0, 60.0]))
    # row 0: the 0.3 goes to categories 1 and 2 in proportion 30 : 60
    assert np.allclose(Pf[0], [0.7, 0.1, 0.2]) and np.allclose(Pf.sum(axis=1), 1)
    assert default_matrix(1, 0.5).tolist() == [[1.0]]


def test_seed_004_matrix_is_sdcmicros_invariant_construction():
    # sdcMicro builds P with diagonal pd_i ~ U(pd, 1) (pd = 0.8) and (1 - pd_i) / (L - 1)
    # elsewhere, then 0.5 P Q + 0.5 I. These pd_i (fitted to the printed matrix by least
    # squares; all in [0.8, 1]) reproduce all nine printed entries to their last printed
    # digit (9 decimals, 7 in the middle column).
    pd = np.array([0.9414914882, 0.9994955664, 0.9901281704])
    P = uniform_spread(pd)
    assert P[0].tolist() == pytest.approx([pd[0], (1 - pd[0]) / 2, (1 - pd[0]) / 2])
    got = invariant_matrix(P, WALLS_FREQ, alpha=0.5)
    half_unit = 0.5 * 10.0 ** -np.array([[9, 7, 9]] * 3)
    assert (np.abs(got - SEED_WALLS) <= half_unit).all()
    # and the printed matrix is itself invariant for testdata's walls, up to its rounding
    assert np.abs(WALLS_FREQ @ SEED_WALLS - WALLS_FREQ).max() < 1e-3


@st.composite
def rational_case(draw):
    size = draw(st.integers(1, 5))
    t = [Fraction(draw(st.integers(0, 50))) for _ in range(size)]
    rows = []
    for _ in range(size):
        raw = [draw(st.integers(0, 9)) for _ in range(size)]
        if sum(raw) == 0:
            raw[0] = 1
        rows.append([Fraction(v, sum(raw)) for v in raw])
    alpha = Fraction(draw(st.integers(0, 10)), 10)
    return np.array(rows, dtype=object), np.array(t, dtype=object), alpha


@settings(max_examples=200, deadline=None)
@given(rational_case())
def test_invariant_matrix_is_exactly_markov_and_invariant_in_rationals(case):
    # exact arithmetic: t P* = t and rows sum to 1 with no rounding at all
    P, t, alpha = case
    Ps = invariant_matrix(P, t, alpha)
    assert all(v >= 0 for v in Ps.ravel())
    assert [sum(row) for row in Ps] == [1] * len(t)
    assert list(t @ Ps) == list(t)


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 12), st.floats(0.0, 1.0), st.floats(0.0, 1.0),
       st.integers(0, 2**32 - 1))
def test_invariant_matrix_in_floats(size, retention, alpha, seed):
    rng = np.random.default_rng(seed)
    t = rng.integers(0, 5000, size).astype(float)
    Ps = invariant_matrix(default_matrix(size, retention), t, alpha)
    assert np.allclose(Ps.sum(axis=1), 1, atol=1e-12)
    assert np.allclose(t @ Ps, t, rtol=0, atol=1e-9 * max(t.sum(), 1))
    assert (Ps >= -1e-15).all()


def test_matrix_problems_name_rows():
    P = np.array([[0.9, 0.1], [-0.1, 1.1]])
    assert matrix_problems(P) == [(1, "has a negative probability (-0.1)")]
    assert matrix_problems(SEED_WALLS) == [(0, "sums to 0.999999996, not 1"),
                                           (1, "sums to 0.999999992, not 1")]
    assert matrix_problems(SEED_WALLS, tol=1e-8) == []


def test_pram_keeps_missing_and_follows_the_matrix():
    codes = np.array([0, -1, 1, 2, -1, 0])
    identity = np.eye(3)
    out = pram(codes, identity, np.random.default_rng(0))
    assert out.tolist() == codes.tolist()
    shift = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0.0]])
    assert pram(codes, shift, np.random.default_rng(0)).tolist() == [1, -1, 2, 0, -1, 1]


def test_pram_changed_fraction_is_within_sampling_error():
    # 300,000 values of 4 categories; expected changes sum_i t_i (1 - P_ii)
    rng = np.random.default_rng(5)
    codes = rng.choice(4, size=300_000, p=[0.5, 0.3, 0.15, 0.05])
    t = np.bincount(codes, minlength=4).astype(float)
    P = invariant_matrix(default_matrix(4, 0.8), t, 0.5)
    out = pram(codes, P, np.random.default_rng(6))
    mean, var = expected_changes(P, t)
    assert abs((out != codes).sum() - mean) <= 6 * np.sqrt(var)
    # and the frequencies stay within sampling error of t (invariance)
    new_t = np.bincount(out, minlength=4)
    assert (np.abs(new_t - t) <= 6 * np.sqrt(t * (1 - np.diag(P))) + 1).all()
    # each transition i -> j happens about t_i P_ij times
    counts = np.zeros((4, 4))
    np.add.at(counts, (codes, out), 1)
    sd = np.sqrt(t[:, None] * P * (1 - P))
    assert (np.abs(counts - t[:, None] * P) <= 6 * sd + 1e-9).all()


def test_zero_probabilities_are_never_drawn():
    P = np.array([[0.0, 0.5, 0.0, 0.5], [1.0, 0, 0, 0], [0, 0, 1.0, 0], [0, 0, 0, 1.0]])
    out = pram(np.zeros(50_000, dtype=np.int64), P, np.random.default_rng(1))
    assert set(np.unique(out)) == {1, 3}


def test_seed_004_walls_expected_changes():
    # seed 004's run changed 59 of 4580 walls values (1.29%); with its printed matrix the
    # expected number is sum t_i (1 - P_ii) = 57.35, sd 7.4: 59 is well within it.
    mean, var = expected_changes(SEED_WALLS, WALLS_FREQ)
    assert round(mean, 2) == 57.35 and round(np.sqrt(var), 2) == 7.37
    assert abs(59 - mean) < 6 * np.sqrt(var)
    codes = np.repeat([0, 1, 2], WALLS_FREQ.astype(int))
    P = SEED_WALLS / SEED_WALLS.sum(axis=1, keepdims=True)
    changed = [(pram(codes, P, np.random.default_rng(s)) != codes).sum() for s in range(200)]
    # the average of 200 runs is within 6 standard errors of the expectation
    assert abs(np.mean(changed) - mean) < 6 * np.sqrt(var / 200)


def test_pram_is_deterministic_for_a_seed():
    codes = np.random.default_rng(0).integers(-1, 5, 10_000)
    P = default_matrix(5, 0.6)
    a = pram(codes, P, np.random.default_rng(9))
    b = pram(codes, P, np.random.default_rng(9))
    c = pram(codes, P, np.random.default_rng(10))
    assert (a == b).all() and (a != c).any()


def test_sdcmicro_invariant_matrix_worked_by_hand():
    # L = 2, t = (3, 1), retentions drawn as 0.8 and 0.9: P = [[0.8, 0.2], [0.1, 0.9]];
    # t P = (2.5, 1.5); Q[k, j] = P[j, k] t_j / (t P)_k = [[0.96, 0.04], [0.4, 0.6]];
    # P Q = [[0.848, 0.152], [0.456, 0.544]]; with alpha 0.5:
    # 0.5 P Q + 0.5 I = [[0.924, 0.076], [0.228, 0.772]], and t (P Q) = (3, 1).
    P = uniform_spread(np.array([0.8, 0.9]))
    np.testing.assert_allclose(P, [[0.8, 0.2], [0.1, 0.9]])
    t = np.array([3.0, 1.0])
    np.testing.assert_allclose(invariant_matrix(P, t, 1.0), [[0.848, 0.152], [0.456, 0.544]])
    R = invariant_matrix(P, t, 0.5)
    np.testing.assert_allclose(R, [[0.924, 0.076], [0.228, 0.772]])
    assert (t @ R).tolist() == pytest.approx([3.0, 1.0])


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 8), st.floats(0, 1), st.floats(0, 1), st.integers(0, 2**32 - 1),
       st.lists(st.integers(0, 40), min_size=8, max_size=8))
def test_sdcmicro_matrix_defining_properties(size, pd, alpha, seed, counts):
    # sdcMicro 5.8.1 (R/pram.R): P_ii ~ U(pd, 1) per category, (1 - P_ii) / (L - 1) off
    # the diagonal; made invariant: alpha P Q + (1 - alpha) I keeps t (pi P = pi)
    rng = np.random.default_rng(seed)
    P, diagonal = sdcmicro_matrix(size, pd, rng)
    assert diagonal.shape == (size,)
    assert ((diagonal >= pd) & (diagonal <= 1)).all()
    assert np.allclose(P.sum(axis=1), 1) and (P >= 0).all()
    if size > 1:
        assert np.allclose(np.diag(P), diagonal)
        off = P[~np.eye(size, dtype=bool)].reshape(size, size - 1)
        assert np.allclose(off, ((1 - diagonal) / (size - 1))[:, None])
    t = np.array(counts[:size], dtype=float)
    R = invariant_matrix(P, t, alpha)
    assert np.allclose(R.sum(axis=1), 1) and (R >= -1e-12).all()
    assert np.allclose(t @ R, t, atol=1e-9 * max(t.sum(), 1))
    # the draws come from the generator alone: the same seed, the same matrix
    again, _ = sdcmicro_matrix(size, pd, np.random.default_rng(seed))
    assert np.array_equal(P, again)
