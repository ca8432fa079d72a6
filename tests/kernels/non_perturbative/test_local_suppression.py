"""Local suppression kernel (sdcflow.kernels.non_perturbative.local_suppression)."""

import itertools

import numpy as np
import pandas as pd
from helpers import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from sdcflow.kernels.non_perturbative.local_suppression import suppress_to_k
from sdcflow.kernels.non_perturbative.recode import interval_codes
from sdcflow.kernels.risk.frequencies import frequencies


def seed_004_codes():
    """testdata after the recodings of seed 004 (age classes, water 6-9, relat 8-9)."""
    d = pd.read_csv(ROOT / "sdcflow" / "data" / "datasets" / "testdata.csv")
    d["water"] = d["water"].replace({7: 6, 9: 6})
    d["relat"] = d["relat"].replace({9: 8})
    codes = np.column_stack([pd.factorize(d[k], sort=True)[0]
                             for k in ["urbrur", "water", "sex", "age", "relat"]])
    codes[:, 3] = interval_codes(d["age"].to_numpy(float), [0, 9, 19, 29, 39, 49, 59, 69, 79, 130],
                                 include_lowest=False)
    return codes


IMPORTANCE_004 = np.array([3, 4, 2, 1, 5])  # urbrur, water, sex, age, relat


def test_seed_004_fewer_suppressions_than_sdcmicro_and_no_age():
    # seed 004: kAnon(sdc, k = 3, importance = c(3,4,2,1,5)) suppresses 2/20/0/0/157 = 179
    # values of urbrur, water, sex, age, relat (sdcMicro 5.8.1's printout, alpha = 0.7).
    codes = seed_004_codes()
    result = suppress_to_k(codes, 3, alpha=0.7, importance=IMPORTANCE_004)
    fk, _ = frequencies(result.codes, alpha=0.7)
    assert (fk >= 3).all() and result.unresolved == 0
    # age is the most important key: every age class has at least 3 records (so with
    # every other key suppressed each record reaches 3): lexicographic importance never
    # suppresses an age, as sdcMicro does not; the next most important, sex, neither
    assert (frequencies(codes[:, [3]])[0] >= 3).all()
    assert (frequencies(codes[:, [3, 2]])[0] >= 3).all()
    per_variable = result.suppressed.sum(axis=0).tolist()
    assert per_variable[3] == 0 and per_variable[2] == 0
    # our figures (regression values; the point is the total below 179)
    assert per_variable == [2, 16, 0, 0, 138]
    sdcmicro_total = 179
    assert result.suppressed.sum() == 156 < sdcmicro_total


def francdat_codes():
    d = pd.read_csv(ROOT / "sdcflow" / "data" / "datasets" / "francdat.csv")
    return np.column_stack([pd.factorize(d[k], sort=True)[0]
                            for k in ["Key1", "Key2", "Key3", "Key4"]])


def test_francdat_most_important_key_suppressed_as_little_as_possible():
    # francdat (sdcMicro's toy data of Capobianchi, Polettini & Lucarelli), k = 4,
    # importance (1, 3, 2, 4): Key1 is the most important key. The fewest Key1
    # suppressions that can reach 4-anonymity, by brute force over the 2^8 choices of
    # records with every other key suppressed (the most any other suppression can do): 2
    # (Key1 takes the value 1 four times, 4 twice, 3 and 6 once: the two single ones go)
    codes = francdat_codes()
    fewest = None
    for chosen in itertools.product([False, True], repeat=len(codes)):
        trial = np.full_like(codes, -1)
        trial[:, 0] = np.where(chosen, -1, codes[:, 0])
        if (frequencies(trial)[0] >= 4).all():
            fewest = min(sum(chosen), fewest if fewest is not None else 99)
    assert fewest == 2
    result = suppress_to_k(codes, 4, importance=np.array([1, 3, 2, 4]))
    assert (frequencies(result.codes)[0] >= 4).all()
    # Key1 suppressed twice (the records with the single values 3 and 6): before, 3
    # times, more than without importance
    assert result.suppressed[:, 0].sum() == 2
    assert result.suppressed[:, 0].tolist() == [False, False, False, True, False, False,
                                                True, False]
    without = suppress_to_k(codes, 4)
    assert result.suppressed[:, 0].sum() <= without.suppressed[:, 0].sum()


def could_trade(codes, out, k, alpha, importance):
    """The (record, key) pairs where the records alike (same original and released keys,
    which the search treats alike) could get a suppressed key back, suppressing any set
    of strictly less important keys instead, and no record would fall below k (or below
    its frequency, if it was below k already): tried by brute force."""
    fk, _ = frequencies(out, alpha=alpha)
    alike = {}
    for r in range(len(codes)):
        alike.setdefault((codes[r].tobytes(), out[r].tobytes()), []).append(r)
    found = []
    for rows in alike.values():
        r = rows[0]
        for j in np.flatnonzero((out[r] < 0) & (codes[r] >= 0)):
            base = out[r].copy()
            base[j] = codes[r, j]
            less = [x for x in np.flatnonzero(base >= 0) if importance[x] > importance[j]]
            for size in range(len(less) + 1):
                for extra in itertools.combinations(less, size):
                    trial = out.copy()
                    trial[rows] = base
                    trial[np.ix_(rows, list(extra))] = -1
                    if (frequencies(trial, alpha=alpha)[0] >= np.minimum(fk, k) - 1e-9).all():
                        found.append((r, int(j), extra))
    return found


@settings(max_examples=60, deadline=None)
@given(arrays(np.int64, st.tuples(st.integers(2, 10), st.integers(1, 4)),
              elements=st.integers(-1, 2)),
       st.integers(2, 3), st.sampled_from([1.0, 0.7, 0.0]), st.data())
def test_a_more_important_key_goes_only_where_less_important_ones_cannot_do(
        codes, k, alpha, data):
    """Invariant (lexicographic importance): k-anonymity is reached, and no suppressed
    value could be traded back for suppressions of less important keys (or simply
    restored) with every record staying at k."""
    m = codes.shape[1]
    importance = np.array(data.draw(st.lists(st.integers(1, m), min_size=m, max_size=m)))
    result = suppress_to_k(codes, k, alpha=alpha, importance=importance)
    if len(codes) >= k:
        assert (frequencies(result.codes, alpha=alpha)[0] >= k - 1e-9).all()
    assert could_trade(codes, result.codes, k, alpha, importance) == []


def test_only_suppresses_and_only_where_needed():
    codes = np.array([[0, 0], [0, 0], [0, 0], [1, 0], [1, 1]])
    result = suppress_to_k(codes, 3)
    changed = result.codes != codes
    assert (result.codes[changed] == -1).all()
    # the three (0, 0) records are 3-anonymous already and keep their values
    assert not changed[:3].any()
    fk, _ = frequencies(result.codes)
    assert (fk >= 3).all()


def test_already_anonymous_data_are_untouched():
    codes = np.array([[0, 1]] * 3 + [[1, 0]] * 3)
    result = suppress_to_k(codes, 3)
    assert not result.suppressed.any() and np.array_equal(result.codes, codes)


def test_costs_decide_which_variable_goes():
    # only (0, 1) violates 2-anonymity; suppressing either of its values fixes it
    codes = np.array([[0, 0], [0, 0], [1, 1], [1, 1], [0, 1]])
    cheap_second = suppress_to_k(codes, 2, costs=np.array([10.0, 1.0]))
    assert cheap_second.suppressed.sum(axis=0).tolist() == [0, 1]
    cheap_first = suppress_to_k(codes, 2, costs=np.array([1.0, 10.0]))
    assert cheap_first.suppressed.sum(axis=0).tolist() == [1, 0]


def test_too_few_records_are_reported_unresolved():
    result = suppress_to_k(np.array([[0, 0], [1, 1]]), 3)
    assert result.unresolved == 2


@settings(max_examples=200, deadline=None)
@given(arrays(np.int64, st.tuples(st.integers(3, 40), st.integers(1, 4)),
              elements=st.integers(-1, 3)),
       st.integers(2, 3), st.sampled_from([1.0, 0.7, 0.0]))
def test_k_anonymity_is_reached(codes, k, alpha):
    result = suppress_to_k(codes, k, alpha=alpha)
    fk, _ = frequencies(result.codes, alpha=alpha)
    if len(codes) >= k:
        assert (fk >= k - 1e-9).all()
        assert result.unresolved == 0
    changed = result.codes != codes
    assert (result.codes[changed] == -1).all()  # values are only ever suppressed
    assert np.array_equal(result.suppressed, changed)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 120), st.sampled_from([0.0, 0.5, 1.0]),
       st.integers(2, 4))
def test_a_table_with_counts_gets_the_suppressions_of_its_records(seed, n, alpha, k):
    """The distinct combinations with their counts (the Dask engine's global table) get
    exactly the suppressions the records get, and the same unresolved count."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(-1, 3, (n, 3))
    by_records = suppress_to_k(codes, k, alpha=alpha)
    table, inverse, counts = np.unique(codes, axis=0, return_inverse=True, return_counts=True)
    by_table = suppress_to_k(table, k, alpha=alpha, counts=counts)
    np.testing.assert_array_equal(by_table.codes[inverse.reshape(-1)], by_records.codes)
    assert by_table.unresolved == by_records.unresolved
