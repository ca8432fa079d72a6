"""SUDA scores (sdcflow.kernels.risk.suda): sdcMicro's suda2 unit tests, hand computations,
and a brute-force implementation of the definition."""

from itertools import combinations, permutations

import numpy as np
import pandas as pd
import pytest
from helpers import SUDA_GUIDELINE as GUIDELINE
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from sdcflow.kernels.risk.frequencies import frequencies
from sdcflow.kernels.risk.suda import dis_probability, dis_suda_scores, msu_weight, suda_scores


def coded(**columns) -> np.ndarray:
    return np.column_stack([pd.factorize(pd.Series(v), sort=True)[0] for v in columns.values()])


# sdcMicro tests/testthat/test_suda2.R, "suda2 simple example contrubtion" 1-4
SIMPLE = {"a": [2, 1, 1], "b": [0, 3, 0], "c": [0, 6, 0]}

# sdcMicro tests/testthat/test_suda2.R, "suda2 book example"
BOOK = {
    "age": ["20s"] * 7 + ["60s"],
    "gender": ["male"] * 4 + ["female"] * 3 + ["male"],
    "income": ["50k+", "50k+"] + ["50k-"] * 6,
    "education": ["highschool"] * 4 + ["university", "highschool", "middleschool",
                                       "university"],
}


@pytest.mark.parametrize("order", list(permutations("abc")))
def test_simple_example_contributions_in_any_column_order(order):
    # sdcMicro expects contributions a 50, b 37.5, c 37.5 for the orders abc, acb, cab and
    # cba. By hand: record 1 has MSU {a} (2! = 2), record 2 {b} and {c} (2 + 2), record 3
    # {a,b} and {a,c} (1! + 1!): scores 2, 4, 2, total 8; a is in MSUs worth 2 + 1 + 1.
    result = suda_scores(coded(**{v: SIMPLE[v] for v in order}))
    expected = {"a": 50.0, "b": 37.5, "c": 37.5}
    assert result.contribution.tolist() == [expected[v] for v in order]
    assert result.score.tolist() == [2, 4, 2]
    assert result.msu_count.tolist() == [1, 2, 2]
    assert result.msu_by_size == {1: 3, 2: 2, 3: 0}


def test_book_example():
    # sdcMicro: su$score[5:8] == c(4, 2, 6, 8); records 1-4 repeat two key combinations
    # twice each, so they are unique on nothing and score 0.
    result = suda_scores(coded(**BOOK))
    assert result.score.tolist() == [0, 0, 0, 0, 4, 2, 6, 8]
    # by hand: 5 {gender,education} {age,education}; 6 {gender,education};
    # 7 {education}; 8 {age} {gender,education}
    assert result.msu_count.tolist() == [0, 0, 0, 0, 2, 1, 1, 2]
    assert result.msu_by_size == {1: 2, 2: 4, 3: 0, 4: 0}


def test_sdc_guideline_example():
    # sdcMicro: su$score == c(0, 0, 6, 0, 12, 0, 6, 10, 0, 0)
    result = suda_scores(coded(**GUIDELINE))
    assert result.score.tolist() == [0, 0, 6, 0, 12, 0, 6, 10, 0, 0]


def test_max_size_below_the_number_of_variables():
    # Book example with MSUs of at most 2 of the 4 variables: a size-1 MSU weighs
    # prod_{i=1}^{1} (4 - i) = 3 and a size-2 MSU the empty product 1. The MSUs listed in
    # test_book_example give 1 + 1, 1, 3, 3 + 1.
    result = suda_scores(coded(**BOOK), max_size=2)
    assert result.score.tolist() == [0, 0, 0, 0, 2, 1, 3, 4]
    assert result.msu_by_size == {1: 2, 2: 4}
    assert result.max_size == 2
    # Simple example with single-variable MSUs only (weight 1): record 3's MSUs have two
    # variables and no longer count; {a}, {b} and {c} one MSU each.
    result = suda_scores(coded(**SIMPLE), max_size=1)
    assert result.score.tolist() == [1, 2, 0]
    assert result.msu_count.tolist() == [1, 2, 0]
    np.testing.assert_allclose(result.contribution, [100 / 3] * 3)


def test_weights_of_the_definition():
    assert [msu_weight(k, 6, 6) for k in range(1, 7)] == [120, 24, 6, 2, 1, 1]  # (6 - k)!
    assert [msu_weight(k, 6, 3) for k in range(1, 4)] == [20, 4, 1]  # 5*4, 4, empty


def test_missing_values_match_any_value():
    # a = (0, 0, 1, NA), b = (0, 1, 1, 0). By hand: the NA in record 4 matches both values
    # of a, so no record is unique on {a} or {b}; on {a, b} record 1 matches record 4 but
    # records 2 and 3 are unique: one MSU of size 2 each, weight 0! = 1.
    codes = np.array([[0, 0], [0, 1], [1, 1], [-1, 0]])
    result = suda_scores(codes)
    assert result.score.tolist() == [0, 1, 1, 0]
    # As a category of its own, the NA would make record 4 unique on {a} (1! = 1) and
    # record 1 unique on {a, b} (0! = 1).
    as_category = suda_scores(codes + 1)
    assert as_category.score.tolist() == [1, 1, 1, 1]


def test_duplicate_records_are_never_unique():
    # every record appears twice: no record is unique on any subset
    codes = np.array([[0, 1], [0, 1], [1, 0], [1, 0]])
    result = suda_scores(codes)
    assert result.score.tolist() == [0, 0, 0, 0]
    assert result.contribution.tolist() == [0, 0]


def test_edge_cases():
    empty = suda_scores(np.zeros((0, 3), dtype=np.int64))
    assert empty.score.shape == (0,) and empty.msu_by_size == {1: 0, 2: 0, 3: 0}
    # one record is unique on each single variable: m MSUs of weight (m - 1)!
    assert suda_scores(np.array([[0, 0, 0]])).score.tolist() == [3 * 2]
    with pytest.raises(ValueError, match="max_size"):
        suda_scores(np.zeros((3, 2), dtype=np.int64), max_size=3)
    with pytest.raises(ValueError, match="max_size"):
        suda_scores(np.zeros((3, 2), dtype=np.int64), max_size=0)


def brute_force(codes, max_size):
    """The definition, record by record: pairwise matching with missing values matching
    anything, minimality checked against every non-empty proper subset."""
    n, m = codes.shape

    def unique(i, subset):
        cols = list(subset)
        for j in range(n):
            if j == i:
                continue
            a, b = codes[i, cols], codes[j, cols]
            if np.all((a == b) | (a < 0) | (b < 0)):
                return False
        return True

    score = np.zeros(n)
    count = np.zeros(n, dtype=int)
    by_size = {k: 0 for k in range(1, max_size + 1)}
    per_var = np.zeros(m)
    for i in range(n):
        for k in range(1, max_size + 1):
            for subset in combinations(range(m), k):
                if not unique(i, subset):
                    continue
                if any(unique(i, sub) for r in range(1, k) for sub in combinations(subset, r)):
                    continue
                w = np.prod([m - t for t in range(k, max_size)])
                score[i] += w
                count[i] += 1
                by_size[k] += 1
                per_var[list(subset)] += w
    total = score.sum()
    return score, count, by_size, 100 * per_var / total if total else per_var


@st.composite
def codes_and_max_size(draw):
    codes = draw(arrays(np.int64, st.tuples(st.integers(1, 12), st.integers(1, 5)),
                        elements=st.integers(-1, 2)))
    return codes, draw(st.integers(1, codes.shape[1]))


@settings(max_examples=200, deadline=None)
@given(codes_and_max_size())
def test_equals_the_brute_force_definition(case):
    codes, max_size = case
    result = suda_scores(codes, max_size)
    score, count, by_size, contribution = brute_force(codes, max_size)
    np.testing.assert_allclose(result.score, score)
    np.testing.assert_array_equal(result.msu_count, count)
    assert result.msu_by_size == by_size
    np.testing.assert_allclose(result.contribution, contribution)


def test_dis_suda_on_the_sdc_guideline_example():
    # sdcMicro's "suda2 sdc guideline" data (4 keys): SUDA scores 6, 12, 6, 10 on records
    # 2, 4, 6, 7 (0-based). By hand from the definition (sdcMicro's C++ Suda2): U = 4
    # sample uniques, P = 6 records in pairs (fk = 2), f = 0.01:
    # DIS = 0.04 / (0.04 + 5.94) = 0.04 / 5.98; U / DIS - U = 598 - 4 = 594;
    # Q = 1 + (8 - 4) / 20 = 1.2; A = 2 * 6^-1.2 + 12^-1.2 + 10^-1.2 = 2 * 0.116471 + 0.050705 + 0.063096 = 0.346735;
    # score 6: 1 / (1 + 594 / (6^1.2 * A)) = 0.0049868 (6^1.2 = 8.5858)
    from sdcflow.data.codes import key_codes

    frame = pd.DataFrame(GUIDELINE)
    codes = key_codes(frame, list(frame.columns))
    score = suda_scores(codes).score
    assert dis_probability(codes) == pytest.approx(0.04 / 5.98, rel=1e-14)
    a = 2 * 6 ** -1.2 + 12 ** -1.2 + 10 ** -1.2
    assert a == pytest.approx(0.346735, rel=1e-5)
    expected = np.zeros(10)
    for i, s in ((2, 6), (4, 12), (6, 6), (7, 10)):
        expected[i] = 1 / (1 + 594 / (s ** 1.2 * a))
    np.testing.assert_allclose(dis_suda_scores(score, codes), expected, rtol=1e-12)
    assert dis_suda_scores(score, codes)[2] == pytest.approx(0.0049868, rel=1e-4)
    # f = 1: every sample unique is a population unique: DIS = 1, scores 1
    np.testing.assert_allclose(dis_suda_scores(score, codes, 1.0), np.where(score > 0, 1, 0))
    assert dis_suda_scores(np.zeros(10), codes).tolist() == [0.0] * 10


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 2)),
                min_size=1, max_size=25), st.floats(0.001, 0.999))
def test_dis_scores_share_the_expected_false_uniques(rows, f):
    # invariant of the definition: over the records with a positive score,
    # sum (1 / dis_score - 1) = U / DIS - U (the scores split it in proportion to s^-Q)
    codes = np.array(rows)
    score = suda_scores(codes).score
    out = dis_suda_scores(score, codes, f)
    assert ((out >= 0) & (out <= 1)).all()
    positive = score > 0
    if positive.any():
        u = float((frequencies(codes)[0] == 1).sum())
        d = dis_probability(codes, f)
        assert (1 / out[positive] - 1).sum() == pytest.approx(u / d - u, rel=1e-9)
    else:
        assert not out.any()
