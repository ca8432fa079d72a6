"""Utility of perturbed count tables (sdcflow.kernels.tabular.perturbation_utility), as
cellKey's ck_cnt_measures defines it; expected values computed by hand."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdcflow.kernels.tabular.perturbation_utility import count_table_utility

ORIG = [0, 1, 2, 4, 10, 3]
PERT = [0, 2, 2, 3, 10, 0]


def test_measures_by_hand():
    got = count_table_utility(ORIG, PERT)
    # exclude_zeros (cellKey's default) leaves out the cells perturbed to 0: cells
    # (1->2), (2->2), (4->3), (10->10): d1 = 1, 0, 1, 0; d2 = 1, 0, 1/4, 0;
    # d3 = sqrt 2 - 1, 0, 2 - sqrt 3, 0
    assert got["d1"]["mean"] == 0.5 and got["d1"]["max"] == 1 and got["d1"]["median"] == 0.5
    assert got["d2"]["mean"] == pytest.approx(1.25 / 4)
    assert got["d3"]["max"] == pytest.approx(math.sqrt(2) - 1)
    # R's quantile(type 7) of d1 = (0, 0, 1, 1) at 0.9: 1; at 0.4: 0.2 = 0 + 0.2 * (1 - 0)
    assert got["d1"]["q90"] == 1 and got["d1"]["q40"] == pytest.approx(0.2)
    assert got["false_zero"] == 1 and got["false_nonzero"] == 0
    assert got["changed"] == 3 and got["share_changed"] == 0.5
    assert got["l1"] == 1 + 1 + 3 and got["l2"] == pytest.approx(math.sqrt(1 + 1 + 9))
    hd = math.sqrt(((math.sqrt(2) - 1) ** 2 + (2 - math.sqrt(3)) ** 2 + 3) / 2)
    assert got["hellinger"] == pytest.approx(hd)
    assert got["perturbations"] == {"-3": 1, "-1": 1, "0": 3, "1": 1}


def test_with_zeros_included():
    got = count_table_utility(ORIG, PERT, exclude_zeros=False)
    # six cells: d1 = 0, 1, 0, 1, 0, 3
    assert got["d1"]["mean"] == pytest.approx(5 / 6)
    assert got["d1"]["max"] == 3


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="one length"):
        count_table_utility([1, 2], [1])
    with pytest.raises(ValueError, match="non-negative"):
        count_table_utility([1, -2], [1, 2])


@given(st.lists(st.tuples(st.integers(0, 100), st.integers(0, 100)), min_size=1, max_size=30))
def test_identical_tables_are_at_distance_zero_and_distances_grow(pairs):
    o = np.array([a for a, _ in pairs])
    got = count_table_utility(o, o)
    assert got["l1"] == got["l2"] == got["hellinger"] == 0 and got["changed"] == 0
    p = np.array([b for _, b in pairs])
    other = count_table_utility(o, p)
    assert other["l2"] <= other["l1"] + 1e-9
    assert other["changed"] == int((o != p).sum())
