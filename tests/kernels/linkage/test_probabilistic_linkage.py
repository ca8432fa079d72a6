"""Probabilistic record linkage and its agreement-pattern counts
(sdcflow.kernels.linkage.probabilistic_linkage, .pattern_counts, .pair_scan)."""

import numpy as np
import pytest

from sdcflow.kernels.linkage.coordinates import agreement_coordinates
from sdcflow.kernels.linkage.pattern_counts import pattern_counts
from sdcflow.kernels.linkage.probabilistic_linkage import probabilistic_links

# seed 000, "Rank swapping: Example I" (also seed 003): original and protected files, p = 2
SEED_X = np.array([[8, 9, 1, 3], [6, 7, 10, 2], [10, 3, 4, 1], [7, 1, 2, 6], [9, 4, 6, 4],
                   [2, 2, 8, 8], [1, 10, 3, 9], [4, 8, 7, 10], [5, 5, 5, 5], [3, 6, 9, 7]],
                  dtype=float)
SEED_Y = np.array([[10, 10, 3, 5], [5, 5, 8, 1], [8, 4, 2, 2], [9, 2, 4, 4], [7, 3, 5, 6],
                   [4, 1, 10, 10], [3, 9, 1, 7], [2, 6, 9, 8], [6, 7, 6, 3], [1, 8, 7, 9]],
                  dtype=float)


@pytest.mark.parametrize("seed", range(3))
def test_pattern_count_routes_agree(seed):
    rng = np.random.default_rng(seed)
    n, c = 250, 2 + seed
    original = rng.integers(0, 5, size=(n, c)).astype(float)
    protected = original + rng.integers(-2, 3, size=(n, c))
    original[rng.random(original.shape) < 0.03] = np.nan
    so, sp = agreement_coordinates(original, protected, 0.3)
    direct, own = pattern_counts(so, sp, "direct")
    kd, own_kd = pattern_counts(so, sp, "kdtree")
    np.testing.assert_array_equal(direct, kd)
    np.testing.assert_array_equal(own, own_kd)
    # every complete protected record meets every complete original once
    complete = ~np.isnan(original).any(axis=1)
    assert (direct.sum(axis=1)[~np.isnan(protected).any(axis=1)] == complete.sum()).all()
    # the record's own pattern is counted among its pairs
    rows = np.flatnonzero(own >= 0)
    assert (direct[rows, own[rows]] >= 1).all()
    results = [probabilistic_links(original, protected, 0.3, algorithm=a)
               for a in ("direct", "kdtree", "scan")]
    for other in results[1:]:
        assert other.ties.tolist() == results[0].ties.tolist()
        assert other.correct.tolist() == results[0].correct.tolist()
        assert other.info["pattern_counts"] == results[0].info["pattern_counts"]


def test_probabilistic_linkage_on_identical_distinct_values():
    # every pair disagrees except a record with itself: m -> 1, u -> 0 and every link is
    # unique and correct
    x = np.arange(40, dtype=float).reshape(20, 2) * np.array([1.0, 3.0])
    links = probabilistic_links(x, x.copy(), tolerance=0.0)
    assert links.correct.all() and (links.ties == 1).all()
    assert links.info["em"]["m"] == pytest.approx([1.0, 1.0], abs=1e-6)


def test_seed_example_probabilistic_linkage_finds_nothing():
    # seed 000, "Rank swapping: Example II": PRL links 0 records in each of the four
    # scenarios {V1}, {V1, V2}, {V1, V2, V3}, {V1, ..., V4} (PLD = 0). Rank swapping moved
    # every value, so with equality agreement (the default tolerance 0.1 sd = 0.30 is
    # below the unit spacing) no record agrees with its own original anywhere.
    for k in range(1, 5):
        links = probabilistic_links(SEED_X[:, :k], SEED_Y[:, :k])
        assert links.credit.sum() == 0 and not links.correct.any()
