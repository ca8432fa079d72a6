"""The monotone relaxations the lattice search tags with when suppression makes a
target not monotone. t-closeness: at least ``sum over classes of s * max(0, EMD - t) /
(D - t)`` records are suppressed (``D`` the EMD of a class of one value alone, the
largest); delta-presence: at least ``sum over classes of max(0, s - delta_max * P) / (1
- delta_max)`` (``P`` the class's population); and neither sum grows from a node to the
node above. Checked by hand (Li, Li & Venkatasubramanian 2007's equal distance; Nergiz,
Atzori & Clifton 2007's shares) and on random tables (the three distances); the
search's optimality with them is checked against brute force here (ordered distance),
in test_lattice.py and in test_model_targets.py."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.privacy.lattice import Partition, generalise, search, t_closeness_target
from sdcflow.kernels.privacy.model_targets import delta_presence_target

# the sensitive codes 0 1 2 3 grouped {0, 1} and {2, 3}, then the root (height 2)
TREE = np.array([[0], [0], [1], [1]])


def interval_maps(d, levels):
    """Level l maps a code c to c >> l, the top level to 0."""
    out = [np.arange(d) >> lv for lv in range(levels - 1)]
    out.append(np.zeros(d, dtype=np.int64))
    return np.array(out)


def partition_at(codes, maps, node):
    """The node's classes with each record's class (one group per record)."""
    keys, record_class, counts = np.unique(generalise(codes, maps, node), axis=0,
                                           return_inverse=True, return_counts=True)
    return Partition(counts, record_class.ravel(), keys, tuple(node))


def test_t_closeness_excess_bound_by_hand():
    # One key a = 0 1 2 3 (levels: codes, pairs, all), sensitive s = 0 0 0 1: the whole
    # table's distribution (3/4, 1/4). Equal distance, EMD = 0.5 sum |q - p|: a class of
    # value 0 alone 0.25, of value 1 alone 0.75 = D. t = 0.2. Level 0: four classes of
    # one record, all failing (4 suppressed); excess 3 * 0.05 + 1 * 0.55 = 0.7, bound
    # 0.7 / 0.55 = 1.27. Level 1: {0, 0} (EMD 0.25) and {0, 1} (q = 1/2 1/2: EMD 0.25),
    # both failing (4 suppressed); excess 2 * 0.05 + 2 * 0.05 = 0.2, bound 0.36. Level
    # 2: the whole table, EMD 0: bound 0, nothing suppressed.
    codes = np.array([[0], [1], [2], [3]])
    s = np.array([0, 0, 0, 1])
    maps = [interval_maps(4, 3)]
    target = t_closeness_target(s, 0.2, "equal")
    bound = target.relaxed.suppresses_at_least
    assert target.relaxed.monotone(True) and not target.monotone(True)
    for level, expected, suppressed in [(0, 0.7 / 0.55, 4), (1, 0.2 / 0.55, 4),
                                        (2, 0.0, 0)]:
        part = partition_at(codes, maps, (level,))
        assert bound(part) == pytest.approx(expected, abs=1e-8)
        assert part.counts[~target.classes_ok(part)].sum() == suppressed
    # 1 of 4 records may be suppressed: level 0 fails by the bound (1.27 > 1) and
    # level 1 by its classes; the search finds level 2
    r = search(codes, maps, [target], "precision", suppression_limit=0.25)
    assert r.node == (2,) and not r.suppressed.any()
    # a table of one value: every class has EMD 0 = D, no bound
    assert t_closeness_target(np.zeros(4, dtype=np.int64), 0.2).relaxed is None


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)),
                     min_size=4, max_size=16),
       t=st.sampled_from([0.05, 0.2, 0.4]),
       distance=st.sampled_from(["equal", "ordered", "hierarchical"]))
def test_t_closeness_excess_bounds_the_suppressed_and_never_grows(rows, t, distance):
    data = np.array(rows)
    codes, s = data[:, :2], data[:, 2]
    maps = [interval_maps(4, 3)] * 2
    target = t_closeness_target(s, t, distance, TREE if distance == "hierarchical" else None)
    if target.relaxed is None or target.relaxed.suppresses_at_least is None:
        return  # (one value alone: no class can fail)
    assert_bound_below_suppressed_and_never_growing(codes, maps, target)


def assert_bound_below_suppressed_and_never_growing(codes, maps, target):
    """At every node of two variables of three levels: the relaxation's bound is at
    most the records the target suppresses, and no larger one level up."""
    bound = target.relaxed.suppresses_at_least
    for node in itertools.product(range(3), range(3)):
        part = partition_at(codes, maps, node)
        excess = bound(part)
        assert excess <= part.counts[~target.classes_ok(part)].sum() + 1e-9
        for j in range(2):
            if node[j] < 2:
                up = tuple(v + (i == j) for i, v in enumerate(node))
                assert bound(partition_at(codes, maps, up)) <= excess + 1e-9


def ordered_emd(q, p):
    # Li et al. 2007, section 4.2: the ordered distance's EMD over the m observed
    # values, sum over i of |sum_{j <= i} (q_j - p_j)| / (m - 1)
    return np.abs(np.cumsum(q - p)).sum() / (len(p) - 1)


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)),
                     min_size=4, max_size=14),
       t=st.sampled_from([0.1, 0.2, 0.3]), limit=st.sampled_from([0.1, 0.25, 0.4]))
def test_ordered_t_closeness_search_with_suppression_is_optimal(rows, t, limit):
    # brute force over every node (precision: the mean level share, a suppressed
    # record charged 1), the EMD from its definition on the observed values' ranks
    data = np.array(rows)
    codes, s = data[:, :2], data[:, 2]
    n = len(s)
    maps = [interval_maps(4, 3)] * 2
    values = np.unique(s)
    if len(values) < 2:
        return
    whole = np.array([(s == v).mean() for v in values])
    best = None
    for node in itertools.product(range(3), range(3)):
        gen = generalise(codes, maps, node)
        suppressed = 0
        for key in {tuple(r) for r in gen.tolist()}:
            rows_in = (gen == key).all(axis=1)
            q = np.array([(s[rows_in] == v).mean() for v in values])
            if ordered_emd(q, whole) > t + 1e-9:
                suppressed += int(rows_in.sum())
        if suppressed > int(np.floor(limit * n + 1e-9)):
            continue
        value = ((n - suppressed) * np.mean([v / 2 for v in node]) + suppressed) / n
        if best is None or value < best - 1e-9:
            best = value
    r = search(codes, maps, [t_closeness_target(s, t, "ordered")], "precision",
               suppression_limit=limit)
    assert (r.loss is None) == (best is None)
    if best is not None:
        assert r.loss == pytest.approx(best)


def test_tagging_gives_up_a_costly_bound_that_never_fails():
    # A bound read from records (t-closeness's excess) costs a roll-up with values: once
    # it has failed fewer than 1 in TAG_YIELD of TAG_TRIAL nodes that its cheap
    # relaxation passed, predictive tagging uses the cheap one alone (still a monotone
    # condition of every node meeting the targets); a bound that fails keeps being read
    from sdcflow.kernels.privacy.class_tables import History
    from sdcflow.kernels.privacy.lattice import TAG_TRIAL, Target, _Partitions, _Tagging

    codes = np.array([[0], [1], [2], [3]])
    maps = [interval_maps(4, 3)]
    history = History(codes, maps)
    with_values = History(codes, maps, np.zeros((4, 1), dtype=np.int64))
    reads = []

    def bound_of(value):
        def bound(p):
            reads.append(p.node)
            return value
        return bound

    for value, kept in [(0.0, False), (5.0, True)]:
        reads.clear()
        target = Target("costly", lambda p: np.ones(len(p.counts), dtype=bool),
                        monotone_with_suppression=True, needs_records=True,
                        values=np.zeros(4), suppresses_at_least=bound_of(value))
        tag = _Tagging(lambda node: _Partitions(node, history, with_values, False, 4),
                       [target], allowed=1)
        results = [tag((level,)) for level in [0, 1, 2] * TAG_TRIAL]
        assert tag.trying is kept
        assert len(reads) == (3 * TAG_TRIAL if kept else TAG_TRIAL)
        assert results == [not kept] * (3 * TAG_TRIAL)


def test_delta_presence_excess_over_delta_max_by_hand():
    # Sample codes 0 1 1, population 0 0 0 0 1 1 2 2 (one key; levels: codes, pairs,
    # all), delta_max 0.25. Level 0: class 0 holds 1 of 4 (0.25, meets), class 1 2 of 2
    # (1, fails: 2 records suppressed); excess max(0, 1 - 0.25 * 4) + max(0, 2 - 0.25 *
    # 2) = 0 + 1.5, over 1 - 0.25: 2, at most the 2 suppressed. Level 1: {0,1} 3 of 6
    # (0.5, fails, 3 suppressed), excess 3 - 1.5 = 1.5: 2; level 2: 3 of 8, excess 3 - 2
    # = 1: 4/3: never more than below, though the suppressed records grow from 2 to 3.
    codes = np.array([[0], [1], [1]])
    population = np.array([[0]] * 4 + [[1]] * 2 + [[2]] * 2)
    maps = [interval_maps(4, 3)]
    target = delta_presence_target(population, maps, 0.0, 0.25)
    bound = target.relaxed.suppresses_at_least
    assert target.relaxed.monotone(True) and not target.monotone(True)
    for level, excess, suppressed in [(0, 2.0, 2), (1, 2.0, 3), (2, 4 / 3, 3)]:
        part = partition_at(codes, maps, (level,))
        assert bound(part) == pytest.approx(excess)
        assert part.counts[~target.classes_ok(part)].sum() == suppressed
    # with 1 of 3 records allowed the bound (2, 2, 4/3) fails every level: no node
    assert search(codes, maps, [target], "precision", suppression_limit=1 / 3).node is None
    assert search(codes, maps, [target], "precision", suppression_limit=2 / 3).node == (0,)


@settings(max_examples=40, deadline=None)
@given(data=st.integers(2, 4).flatmap(lambda d: st.tuples(
           st.just(d), st.lists(st.tuples(*[st.integers(0, d - 1)] * 2), min_size=4,
                                max_size=12))),
       extra=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=12),
       high=st.sampled_from([0.2, 0.34, 0.5, 0.75]), low=st.sampled_from([0.0, 0.1]))
def test_delta_presence_excess_bounds_the_suppressed_and_never_grows(data, extra, high,
                                                                     low):
    # The relaxation's condition for predictive tagging: the excess (the sum over
    # classes of max(0, sample - delta_max * population)) is at most the records the
    # target suppresses, and at a node one level up (classes merged: their counts
    # added, and max(0, a + b) <= max(0, a) + max(0, b)) it is never larger
    d, rows = data
    codes = np.array(rows)
    population = np.array(rows + [(a % d, b % d) for a, b in extra])
    maps = [interval_maps(d, 3)] * 2
    target = delta_presence_target(population, maps, low, high)
    assert_bound_below_suppressed_and_never_growing(codes, maps, target)
