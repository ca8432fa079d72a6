"""Mondrian multidimensional partitioning (LeFevre, DeWitt & Ramakrishnan, ICDE 2006):
hand-worked cuts from the definition (median cut on the widest normalised dimension,
allowable when every part keeps k records and l sensitive values), the loss measures
(NCP of Xu et al. 2006, discernibility), and invariants on random data."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.non_perturbative.mondrian import (
    Ordered,
    mondrian,
    ordered_range,
    partition_loss,
    partition_median,
    tree,
    tree_ancestor,
)


def ordered(values) -> Ordered:
    positions, codes = np.unique(np.asarray(values, dtype=float), return_inverse=True)
    return Ordered(codes, positions)


# the "Patients" table of LeFevre et al. 2006 (Age, Zipcode as keys)
AGES = [25, 25, 26, 27, 27, 28]
ZIPS = [53711, 53712, 53711, 53710, 53712, 53711]


def test_the_patients_example_by_hand():
    # both dimensions span their whole range (width 1): the first, age, is cut at its
    # median 26 (the 3rd of 6 sorted values): {25, 25, 26} | {27, 27, 28}. Neither half
    # has an allowable cut (3 records: any cut leaves a part of 1 < k = 2).
    labels = mondrian([ordered(AGES), ordered(ZIPS)], 2)
    assert labels.tolist() == [0, 0, 0, 1, 1, 1]
    loss = partition_loss([ordered(AGES), ordered(ZIPS)], labels)
    # NCP age: (26-25)/3 and (28-27)/3 -> 1/3; zip: (53712-53711)/2 = 1/2 and
    # (53712-53710)/2 = 1 -> 3/4; discernibility 3^2 + 3^2
    assert np.allclose(loss["per_dimension"], [1 / 3, 3 / 4])
    assert np.isclose(loss["ncp"], (1 / 3 + 3 / 4) / 2)
    assert loss["discernibility"] == 18 and loss["partitions"] == 2 and loss["smallest"] == 3


def test_recursive_median_cuts():
    # 1..8, k = 2: cut at 4, then at 2 and 6: four pairs
    labels = mondrian([ordered([5, 1, 8, 2, 7, 3, 6, 4])], 2)
    assert labels.tolist() == [0, 1, 2, 1, 2, 3, 0, 3]
    lo, hi = ordered_range(ordered([5, 1, 8, 2, 7, 3, 6, 4]).codes, labels)
    assert (hi - lo).tolist() == [1, 1, 1, 1]


def test_the_widest_normalised_dimension_is_cut_first():
    # at the top both span their whole range (width 1): x, declared first, is cut at its
    # median 3: {0,1,2,3} | {100..103}. There x spans 3 of 103, y (1,2,1,2) all of its
    # range: y is cut, pairing records 0 and 2, 1 and 3 (x would pair 0 and 1)
    x = [0, 1, 2, 3, 100, 101, 102, 103]
    y = [1, 2, 1, 2, 1, 2, 1, 2]
    assert mondrian([ordered(x), ordered(y)], 2).tolist() == [0, 1, 0, 1, 2, 3, 2, 3]
    # y (1,1,1,2) cannot be cut ({1,1,1} | {2}: 1 < k), so x is: {0, 0} | {1, 1}
    labels = mondrian([ordered([1, 1, 1, 2]), ordered([0, 1, 0, 1])], 2)
    assert labels.tolist() == [0, 1, 0, 1]


def test_strict_keeps_the_median_value_together_relaxed_halves():
    values = [1, 1, 1, 1, 2, 2]
    # strict: median 1, x <= 1 gives 4 | 2 (x < 1 would leave nothing on the left)
    assert mondrian([ordered(values)], 2).tolist() == [0, 0, 0, 0, 1, 1]
    # relaxed: halves of 3, the fourth 1 goes right: ranges {1} and [1-2] overlap
    relaxed = mondrian([ordered(values)], 2, strict=False)
    assert relaxed.tolist() == [0, 0, 0, 1, 1, 1]


def test_strict_takes_the_better_balanced_side_of_the_median_run():
    # median (3rd of 6) is 2; x <= 2 gives 5 | 1 (not allowable for k = 2), x < 2 gives
    # 1 | 5 (not either): one group
    values = [1, 2, 2, 2, 2, 3]
    assert mondrian([ordered(values)], 2).tolist() == [0] * 6
    # with k = 1 both are allowable, equally unbalanced: the tie goes to x <= 2, giving
    # {1,2,2,2,2} | {3}; then the median 2 again: x <= 2 leaves nothing right, x < 2
    # gives {1} | {2,2,2,2}, which has one value only
    assert mondrian([ordered(values)], 1).tolist() == [0, 1, 1, 1, 1, 2]
    # values 1,1,2,2,2,3 : x <= 2 is 5 | 1, x < 2 is 2 | 4 -> the latter (better balanced)
    assert mondrian([ordered([1, 1, 2, 2, 2, 3])], 2).tolist() == [0, 0, 1, 1, 1, 1]


# a hierarchy: * -> Europe -> {FR, IT}; * -> Asia -> {JP}   (numbered arbitrarily)
NAMES = ["FR", "*", "JP", "Europe", "IT", "Asia"]
PARENT = np.array([3, -1, 5, 1, 3, 1])


def test_tree_in_preorder_and_its_common_ancestors():
    dim, old = tree(PARENT, np.array([0, 4, 2]))
    assert [NAMES[i] for i in old] == ["*", "Europe", "FR", "IT", "Asia", "JP"]
    assert dim.codes.tolist() == [2, 3, 5]
    assert dim.leaves.tolist() == [3, 2, 1, 1, 1, 1]
    assert dim.lca(np.array([2, 2, 3, 5]), np.array([3, 5, 3, 5])).tolist() == [1, 0, 3, 5]


def test_categories_are_cut_along_the_hierarchy():
    codes = np.array([0, 0, 4, 4, 2, 2])  # FR FR IT IT JP JP
    dim, old = tree(PARENT, codes)
    # k = 2: * -> Europe (4) | Asia (2); Europe -> FR (2) | IT (2)
    labels = mondrian([dim], 2)
    assert labels.tolist() == [0, 0, 1, 1, 2, 2]
    assert [NAMES[old[a]] for a in tree_ancestor(dim, labels)] == ["FR", "IT", "JP"]
    # k = 3: Asia has 2 records, so the root cannot be cut: one group, value *
    labels = mondrian([dim], 3)
    assert labels.tolist() == [0] * 6
    assert NAMES[old[tree_ancestor(dim, labels)[0]]] == "*"
    # NCP (Xu et al.): the root covers 3 of 3 leaves -> 1; with k = 2 every group is a
    # leaf -> 0; the widest-first choice: width (leaves - 1) / (3 - 1)
    assert partition_loss([dim], labels)["ncp"] == 1.0
    assert partition_loss([dim], mondrian([dim], 2))["ncp"] == 0.0


def test_a_value_at_the_ancestor_itself_stops_the_cut():
    # values Europe, FR, IT, IT: Europe cannot go to a child of Europe, so no cut
    dim, _ = tree(PARENT, np.array([3, 0, 4, 4, 0, 4]))
    assert mondrian([dim], 1).tolist() == [0] * 6


def test_l_diversity_forbids_cuts_that_leave_one_sensitive_value():
    ages = [1, 2, 3, 4]
    # {1, 2} | {3, 4}: sensitive a,a | b,b -> 1 distinct value each side: not 2-diverse;
    # x < 2 gives {1} | {2, 3, 4}: {a} is not either: one group
    assert mondrian([ordered(ages)], 1, sensitive=np.array([0, 0, 1, 1]), l=2).tolist() == \
        [0, 0, 0, 0]
    # a,b | a,b: allowed; each pair then cannot be cut (a single value per side)
    assert mondrian([ordered(ages)], 1, sensitive=np.array([0, 1, 0, 1]), l=2).tolist() == \
        [0, 0, 1, 1]
    # without l, k = 1 cuts down to single records
    assert mondrian([ordered(ages)], 1).tolist() == [0, 1, 2, 3]
    # a missing sensitive value (-1) is no value: {1: a, 2: missing} is 1-diverse only
    assert mondrian([ordered(ages)], 1, sensitive=np.array([0, -1, 0, 1]), l=2).tolist() == \
        [0, 0, 0, 0]


def test_median_of_each_partition():
    assert partition_median(np.array([5.0, 1, 3, 10, 20]), np.array([0, 0, 0, 1, 1])).tolist() \
        == [3.0, 15.0]


def test_no_records_and_no_dimensions():
    assert mondrian([ordered([])], 2).tolist() == []
    assert mondrian([], 2).tolist() == []


def _boxes_disjoint(dims, labels) -> bool:
    ranges = [ordered_range(d.codes, labels) for d in dims]
    parts = labels.max() + 1
    for a in range(parts):
        for b in range(a + 1, parts):
            if not any(lo[a] > hi[b] or lo[b] > hi[a] for lo, hi in ranges):
                return False
    return True


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 60).flatmap(lambda n: st.tuples(
    st.lists(st.lists(st.integers(0, 6), min_size=n, max_size=n), min_size=1, max_size=3),
    st.lists(st.integers(0, 3), min_size=n, max_size=n))),
    st.integers(1, 5), st.booleans(), st.sampled_from([1, 2, 3]))
def test_invariants(columns_sensitive, k, strict, l):
    columns, sens = columns_sensitive
    n = len(sens)
    dims = [ordered(c) for c in columns]
    sensitive = np.array(sens)
    if n < k or len(set(sens)) < l:
        return
    labels = mondrian(dims, k, sensitive=sensitive, l=l, strict=strict)
    # every record in exactly one partition, numbered 0..P-1 by first record
    assert len(labels) == n and labels[0] == 0
    sizes = np.bincount(labels)
    assert (sizes >= k).all()
    firsts = [int(np.flatnonzero(labels == p)[0]) for p in range(len(sizes))]
    assert firsts == sorted(firsts)
    for p in range(len(sizes)):
        assert len(set(sensitive[labels == p].tolist())) >= l
    # deterministic
    assert (mondrian(dims, k, sensitive=sensitive, l=l, strict=strict) == labels).all()
    if strict:
        # strict partitioning: the groups' boxes do not overlap
        assert _boxes_disjoint(dims, labels)
    # each final group has no allowable cut: partitioned alone, it stays whole
    for p in range(len(sizes)):
        rows = labels == p
        alone = mondrian([ordered(np.asarray(c)[rows]) for c in columns], k,
                         sensitive=sensitive[rows], l=l, strict=strict)
        assert (alone == 0).all()


def test_a_large_table_is_partitioned_quickly():
    # the level-by-level cuts are vectorised: 100,000 records x 4 keys in about a second.
    # With distinct values a median cut of 2k records or more is always allowable, so
    # every group ends with k to 2k - 1 records
    rng = np.random.default_rng(1)
    dims = [ordered(rng.random(100_000)) for _ in range(4)]
    sizes = np.bincount(mondrian(dims, 5))
    assert sizes.min() >= 5 and sizes.max() <= 9


@st.composite
def tree_and_records(draw):
    """A random rooted tree (node 0 the root, each node's parent numbered before it), the
    records' values drawn from its leaves, an ordered column beside it, sensitive codes."""
    m = draw(st.integers(2, 12))
    parent = [-1] + [draw(st.integers(0, i - 1)) for i in range(1, m)]
    leaves = sorted(set(range(m)) - set(parent))
    n = draw(st.integers(1, 40))
    values = draw(st.lists(st.sampled_from(leaves), min_size=n, max_size=n))
    other = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    sens = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    return np.array(parent), np.array(values), np.array(other), np.array(sens)


@settings(max_examples=60, deadline=None)
@given(tree_and_records(), st.integers(1, 4), st.booleans(), st.sampled_from([1, 2]))
def test_invariants_with_a_hierarchy(case, k, strict, l):
    parent, values, other, sens = case
    if len(values) < k or len(set(sens.tolist())) < l:
        return
    dim, _ = tree(parent, values)
    dims = [dim, ordered(other)]
    labels = mondrian(dims, k, sensitive=sens, l=l, strict=strict)
    sizes = np.bincount(labels)
    assert (sizes >= k).all()
    for p in range(len(sizes)):
        assert len(set(sens[labels == p].tolist())) >= l
    assert (mondrian(dims, k, sensitive=sens, l=l, strict=strict) == labels).all()
    # a group's hierarchy value is the common ancestor of its values: each value lies
    # in its subtree (codes a .. end[a] - 1 in preorder)
    anc = tree_ancestor(dim, labels)[labels]
    assert ((dim.codes >= anc) & (dim.codes < dim.end[anc])).all()
    if strict:
        # two groups are told apart by the hierarchy (disjoint subtrees) or the number
        lo, hi = ordered_range(dims[1].codes, labels)
        a = tree_ancestor(dim, labels)
        for p in range(len(sizes)):
            for q in range(p + 1, len(sizes)):
                apart_tree = dim.end[a[p]] <= a[q] or dim.end[a[q]] <= a[p]
                apart_number = lo[p] > hi[q] or lo[q] > hi[p]
                assert apart_tree or apart_number
    for p in range(len(sizes)):
        rows = labels == p
        alone = mondrian([tree(parent, values[rows])[0], ordered(other[rows])], k,
                         sensitive=sens[rows], l=l, strict=strict)
        assert (alone == 0).all()
