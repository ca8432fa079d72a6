"""Local suppression kernel (sdcflow.kernels.non_perturbative.local_suppression)."""

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


def test_seed_004_fewer_suppressions_than_sdcmicro():
    # seed 004: kAnon(sdc, k = 3, importance = c(3,4,2,1,5)) suppresses 2/20/0/0/157 = 179
    # values of urbrur, water, sex, age, relat (sdcMicro, alpha = 0.7).
    codes = seed_004_codes()
    costs = 1000.0 ** (5 - np.array([3, 4, 2, 1, 5]))  # importance as a strict priority
    result = suppress_to_k(codes, 3, alpha=0.7, costs=costs)
    fk, _ = frequencies(result.codes, alpha=0.7)
    assert (fk >= 3).all() and result.unresolved == 0
    # our figures (regression values; the point is the total below 179)
    assert result.suppressed.sum(axis=0).tolist() == [0, 16, 0, 2, 140]
    sdcmicro_total = 179
    assert result.suppressed.sum() == 158 < sdcmicro_total


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
       st.integers(2, 3), st.sampled_from([1.0, 0.7]))
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
