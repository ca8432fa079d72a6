"""t-closeness kernel (Li, Li & Venkatasubramanian 2007, EMD)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.risk.t_closeness import t_closeness

# Li et al. (2007), section 4.2: salaries 3k..11k, one record each (9 values)
SALARY = np.array([3, 4, 5, 6, 7, 8, 9, 10, 11]) - 3


def brute_force(classes, codes, distance):
    """The EMD straight from the paper's formulas, with dense distributions."""
    values = np.unique(codes[codes >= 0])
    m = values.size
    q = np.array([(codes == v).sum() for v in values]) / (codes >= 0).sum() if m else None
    out = np.zeros(classes.size)
    for c in np.unique(classes):
        sel = (classes == c) & (codes >= 0)
        if m < 2 or not sel.any():
            continue
        p = np.array([(codes[sel] == v).sum() for v in values]) / sel.sum()
        r = p - q
        out[classes == c] = (np.abs(np.cumsum(r)).sum() / (m - 1) if distance == "ordered"
                             else 0.5 * np.abs(r).sum())
    return out


def test_paper_salary_example():
    # Li et al. (2007), section 4.2: P1 = {3k, 4k, 5k} against the 9 salaries has
    # ordered EMD 0.375 and P2 = {6k, 8k, 11k} has 0.167 (by hand: the cumulative
    # differences are 2,4,6,5,4,3,2,1 /9 -> 27/72 = 0.375; -1,-2,-3,-1,-2,0,-1,-2 /9 ->
    # 12/72 = 1/6). The third class {7k, 9k, 10k}: -1,-2,-3,-4,-2,-3,-1,1 /9 = 17/72.
    classes = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2])
    codes = SALARY[[0, 1, 2, 3, 5, 8, 4, 6, 7]]
    out = t_closeness(classes, codes, "ordered")
    np.testing.assert_allclose(out, [0.375] * 3 + [1 / 6] * 3 + [17 / 72] * 3, rtol=1e-14)


def test_equal_distance_by_hand():
    # 9 distinct diseases, one record each; a class holding 3 of them: p = 1/3 on 3
    # values, q = 1/9 on 9: 1/2 (3 * 2/9 + 6 * 1/9) = 2/3. The whole table as one class: 0.
    codes = np.arange(9)
    out = t_closeness(np.array([0, 0, 0, 1, 1, 1, 1, 1, 1]), codes, "equal")
    # the other class: p = 1/6 on 6 values: 1/2 (6 * 1/18 + 3 * 1/9) = 1/3
    np.testing.assert_allclose(out, [2 / 3] * 3 + [1 / 3] * 6, rtol=1e-14)
    assert t_closeness(np.zeros(9, dtype=int), codes, "equal").tolist() == [0.0] * 9


def test_missing_values_and_degenerate_tables():
    # missing sensitive values are left out of both distributions: record 2's class
    # (records 2, 3) has only the value 1 observed; the table has 0, 1, 1 -> q = (1/3, 2/3);
    # class 0: p = (1, 0): ordered EMD |1 - 1/3| / 1 = 2/3; class 1: p = (0, 1): 1/3;
    # class 2 has no observed value: 0
    classes = np.array([0, 1, 1, 2])
    codes = np.array([0, 1, -1, -1])
    codes[2] = 1
    out = t_closeness(np.array([0, 1, 1, 2]), np.array([0, 1, 1, -1]), "ordered")
    np.testing.assert_allclose(out, [2 / 3, 1 / 3, 1 / 3, 0.0], rtol=1e-14)
    assert t_closeness(classes, np.full(4, 5), "ordered").tolist() == [0.0] * 4
    assert t_closeness(classes, np.full(4, -1), "equal").tolist() == [0.0] * 4
    assert t_closeness(np.zeros(0, dtype=int), np.zeros(0, dtype=int)).size == 0
    with pytest.raises(ValueError, match="distance must be one of"):
        t_closeness(classes, codes, "euclidean")
    with pytest.raises(ValueError, match="needs a hierarchy"):
        t_closeness(classes, codes, "hierarchical")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(-1, 8)), min_size=1, max_size=40),
       st.sampled_from(["ordered", "equal"]))
def test_matches_the_dense_formula(rows, distance):
    # invariant: the sparse computation equals the paper's dense formula, lies in [0, 1]
    classes = np.array([r[0] for r in rows])
    codes = np.array([r[1] for r in rows])
    out = t_closeness(classes, codes, distance)
    np.testing.assert_allclose(out, brute_force(classes, codes, distance), atol=1e-12)
    assert ((out >= 0) & (out <= 1)).all()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 300), min_size=1, max_size=50), st.booleans())
def test_key_ranks_are_those_of_np_unique(codes, large):
    # the sort-free ranking of keys (the EMD's sensitive codes, row_ids, the lattice's
    # class tables) equals np.unique's (large keys take np.unique's own path)
    from sdcflow.kernels.risk.frequencies import key_ranks

    x = np.array(codes, dtype=np.int64) * (10 ** 9 if large else 1)
    ranks, values = key_ranks(x)
    expected_values, expected_ranks = np.unique(x, return_inverse=True)
    assert values.tolist() == expected_values.tolist()
    assert ranks.tolist() == expected_ranks.reshape(-1).tolist()


# a hierarchy of 6 sensitive codes: pairs {0,1} {2,3} {4,5}, then {0..3} {4,5}
TREE = np.array([[0, 0], [0, 0], [1, 0], [1, 0], [2, 1], [2, 1]])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(-1, 5), st.integers(1, 9)),
                min_size=1, max_size=40),
       st.sampled_from(["equal", "hierarchical", "ordered"]), st.booleans())
def test_the_search_s_emd_is_class_emd_to_the_last_bit(rows, distance, weighted):
    # class_emd_of (levels and the whole table's distribution once, dense counts in one
    # compiled pass) gives class_emd's values exactly: the lattice search's nodes and
    # losses must not move. Entries stand for `weights` records each; the whole
    # table is the records they stand for.
    from sdcflow.kernels.risk.t_closeness import class_emd, class_emd_of

    classes = np.array([r[0] for r in rows])
    codes = np.array([r[1] for r in rows])
    weights = np.array([r[2] for r in rows]) if weighted else None
    tree = TREE if distance == "hierarchical" else None
    records = np.repeat(codes, weights) if weighted else codes
    n_classes = int(classes.max()) + 2  # (an empty class too)
    got = class_emd_of(records, distance, tree)(classes, codes, weights, n_classes)
    expected = class_emd(classes, codes, distance, hierarchy=tree, weights=weights,
                         n_classes=n_classes)
    assert got.tolist() == expected.tolist()


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=2, max_size=60),
       st.sampled_from([0.05, 0.1, 0.2, 0.35, 0.5]),
       st.sampled_from(["equal", "hierarchical", "ordered"]))
def test_classes_below_the_smallest_close_size_are_never_t_close(codes, t, distance):
    # smallest_close_class is a bound: every class of fewer records, whatever values
    # of the table it holds, exceeds t
    from sdcflow.kernels.risk.t_closeness import class_emd, smallest_close_class

    codes = np.array(codes)
    tree = TREE if distance == "hierarchical" else None
    size = smallest_close_class(codes, t, distance, tree)
    assert size >= 1
    rng = np.random.default_rng(len(codes))
    for s in range(1, min(size, len(codes) + 1)):
        for _ in range(20):  # random classes of s records from the table
            members = rng.choice(len(codes), size=s, replace=False)
            classes = np.full(len(codes), -1)
            classes[members] = 0
            emd = class_emd(classes, codes, distance, hierarchy=tree, n_classes=1)
            assert emd[0] > t + 1e-9
    assert smallest_close_class(np.array([0, 1, -1]), 0.1) == 1  # a missing value: none


def test_smallest_close_class_by_hand():
    # equal distance, shares 0.5, 0.3, 0.2: one record leaves at least 1 - 0.5 = 0.5, two
    # at least 1 - 0.8 = 0.2, three 0. t = 0.3: a class needs 2 records; t = 0.1: 3
    from sdcflow.kernels.risk.t_closeness import smallest_close_class

    codes = np.array([0] * 5 + [1] * 3 + [2] * 2)
    assert smallest_close_class(codes, 0.3) == 2
    assert smallest_close_class(codes, 0.1) == 3
    assert smallest_close_class(codes, 0.6) == 1
    # ordered (ranks 0 1 2, EMD = W1 / 2): one record at best sits at rank 0 or 1,
    # 0.3 + 2 * 0.2 = 0.5 * 1 + 0.2 = 0.7 away, EMD 0.35; two records at ranks 0 and 1
    # leave only the 0.2 of rank 2 one rank off: 0.1; three (quantile slices of 1/3:
    # rank 0; ranks 0 and 1, 1/6 each; rank 1 for 0.133 and rank 2 for 0.2) at least
    # (1/6 + 0.133) / 2 = 0.15; four (slices of 0.25: only the last, rank 1 for 0.05,
    # is off) 0.025
    assert smallest_close_class(codes, 0.4, "ordered") == 1
    assert smallest_close_class(codes, 0.3, "ordered") == 2
    assert smallest_close_class(codes, 0.1, "ordered") == 2
    assert smallest_close_class(codes, 0.05, "ordered") == 4
