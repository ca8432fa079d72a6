"""The joint class tables of the data and its population (delta-presence's classes; the
data's alone for k-anonymity): each node's table is the group-by of the population's
records with the data's counted beside (checked against a dict built from the
records); the search on them takes the same
decisions as the targets' own checks (the same node, loss, suppressed records and nodes
checked, for every loss and way of charging suppression); and they are used only where
they apply."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.privacy import lattice
from sdcflow.kernels.privacy.joint_tables import (
    JointNode,
    joint_checks,
    joint_history,
    packing,
)
from sdcflow.kernels.privacy.lattice import (
    k_anonymity,
    l_diversity_target,
    search,
)
from sdcflow.kernels.privacy.model_targets import delta_presence_target


def interval_maps(d, levels):
    """Level l maps a code c to c >> l, the top level to 0."""
    out = [np.arange(d) >> lv for lv in range(levels - 1)]
    out.append(np.zeros(d, dtype=np.int64))
    return np.array(out)


def unpack(keys, history):
    """The packed keys' codes (G x m)."""
    return np.column_stack([(keys >> s) & k for s, k in
                            zip(history.shifts.tolist(), history.masks.tolist(), strict=True)])


# a population of records (3 variables, codes 0..5) and the data: some of its records
population_rows = st.lists(st.tuples(*[st.integers(0, 5)] * 3), min_size=1, max_size=40)


@st.composite
def population_and_data(draw):
    rows = draw(population_rows)
    chosen = draw(st.lists(st.booleans(), min_size=len(rows), max_size=len(rows)))
    if not any(chosen):
        chosen[0] = True
    population = np.array(rows, dtype=np.int64)
    return population, population[np.array(chosen)]


MAPS = [interval_maps(6, 4)] * 3
NODES = list(itertools.product(range(4), repeat=3))


@settings(max_examples=60, deadline=None)
@given(both=population_and_data(), order=st.permutations(NODES))
def test_each_node_s_table_is_the_group_by_of_population_and_data(both, order):
    population, data = both
    history = joint_history(data, population, MAPS)
    for node in order[:20]:  # (each rolled up from whatever is stored below it)
        table = history.joint(node)
        expected = {}
        for rows, count in ((population, (1, 0)), (data, (0, 1))):
            for row in rows:
                key = tuple(int(MAPS[j][node[j]][row[j]]) for j in range(3))
                p, s = expected.get(key, (0, 0))
                expected[key] = (p + count[0], s + count[1])
        got = {tuple(k): (int(p), int(s)) for k, p, s in
               zip(unpack(table.keys, history).tolist(), table.counts, table.sample,
                   strict=True)}
        assert got == expected


targets_drawn = st.tuples(
    st.sampled_from([None, (0.0, 0.2), (0.0, 0.5), (0.1, 0.6), (0.3, 1.0)]),
    st.sampled_from([None, 2, 3]))
losses = st.sampled_from([
    ("precision", "full"), ("precision", "arx_monotonic"), ("discernibility", "full"),
    ("discernibility", "arx_monotonic"), ("non_uniform_entropy", "full"),
    ("non_uniform_entropy", "arx_monotonic"), ("non_uniform_entropy", "arx_non_monotonic"),
    ("average_class_size", "full"), ("normalized_average_class_size", "full")])


@settings(max_examples=120, deadline=None)
@given(both=population_and_data(), drawn=targets_drawn, loss=losses,
       limit=st.sampled_from([0.0, 0.1, 0.3]))
def test_the_search_on_joint_tables_decides_as_the_targets_do(both, drawn, loss, limit):
    population, data = both
    bounds, k = drawn

    def run():
        # (no delta-presence: k-anonymity alone, on the data's classes as joint tables)
        targets = [] if bounds is None else [delta_presence_target(population, MAPS,
                                                                    *bounds)]
        if k is not None or bounds is None:
            targets.append(k_anonymity(k or 2))
        return search(data, MAPS, targets, loss[0], suppression_loss=loss[1],
                      suppression_limit=limit, k=k or 1)

    used = []
    real = lattice.joint_checks

    def spy(*args):
        used.append(real(*args))
        return used[-1]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lattice, "joint_checks", spy)
        joint = run()
        assert used and used[-1] is not None  # (the joint tables were used)
        patch.setattr(lattice, "joint_checks", lambda *args: None)
        alone = run()
    assert joint.node == alone.node
    assert joint.loss == alone.loss  # (the same floats: the same classes, summed exactly)
    assert joint.checked == alone.checked
    if alone.node is not None:
        assert joint.suppressed.tolist() == alone.suppressed.tolist()
        assert joint.record_class.tolist() == alone.record_class.tolist()


@settings(max_examples=60, deadline=None)
@given(both=population_and_data(), node=st.sampled_from(NODES),
       k=st.integers(1, 3))
def test_units_of_failing_classes_are_found_by_their_keys(both, node, k):
    population, data = both
    checks = joint_checks([k_anonymity(k), delta_presence_target(population, MAPS,
                                                                 0.0, 0.5)], data, MAPS)
    part = checks(node)
    assert isinstance(part, JointNode)
    rules = part.rules([k_anonymity(k)])
    ok, _ = part.check(rules, len(data), False)
    units = np.unique(data, axis=0)
    failing = part.suppressed_units(units, ok)
    # by hand: a unit's class at the node, its data records, whether it has k of them
    for unit, fails in zip(units.tolist(), failing.tolist(), strict=True):
        key = [MAPS[j][node[j]][unit[j]] for j in range(3)]
        size = sum(all(MAPS[j][node[j]][row[j]] == key[j] for j in range(3))
                   for row in data.tolist())
        assert fails == (size < k)


def test_a_node_s_check_on_its_joint_table_worked_by_hand():
    # population: (0,0,0) x3, (1,0,0) x2; data: one (0,0,0) and both (1,0,0); at the
    # bottom the classes hold 1/3 and 2/2 of the population: with delta_max 0.5 the
    # second fails, its 2 records suppressed; its excess: 2 * (1 - 0.5 / 1) / 0.5 = 2
    population = np.array([[0, 0, 0]] * 3 + [[1, 0, 0]] * 2)
    data = np.array([[0, 0, 0], [1, 0, 0], [1, 0, 0]])
    target = delta_presence_target(population, MAPS, 0.0, 0.5)
    checks = joint_checks([target], data, MAPS)
    bottom = checks((0, 0, 0))
    sizes, ok, suppressed, excess, absent = bottom.summary(bottom.rules([target]))
    assert sorted(zip(sizes.tolist(), ok.tolist())) == [(1, True), (2, False)]
    assert (suppressed, absent) == (2, 0)
    assert excess / 0.5 == pytest.approx(2.0)
    assert bottom.check(bottom.rules([target]), 2, False)[1]
    assert not bottom.check(bottom.rules([target]), 1, False)[1]
    # the relaxation (tagging): every class meets it, the excess 2 > 1 fails the node
    relaxed = bottom.rules([target.relaxed])
    assert not bottom.check(relaxed, 1, False)[1] and bottom.check(relaxed, 2, False)[1]
    # one level up in the first variable: one class, 3 of 5 = 0.6 > 0.5: all suppressed
    up = checks((1, 0, 0))
    sizes, ok, suppressed, _, _ = up.summary(up.rules([target]))
    assert sizes.tolist() == [3] and ok.tolist() == [False] and suppressed == 3


def test_joint_tables_apply_only_to_class_size_targets_on_one_population():
    population = np.array([[0, 0, 0], [1, 1, 1], [2, 2, 2]])
    data = population[:2]
    delta = delta_presence_target(population, MAPS, 0.0, 0.5)
    assert joint_checks([delta, k_anonymity(2)], data, MAPS) is not None
    # no population: k-anonymity alone on the data's classes, each its own population
    alone = joint_checks([k_anonymity(2)], data, MAPS)
    assert alone is not None
    table = alone((0, 0, 0)).table
    assert table.counts.tolist() == table.sample.tolist() == [1, 1]
    # a target reading records
    sensitive = np.array([0, 1])
    assert joint_checks([delta, l_diversity_target(sensitive, 2)], data, MAPS) is None
    # two populations
    other = delta_presence_target(population.copy(), MAPS, 0.0, 0.5)
    assert joint_checks([delta, other], data, MAPS) is None
    # data not part of the population: a key it lacks, or a key more often in the data
    assert joint_history(np.array([[3, 3, 3]]), population, MAPS) is None
    assert joint_history(np.array([[0, 0, 0]] * 2), population, MAPS) is None
    # codes too wide to pack in one integer
    wide = [np.array([np.arange(1 << 21), np.zeros(1 << 21, dtype=np.int64)])] * 3
    assert packing(wide) is None
    assert packing(MAPS) is not None


def test_data_not_part_of_the_population_is_refused_as_without_joint_tables():
    # the data holds a key the population lacks: no joint tables, and the targets' own
    # check says what is wrong
    population = np.array([[0, 0, 0], [0, 0, 0], [1, 1, 1]])
    data = np.array([[0, 0, 0], [5, 5, 5]])
    assert joint_history(data, population, MAPS) is None
    with pytest.raises(ValueError, match="must be part of the population"):
        search(data, MAPS, [delta_presence_target(population, MAPS, 0.0, 0.5)],
               "precision", suppression_limit=0.5)
