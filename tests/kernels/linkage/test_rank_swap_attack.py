"""The transparency attack on rank swapping (sdcflow.kernels.linkage.rank_swap_attack)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.linkage.coordinates import standardize
from sdcflow.kernels.linkage.rank_swap_attack import intersection_attack, rank_distance, windows

# seed 000, "Rank swapping: Example I" (and seed 003, "Intruder's attack. Example."):
# 4 variables with values 1..10, rank swapping with p = 2
SEED_X = np.array([[8, 9, 1, 3], [6, 7, 10, 2], [10, 3, 4, 1], [7, 1, 2, 6], [9, 4, 6, 4],
                   [2, 2, 8, 8], [1, 10, 3, 9], [4, 8, 7, 10], [5, 5, 5, 5], [3, 6, 9, 7]],
                  dtype=float)
SEED_Y = np.array([[10, 10, 3, 5], [5, 5, 8, 1], [8, 4, 2, 2], [9, 2, 4, 4], [7, 3, 5, 6],
                   [4, 1, 10, 10], [3, 9, 1, 7], [2, 6, 9, 8], [6, 7, 6, 3], [1, 8, 7, 9]],
                  dtype=float)
# seed 000, "Example V" (seed 003 likewise): the sets B(x_2j) of the intruder's record
# x_2 = (6, 7, 10, 2), as protected records
SEED_B = [
    {(4, 1, 10, 10), (5, 5, 8, 1), (6, 7, 6, 3), (7, 3, 5, 6), (8, 4, 2, 2)},  # B(x_21 = 6)
    {(5, 5, 8, 1), (2, 6, 9, 8), (6, 7, 6, 3), (1, 8, 7, 9), (3, 9, 1, 7)},    # B(x_22 = 7)
    {(5, 5, 8, 1), (2, 6, 9, 8), (4, 1, 10, 10)},                              # B(x_23 = 10)
    {(5, 5, 8, 1), (8, 4, 2, 2), (6, 7, 6, 3), (9, 2, 4, 4)},                  # B(x_24 = 2)
]


def members(low, high, i, j):
    inside = (SEED_Y[:, j] >= low[i, j]) & (SEED_Y[:, j] <= high[i, j])
    return {tuple(int(v) for v in SEED_Y[k]) for k in np.flatnonzero(inside)}


def test_seed_example_sets_and_their_intersection():
    # p = 2 in seed 000's definition: a value of rank i swaps with one of rank l,
    # i < l <= i + p, so the protected value is within 2 ranks of the original's
    assert rank_distance(2, 10, "records") == 2
    low, high = windows(SEED_X, SEED_Y, 2)
    for j in range(4):
        assert members(low, high, 1, j) == SEED_B[j], f"B(x_2{j + 1})"
    # sizes of the sets: 5, 5, 3, 4; of the running intersections: 5, 2, 1, 1
    assert [len(b) for b in SEED_B] == [5, 5, 3, 4]
    running = [len(set.intersection(*SEED_B[:k])) for k in range(1, 5)]
    assert running == [5, 2, 1, 1]
    # "The intersection of these sets is the single record (5, 5, 8, 1)": record x_2's
    # own protected record, a certain re-identification
    assert set.intersection(*SEED_B) == {(5, 5, 8, 1)}
    result = intersection_attack(SEED_X, SEED_Y, 2)
    assert result.size[1] == 1 and result.single[1] == 1 and result.certain[1]
    assert [intersection_attack(SEED_X[:, :k], SEED_Y[:, :k], 2).size[1]
            for k in range(1, 5)] == running


def test_seed_example_counts_per_scenario():
    # RS-RL on the nested scenarios of the seed's table ({V1}, {V1, V2}, {V1, V2, V3},
    # {V1, ..., V4}). Certain re-identifications (intersection = the own record alone),
    # by hand from the sets above for all ten records: 0, 1, 5, 7. With the seed's next
    # step ("When several records are present, we apply standard record linkage"): 0, 2,
    # 7, 7. The seed's table prints 0, 2, 7, 8: the first three agree, the fourth cannot
    # be reached (for the three records left ambiguous with four variables, x_5, x_9 and
    # x_10, another protected record of the intersection is nearer than their own).
    zo, zp = standardize(SEED_X, SEED_Y)
    certain, linked = [], []
    for k in range(1, 5):
        r = intersection_attack(SEED_X[:, :k], SEED_Y[:, :k], 2, zo[:, :k], zp[:, :k])
        assert r.contains.all()  # the data are a rank swap within 2 ranks
        certain.append(int(r.certain.sum()))
        linked.append(float(r.credit.sum()))
    assert certain == [0, 1, 5, 7]
    assert linked == [0.0, 2.0, 7.0, 7.0]
    r = intersection_attack(SEED_X, SEED_Y, 2, zo, zp)
    assert r.size.tolist() == [1, 1, 1, 1, 2, 1, 1, 1, 2, 2]


def test_rank_distance_in_percent():
    # seed 003: l in [i + 1, min(n, i + p |X| / 100)]
    assert rank_distance(2, 1080, "percent") == 21
    assert rank_distance(5, 4580, "percent") == 229
    assert rank_distance(4.6, 1500, "percent") == 69  # 68.99999... in floating point
    assert rank_distance(2, 10, "percent") == 0
    with pytest.raises(ValueError):
        rank_distance(2, 10, "ranks")


def test_ties_and_absent_values():
    protected = np.array([[1.0], [2.0], [2.0], [2.0], [5.0], [9.0]])
    original = np.array([[2.0], [2.0], [5.0], [1.0], [2.0], [4.0]])
    low, high = windows(original, protected, 1)
    # 2 occupies sorted positions 1..3: with one rank either side, positions 0..4
    assert (low[0, 0], high[0, 0]) == (1.0, 5.0)
    # 4 is absent: it falls between positions 3 and 4 (values 2 and 5); one rank either
    # side reaches positions 3..4
    assert (low[5, 0], high[5, 0]) == (2.0, 5.0)
    low, high = windows(original, protected, 0)
    assert low[5, 0] > high[5, 0]  # nothing within 0 ranks of an absent value: empty


def test_missing_values():
    original = np.array([[1.0, np.nan], [3.0, 2.0], [3.0, 3.0]])
    protected = np.array([[1.0, 1.0], [3.0, np.nan], [3.0, 3.0]])
    r = intersection_attack(original, protected, 0)
    # record 0: the second variable is unknown to the intruder, the first alone gives
    # {0}; protected record 1 lacks the second variable, so it could hold any value
    # there: record 1: {1, 2} by the first variable, {1} by the second (no protected 2);
    # record 2: {1, 2} by the first, {1, 2} by the second
    assert r.size.tolist() == [1, 1, 2]
    assert r.certain.tolist() == [True, True, False]
    assert r.contains.all()


def brute_sizes(original, protected, distance):
    low, high = windows(original, protected, distance)
    sizes = []
    for i in range(len(original)):
        ok = np.ones(len(protected), dtype=bool)
        for j in range(original.shape[1]):
            if low[i, j] == -np.inf and high[i, j] == np.inf:
                continue
            y = protected[:, j]
            ok &= np.isnan(y) | ((y >= low[i, j]) & (y <= high[i, j]))
        sizes.append(int(ok.sum()))
    return sizes


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 3), st.integers(0, 4))
def test_intersection_sizes_equal_a_plain_scan(seed, c, distance):
    rng = np.random.default_rng(seed)
    n = 30
    original = rng.integers(0, 8, size=(n, c)).astype(float)
    protected = rng.permutation(original)  # same marginals, shuffled records
    original[rng.random(original.shape) < 0.05] = np.nan
    protected[rng.random(protected.shape) < 0.05] = np.nan
    r = intersection_attack(original, protected, distance)
    assert r.size.tolist() == brute_sizes(original, protected, distance)


def _rank_swap(values, d, rng):
    """Seed 003's rank swapping on one variable without ties: rank i, if unswapped,
    swaps with a uniformly chosen rank in [i + 1, min(n, i + d)]."""
    order = np.argsort(values, kind="stable")
    n = len(values)
    sorted_vals = values[order].copy()
    swapped = np.zeros(n, dtype=bool)
    for i in range(n):
        if not swapped[i] and i + 1 < n and d >= 1:
            partner = rng.integers(i + 1, min(n - 1, i + d) + 1)
            sorted_vals[i], sorted_vals[partner] = sorted_vals[partner], sorted_vals[i]
            swapped[i] = swapped[partner] = True
    out = np.empty(n)
    out[order] = sorted_vals
    return out


@pytest.mark.parametrize("p", [1, 5, 20])
def test_rank_swapped_data_always_contain_the_own_record(p):
    # every record's protected version lies in its intersection, whatever the draws
    rng = np.random.default_rng(p)
    n, c = 2000, 4
    original = rng.normal(size=(n, c))
    d = rank_distance(p, n)
    protected = np.column_stack([_rank_swap(original[:, j], d, rng) for j in range(c)])
    r = intersection_attack(original, protected, d)
    assert r.contains.all()
    assert r.size.min() >= 1 and r.size.max() <= 2 * d + 1
    # an intruder who underestimates the distance can miss records (seed 003: "some
    # |cap B_j| can be zero")
    assert not intersection_attack(original, protected, 0).contains.all()
    # the more the swapping, the fewer certain re-identifications
    assert r.certain.sum() <= n


def test_certainty_falls_with_p():
    rng = np.random.default_rng(0)
    n, c = 3000, 3
    original = rng.normal(size=(n, c))
    counts = []
    for p in (1, 5, 20):
        d = rank_distance(p, n)
        protected = np.column_stack([_rank_swap(original[:, j], d, rng) for j in range(c)])
        counts.append(int(intersection_attack(original, protected, d).certain.sum()))
    assert counts[0] > counts[1] > counts[2]


def test_different_numbers_of_records_are_refused():
    with pytest.raises(ValueError, match="linked by position"):
        intersection_attack(np.zeros((3, 1)), np.zeros((2, 1)), 1)
