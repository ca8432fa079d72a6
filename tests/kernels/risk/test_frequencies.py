"""fk/Fk with missing values (sdcflow.kernels.risk.frequencies)."""

import numpy as np
import pandas as pd
import pytest
from helpers import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from sdcflow.kernels.risk.frequencies import frequencies

# sdcMicro's francdat (shared/data/francdat.csv): Key1..Key4 and weight w
FRANC_KEYS = np.array([[1, 2, 5, 1], [1, 2, 1, 1], [1, 2, 1, 1], [3, 3, 1, 5],
                       [4, 3, 1, 4], [4, 3, 1, 1], [6, 2, 1, 5], [1, 2, 5, 1]])
FRANC_W = np.array([18, 45.5, 39, 17, 541, 8, 5, 92])


def test_francdat_without_missing_values():
    # Hand count, as in sdcMicro's freqCalc(francdat, keyVars=c(2,4,5,6), w=8) example:
    # records 1 and 8 share (1,2,5,1), records 2 and 3 share (1,2,1,1).
    fk, Fk = frequencies(FRANC_KEYS, FRANC_W)
    assert fk.tolist() == [2, 2, 2, 1, 1, 1, 1, 2]
    assert Fk.tolist() == [110, 84.5, 84.5, 17, 541, 8, 5, 110]


def franc_with_missing():
    # The missing values of the same sdcMicro example: x[3,5], x[4,2], x[4,4], x[5,6], x[6,2]
    codes = FRANC_KEYS.copy()
    codes[2, 2] = codes[3, 0] = codes[3, 1] = codes[4, 3] = codes[5, 0] = -1
    return codes


@pytest.mark.parametrize("alpha, expected", [
    # Hand count: a record counts 1 if same key or complete and compatible, alpha if it
    # has a missing value and is compatible (agrees wherever both are observed).
    (1.0, [3, 2, 4, 3, 3, 2, 2, 3]),
    (0.5, [2.5, 1.5, 4, 2.5, 2, 1.5, 1.5, 2.5]),
    (0.0, [2, 1, 4, 2, 1, 1, 1, 2]),
])
def test_francdat_with_missing_values(alpha, expected):
    fk, _ = frequencies(franc_with_missing(), alpha=alpha)
    assert fk.tolist() == expected


def test_weighted_counts_follow_the_same_rule():
    _, Fk = frequencies(franc_with_missing(), FRANC_W, alpha=1.0)
    # record 3 (incomplete) matches itself and complete records 1, 2 and 8
    assert Fk[2] == 39 + 18 + 45.5 + 92
    # record 5 (4,3,1,NA) matches incomplete records 4 and 6
    assert Fk[4] == 541 + 17 + 8


def test_sdcmicro_freqcalc_unit_test_example():
    # sdcMicro tests/testthat/test_freqCalc.R: region A x status x agegroup 5 gives
    # fk 2,2,2,2,1; after suppressing the unique 'widow', fk becomes 3,3,3,3,5.
    codes = np.array([[0, 1, 0], [0, 0, 0], [0, 0, 0], [0, 1, 0], [0, 2, 0]])
    assert frequencies(codes)[0].tolist() == [2, 2, 2, 2, 1]
    codes[4, 1] = -1
    assert frequencies(codes)[0].tolist() == [3, 3, 3, 3, 5]


def test_testdata_counts_of_seed_004():
    d = pd.read_csv(ROOT / "sdcflow" / "data" / "datasets" / "testdata.csv")
    codes = np.column_stack([pd.factorize(d[k], sort=True)[0]
                             for k in ["urbrur", "water", "sex", "age", "relat"]])
    fk, _ = frequencies(codes)
    # seed 004: "in original data: 653 / 1087 / 1781"
    assert [(fk < k).sum() for k in (2, 3, 5)] == [653, 1087, 1781]


def brute_force(codes, alpha):
    n = len(codes)
    fk = np.zeros(n)
    for i in range(n):
        for j in range(n):
            a, b = codes[i], codes[j]
            observed = (a >= 0) & (b >= 0)
            if not np.all(a[observed] == b[observed]):
                continue
            if np.array_equal(a, b):
                fk[i] += 1
            else:
                fk[i] += alpha if (b < 0).any() else 1
    return fk


@settings(max_examples=150, deadline=None)
@given(arrays(np.int64, st.tuples(st.integers(1, 25), st.integers(1, 4)),
              elements=st.integers(-1, 2)),
       st.sampled_from([0.0, 0.3, 1.0]))
def test_equals_the_pairwise_definition(codes, alpha):
    fk, Fk = frequencies(codes, alpha=alpha)
    np.testing.assert_allclose(fk, brute_force(codes, alpha))
    np.testing.assert_allclose(Fk, fk)  # unit weights
    assert (fk >= 1).all()


def _row_ids_by_sorting(codes):
    """row_ids by its definition: np.unique's ids of the rows (lexicographic order), the
    last row of each id."""
    _, ids = np.unique(codes, axis=0, return_inverse=True)
    ids = ids.reshape(-1)
    rep = np.empty(ids.max(initial=-1) + 1, dtype=np.int64)
    rep[ids] = np.arange(len(codes))
    return ids, rep


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 50, 3000, 40_000]),
       st.sampled_from([(3,), (60_000,), (900, 70), (1000, 1000, 1000), (2**20,) * 4,
                        (2**31,) * 3]))
def test_row_ids_equal_the_sorted_rows_ids(seed, n, highs):
    # the distinct rows numbered in lexicographic order, one row (the last) per id,
    # whichever way they are ranked: a table of the keys present (small spans), a radix
    # sort of 11-bit digits (few rows) or 14-bit ones (more than 2**14 rows), or sorts
    # (keys beyond 2**62); value columns beside the keys (extra) as one matrix; -1 missing
    from sdcflow.kernels.risk.frequencies import row_ids
    rng = np.random.default_rng(seed)
    codes = np.column_stack([rng.integers(-1, h, n) for h in highs])
    codes = codes[rng.integers(0, n, n)]  # (repeated rows)
    ids, rep = row_ids(codes)
    want = _row_ids_by_sorting(codes)
    assert np.array_equal(ids, want[0]) and np.array_equal(rep, want[1])
    if codes.shape[1] > 1:
        ids, rep = row_ids(codes[:, :1], codes[:, 1:])
        assert np.array_equal(ids, want[0]) and np.array_equal(rep, want[1])
