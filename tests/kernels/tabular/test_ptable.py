"""Perturbation tables (sdcflow.kernels.tabular.ptable) against the R package ptable 1.0.0:
its own test of ``pt_ex_cnts()`` (tests/testthat/test-examples.R, "Example is correct")
is the worked example; the defining constraints (rows sum to 1, mean 0, variance V,
|v| <= D, blocked targets) are checked on other parameters and with hypothesis."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.tabular.ptable import (
    PTableError,
    count_ptable,
    magnitude_ptable,
    ptable_from_columns,
)

# ptable 1.0.0, tests/testthat/test-examples.R: pt_ex_cnts()@pTable$p, where pt_ex_cnts()
# is create_cnt_ptable(D = 2, V = 1.05, mono = c(TRUE, TRUE, FALSE, TRUE), js = 1)
PT_EX_CNTS_P = [1.00000000, 0.50833333, 0.47500000, 0.01666667, 0.16155827, 0.55565037,
                0.24246618, 0.04032518, 0.41231301, 0.28806097, 0.18693903, 0.11268699,
                0.07012498, 0.24450007, 0.37074990, 0.24450007, 0.07012498]


def test_the_packages_example_ptable():
    pt = count_ptable(2, 1.05, js=1, mono=[True, True, False, True])
    # the rows i = 0..D + js + 1 = 4; from i = 1 the target 1 is blocked
    assert pt.i.tolist() == [0, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 4]
    assert pt.j.tolist() == [0, 0, 2, 3, 0, 2, 3, 4, 2, 3, 4, 5, 2, 3, 4, 5, 6]
    np.testing.assert_allclose(pt.p, PT_EX_CNTS_P, atol=1e-8, rtol=0)
    np.testing.assert_array_equal(pt.v, pt.j - pt.i)
    # the intervals: cumulative probabilities rounded to 8 decimals, p their differences
    np.testing.assert_allclose(pt.row(1)[2], [0.50833333, 0.98333333, 1.0], atol=1e-12)
    np.testing.assert_allclose(pt.row(1)[1], [0.0, 0.50833333, 0.98333333], atol=1e-12)


def test_variance_equals_V_where_it_can_be_reached():
    # ptable constrains sum p v^2 <= V; the maximum-entropy row reaches V wherever the
    # rows are not cut at 0 too tightly (here every row)
    pt = count_ptable(5, 3, js=2)
    for i, (total, mean, var) in pt.row_moments().items():
        assert total == pytest.approx(1, abs=1e-12)
        assert mean == pytest.approx(0, abs=2e-7)  # p from intervals rounded to 1e-8
        assert var == pytest.approx(0 if i == 0 else 3, abs=5e-7)
    assert pt.rows.tolist() == list(range(9))  # 0..D + js + 1
    assert np.abs(pt.v).max() == 5
    # no perturbed count in 1..js from any row
    assert not np.isin(pt.j[pt.i > 0], [1, 2]).any()


def test_a_row_cut_at_zero_keeps_the_maximum_entropy_variance():
    # D = 7, V = 3, row i = 1: the targets are 0..8 (v = -1..7); with mean 0 the
    # maximum-entropy distribution p ~ exp(a v) already has a variance below 3, so the
    # constraint sum p v^2 <= V is not binding (as in ptable, which reports it)
    pt = count_ptable(7, 3)
    v, lb, ub = pt.row(1)
    p = ub - lb
    assert p @ v == pytest.approx(0, abs=1e-7)
    assert p @ (v * v) < 3 - 0.5
    # unconstrained, p ~ exp(a v) with a < 0 would make p(-1) > p(0): the monotony
    # constraint binds (p(-1) = p(0)) and for v >= 1 log p is linear in v (KKT conditions
    # with the mean and sum multipliers only; up to the 8-decimal rounding)
    assert p[0] == pytest.approx(p[1], abs=2e-8)
    slope = np.diff(np.log(p[2:7]))  # v = 1..5
    np.testing.assert_allclose(slope, slope[0], rtol=1e-4)


def test_pstay_keeps_a_staying_probability_but_lowers_it_to_reach_V():
    low = count_ptable(5, 3, js=2)
    high = count_ptable(5, 3, js=2, pstay=0.5)
    # with pstay = 0.5 the package starts from p(v = 0) >= 0.5 and lowers the bound by
    # 0.05 until the variance is V: the staying probability rises over the free solution
    for i in (3, 4, 8):
        v0 = low.v[(low.i == i) & (low.v == 0)]
        assert len(v0) == 1
        stay_low = low.p[(low.i == i) & (low.v == 0)][0]
        stay_high = high.p[(high.i == i) & (high.v == 0)][0]
        assert stay_high >= stay_low - 1e-8
    assert high.row_moments()[8][2] == pytest.approx(3, abs=5e-7)


def test_optim_4_makes_the_variance_an_equality():
    # D = 7, V = 3, row i = 1: with optim = 4 the variance is forced to V
    pt = count_ptable(7, 3, optim=4)
    assert pt.row_moments()[1][2] == pytest.approx(3, abs=5e-7)


def test_impossible_ptables_are_refused_with_the_reason():
    # i = 1 with js = 2, D = 2: the only targets are 0 and 3 (v = -1, 2), so the mean-0
    # distribution is (2/3, 1/3) with variance 2/3 + 4/3 = 2 > 1.05
    with pytest.raises(PTableError, match=r"row i = 1.*\{0, 3\}.*at least 2\b.*V = 1.05"):
        count_ptable(2, 1.05, js=2)
    # D = 2: the widest maximum-entropy perturbation is uniform on -2..2, variance 2
    with pytest.raises(PTableError, match=r"V = 5 cannot be reached.*D = 2.*variance 2\b"):
        count_ptable(2, 5)
    # D = 1, js = 2: from i = 1 only the target 0 is left: no mean-0 perturbation
    with pytest.raises(PTableError, match="no unbiased perturbation"):
        count_ptable(1, 0.5, js=2)
    with pytest.raises(PTableError, match="D must be"):
        count_ptable(0, 1)
    with pytest.raises(PTableError, match="pstay"):
        count_ptable(3, 1, pstay=1.0)
    with pytest.raises(PTableError, match="mono has 2 entries"):
        count_ptable(3, 1, mono=[True, False])


def test_magnitude_ptable_like_pt_ex_nums():
    # ptable's pt_ex_nums(): create_num_ptable(D = 10, V = 3, step = 2,
    # optim = c(4, 1, 1), icat = c(1, 5, 10)); its test checks sum(p) = 4 (four rows), and
    # cellKey's tests (test_numvars.R) that this ptable has 96 entries
    pt = magnitude_ptable(10, 3, step=2, icat=[1, 5, 10], optim=[4, 1, 1])
    assert pt.p.sum() == pytest.approx(4, abs=1e-9)
    assert len(pt.p) == 96
    assert pt.rows.tolist() == [0, 1, 5, 10]
    # row 10 is symmetric: targets 0..20 by 0.5
    v, _, _ = pt.row(10)
    np.testing.assert_allclose(v, np.arange(-10, 10.5, 0.5))
    for i, (_, mean, var) in pt.row_moments().items():
        assert mean == pytest.approx(0, abs=5e-7)
        if i >= 5:
            assert var == pytest.approx(3, abs=5e-7)
    with pytest.raises(PTableError, match="icat must hold 1 and D"):
        magnitude_ptable(5, 2, icat=[1, 3])


def test_reading_a_ptable_checks_its_intervals():
    pt = count_ptable(2, 1.05, js=1, mono=[True, True, False, True])
    got = ptable_from_columns(pt.i, pt.j, pt.p, pt.v, pt.p_int_lb, pt.p_int_ub)
    np.testing.assert_array_equal(got.p_int_ub, pt.p_int_ub)
    ub = pt.p_int_ub.copy()
    ub[2] += 0.01
    with pytest.raises(PTableError, match="row i = 1: the intervals"):
        ptable_from_columns(pt.i, pt.j, pt.p, pt.v, pt.p_int_lb, ub)
    with pytest.raises(PTableError, match="no row i = 0"):
        at = pt.i > 0
        ptable_from_columns(pt.i[at], pt.j[at], pt.p[at], pt.v[at], pt.p_int_lb[at],
                            pt.p_int_ub[at])
    with pytest.raises(PTableError, match="missing"):
        ptable_from_columns(pt.i, pt.j, np.r_[np.nan, pt.p[1:]], pt.v, pt.p_int_lb,
                            pt.p_int_ub)


@settings(max_examples=25)
@given(D=st.integers(1, 6), V=st.floats(0.2, 4.0), js=st.integers(0, 3))
def test_every_built_ptable_meets_its_constraints(D, V, js):
    try:
        pt = count_ptable(D, V, js=js)
    except PTableError:
        return  # refused with a reason (tested above)
    assert np.abs(pt.v).max() <= D
    assert (pt.j >= 0).all() and (pt.p >= 0).all()
    assert not (np.isin(pt.j, np.arange(1, js + 1)) & (pt.i > 0)).any()
    for (total, mean, var) in pt.row_moments().values():
        assert total == pytest.approx(1, abs=1e-12)
        assert mean == pytest.approx(0, abs=1e-6)
        assert var <= V + 1e-6
    # the rows standing for every large count reach V exactly
    assert pt.row_moments()[float(pt.rows[-1])][2] == pytest.approx(V, abs=1e-6)


def test_a_row_whose_least_variance_exceeds_V_by_a_hair_is_refused():
    # D = 3, V = 2, js = 2, row i = 1: only v = -1, 2, 3 are left; with mean 0 and sum 1,
    # p(-1) = (2 + p3) / 3, p(2) = (1 - 4 p3) / 3, variance 2 + 4 p3 (p3 = p(v = 3)); the
    # package's lower bound 1e-8 on every p makes it at least 2.00000004 > V = 2, and the
    # ptable package refuses it ("The variance parameter you set is too small!"). It was
    # built before (with a slack of 1e-6)
    with pytest.raises(PTableError, match=r"row i = 1: the allowed perturbed values "
                                          r"\{0, 3, 4\}.*at least 2\.00000004 .*V = 2:"):
        count_ptable(3, 2, js=2)
    # with V = 2.0000001 row 1 is possible, row 2 (v = -2, 1, 2, 3) is not: its least
    # variance 2 + 14e-8 (by the same algebra, p(v = 2) = p(v = 3) = 1e-8)
    with pytest.raises(PTableError, match=r"row i = 2: .*at least 2\.00000014 .*"
                                          r"V = 2\.0000001:"):
        count_ptable(3, 2.0000001, js=2)
    pt = count_ptable(3, 2.0000002, js=2)  # (p from intervals rounded to 8 decimals)
    assert pt.row_moments()[1][2] == pytest.approx(2.0000002, abs=1e-6)


def _least_variance_by_pairs(v: np.ndarray, eps: float = 1e-8) -> float | None:
    """The least variance of an unbiased distribution on ``v`` with every p >= eps,
    without monotony, worked out from the definition: with q = p - eps >= 0, sum q = s and
    sum q v = t are two equations, so a least-variance q has at most two non-zero entries;
    every pair (and single) is tried. None: no such distribution."""
    s, t = 1 - eps * len(v), -eps * v.sum()
    base, best = eps * (v * v).sum(), None
    for a in range(len(v)):
        if abs(s * v[a] - t) <= 1e-15:
            best = min(best if best is not None else np.inf, base + s * v[a] ** 2)
        for b in range(a + 1, len(v)):
            qa = (t - s * v[b]) / (v[a] - v[b])
            qb = s - qa
            if qa >= -1e-15 and qb >= -1e-15:
                value = base + qa * v[a] ** 2 + qb * v[b] ** 2
                best = min(best if best is not None else np.inf, value)
    return best


@settings(max_examples=25, deadline=None)
@given(D=st.integers(1, 5), V=st.integers(1, 600).map(lambda x: x / 100),
       js=st.integers(0, 3))
def test_a_ptable_is_refused_exactly_when_no_row_can_exist(D, V, js):
    # the feasibility condition, worked out independently (without monotony): every row i
    # (targets max(i - D, 0)..i + D without 1..js) needs an unbiased distribution with
    # every p >= 1e-8 and variance <= V, and the rows for every large count (uniform on
    # -D..D, the widest maximum-entropy row) must reach V: D (D + 1) / 3 >= V
    ncat = D if js == 0 else D + js + 1
    possible = V <= D * (D + 1) / 3 + 1e-6
    for i in range(1, ncat + 1):
        j = np.array([x for x in range(max(i - D, 0), i + D + 1) if not 1 <= x <= js], float)
        least = _least_variance_by_pairs(j - i)
        possible = possible and least is not None and least <= V * (1 + 1e-12)
    try:
        pt = count_ptable(D, V, js=js, mono=False)
    except PTableError:
        assert not possible
        return
    assert possible
    for (total, mean, var) in pt.row_moments().values():
        assert total == pytest.approx(1, abs=1e-12)
        assert mean == pytest.approx(0, abs=1e-6) and var <= V + 1e-6


def test_impossible_parameters_are_refused_before_any_row_is_built(monkeypatch):
    # a huge V (more than perturbations of at most D can have), an optim 4 row that cannot
    # reach V, limits on D and js: refused by the checks, never by building (which took
    # minutes for D = 50, V = 1000, and said so only at the last row)
    from sdcflow.kernels.tabular import ptable

    def no_build(*args, **kwargs):
        raise AssertionError("a row was built")

    monkeypatch.setattr(ptable, "_row", no_build)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and nothing escapes as a warning
        # D = 50: the widest row is uniform on -50..50, variance 50 * 51 / 3 = 850
        with pytest.raises(PTableError, match=r"V = 1000 cannot be reached.*D = 50.*variance "
                                              r"850\b.*at most 850"):
            count_ptable(50, 1000)
        with pytest.raises(PTableError, match=r"V = 1000 cannot be reached.*D = 24.*variance "
                                              r"196\b"):
            # step 2: uniform on -24..24 by 0.5, variance 48 * 49 / 3 / 4 = 196
            magnitude_ptable(24, 1000, step=2, icat=[1, 24])
        # optim 4, D = 5, row i = 1 (v = -1..5, p(-1) <= p(0)): at most p(-1) = p(0) = 5/11,
        # p(5) = 1/11, variance 30/11 = 2.7272727, a hair less with every other p >= 1e-8
        with pytest.raises(PTableError, match=r"row i = 1: .*at most 2\.727272.*less than "
                                              r"V = 3, which optim 4 needs"):
            count_ptable(5, 3, optim=4)
        # a V near the largest float (the closed form overflowed and warned before)
        for build in (lambda: count_ptable(3, 1e308), lambda: count_ptable(3, 1e308, optim=4),
                      lambda: magnitude_ptable(3, 1e308)):
            with pytest.raises(PTableError, match="V = 1e\\+308"):
                build()
        with pytest.raises(PTableError, match="D = 51 is more than the limit of 50"):
            count_ptable(51, 3)
        with pytest.raises(PTableError, match="js = 51 is more than the limit of 50"):
            count_ptable(5, 3, js=51)
        with pytest.raises(PTableError, match="icat must be whole numbers"):
            magnitude_ptable(5, 2, icat=[1, 2.5, 5])


def test_a_ptable_is_built_once_for_its_parameters():
    # the cache: the same parameters give the same (read-only) table, without building
    a = magnitude_ptable(10, 3, step=2, icat=[1, 5, 10], optim=[4, 1, 1])
    b = magnitude_ptable(10, 3, step=2, icat=[10, 5, 1.0], optim=[4, 1, 1])
    assert a is b and not a.p.flags.writeable
    assert count_ptable(2, 1.05, js=1) is count_ptable(2, 1.05, js=1, optim=[1, 1, 1, 1])
