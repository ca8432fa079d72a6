"""Controlled rounding (sdcflow.tabular.controlled_rounding): a worked example by hand,
the defining properties (multiples of the base, one of the two neighbours, totals
additive, zero-restricted) and optimality against brute force on tiny tables."""

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sdcflow.tabular import table_from_cells
from sdcflow.tabular.controlled_rounding import NoControlledRounding, controlled_rounding
from sdcflow.tabular.hierarchy import aggregate


def frequency_table(counts: np.ndarray):
    """A frequency table with margins from the inner counts (any number of dimensions)."""
    names = [f"d{k}" for k in range(counts.ndim)]
    rows = [{**{n: f"{n}_{i}" for n, i in zip(names, idx)}, "freq": int(counts[idx])}
            for idx in itertools.product(*map(range, counts.shape))]
    return table_from_cells(pd.DataFrame(rows), names, value=None)


def brute_force(table, base: float) -> float | None:
    """The least total change over every up/down choice of the inner cells (the margins
    follow from them and must each be one of their own two neighbouring multiples), or
    None when no choice is a controlled rounding."""
    a = table.values
    leaf = table.margin_dims == 0
    down = np.floor(a / base) * base
    exact = np.isclose(a, down)
    free = np.flatnonzero(leaf & ~exact)
    best = None
    for choice in itertools.product((0, 1), repeat=len(free)):
        y = np.where(leaf, down, 0.0)
        y[free] += base * np.asarray(choice)
        full = y.reshape(table.shape)
        aggregate(table.dimensions, [full])
        y = full.reshape(-1)
        ok = np.where(exact, np.isclose(y, a), np.isclose(y, down) | np.isclose(y, down + base))
        if ok.all():
            d = float(np.abs(y - a).sum())
            best = d if best is None else min(best, d)
    return best


def test_worked_example_two_by_two_base_five():
    # by hand: rows a = (3, 8 | 11), b = (6, 4 | 10), columns (9, 12 | 21), base 5.
    # Row b's total 10 is a multiple and stays, so b is (5, 5) (change 2) or (10, 0)
    # (change 8); of the four roundings of row a only a = (5, 5) with b = (5, 5) gives
    # totals that are neighbours of their own values: (10, 10 | 20), change
    # 2 + 3 + 1 | 1 + 1 + 0 | 1 + 2 + 1 = 12 (the others: 18, 18 and 19)
    t = frequency_table(np.array([[3, 8], [6, 4]]))
    res = controlled_rounding(t.values, t.relations, 5)
    got = t.with_values(res.values).pivot("value", rows="d0", cols="d1")
    assert got.to_numpy().tolist() == [[5, 5, 10], [5, 5, 10], [10, 10, 20]]
    assert res.distance == 12 and res.optimal
    assert brute_force(t, 5) == 12
    # 10 (row b's total) is the only multiple and the only cell left alone
    assert (~res.up & ~res.down).sum() == 1


def test_a_three_dimensional_table_without_controlled_rounding_is_reported():
    # ones on the four cells of even parity of a 2 x 2 x 2 table, base 2: every face sums
    # to 2 (a multiple, kept) so exactly one of its two ones goes up; with u1..u4 the
    # cells 000, 011, 101, 110 that is u1 + u2 = u3 + u4 = u1 + u3 = u2 + u4 = u1 + u4 =
    # u2 + u3 = 1, whence u2 = u3 and 2 u2 = 1: no rounding (Causey, Cox & Ernst 1985
    # show such three-dimensional tables exist)
    counts = np.zeros((2, 2, 2), dtype=int)
    for i, j, k in itertools.product(range(2), repeat=3):
        counts[i, j, k] = (i + j + k) % 2 == 0
    t = frequency_table(counts)
    assert brute_force(t, 2) is None
    with pytest.raises(NoControlledRounding, match="no controlled rounding to base 2"):
        controlled_rounding(t.values, t.relations, 2)


def test_subtotals_in_both_dimensions_can_leave_no_rounding():
    # found by a random search and confirmed by brute force over the 2^8 choices of its
    # odd inner cells: a 4 x 4 table, rows and columns in two groups of two, base 2
    counts = [[4, 1, 5, 3], [2, 2, 5, 0], [0, 1, 3, 2], [1, 2, 2, 1]]
    rows = [{"r": f"a{i + 1}", "c": f"b{j + 1}", "freq": counts[i][j]}
            for i in range(4) for j in range(4)]
    hierarchies = {"r": {"a1": "A", "a2": "A", "a3": "B", "a4": "B", "A": "T", "B": "T"},
                   "c": {"b1": "X", "b2": "X", "b3": "Y", "b4": "Y", "X": "T", "Y": "T"}}
    t = table_from_cells(pd.DataFrame(rows), ["r", "c"], hierarchies, value=None)
    assert brute_force(t, 2) is None
    with pytest.raises(NoControlledRounding, match="with subtotals"):
        controlled_rounding(t.values, t.relations, 2)
    # ... while base 3 has one, as brute force finds it
    assert controlled_rounding(t.values, t.relations, 3).distance == brute_force(t, 3)


def test_multiples_stay_and_values_are_checked():
    t = frequency_table(np.array([[10, 5], [0, 20]]))
    res = controlled_rounding(t.values, t.relations, 5)
    assert np.array_equal(res.values, t.values) and res.distance == 0
    with pytest.raises(ValueError, match="positive"):
        controlled_rounding(t.values, t.relations, 0)
    bad = t.values.copy()
    bad[0] += 1  # a cell no longer adding up to its row
    with pytest.raises(ValueError, match="do not add up"):
        controlled_rounding(bad, t.relations, 5)


def test_magnitudes_with_decimals_and_a_hierarchy():
    # a hierarchical magnitude table: decimals, base 100, a region level above towns
    cells = pd.DataFrame({"town": ["t1", "t2", "t3", "t1", "t2", "t3"],
                          "job": ["a", "a", "a", "b", "b", "b"],
                          "freq": [3, 4, 5, 6, 7, 8],
                          "value": [120.5, 349.25, 99.9, 1000.0, 250.1, 75.0]})
    hierarchy = {"t1": "north", "t2": "north", "t3": "south", "north": "Total",
                 "south": "Total"}
    t = table_from_cells(cells, ["town", "job"], {"town": hierarchy})
    res = controlled_rounding(t.values, t.relations, 100)
    y, a = res.values, t.values
    assert np.allclose(y / 100, np.round(y / 100))
    assert np.all(np.abs(y - a) < 100)
    assert np.allclose(t.relations @ y, 0)
    assert res.distance == pytest.approx(brute_force(t, 100))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 3), st.integers(2, 3), st.integers(2, 6), st.data())
def test_properties_and_optimality_on_random_tables(rows, cols, base, data):
    # two-dimensional tables always have a controlled rounding (Cox & Ernst 1982)
    counts = np.array(data.draw(st.lists(st.integers(0, 20), min_size=rows * cols,
                                         max_size=rows * cols))).reshape(rows, cols)
    t = frequency_table(counts)
    res = controlled_rounding(t.values, t.relations, base)
    y, a = res.values, t.values
    assert np.all(y % base == 0)  # multiples of the base
    assert np.all((y == np.floor(a / base) * base) | (y == np.ceil(a / base) * base))
    assert np.all(y[a % base == 0] == a[a % base == 0])  # zero-restricted
    assert np.array_equal(t.relations @ y, np.zeros(t.relations.shape[0]))  # additive
    assert res.distance == pytest.approx(np.abs(y - a).sum())
    assert res.distance == pytest.approx(brute_force(t, base))  # least change
