"""Controlled tabular adjustment (sdcflow.tabular.adjustment): a small example worked by
hand, protection achieved with totals additive, and optimality against brute force over
the up/down choices (one linear program per choice) on tiny tables."""

import itertools

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from sdcflow.tabular import table_from_cells
from sdcflow.tabular.adjustment import NoAdjustment, controlled_adjustment


def frequency_table(counts: np.ndarray):
    names = [f"d{k}" for k in range(counts.ndim)]
    rows = [{**{n: f"{n}_{i}" for n, i in zip(names, idx)}, "freq": int(counts[idx])}
            for idx in itertools.product(*map(range, counts.shape))]
    return table_from_cells(pd.DataFrame(rows), names, value=None)


def brute_force(a, relations, sensitive, upl, lpl, weights=None) -> float | None:
    """The least weighted change over every up/down choice of the sensitive cells, each
    choice a linear program (deviations z+ and z- >= 0, values staying >= 0), or None."""
    n = len(a)
    w = np.ones(n) if weights is None else weights
    idx = np.flatnonzero(sensitive)
    best = None
    mat = sp.csr_matrix(relations)
    for choice in itertools.product((True, False), repeat=len(idx)):
        lo_p, lo_m = np.zeros(n), np.zeros(n)
        hi_p, hi_m = np.full(n, np.inf), a.astype(float).copy()
        for i, up in zip(idx, choice):
            if up:
                lo_p[i], hi_m[i] = upl[i], 0.0
            else:
                lo_m[i], hi_p[i] = lpl[i], 0.0
        if np.any(lo_m > hi_m):
            continue
        res = linprog(np.r_[w, w], A_eq=sp.hstack([mat, -mat]), b_eq=np.zeros(mat.shape[0]),
                      bounds=list(zip(np.r_[lo_p, lo_m], np.r_[hi_p, hi_m])), method="highs")
        if res.status == 0:
            best = res.fun if best is None else min(best, res.fun)
    return best


def test_worked_example_two_by_two():
    # by hand: rows a = (3, 8 | 11), b = (6, 4 | 10), columns (9, 12 | 21); (a, x) = 3
    # sensitive with levels 2. Its row and its column each need another changed cell,
    # and that cell's other relation one more: at least 4 changed cells, and relations
    # with two changed cells change both by the same amount, so the least change is
    # 4 x 2 = 8 (e.g. 5, 6 | 11 and 4, 6 | 10, the totals kept)
    t = frequency_table(np.array([[3, 8], [6, 4]]))
    sens = t.mask([("d0_0", "d1_0")])
    res = controlled_adjustment(t.values, t.relations, sens, 2.0, 2.0, integer=True)
    assert res.distance == 8 and res.change == 8 and res.optimal
    assert abs(res.values[sens][0] - 3) >= 2
    assert np.allclose(t.relations @ res.values, 0)
    assert (np.abs(res.values - t.values) > 0).sum() == 4
    assert brute_force(t.values, t.relations, sens, np.full(9, 2.0), np.full(9, 2.0)) == 8


def test_a_cell_that_cannot_go_down_goes_up():
    # (a, x) = 3 with a lower level of 4 would become negative: it must go up by 4,
    # and 4 changed cells of 4 each: 16
    t = frequency_table(np.array([[3, 8], [6, 4]]))
    sens = t.mask([("d0_0", "d1_0")])
    res = controlled_adjustment(t.values, t.relations, sens, 4.0, 4.0)
    assert res.direction[sens].tolist() == [1] and res.values[sens][0] >= 7 - 1e-9
    assert res.distance == pytest.approx(16)
    # one-sided level (a frequency rule gives only an upper one): both sides get it
    one = controlled_adjustment(t.values, t.relations, sens, 4.0, 0.0)
    assert one.distance == pytest.approx(16)


def test_impossible_and_bad_input_are_reported():
    t = frequency_table(np.array([[3, 8], [6, 4]]))
    sens = t.mask([("d0_0", "d1_0")])
    # nothing else may move: the sensitive cell's row cannot absorb the change
    with pytest.raises(NoAdjustment, match="no adjustment"):
        controlled_adjustment(t.values, t.relations, sens, 2.0, 2.0, fixed=~sens)
    with pytest.raises(NoAdjustment, match="neither up nor down"):
        controlled_adjustment(t.values, t.relations, sens, 2.0, 5.0,
                              upper=t.values)
    with pytest.raises(ValueError, match="no protection level"):
        controlled_adjustment(t.values, t.relations, sens, 0.0, 0.0)
    with pytest.raises(ValueError, match="do not add up"):
        controlled_adjustment(t.values + np.eye(9)[0], t.relations, sens, 1.0, 1.0)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 3), st.integers(2, 3), st.data())
def test_protection_additivity_and_optimality_on_random_tables(rows, cols, data):
    counts = np.array(data.draw(st.lists(st.integers(0, 30), min_size=rows * cols,
                                         max_size=rows * cols))).reshape(rows, cols)
    t = frequency_table(counts)
    leaf = np.flatnonzero(t.margin_dims == 0)
    chosen = data.draw(st.lists(st.sampled_from(list(leaf)), min_size=1, max_size=3,
                                unique=True))
    sens = np.zeros(t.n_cells, dtype=bool)
    sens[chosen] = True
    levels = np.where(sens, np.maximum(1.0, np.ceil(0.3 * t.values)), 0.0)
    weights = 1.0 / np.maximum(t.values, 1.0)
    res = controlled_adjustment(t.values, t.relations, sens, levels, levels, weights=weights)
    y, a = res.values, t.values
    assert np.all(np.abs(y - a)[sens] >= levels[sens] - 1e-7)  # out of the interval
    assert np.allclose(t.relations @ y, 0, atol=1e-7)  # totals consistent
    assert np.all(y >= -1e-9)  # counts stay non-negative
    assert res.distance == pytest.approx((weights * np.abs(y - a)).sum(), abs=1e-6)
    expected = brute_force(a, t.relations, sens, levels, levels, weights)
    assert res.distance == pytest.approx(expected, rel=1e-6, abs=1e-6)
