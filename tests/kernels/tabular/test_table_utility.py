"""Utility of a protected table against the original, whatever protected it
(sdcflow.kernels.tabular.table_utility); every expected value worked out by hand from the
definitions in the module docstring."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.tabular.table_utility import size_class_labels, size_classes, table_utility

#: eight cells of a frequency table (original count = size): a zero made 1 (a false
#: positive), a 1 made 0 (a false zero), a 1 kept, a 2 suppressed, a 3 made 4, a 6
#: suppressed, a 12 made 10, a 40 kept
ORIG = [0, 1, 1, 2, 3, 6, 12, 40]
PUB = [1, 0, 1, np.nan, 4, np.nan, 10, 40]
SUP = [False, False, False, True, False, True, False, False]


def test_classes_of_cell_size():
    assert size_class_labels([3, 5, 10, 20, 50, 100]) == \
        ["0", "1-2", "3-4", "5-9", "10-19", "20-49", "50-99", "100+"]
    assert size_class_labels([2, 3]) == ["0", "1", "2", "3+"]
    assert size_classes(np.array([0, 1, 2, 3, 4, 5, 99, 100, 5000]),
                        [3, 5, 10, 20, 50, 100]).tolist() == [0, 1, 1, 2, 2, 3, 6, 7, 7]


def test_a_table_worked_out_by_hand():
    got = table_utility(ORIG, PUB, SUP, ORIG, bounds=[3, 5, 10])
    assert (got["cells"], got["published"], got["suppressed"]) == (8, 6, 2)
    assert got["share_suppressed"] == 2 / 8
    # published errors: 1, 1, 0, 1, 2, 0 (the suppressed cells have none)
    assert got["l1"] == 5 and got["mean_abs_error"] == pytest.approx(5 / 6)
    assert got["l2"] == pytest.approx(math.sqrt(1 + 1 + 1 + 4))
    assert got["changed"] == 4 and got["share_changed"] == 4 / 8
    # relative errors of the published cells with o > 0: 1/1, 0/1, 1/3, 2/12, 0/40
    assert got["mean_rel_error"] == pytest.approx((1 + 1 / 3 + 1 / 6) / 5)
    assert got["false_zero"] == 1 and got["false_positive"] == 1
    # share lost per cell: 1 (zero made 1), 1, 0, 1 (suppressed), 1/3, 1 (suppressed),
    # 1/6, 0
    assert got["loss_percent"] == pytest.approx(100 * (4 + 1 / 3 + 1 / 6) / 8)
    # cells of size 1: two, one published exactly (Shlomo, Tudor & Groom's risk)
    assert got["small_cells_exact"] == {"small": 1, "cells": 2, "exact": 1, "percent": 50.0}
    by = got["by_size"]
    assert list(by) == ["0", "1-2", "3-4", "5-9", "10+"]
    assert by["0"] == {"cells": 1, "suppressed": 0, "exact": 0, "mean_abs_error": 1.0,
                       "max_abs_error": 1.0, "mean_rel_error": None}
    # 1-2: the 1 made 0 (error 1), the 1 kept (0), the 2 suppressed (no error)
    assert by["1-2"] == {"cells": 3, "suppressed": 1, "exact": 1, "mean_abs_error": 0.5,
                         "max_abs_error": 1.0, "mean_rel_error": 0.5}
    assert by["3-4"]["mean_rel_error"] == pytest.approx(1 / 3)
    # 5-9: its one cell suppressed: no error to give
    assert by["5-9"] == {"cells": 1, "suppressed": 1, "exact": 0, "mean_abs_error": None,
                         "max_abs_error": None, "mean_rel_error": None}
    assert by["10+"]["mean_abs_error"] == 1.0 and by["10+"]["exact"] == 1
    assert by["10+"]["mean_rel_error"] == pytest.approx((2 / 12 + 0) / 2)


def test_small_cells_up_to_two_and_sizes_apart_from_values():
    # a weighted table: values are weighted counts, sizes the numbers of contributors
    got = table_utility([0, 10.0, 25.0, 31.0], [0, 10.0, 20.0, 31.0], [False] * 4,
                        [0, 1, 2, 3], bounds=[3], small=2)
    assert got["small_cells_exact"]["cells"] == 2 and got["small_cells_exact"]["exact"] == 1
    assert got["by_size"]["1-2"]["mean_rel_error"] == pytest.approx((0 + 5 / 25) / 2)


def test_an_untouched_table_loses_nothing_and_publishes_every_small_cell():
    o = [0, 1, 2, 5]
    got = table_utility(o, o, [False] * 4, o)
    assert got["l1"] == 0 and got["loss_percent"] == 0 and got["changed"] == 0
    assert got["small_cells_exact"]["percent"] == 100.0


def test_a_table_all_suppressed_has_no_error_but_loses_everything():
    got = table_utility([1, 2], [np.nan, np.nan], [True, True], [1, 2])
    assert got["published"] == 0 and got["l1"] == 0 and got["mean_abs_error"] is None
    assert got["loss_percent"] == 100 and got["small_cells_exact"]["percent"] == 0.0


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="one length"):
        table_utility([1, 2], [1], [False, False], [1, 2])
    with pytest.raises(ValueError, match="non-negative"):
        table_utility([1, 2], [1, -2], [False, False], [1, 2])
    with pytest.raises(ValueError, match="non-negative"):
        table_utility([-1, 2], [1, 2], [False, False], [1, 2])
    # a published cell without a value
    with pytest.raises(ValueError, match="non-negative"):
        table_utility([1, 2], [1, np.nan], [False, False], [1, 2])
    with pytest.raises(ValueError, match="increase"):
        table_utility([1], [1], [False], [1], bounds=[5, 3])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60), st.booleans()),
                min_size=1, max_size=40))
def test_invariants(cells):
    o = np.array([a for a, _, _ in cells], dtype=float)
    p = np.array([b for _, b, _ in cells], dtype=float)
    sup = np.array([s for _, _, s in cells])
    got = table_utility(o, p, sup, o)
    # the classes hold every cell once; the suppressed and exact ones add up
    by = got["by_size"].values()
    assert sum(c["cells"] for c in by) == got["cells"] == len(o)
    assert sum(c["suppressed"] for c in by) == got["suppressed"] == int(sup.sum())
    assert sum(c["exact"] for c in by) == int(((p == o) & ~sup).sum())
    # L1 is over the published cells only; a suppressed cell loses all of it
    assert got["l1"] == pytest.approx(float(np.abs(p - o)[~sup].sum()))
    assert 100 * got["share_suppressed"] <= got["loss_percent"] + 1e-9 <= 100 + 1e-9
    # suppressing more never lowers the loss
    more = table_utility(o, p, np.ones(len(o), dtype=bool), o)
    assert more["loss_percent"] >= got["loss_percent"] - 1e-9
