"""TopDown-style post-processing of noisy tables (Abowd et al. 2022): the non-negative
additive table nearest the noisy cells in least squares, then a controlled rounding to
whole numbers. Hand-worked examples and, on random tables, the properties: whole
numbers, non-negative, every margin the sum of its cells."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.tabular.dp_consistency import (
    consistent_table,
    leaf_aggregation,
    slice_ids,
)
from sdcflow.tabular.hierarchy import make_dimension, relations


def _one_way():
    dims = [make_dimension("x", ["a", "b"], None)]
    return dims, relations(dims)


def test_a_negative_cell_goes_to_zero_by_least_squares():
    # cells (a, b, Total) noisy (-2, 5, 5): minimise (a+2)^2 + (b-5)^2 + (a+b-5)^2 with
    # a, b >= 0: at a = 0 the derivative in a is 2*2 + 2*0 > 0, and b = 5 -> (0, 5, 5)
    dims, rel = _one_way()
    out = consistent_table(np.array([-2.0, 5.0, 5.0]), dims, rel)
    assert out.values.tolist() == [0.0, 5.0, 5.0]
    assert out.rounding == "controlled"


def test_an_inconsistent_total_is_reconciled_by_least_squares():
    # (1, 2, 6): the normal equations give a - 1 = b - 2 and 3a = 6: (2, 3, 5)
    dims, rel = _one_way()
    out = consistent_table(np.array([1.0, 2.0, 6.0]), dims, rel)
    assert np.allclose(out.fitted, [2.0, 3.0, 5.0])
    assert out.values.tolist() == [2.0, 3.0, 5.0]


def test_leaf_aggregation_and_slices_of_a_hierarchy():
    region = make_dimension("region", ["r1", "r2", "r3"], {"r1": "N", "r2": "N", "r3": "S",
                                                          "N": "T", "S": "T"}, total="T")
    sex = make_dimension("sex", ["1", "2"], None)
    a = leaf_aggregation([region, sex]).toarray()
    # 6 codes (r1 r2 N r3 S T) x 3 (1 2 Total) cells, 3 x 2 leaf cells; every leaf cell
    # counts in 3 x 2 = 6 cells (itself, its region's subtotal, the total; by sex and
    # in the sex total)
    assert a.shape == (18, 6)
    assert (a.sum(axis=0) == 6).all()
    ids = slice_ids([region, sex])
    # depths: region 2 (leaves), 1 (N, S), 0 (T) x sex 1, 0: six slices
    assert len(np.unique(ids)) == 6
    # within a slice, every leaf cell counts in one cell at most
    for s in np.unique(ids):
        assert (a[ids == s].sum(axis=0) <= 1).all()


@settings(max_examples=15, deadline=None)
@given(rows=st.integers(1, 4), cols=st.integers(1, 4), seed=st.integers(0, 2**32 - 1))
def test_results_are_whole_non_negative_and_additive(rows, cols, seed):
    dims = [make_dimension("r", [str(i) for i in range(rows)], None),
            make_dimension("c", [str(i) for i in range(cols)], None)]
    rel = relations(dims)
    n = dims[0].size * dims[1].size
    noisy = np.random.default_rng(seed).integers(-6, 25, n).astype(float)
    out = consistent_table(noisy, dims, rel)
    v = out.values
    assert np.array_equal(v, np.rint(v))
    assert (v >= 0).all()
    assert np.abs(rel @ v).max(initial=0) == 0
    # the rounding moved no cell by a whole unit from the least-squares fit
    assert np.abs(v - out.fitted).max() < 1


def test_the_large_table_solver_comes_near_the_exact_one(monkeypatch):
    # tables too large for a dense matrix are solved by a trust-region method: its
    # least-squares objective within 5 % of the exact active-set solution's, and its
    # result as consistent
    import sdcflow.tabular.dp_consistency as module

    dims = [make_dimension("r", [str(i) for i in range(40)], None),
            make_dimension("c", ["1", "2", "3"], None)]
    rel = relations(dims)
    noisy = np.random.default_rng(4).integers(-8, 40, dims[0].size * 4).astype(float)
    exact = consistent_table(noisy, dims, rel)
    monkeypatch.setattr(module, "_DENSE_LIMIT", 0)
    iterative = consistent_table(noisy, dims, rel)
    assert ((iterative.fitted - noisy) ** 2).sum() <= 1.05 * ((exact.fitted - noisy) ** 2).sum()
    v = iterative.values
    assert (v >= 0).all() and np.abs(rel @ v).max() == 0 and np.array_equal(v, np.rint(v))
