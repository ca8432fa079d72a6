"""Schema matching for record linkage with non-common variables: the distances of value
distributions, the assignment, code maps by frequency rank, the mixed linkage distance.
Expected values are worked out by hand from the definitions in the module's docstring."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import ks_2samp

from sdcflow.kernels.linkage.schema_matching import (
    FORBIDDEN,
    agreement,
    assign,
    codes_by_pairs,
    codes_by_rank,
    common_depth,
    frequency_profile,
    ks_distance,
    profile_distance,
    schema_links,
)


def test_frequency_profile_drops_names_and_missing():
    # codes 2 x3, 0 x1, 5 x2, one missing: profile 3/6, 2/6, 1/6
    assert frequency_profile(np.array([2, 2, 0, 5, 5, 2, -1])).tolist() == \
        pytest.approx([0.5, 1 / 3, 1 / 6])
    assert frequency_profile(np.array([-1, -1])).size == 0


def test_profile_distance_by_hand():
    # (0.6, 0.4) against (0.5, 0.3, 0.2): (|0.1| + |0.1| + |0.2|) / 2 = 0.2
    assert profile_distance(np.array([0.6, 0.4]), np.array([0.5, 0.3, 0.2])) == \
        pytest.approx(0.2)
    assert profile_distance(np.array([0.6, 0.4]), np.array([0.6, 0.4])) == 0
    assert profile_distance(np.zeros(0), np.array([1.0])) == 1.0


def test_ks_distance_by_hand_and_scipy():
    # x = (0, 0, 1), y = (0, 1, 1): standardised, x is (-0.577, -0.577, 1.155) and y
    # (-1.155, 0.577, 0.577); the distribution functions differ by 1/3 at -0.577 and at
    # 0.577 (2/3 against 1/3, then 2/3 against 1)
    assert ks_distance(np.array([0, 0, 1.0]), np.array([0, 1, 1.0])) == pytest.approx(1 / 3)
    # a linear rescaling (years -> months, plus an offset) is at distance 0
    rng = np.random.default_rng(1)
    x = rng.normal(size=50)
    assert ks_distance(x, 12 * x + 7) == pytest.approx(0, abs=1e-12)
    # SciPy's two-sample statistic on the standardised values
    y = rng.exponential(size=40)
    zx, zy = (x - x.mean()) / x.std(ddof=1), (y - y.mean()) / y.std(ddof=1)
    assert ks_distance(x, y) == pytest.approx(ks_2samp(zx, zy).statistic)
    assert ks_distance(np.array([np.nan]), y) == 1.0


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=30), st.permutations(range(5)))
def test_renaming_codes_keeps_the_profile(codes, renaming):
    # the profile (and so the distance 0) does not depend on the names of the codes
    codes = np.array(codes)
    renamed = np.array(renaming)[codes]
    assert profile_distance(frequency_profile(codes), frequency_profile(renamed)) == 0
    # the rank map sends each renamed code back to a code of equal frequency
    back = codes_by_rank(codes, renamed)
    counts = np.bincount(codes, minlength=5)
    for c in np.unique(renamed):
        assert counts[back[c]] == counts[renaming.index(c)]


def test_codes_by_rank_by_hand():
    release = np.array([0, 0, 0, 1, 2, 2])       # 0 x3, 2 x2, 1 x1
    intruder = np.array([4, 3, 3, 4, 4, 1, -1])  # 4 x3, 3 x2, 1 x1; 0 and 2 never occur
    assert codes_by_rank(release, intruder).tolist() == [-1, 1, -1, 2, 0]


def test_assign_keeps_pairs_within_the_threshold():
    cost = np.array([[0.0, 0.3, FORBIDDEN],
                     [0.2, 0.05, FORBIDDEN],
                     [FORBIDDEN, FORBIDDEN, 0.5]])
    # least total: (0, 0) + (1, 1) + (2, 2) = 0.55; (2, 2) is above 0.1
    assert assign(cost, 0.1) == [(0, 0, 0.0), (1, 1, 0.05)]
    # a forbidden pair is never kept, whatever the threshold
    assert assign(np.array([[FORBIDDEN]]), 5.0) == []


def test_schema_links_counts_mismatches_and_ties():
    # released records (codes): (0, 0) (0, 1) (1, 1); intruder: (0, 0) (0, 0) (1, 1);
    # truth: released 0 -> intruder 1, released 1 absent, released 2 -> intruder 2.
    # released 0 is 0 mismatches from intruders 0 and 1 (a tie: credit 1/2); released 2
    # matches intruder 2 alone
    links = schema_links(np.zeros((3, 0)), np.zeros((3, 0)),
                         np.array([[0, 0], [0, 1], [1, 1]]), np.array([[0, 0], [0, 0], [1, 1]]),
                         np.array([1, -1, 2]))
    assert links.ties.tolist() == [2, 3, 1]
    assert links.correct.tolist() == [True, False, True]
    assert links.credit.sum() == pytest.approx(1.5)
    # a numeric pair adds the squared difference: it breaks the first tie
    links = schema_links(np.array([[0.0], [5.0], [9.0]]), np.array([[3.0], [0.1], [9.0]]),
                         np.array([[0, 0], [0, 1], [1, 1]]), np.array([[0, 0], [0, 0], [1, 1]]),
                         np.array([1, -1, 2]))
    assert links.ties.tolist() == [1, 1, 1]
    assert links.credit.sum() == 2
    # a missing code: not linked (released) / not a candidate (intruder)
    links = schema_links(np.zeros((2, 0)), np.zeros((2, 0)), np.array([[0], [-1]]),
                         np.array([[-1], [0]]), np.array([0, 1]))
    assert links.ties.tolist() == [1, 0] and links.linked.tolist() == [1, -1]


def test_agreement_by_hand():
    # true pairs: released 0 -> intruder 0 (equal), released 1 -> 1 (differ), released 2
    # absent. Chance: released codes 0, 1, 1 and intruder codes 0, 0, 1:
    # 1/3 * 2/3 + 2/3 * 1/3 = 4/9
    true_rate, chance = agreement(np.array([0, 1, 1.0]), np.array([0, 0, 1.0]),
                                  np.array([0, 1, -1]))
    assert true_rate == 0.5 and chance == pytest.approx(4 / 9)
    # numeric, tolerance 0.5: |1 - 1.2| agrees, |3 - 0| does not; chance over the 2 x 2
    # pairs: |1 - 1.2|, |3 - 1.2|, |1 - 0|, |3 - 0|: 1 of 4
    true_rate, chance = agreement(np.array([1.0, 3.0]), np.array([1.2, 0.0]),
                                  np.array([0, 1]), 0.5)
    assert true_rate == 0.5 and chance == 0.25
    assert agreement(np.array([1.0]), np.array([1.0]), np.array([-1]))[0] is None


def test_common_depth():
    assert common_depth([np.array([2, 2, 3]), np.array([1, 2])]) == 1
    assert common_depth([np.array([], dtype=int)]) == 0


def test_codes_by_pairs_by_hand():
    # released codes 0 0 1 1; intruder rows (by truth) 1 1 0 0 -> intruder 1 is beside
    # release 0 twice, intruder 0 beside release 1 twice; the intruder's code 2 is held by
    # nobody in both files: its frequency rank's release code (codes 0 and 1 occur twice
    # each in the release and the intruder's 2 once, third: none, -1)
    release = np.array([0, 0, 1, 1])
    intruder = np.array([1, 1, 0, 0, 2])
    truth = np.array([0, 1, 2, 3])
    assert codes_by_pairs(release, intruder, truth).tolist() == [1, 0, -1]
    # equal counts: the lower release code
    assert codes_by_pairs(np.array([0, 1]), np.array([0, 0]), np.array([0, 1])).tolist() == [0]
    # nobody in both files: the frequency rank's
    assert codes_by_pairs(release, intruder, np.full(4, -1)).tolist() == \
        codes_by_rank(release, intruder).tolist()


def test_schema_links_with_an_empty_intruder_file():
    # nobody to link to: no link, nothing correct (an intruder's file of a header only)
    links = schema_links(np.zeros((2, 1)), np.zeros((0, 1)), np.zeros((2, 1), dtype=int),
                         np.zeros((0, 1), dtype=int), np.array([-1, -1]))
    assert links.ties.tolist() == [0, 0] and not links.correct.any()
