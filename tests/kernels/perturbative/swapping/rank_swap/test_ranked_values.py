"""Rank swapping applied to a variable's values (sdcflow.kernels.perturbative.swapping.rank_swap
.ranked_values; seed 003_fc14c51a27fe5611.txt, seed 000_1eece6b9d3791e64.txt "Rank
swapping")."""

import numpy as np
import pytest

from sdcflow.kernels.perturbative.swapping.rank_swap.ranked_values import (
    apply_rank_swaps,
    rank_order,
    rank_swap,
)

# Seed 003 / seed 000, "Rank swapping: Example I": four variables with values 1..10,
# rank swapping with p = 2 (ranks, i.e. p = 20% of the 10 records).
ORIGINAL = np.array([
    [8, 9, 1, 3], [6, 7, 10, 2], [10, 3, 4, 1], [7, 1, 2, 6], [9, 4, 6, 4],
    [2, 2, 8, 8], [1, 10, 3, 9], [4, 8, 7, 10], [5, 5, 5, 5], [3, 6, 9, 7]])
PROTECTED = np.array([
    [10, 10, 3, 5], [5, 5, 8, 1], [8, 4, 2, 2], [9, 2, 4, 4], [7, 3, 5, 6],
    [4, 1, 10, 10], [3, 9, 1, 7], [2, 6, 9, 8], [6, 7, 6, 3], [1, 8, 7, 9]])
# The swaps the protected file shows (values are their own ranks): e.g. in a_1 the
# values 1 and 3 traded places (records 7 and 10), 2 and 4, 5 and 6, 7 and 9, 8 and 10.
SEED_SWAPS = [
    [(1, 3), (2, 4), (5, 6), (7, 9), (8, 10)],
    [(1, 2), (3, 4), (5, 7), (6, 8), (9, 10)],
    [(1, 3), (2, 4), (5, 6), (7, 9), (8, 10)],
    [(1, 2), (3, 5), (4, 6), (7, 9), (8, 10)],
]


def test_seed_example_is_reproduced_from_its_swaps():
    for j, swaps in enumerate(SEED_SWAPS):
        out = apply_rank_swaps(ORIGINAL[:, j], swaps, max_distance=2)
        assert out.tolist() == PROTECTED[:, j].tolist()


def test_seed_example_transparency_attack_finds_the_record():
    # seed 003, "Intruder's attack. Example.": x_2 = (6, 7, 10, 2), p = 2; B_j(x_2j) are
    # the masked records whose value is within 2 ranks; the intersection is one record.
    x = ORIGINAL[1]
    sets = [{i for i in range(10) if abs(PROTECTED[i, j] - x[j]) <= 2} for j in range(4)]
    assert {tuple(PROTECTED[i]) for i in sets[0]} == {
        (4, 1, 10, 10), (5, 5, 8, 1), (6, 7, 6, 3), (7, 3, 5, 6), (8, 4, 2, 2)}
    assert {tuple(PROTECTED[i]) for i in sets[2]} == {(5, 5, 8, 1), (2, 6, 9, 8), (4, 1, 10, 10)}
    assert [len(s) for s in sets] == [5, 5, 3, 4]
    (only,) = set.intersection(*sets)
    assert PROTECTED[only].tolist() == [5, 5, 8, 1] and only == 1


def test_apply_rank_swaps_refuses_choices_the_algorithm_cannot_make():
    x = np.arange(1, 7)
    with pytest.raises(ValueError, match="more than 2 apart"):
        apply_rank_swaps(x, [(1, 4)], max_distance=2)
    with pytest.raises(ValueError, match="only once"):
        apply_rank_swaps(x, [(1, 2), (2, 3)])
    with pytest.raises(ValueError, match="rank 3 is left unswapped although rank 4"):
        apply_rank_swaps(x, [(1, 2), (5, 6)], max_distance=2)
    # without max_distance any disjoint pairs are applied
    assert apply_rank_swaps(x, [(1, 6)]).tolist() == [6, 2, 3, 4, 5, 1]


def test_rank_swap_keeps_missing_values_and_permutes_the_others():
    rng = np.random.default_rng(3)
    x = rng.normal(size=500)
    x[rng.choice(500, 40, replace=False)] = np.nan
    for variant in ("standard", "p_buckets", "p_distribution"):
        source = rank_swap(x, 10, np.random.default_rng(1), variant)
        missing = np.isnan(x)
        assert (source[missing] == np.flatnonzero(missing)).all()
        assert not np.isnan(x[source[~missing]]).any()
        assert sorted(source) == list(range(500))


def test_ties_are_ranked_by_value_then_position():
    x = np.array([2.0, 1.0, 2.0, np.nan, 1.0])
    assert rank_order(x).tolist() == [1, 4, 0, 2]
