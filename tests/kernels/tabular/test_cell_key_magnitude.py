"""The cell key method for magnitude tables (sdcflow.kernels.tabular.cell_key_magnitude),
cellKey's conventions: every expected value is worked out by hand from the definitions
(cellKey 1.0.2, R/utils_numtabs.R: .para_m, .scramble_ckeys, .lookup_v_flex,
.perturb_cell_flex / .perturb_cell_simple) on a small hand-made ptable."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdcflow.kernels.tabular.cell_key_magnitude import (
    MagnitudeParams,
    flex_multiplier,
    lookup_magnitude,
    perturb_magnitudes,
    step_keys,
)
from sdcflow.kernels.tabular.ptable import magnitude_ptable, ptable_from_columns

# rows i = 0 (no change), 1 (v = -1, 0, 1 below .25, .75, 1), 2 (v = -2..2 below .1, .3,
# .7, .9, 1)
PT = ptable_from_columns(
    i=[0, 1, 1, 1, 2, 2, 2, 2, 2], j=[0, 0, 1, 2, 0, 1, 2, 3, 4],
    p=[1, .25, .5, .25, .1, .2, .4, .2, .1], v=[0, -1, 0, 1, -2, -1, 0, 1, 2],
    p_int_lb=[0, 0, .25, .75, 0, .1, .3, .7, .9], p_int_ub=[1, .25, .75, 1, .1, .3, .7, .9, 1],
    table="nums")
SIMPLE = MagnitudeParams(p_small=0.1)


def test_lookup_exact_cut_and_interpolated():
    keys = np.array([0.8, 0.05, 0.8, 0.27, 0.1, 0.0])
    a = np.array([2.0, 10.0, 1.5, 1.5, 1.0, 2.0])
    # row 2: .8 -> v 1; a = 10 is cut to 2: .05 -> -2; a = 1.5 halfway between rows 1
    # and 2: .8 -> (1 + 1) / 2, .27 -> (0 + (-1)) / 2; row 1: .1 -> -1; key 0 -> 0
    np.testing.assert_allclose(lookup_magnitude(PT, keys, a), [1, -2, 1, -0.5, -1, 0])


def test_simple_multiplier_cases_by_hand():
    cv = np.array([1000.0, 1000.0, 150.0, 50.0, 0.0])
    x = np.array([1000.0, 1000.0, 1000.0, 1000.0, 0.0])
    keys = np.array([0.8, 0.05, 0.27, 0.1, 0.5])
    out, noise = perturb_magnitudes(PT, cv, x, keys, SIMPLE)
    # x_delta = 0.1 x = 100; a = |cv| / 100: 10 -> row 2: .8 -> +1 -> +100; .05 -> -2 ->
    # -200; cv 150: a = 1.5, v = -0.5 -> -50; cv 50 < 100: x_delta = 50, a = 1, row 1:
    # .1 -> -1 -> -50 (down to 0, not below); an empty cell stays 0
    np.testing.assert_allclose(out, [1100, 800, 100, 0, 0])
    np.testing.assert_allclose(noise, [100, -200, -50, -50, 0])


def test_sensitive_cells_get_mu_c_more():
    params = MagnitudeParams(p_small=0.1, mu_c=2)
    # key .5 in row 2 gives v = 0; a sensitive cell still moves by mu_c x_delta = 200
    out, _ = perturb_magnitudes(PT, [1000.0, 1000.0], [1000.0, 1000.0], [0.5, 0.5], params,
                                sensitive=[True, False])
    np.testing.assert_allclose(out, [1200, 1000])


def test_two_steps_with_epsilon():
    params = MagnitudeParams(p_small=0.1, epsilon=[1, 0.5])
    # step 1: x 600 -> x_delta 60, a = 16.7 -> row 2, key .95 -> +2 -> +120 (xo 1120);
    # step 2: x 300 -> x_delta 300 * 0.1 * 0.5 = 15, a -> row 2, key .05 -> -2 -> -30
    out, _ = perturb_magnitudes(PT, [1000.0], [[600.0, 300.0]], [[0.95, 0.05]], params)
    np.testing.assert_allclose(out, [1090])


def test_flex_function():
    # p = (0.2, 0.03), fp = 1000, q = 2: at x = 5000, f1 = (1000 - 30) / 30, f2 = (2000 /
    # 6000)^2 = 1/9, m = 0.03 (1 + 970 / 270)
    m = flex_multiplier(np.array([5000.0, 1000.0, 1e9]), 0.2, 0.03, 1000, 2)
    np.testing.assert_allclose(m[0], 0.03 * (1 + 970 / 270))
    assert m[1] == pytest.approx(0.2)  # continuous at the flex point: p_small
    assert m[2] == pytest.approx(0.03, rel=1e-3)  # p_large for large cells
    flex = MagnitudeParams(p_small=0.2, p_large=0.03, fp=1000, q=2)
    # x = 5000: x_delta = 5000 m = 688.9, a = 7.3 -> row 2, key .95 -> +2; below the flex
    # point x = 500: x_delta = 0.2 * 500 = 100, a = 5 -> row 2, key .95 -> +2
    out, _ = perturb_magnitudes(PT, [5000.0, 500.0], [5000.0, 500.0], [0.95, 0.95], flex)
    np.testing.assert_allclose(out, [5000 + 2 * 5000 * m[0], 700])


def test_step_keys_rotate_the_decimals():
    got = step_keys(np.array([12345678, 10200000, 50000000, 0]), 8, 3)
    np.testing.assert_allclose(got, [[0.12345678, 0.23456781, 0.34567812],
                                     [0.102, 0.021, 0.21],  # "0.102" -> "0.021" -> "0.210"
                                     [0.5, 0.5, 0.5], [0, 0, 0]])
    # same_key = FALSE: the first key is rotated too; "0.5" -> "0.05" -> "0.0"
    got = step_keys(np.array([12345678, 50000000]), 8, 2, same_key=False)
    np.testing.assert_allclose(got, [[0.23456781, 0.34567812], [0.05, 0.0]])


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="epsilon"):
        MagnitudeParams(p_small=0.1, epsilon=[0.5])
    with pytest.raises(ValueError, match="p_small, p_large"):
        MagnitudeParams(p_small=0.1, p_large=0.2, fp=100)
    with pytest.raises(ValueError, match="epsilon has 1 values for 2"):
        perturb_magnitudes(PT, [1.0], [[1.0, 1.0]], [[0.5, 0.5]], SIMPLE)


@given(st.lists(st.tuples(st.floats(0, 1e6), st.floats(0, 0.99999999)), min_size=1,
                max_size=30))
def test_non_negative_values_stay_non_negative(cells):
    pt = magnitude_ptable(10, 3, step=2, icat=[1, 5, 10], optim=[4, 1, 1])
    cv = np.array([c for c, _ in cells])
    keys = np.array([k for _, k in cells])
    params = MagnitudeParams(p_small=0.25, p_large=0.05, fp=1000, q=3, mu_c=1)
    out, _ = perturb_magnitudes(pt, cv, cv, keys, params, sensitive=cv > 5e5)
    assert (out >= 0).all()
    assert (out[cv == 0] == 0).all()


def test_cells_with_an_odd_number_of_contributors_use_their_own_ptable():
    # cellKey's parity case: row 2 of the odd cells' ptable has v = -2..2 below .5, .6,
    # .7, .8, 1, so key .8 gives +2 there (odd: 1000 + 200) and +1 in PT (even: + 100)
    odd_pt = ptable_from_columns(
        i=[0, 1, 1, 1, 2, 2, 2, 2, 2], j=[0, 0, 1, 2, 0, 1, 2, 3, 4],
        p=[1, .5, .25, .25, .5, .1, .1, .1, .2], v=[0, -1, 0, 1, -2, -1, 0, 1, 2],
        p_int_lb=[0, 0, .5, .75, 0, .5, .6, .7, .8], p_int_ub=[1, .5, .75, 1, .5, .6, .7, .8, 1],
        table="nums")
    out, _ = perturb_magnitudes(PT, [1000.0, 1000.0], [1000.0, 1000.0], [0.8, 0.8], SIMPLE,
                                odd_ptable=odd_pt, odd=[False, True])
    np.testing.assert_allclose(out, [1100, 1200])
    with pytest.raises(ValueError, match="one perturbation step"):
        perturb_magnitudes(PT, [1.0], [[1.0, 1.0]], [[0.5, 0.5]],
                           MagnitudeParams(p_small=0.1, epsilon=[1, 0.5]),
                           odd_ptable=odd_pt, odd=[True])


def test_small_contributions_are_perturbed_like_counts():
    # cellKey's separation with the small-cells ptable PT: its last row has variance
    # m1^2 = .1*4 + .2 + .2 + .1*4 = 1.2, so z_s = sqrt(1.2) / (1 * 0.1) = 10.95
    cv = np.array([5.0, 100.0, 0.5])
    out, _ = perturb_magnitudes(PT, cv, cv, [0.95, 0.95, 0.95], SIMPLE, small_ptable=PT)
    # 5 < z_s: x_delta = 1, a = 5 -> row 2, .95 -> +2: 7 (6 without separation);
    # 100: x_delta = 10 as usual -> +20; 0.5: rescaled below z_s -> no noise (simple)
    np.testing.assert_allclose(out, [7, 120, 0.5])
    # flex parameters perturb the rescaled first step: a = 0.5 between rows 0 and 1,
    # .95 -> (0 + 1) / 2 -> + 0.5
    flex = MagnitudeParams(p_small=0.1, p_large=0.05, fp=1000)
    out, _ = perturb_magnitudes(PT, [0.5], [0.5], [0.95], flex, small_ptable=PT)
    np.testing.assert_allclose(out, [1.0])


def test_a_cell_has_as_many_steps_as_contributors():
    # two steps, eps (1, .5): z_s = sqrt(1.2) / (sqrt(1.25) 0.1) = 9.8; step 1: 5 is
    # small -> +2 (key .95); step 2 (x = 0, small, key .05 -> -2) only with 2 contributors
    params = MagnitudeParams(p_small=0.1, epsilon=[1, 0.5])
    args = (PT, [5.0, 5.0], [[5.0, 0.0], [5.0, 0.0]], [[0.95, 0.05], [0.95, 0.05]], params)
    out, _ = perturb_magnitudes(*args, small_ptable=PT, contributors=[1, 2])
    np.testing.assert_allclose(out, [7, 5])
