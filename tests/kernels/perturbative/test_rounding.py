"""Rounding kernels (seed 000 "Rounding": rounding points and their sets of attraction)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.perturbative.rounding import (
    decimals,
    round_to_base,
    round_to_points,
    round_to_vectors,
)


def test_base_five_by_hand():
    # attraction set of 5 i is [5 i - 2.5, 5 i + 2.5): 2.5 goes up to 5, -2.5 up to 0
    x = np.array([0, 2.4, 2.5, 7.49, 7.5, -2.5, -2.6, 12.5, np.nan])
    out = round_to_base(x, 5)
    np.testing.assert_array_equal(out, [0, 0, 5, 5, 10, 0, -5, 15, np.nan])


def test_decimal_base_gives_decimal_results_and_ties_up():
    # 0.35 / 0.1 is 3.4999999999999996 in binary floating point: still a tie, goes up
    out = round_to_base(np.array([0.25, 0.35, 1.04, 1.05, 0.04, -0.05]), 0.1)
    assert out.tolist() == [0.3, 0.4, 1.0, 1.1, 0.0, 0.0]
    assert round_to_base(np.array([7.3]), 2.5).tolist() == [7.5]
    assert round_to_base(np.array([1234.0]), 1000).tolist() == [1000.0]


def test_decimals():
    assert [decimals(v) for v in (0.25, 5, 1e-3, 100.0, 2.5e-7)] == [2, 0, 3, 0, 8]


def test_seed_000_example_with_points_b_to_rb():
    # seed 000: p_i = b i, i = 1..r, attraction sets [0, p_1 + b/2), [p_i - b/2, p_i + b/2),
    # [p_r - b/2, V_max]; here b = 10, r = 5
    points = [10, 20, 30, 40, 50]
    x = np.array([0, 4.9, 14.99, 15, 25, 44.9, 45, 1000, np.nan])
    np.testing.assert_array_equal(round_to_points(x, points),
                                  [10, 10, 10, 20, 30, 40, 50, 50, np.nan])


def test_uneven_points_and_one_point():
    x = np.array([-1.0, 0.4, 0.5, 2.9, 3.0, 10.0])
    np.testing.assert_array_equal(round_to_points(x, [0, 1, 5]), [0, 0, 1, 1, 5, 5])
    np.testing.assert_array_equal(round_to_points(x, [2]), [2] * 6)


@pytest.mark.parametrize("points", [[], [1, 1], [2, 1]])
def test_bad_points_are_refused(points):
    with pytest.raises(ValueError):
        round_to_points(np.array([1.0]), points)
    with pytest.raises(ValueError):
        round_to_base(np.array([1.0]), 0)


@settings(max_examples=200, deadline=None)
@given(x=st.lists(st.floats(-1e9, 1e9), min_size=1, max_size=20),
       base=st.sampled_from([1, 2, 5, 10, 100, 0.5, 0.25, 1000, 7]))
def test_base_rounding_invariants(x, base):
    x = np.array(x)
    out = round_to_base(x, base)
    # a multiple of the base, at most half a base away, idempotent, order kept
    np.testing.assert_allclose(out / base, np.round(out / base), atol=1e-9)
    assert np.all(np.abs(out - x) <= base / 2 * (1 + 1e-9) + 1e-9 * np.abs(x))
    np.testing.assert_array_equal(round_to_base(out, base), out)
    order = np.argsort(x, kind="stable")
    assert np.all(np.diff(out[order]) >= 0)


@settings(max_examples=200, deadline=None)
@given(x=st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=20),
       points=st.lists(st.integers(-1000, 1000), min_size=1, max_size=8, unique=True))
def test_points_rounding_goes_to_the_nearest_point(x, points):
    x, points = np.array(x), np.sort(np.array(points, dtype=float))
    out = round_to_points(x, points)
    assert np.isin(out, points).all()
    nearest = np.abs(x[:, None] - points[None, :]).min(axis=1)
    np.testing.assert_allclose(np.abs(out - x), nearest)


# --- multivariate rounding (Willenborg & de Waal 2001): the nearest rounding vector ------

def test_vectors_by_hand():
    points = np.array([[0.0, 0], [10, 0], [0, 10], [10, 10]])
    x = np.array([[1.0, 2], [6, 4], [4, 6], [9, 9], [5, 5], [5, 1], [np.nan, 7],
                  [np.nan, np.nan]])
    out = round_to_vectors(x, points)
    # squared distances by hand: (6, 4) -> 52, 32, 72, 52: (10, 0); (5, 5) ties all four:
    # the first point; (5, 1) ties (0, 0) and (10, 0) at 26: the first; (nan, 7) on the
    # second variable only: 7 is nearer 10 than 0, the first such point is (0, 10)
    np.testing.assert_array_equal(out, [[0, 0], [10, 0], [0, 10], [10, 10], [0, 0], [0, 0],
                                        [np.nan, 10], [np.nan, np.nan]])


def test_vectors_differ_from_rounding_each_variable():
    # points on the diagonal only: (4, 6) goes to (5, 5), which no univariate rounding to
    # the coordinates {0, 5, 10} of each variable alone would give for (4, 1)
    points = np.array([[0.0, 0], [5, 5], [10, 10]])
    out = round_to_vectors(np.array([[4.0, 6], [4, 1], [9, 1]]), points)
    # (4, 1): 17 to (0, 0), 17 to (5, 5): tie, first; (9, 1): 82, 32, 82: (5, 5)
    np.testing.assert_array_equal(out, [[5, 5], [0, 0], [5, 5]])


def test_bad_vectors_are_refused():
    with pytest.raises(ValueError):
        round_to_vectors(np.zeros((2, 2)), np.zeros((1, 3)))
    with pytest.raises(ValueError):
        round_to_vectors(np.zeros((2, 2)), np.zeros((0, 2)))


@settings(max_examples=100, deadline=None)
@given(x=st.lists(st.tuples(st.floats(-1e3, 1e3), st.floats(-1e3, 1e3)), min_size=1,
                  max_size=20),
       points=st.lists(st.tuples(st.integers(-1000, 1000), st.integers(-1000, 1000)),
                       min_size=1, max_size=8, unique=True))
def test_vectors_go_to_the_nearest_point(x, points):
    x, points = np.array(x), np.array(points, dtype=float)
    out = round_to_vectors(x, points)
    assert all(any((row == p).all() for p in points) for row in out)
    best = ((x[:, None, :] - points[None]) ** 2).sum(axis=2).min(axis=1)
    np.testing.assert_allclose(((out - x) ** 2).sum(axis=1), best, rtol=1e-9, atol=1e-9)
