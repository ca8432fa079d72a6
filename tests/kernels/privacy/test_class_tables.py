"""Class tables rolled up from a finer node's table (ARX's history, Kohlmayer et al.,
"Flash: efficient, stable and optimal k-anonymity", 2012) equal the classes computed
from the records at that node directly."""

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.privacy.class_tables import Generalisation, History
from sdcflow.kernels.privacy.lattice import generalise
from sdcflow.kernels.privacy.roll_up import sorted_positions
from sdcflow.kernels.risk.frequencies import row_ids


def nested(d, levels):
    """Codes 0..d-1 at level l: c // 2**l; the last level one code."""
    return np.array([np.arange(d) // 2**lv for lv in range(levels - 1)] + [np.zeros(d, int)])


def direct(codes, values, maps, node):
    """(class keys, class counts, each record's class, (class, value) pair counts) from
    the records."""
    gen = generalise(codes, maps, node)
    cls, rep = row_ids(gen)
    pairs, pair_rep = row_ids(np.column_stack([cls, values]))
    return (gen[rep], np.bincount(cls), cls,
            sorted(zip(cls[pair_rep].tolist(), values[pair_rep].tolist(),
                       np.bincount(pairs).tolist(), strict=True)))


def from_table(table, values):
    rows_value = values[table.rows]
    return (table.class_keys(), table.class_counts(),
            sorted(zip(table.row_class.tolist(), rows_value.tolist(), table.counts.tolist(),
                       strict=True)))


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 60))
def test_every_node_rolled_up_equals_its_classes_from_the_records(seed, n):
    rng = np.random.default_rng(seed)
    codes = np.column_stack([rng.integers(0, 8, n), rng.integers(0, 4, n)])
    values = rng.integers(-1, 3, n)  # -1: a missing sensitive value
    maps = [nested(8, 4), nested(4, 3)]
    history = History(codes, maps, values[:, None], max_rows=40)
    # visit the nodes in a scrambled order, so that tables roll up from various nodes
    nodes = list(itertools.product(range(4), range(3)))
    rng.shuffle(nodes)
    for node in nodes:
        table = history.table(tuple(node))
        keys, counts, _, pairs = direct(codes, values, maps, node)
        got_keys, got_counts, got_pairs = from_table(table, values)
        assert np.array_equal(got_keys, keys) and np.array_equal(got_counts, counts)
        assert got_pairs == pairs
        # each record's row of the bottom table leads to its class at the node
        assert table.counts.sum() == n


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 300), st.sampled_from([2, 5, 20, 40]))
def test_unit_classes_are_the_ids_of_the_generalised_keys(seed, n, m):
    # each unit's class at a node, its keys folded while generalised: the ids row_ids
    # gives the generalised codes (classes in the order of their keys), with few
    # variables (a table of the keys present), 20 (mostly radix-sorted) and 40 (8 codes
    # each: a span beyond 2**62 at low levels, grouped by sorts)
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 8, (n, m))
    maps = [nested(8, 4)] * m
    generalisation = Generalisation(maps)
    for _ in range(4):
        node = tuple(rng.integers(0, 4, m).tolist())
        want = row_ids(generalise(codes, maps, node))[0]
        assert np.array_equal(generalisation.unit_class(codes, node), want)


def test_classes_in_the_order_of_their_keys_and_scalar_keys_keep_it():
    # 4 records on the diagonal; at (1, 0) the first variable in pairs: classes
    # (0,0) (0,1) (1,2) (1,3); at (2, 2), the top, one class of 4
    codes = np.array([[3, 3], [2, 2], [1, 1], [0, 0]])
    maps = [nested(4, 3), nested(4, 3)]
    history = History(codes, maps)
    table = history.table((1, 0))
    assert table.class_keys().tolist() == [[0, 0], [0, 1], [1, 2], [1, 3]]
    assert table.class_counts().tolist() == [1, 1, 1, 1]
    scalar = history.scalar((1, 0), table.keys)
    assert (np.diff(scalar) > 0).all()
    top = history.table((2, 2))
    assert top.counts.tolist() == [4] and top.class_keys().tolist() == [[0, 0]]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 200))
def test_rolling_up_by_classes_gives_the_table_of_one_roll_up(seed, n):
    # a table with value columns is rolled up by its classes (then the values counted
    # in each new class) when its rows are many per class: the same table, array by
    # array (keys, values, counts, the record each row stands for, classes), as the
    # one-pass roll-up of its rows
    import sdcflow.kernels.privacy.class_tables as tables

    rng = np.random.default_rng(seed)
    codes = np.column_stack([rng.integers(0, 8, n), rng.integers(0, 4, n)])
    values = np.column_stack([rng.integers(-1, 3, n), rng.integers(0, 2, n)])
    maps = [nested(8, 4), nested(4, 3)]
    nodes = list(itertools.product(range(4), range(3)))
    rng.shuffle(nodes)
    two_steps = History(codes, maps, values)
    one_pass = History(codes, maps, values)
    dense = tables.MAX_DENSE
    for node in nodes:
        got = two_steps.table(tuple(node))
        try:
            tables.MAX_DENSE = 0  # (no roll-up by classes)
            expected = one_pass.table(tuple(node))
        finally:
            tables.MAX_DENSE = dense
        for name in ("keys", "values", "counts", "rows", "row_class"):
            assert np.array_equal(getattr(got, name), getattr(expected, name)), name
        assert got.n_classes == expected.n_classes


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 60))
def test_sorted_positions_finds_each_row_where_a_search_by_hand_does(seed, n):
    # delta-presence's merge of the data's class keys into the population's: each row's
    # position among the table's distinct sorted rows, as a dictionary of them tells;
    # None as soon as one row is missing or the rows are out of order
    rng = np.random.default_rng(seed)
    table = np.unique(rng.integers(0, 4, size=(n, 3)), axis=0)
    where = {tuple(r): i for i, r in enumerate(table.tolist())}
    chosen = np.sort(rng.choice(len(table), size=rng.integers(0, len(table) + 1),
                                replace=False)) if len(table) else np.zeros(0, int)
    keys = table[chosen].reshape(-1, 3)
    assert sorted_positions(keys, table).tolist() == [where[tuple(r)] for r in keys.tolist()]
    missing = np.array([[4, 0, 0]])  # (no code 4 in the table)
    assert sorted_positions(np.vstack([keys, missing]), table) is None
    if len(keys) > 1:  # out of order: not found by the merge
        assert sorted_positions(keys[::-1], table) is None


def test_the_keys_history_found_from_the_values_history_is_the_one_from_the_records():
    # History.by_keys derives the keys-only rows from the (keys, values) rows: the same
    # record rows, keys, counts and representatives as grouping the records again
    rng = np.random.default_rng(3)
    for _ in range(200):
        n, m = int(rng.integers(1, 60)), int(rng.integers(1, 4))
        codes = rng.integers(0, 4, size=(n, m))
        maps = [np.array([np.arange(4), np.arange(4) // 2, np.zeros(4, dtype=np.int64)])] * m
        values = rng.integers(0, 3, size=(n, 2))
        fresh = History(codes, maps)
        derived = History(codes, maps, values).by_keys(codes)
        assert derived.record_row.tolist() == fresh.record_row.tolist()
        assert derived.bottom.keys.tolist() == fresh.bottom.keys.tolist()
        assert derived.bottom.counts.tolist() == fresh.bottom.counts.tolist()
        assert codes[derived.bottom.rows].tolist() == codes[fresh.bottom.rows].tolist()
