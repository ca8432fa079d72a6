"""Interval disclosure (sdcflow.kernels.risk.interval_disclosure)."""

import numpy as np

from sdcflow.kernels.risk.interval_disclosure import interval_disclosure


def test_interval_disclosure_by_value():
    original = np.array([[100.0], [200.0], [0.0], [50.0], [np.nan]])
    protected = np.array([[109.0], [230.0], [0.0], [np.nan], [3.0]])
    disclosed, counted = interval_disclosure(original, protected, 10, kind="value")
    # |109 - 100| = 9 <= 10; |230 - 200| = 30 > 20; 0 exactly; missing protected: counted
    # but not disclosed; missing original: not counted
    assert disclosed.ravel().tolist() == [True, False, True, False, False]
    assert counted.ravel().tolist() == [True, True, True, True, False]


def test_interval_disclosure_by_rank():
    # Domingo-Ferrer & Torra 2001: the interval around a protected value holds the
    # protected values whose ranks differ from its rank by less than p% of the records.
    # originals 1..10, protected the same with ranks 0-1 and 8-9 exchanged
    original = np.arange(1.0, 11.0)[:, None]
    protected = np.array([2, 1, 3, 4, 5, 6, 7, 8, 10, 9], dtype=float)[:, None]
    # p = 10% of 10 records: ranks differing by less than 1, the protected value alone:
    # disclosed where nothing moved
    disclosed, _ = interval_disclosure(original, protected, 10, kind="rank")
    assert disclosed.ravel().tolist() == [False, False] + [True] * 6 + [False, False]
    # p = 20%: less than 2, one rank each side: [1, 3] around 2 holds 1, [1, 2] around 1
    # (the first rank) holds 2
    disclosed, _ = interval_disclosure(original, protected, 20, kind="rank")
    assert disclosed.all()
    # the default kind is rank
    assert (interval_disclosure(original, protected, 20)[0] == disclosed).all()


def test_interval_disclosure_rank_ties_use_mid_ranks():
    # protected 1 1 1 1 2: the 1s have mid-rank 1.5, the 2 rank 4 (of 5)
    original = np.array([[2.0], [1.0], [1.0], [1.0], [1.0]])
    protected = np.array([[1.0], [1.0], [1.0], [1.0], [2.0]])
    # p = 20%: less than 1 rank: ranks 1, 2 around 1.5 (values [1, 1]), rank 4 ([2, 2])
    disclosed, _ = interval_disclosure(original, protected, 20, kind="rank")
    assert disclosed.ravel().tolist() == [False, True, True, True, False]
    # p = 40%: less than 2: ranks 0..3 around 1.5 ([1, 1]), 3..4 around 4 ([1, 2])
    disclosed, _ = interval_disclosure(original, protected, 40, kind="rank")
    assert disclosed.ravel().tolist() == [False, True, True, True, True]


def test_interval_disclosure_rank_missing_values():
    # a missing protected value is not ranked (n = 3 ranked) and not disclosed; a missing
    # original is not counted
    original = np.array([[1.0], [2.0], [3.0], [np.nan]])
    protected = np.array([[1.0], [np.nan], [3.0], [2.0]])
    disclosed, counted = interval_disclosure(original, protected, 34, kind="rank")
    # 34% of 3 = 1.02: ranks within 1 each side of 1 (rank 0: [1, 2]), of 3 ([2, 3])
    assert disclosed.ravel().tolist() == [True, False, True, False]
    assert counted.ravel().tolist() == [True, True, True, False]
