"""Privacy models per equivalence class (sdcflow.kernels.privacy.models)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from sdcflow.kernels.privacy.models import (
    _pairs,
    average_reidentification_risk,
    beta_likeness,
    class_sizes,
    delta_presence,
    distinct_l_diversity,
    entropy_l_diversity,
    recursive_l_diversity,
    reidentification_risk,
    t_closeness,
)
from sdcflow.kernels.risk.frequencies import row_ids

# Li, Li & Venkatasubramanian (2007), Table 3 (nine patients) and Figure 1 (the disease
# hierarchy, height 3). Leaf codes: 0 gastric ulcer, 1 gastritis, 2 stomach cancer,
# 3 colitis, 4 colon cancer, 5 flu, 6 pneumonia, 7 bronchitis, 8 pulmonary edema,
# 9 pulmonary embolism; level 1: stomach, colon, respiratory infection, vascular lung
# diseases; level 2: digestive, respiratory; level 3: the root.
DISEASE_TREE = np.array([[0, 0, 0], [0, 0, 0], [0, 0, 0], [1, 0, 0], [1, 0, 0],
                         [2, 1, 0], [2, 1, 0], [2, 1, 0], [3, 1, 0], [3, 1, 0]])
DISEASE = np.array([0, 1, 2, 1, 5, 7, 7, 6, 2])
SALARY = np.array([3, 4, 5, 6, 11, 8, 7, 9, 10]) - 3  # 3k..11k as codes 0..8
TABLE4 = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2])        # the paper's 3-diverse table
TABLE5 = np.array([0, 2, 0, 1, 1, 1, 2, 0, 2])        # its 0.167-close table (by ZIP)


def lp_emd(p, q, ground):
    """The Earth Mover's Distance by its definition: the cheapest flow moving p onto q
    (a transport linear programme)."""
    m = p.size
    a_eq = np.zeros((2 * m, m * m))
    for i in range(m):
        a_eq[i, i * m:(i + 1) * m] = 1  # out of i
        a_eq[m + i, i::m] = 1           # into i
    res = linprog(ground.reshape(-1), A_eq=a_eq, b_eq=np.concatenate([p, q]),
                  bounds=(0, None), method="highs")
    return res.fun


def tree_distance(tree):
    """level(v_i, v_j) / H: the height of the lowest common ancestor over the height."""
    levels = np.column_stack([np.arange(tree.shape[0]), tree])
    height = tree.shape[1] if np.unique(tree[:, -1]).size == 1 else tree.shape[1] + 1
    m = tree.shape[0]
    d = np.zeros((m, m))
    for i in range(m):
        for j in range(m):
            same = np.flatnonzero(levels[i] == levels[j])
            d[i, j] = (same[0] if same.size else height) / height
    return d


def test_recursive_l_diversity_by_hand():
    # class 0: counts a 5, b 3, c 2 (sorted 5, 3, 2): l = 2: 5 / (3 + 2) = 1;
    # l = 3: 5 / 2 = 2.5; l = 1: 5 / 10. Class 1: one value only: l >= 2 -> inf.
    # Class 2: only a missing value (and a suppressed record, -1, is in no class): inf.
    classes = np.array([0] * 10 + [1, 1, 2, -1])
    codes = np.array([0] * 5 + [1] * 3 + [2] * 2 + [4, 4, -1, 0])
    np.testing.assert_array_equal(recursive_l_diversity(classes, codes, 2), [1.0, np.inf, np.inf])
    np.testing.assert_array_equal(recursive_l_diversity(classes, codes, 3), [2.5, np.inf, np.inf])
    np.testing.assert_array_equal(recursive_l_diversity(classes, codes, 1), [0.5, 1.0, np.inf])
    # (c, l) = (2, 2): 1 < 2 -> diverse; (2, 3): 2.5 >= 2 -> not
    assert (recursive_l_diversity(classes, codes, 2) < 2).tolist() == [True, False, False]
    # weights count records: the first 'a' weighted 6 -> a 10, b 3, c 2: 10 / 5 = 2
    w = np.ones(classes.size)
    w[0] = 6
    assert recursive_l_diversity(classes, codes, 2, weights=w)[0] == 2.0
    with pytest.raises(ValueError, match="l must be"):
        recursive_l_diversity(classes, codes, 0)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(-1, 4), st.integers(-1, 5)), min_size=1, max_size=40),
       st.integers(1, 4))
def test_recursive_against_sorted_counts(records, l):
    classes = np.array([c for c, _ in records])
    codes = np.array([s for _, s in records])
    out = recursive_l_diversity(classes, codes, l, n_classes=5)
    for c in range(5):
        values = codes[(classes == c) & (codes >= 0)]
        counts = sorted(np.unique(values, return_counts=True)[1], reverse=True)
        tail = sum(counts[l - 1:])
        assert out[c] == (counts[0] / tail if tail else math.inf)


def _pairs_by_grouping(classes, codes, weights):
    """The (class, value) pairs by their definition: grouped by row_ids, in order."""
    keep = (classes >= 0) & (codes >= 0)
    if not keep.any():
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0)
    pair, rep = row_ids(np.column_stack([classes[keep], codes[keep]]))
    return (classes[keep][rep], codes[keep][rep],
            np.bincount(pair, weights=weights[keep]))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(-1, 4), st.integers(-1, 5),
                          st.floats(0, 10, allow_nan=False)), min_size=1, max_size=40),
       st.booleans())
def test_pairs_in_order_merged_as_grouped(records, in_order):
    # records whose (class, value) pairs come in order (a class table's rows) are merged
    # in one compiled pass; others are grouped: the same pairs, the same sums bit for bit
    # (the weights of a pair added in record order both ways)
    if in_order:
        records = sorted(records, key=lambda r: (r[0], r[1]))
    classes = np.array([c for c, _, _ in records])
    codes = np.array([s for _, s, _ in records])
    w = np.array([x for _, _, x in records])
    got, want = _pairs(classes, codes, w), _pairs_by_grouping(classes, codes, w)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)
    # and the ratio of recursive l-diversity from its sorted counts, by definition
    out = recursive_l_diversity(classes, codes, 2, weights=w, n_classes=5)
    for c in range(5):
        mine = want[2][(want[0] == c) & (want[2] > 0)]
        ranked = [float(mine[i]) for i in np.argsort(-mine, kind="stable")]
        tail = math.fsum(ranked[1:]) if len(ranked) > 1 else 0.0
        # (Python's floats: a tail of a tiny weight overflows the ratio to inf, as the
        # kernel's, with no warning)
        expected = ranked[0] / tail if tail > 0 else math.inf
        assert out[c] == expected or math.isclose(out[c], expected, rel_tol=1e-12)


def test_recursive_l_diversity_of_a_class_of_many_values():
    # one class whose value v (0..39) has v + 1 records, in shuffled order, and one
    # with values 0..4 once each: sorted counts 40, 39, ..., 1; l = 2: 40 / (1 + ... + 39)
    # = 40 / 780; l = 40: 40 / 1. The second: 1 / 4 (l = 2). (Beyond 32 values a class's
    # counts are merge-sorted, below sorted by insertion: both checked here.)
    codes = np.repeat(np.arange(40), np.arange(1, 41))
    order = np.random.default_rng(0).permutation(codes.size)
    classes = np.concatenate([np.zeros(codes.size, dtype=int), np.ones(5, dtype=int)])
    codes = np.concatenate([codes[order], np.arange(5)])
    out = recursive_l_diversity(classes, codes, 2)
    assert out[0] == 40 / 780 and out[1] == 1 / 4
    assert recursive_l_diversity(classes, codes, 40)[0] == 40.0


def test_distinct_and_entropy_l_by_hand():
    # class 0: values 0, 1, 2, 2: H = -(2 * 1/4 log 1/4 + 1/2 log 1/2) = 1.5 log 2, so
    # exp(H) = 2^1.5; class 1: 3, 3: 1; class 2 (no record; the id of n_classes=3): 0
    classes = np.array([0, 0, 0, 0, 1, 1])
    codes = np.array([0, 1, 2, 2, 3, 3])
    assert distinct_l_diversity(classes, codes, n_classes=3).tolist() == [3, 1, 0]
    np.testing.assert_allclose(entropy_l_diversity(classes, codes, n_classes=3),
                               [2 ** 1.5, 1.0, 0.0], rtol=1e-14)
    assert class_sizes(classes, n_classes=3).tolist() == [4, 2, 0]


def test_t_closeness_paper_tables():
    # Li et al. (2007): salary, ordered distance: Table 4's classes 0.375, 0.167 and (by
    # hand) 17/72; Table 5 is 0.167-close on salary: 1/6, 1/6, 1/12 (by hand from the
    # cumulative differences as in the paper's section 4.2).
    np.testing.assert_allclose(t_closeness(TABLE4, SALARY, "ordered"), [0.375, 1 / 6, 17 / 72],
                               rtol=1e-14)
    np.testing.assert_allclose(t_closeness(TABLE5, SALARY, "ordered"), [1 / 6, 1 / 6, 1 / 12],
                               rtol=1e-14)
    # Disease, hierarchical distance, by hand with the paper's extra/pos_extra/neg_extra
    # formula. Q = (1, 2, 2, 0, 0, 1, 1, 2, 0, 0) / 9. Table 4, class {gastric ulcer,
    # gastritis, stomach cancer}: all the excess 4/9 sits under "digestive", all the
    # deficit under "respiratory": only the root costs, 3/3 * 4/9 = 4/9.
    # Class {gastritis, flu, bronchitis}: r = (-1, 1, -2 | 2, -1, 1) / 9 over (gastric
    # ulcer, gastritis, stomach cancer | flu, pneumonia, bronchitis): stomach diseases cost
    # 1/3 * min(1/9, 3/9) = 1/27, respiratory infection 1/3 * min(3/9, 1/9) = 1/27, the
    # root 1 * 2/9: 8/27. (The paper states 0.278 for Table 5's disease column; its
    # classes give 7/27, 8/27 and 5/27 by the formula and by the transport LP below.)
    np.testing.assert_allclose(t_closeness(TABLE4, DISEASE, "hierarchical", DISEASE_TREE),
                               [4 / 9, 8 / 27, 8 / 27], rtol=1e-14)
    np.testing.assert_allclose(t_closeness(TABLE5, DISEASE, "hierarchical", DISEASE_TREE),
                               [7 / 27, 8 / 27, 5 / 27], rtol=1e-14)


def test_hierarchy_of_height_one_is_the_equal_distance():
    # a tree whose only level is the root: every two values at distance 1
    flat = np.zeros((10, 1), dtype=int)
    np.testing.assert_allclose(t_closeness(TABLE4, DISEASE, "hierarchical", flat),
                               t_closeness(TABLE4, DISEASE, "equal"), rtol=1e-14)


def test_hierarchy_errors():
    with pytest.raises(ValueError, match="two parents"):
        t_closeness(TABLE4, DISEASE, "hierarchical", np.array([[0, 0]] * 5 + [[0, 1]] * 5))
    with pytest.raises(ValueError, match="no row in the hierarchy"):
        t_closeness(TABLE4, DISEASE, "hierarchical", DISEASE_TREE[:5])
    with pytest.raises(ValueError, match="only with the hierarchical"):
        t_closeness(TABLE4, DISEASE, "equal", DISEASE_TREE)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-1, 2), st.integers(-1, 9)), min_size=2, max_size=30),
       st.sampled_from(["hierarchical", "equal", "ordered"]))
def test_t_closeness_is_the_transport_optimum(records, distance):
    # the EMD by its definition (a linear programme over the flows) with the paper's
    # ground distances; suppressed records (-1) count in the table's distribution only
    classes = np.array([c for c, _ in records])
    codes = np.array([s for _, s in records])
    out = t_closeness(classes, codes, distance, DISEASE_TREE if distance == "hierarchical"
                      else None, n_classes=3)
    values = np.unique(codes[codes >= 0])
    if values.size < 2:
        assert (out == 0).all()
        return
    q = np.array([(codes == v).sum() for v in values]) / (codes >= 0).sum()
    m = values.size
    if distance == "hierarchical":
        ground = tree_distance(DISEASE_TREE)[np.ix_(values, values)]
    elif distance == "equal":
        ground = 1.0 - np.eye(m)
    else:
        ground = np.abs(np.subtract.outer(np.arange(m), np.arange(m))) / (m - 1)
    for c in range(3):
        sel = (classes == c) & (codes >= 0)
        if not sel.any():
            assert out[c] == 0
            continue
        p = np.array([(codes[sel] == v).sum() for v in values]) / sel.sum()
        assert out[c] == pytest.approx(lp_emd(p, q, ground), abs=1e-9)


def test_beta_likeness_by_hand():
    # Cao & Karras (2012), basic beta-likeness. Table: values 0 x4, 1 x4, 2 x2 -> p = (.4,
    # .4, .2). Class 0 = {0, 0, 2, 2}: q = (.5, 0, .5): gains (.5-.4)/.4 = .25 and
    # (.5-.2)/.2 = 1.5 -> 1.5. Class 1 = {0, 1, 1, 1, 1}: q = (.2, .8, 0): only value 1
    # gains: (.8 - .4)/.4 = 1. The suppressed record (-1, value 0) counts in p only.
    classes = np.array([0, 0, 0, 0, 1, 1, 1, 1, 1, -1])
    codes = np.array([0, 0, 2, 2, 0, 1, 1, 1, 1, 0])
    np.testing.assert_allclose(beta_likeness(classes, codes), [1.5, 1.0], rtol=1e-14)
    # a class with the table's distribution gains nothing
    assert beta_likeness(np.zeros(4, dtype=int), np.array([0, 1, 1, -1])).tolist() == [0.0]


def test_delta_presence_by_hand():
    # Nergiz, Atzori & Clifton (2007): p = |sample in class| / |population in class|.
    # Population: class 0 x4, class 1 x2, class 2 x3; sample: class 0 x1, class 1 x2:
    # 1/4, 1, and 0 for class 2 (no sample record)
    population = np.array([0, 0, 0, 0, 1, 1, 2, 2, 2])
    sample = np.array([0, 1, 1, -1])
    np.testing.assert_allclose(delta_presence(sample, population), [0.25, 1.0, 0.0])
    with pytest.raises(ValueError, match="part of the population"):
        delta_presence(np.array([1, 1, 1]), population)


def test_reidentification_risk_by_hand():
    # classes of 3, 1 and 2 records (and a suppressed one): 1/3, 1, 1/2; the average over
    # the 6 records is 3 classes / 6 records = (3 * 1/3 + 1 + 2 * 1/2) / 6 = 0.5
    classes = np.array([0, 0, 0, 1, 2, 2, -1])
    np.testing.assert_allclose(reidentification_risk(classes, n_classes=4),
                               [1 / 3, 1.0, 0.5, 0.0])
    assert average_reidentification_risk(classes) == 0.5
    assert average_reidentification_risk(np.array([-1, -1])) == 0.0


def test_bad_inputs():
    with pytest.raises(ValueError, match="integer class ids"):
        class_sizes(np.array([0.5, 1.0]))
    with pytest.raises(ValueError, match=">= 0"):
        class_sizes(np.array([0, -2]))
    with pytest.raises(ValueError, match="one per record"):
        beta_likeness(np.array([0, 1]), np.array([0]))
    with pytest.raises(ValueError, match="weights"):
        entropy_l_diversity(np.array([0, 1]), np.array([0, 1]), weights=np.array([1, -1]))
    # empty data: no class
    for f in (distinct_l_diversity, entropy_l_diversity, beta_likeness):
        assert f(np.zeros(0, dtype=int), np.zeros(0, dtype=int)).size == 0


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(-1, 3), st.integers(-1, 9), st.integers(0, 3)),
                min_size=1, max_size=25))
def test_integer_weights_are_repeated_records(records):
    # a record of weight w counts as w copies of it, in every weighted model
    classes = np.array([c for c, _, _ in records])
    codes = np.array([s for _, s, _ in records])
    w = np.array([k for _, _, k in records], dtype=float)
    rep = np.repeat(np.arange(len(records)), w.astype(int))
    for f in (entropy_l_diversity, beta_likeness):
        np.testing.assert_allclose(f(classes, codes, weights=w, n_classes=4),
                                   f(classes[rep], codes[rep], n_classes=4), atol=1e-12)
    np.testing.assert_allclose(recursive_l_diversity(classes, codes, 2, weights=w, n_classes=4),
                               recursive_l_diversity(classes[rep], codes[rep], 2, n_classes=4))
    for distance, tree in (("equal", None), ("ordered", None), ("hierarchical", DISEASE_TREE)):
        np.testing.assert_allclose(
            t_closeness(classes, codes, distance, tree, weights=w, n_classes=4),
            t_closeness(classes[rep], codes[rep], distance, tree, n_classes=4), atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(-1, 3), st.integers(-1, 5)), min_size=1, max_size=30))
def test_beta_likeness_against_its_definition(records):
    # Cao & Karras (2012): max over the values with q > p of (q - p) / p, p over every
    # record with an observed value (suppressed ones included), q within the class
    classes = np.array([c for c, _ in records])
    codes = np.array([s for _, s in records])
    out = beta_likeness(classes, codes, n_classes=4)
    seen = codes >= 0
    for c in range(4):
        sel = (classes == c) & seen
        expected = 0.0
        for v in np.unique(codes[sel]):
            p = (codes[seen] == v).mean()
            q = (codes[sel] == v).mean()
            if q > p:
                expected = max(expected, (q - p) / p)
        assert out[c] == pytest.approx(expected, rel=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=30), st.data())
def test_delta_presence_counts_the_sample(population, data):
    # any sub-multiset of the population: ratio x population count = sample count
    population = np.array(population)
    chosen = data.draw(st.lists(st.booleans(), min_size=population.size,
                                max_size=population.size))
    sample = population[np.array(chosen, dtype=bool)]
    delta = delta_presence(sample, population, n_classes=5)
    pop = np.bincount(population, minlength=5)
    np.testing.assert_allclose(delta * pop, np.bincount(sample, minlength=5), atol=1e-12)
    assert ((delta >= 0) & (delta <= 1)).all()
