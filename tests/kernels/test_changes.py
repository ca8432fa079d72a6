"""Counting changed observed values."""

import numpy as np

from sdcflow.kernels.changes import changed_values


def test_changed_values_by_hand():
    old = np.array([[1.0, np.nan], [2.0, 3.0], [np.nan, 4.0]])
    new = np.array([[1.0, 9.0], [2.5, np.nan], [np.nan, 4.0]])
    # column 0: only 2 -> 2.5; column 1: the NaN filled is no change of an observed
    # value, 3 -> NaN is one
    assert changed_values(new, old).tolist() == [1, 1]
    assert int(changed_values(new[:, 0], old[:, 0])) == 1


def test_changed_values_over_many_blocks():
    rng = np.random.default_rng(0)
    old = rng.standard_normal((200_000, 2))
    new = old.copy()
    new[rng.random(old.shape) < 0.3] += 1.0
    expected = ((new != old) & ~np.isnan(old)).sum(axis=0)
    assert changed_values(new, old).tolist() == expected.tolist()
