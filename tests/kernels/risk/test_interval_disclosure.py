"""Interval disclosure (sdcflow.kernels.risk.interval_disclosure)."""

import numpy as np

from sdcflow.kernels.risk.interval_disclosure import interval_disclosure


def test_interval_disclosure_by_value():
    original = np.array([[100.0], [200.0], [0.0], [50.0], [np.nan]])
    protected = np.array([[109.0], [230.0], [0.0], [np.nan], [3.0]])
    disclosed, counted = interval_disclosure(original, protected, 10)
    # |109 - 100| = 9 <= 10; |230 - 200| = 30 > 20; 0 exactly; missing protected: counted
    # but not disclosed; missing original: not counted
    assert disclosed.ravel().tolist() == [True, False, True, False, False]
    assert counted.ravel().tolist() == [True, True, True, True, False]


def test_interval_disclosure_by_rank():
    original = np.arange(1.0, 21.0)[:, None]  # ranks 0..19
    protected = original.copy()
    protected[0] = 2.0   # rank distance 1
    protected[1] = 4.0   # rank distance 2
    protected[2] = 50.0  # above every original: mid-rank 19.5, distance 17.5
    disclosed, _ = interval_disclosure(original, protected, 10, kind="rank")
    # p = 10% of 20 records: an interval of 2 ranks, 1 on each side
    assert disclosed[:3, 0].tolist() == [True, False, False]
    assert disclosed[3:, 0].all()
    disclosed, _ = interval_disclosure(original, protected, 20, kind="rank")
    assert disclosed[:3, 0].tolist() == [True, True, False]


def test_interval_disclosure_rank_ties_use_mid_ranks():
    original = np.array([[1.0], [1.0], [1.0], [1.0], [2.0]])  # mid-rank of 1: 1.5
    protected = np.array([[2.0], [1.0], [1.0], [1.0], [1.0]])  # 2 has rank 4
    disclosed, _ = interval_disclosure(original, protected, 100, kind="rank")
    # half of 100% of 5 records = 2.5: |4 - 1.5| = 2.5 counts, and 1.5 -> 4 likewise
    assert disclosed.ravel().tolist() == [True, True, True, True, True]
    disclosed, _ = interval_disclosure(original, protected, 90, kind="rank")
    assert disclosed.ravel().tolist() == [False, True, True, True, False]
