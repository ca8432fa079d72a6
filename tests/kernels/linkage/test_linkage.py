"""Record linkage and interval disclosure kernels (sdcflow.kernels.linkage.linkage)."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from sdcflow.kernels.linkage.linkage import (
    agreement_coordinates,
    fellegi_sunter_em,
    interval_disclosure,
    mahalanobis_transform,
    nearest_links,
    pattern_counts,
    pattern_weights,
    probabilistic_links,
    standardize,
    weighted,
)

# seed 000, "Rank swapping: Example I" (also seed 003): original and protected files, p = 2
SEED_X = np.array([[8, 9, 1, 3], [6, 7, 10, 2], [10, 3, 4, 1], [7, 1, 2, 6], [9, 4, 6, 4],
                   [2, 2, 8, 8], [1, 10, 3, 9], [4, 8, 7, 10], [5, 5, 5, 5], [3, 6, 9, 7]],
                  dtype=float)
SEED_Y = np.array([[10, 10, 3, 5], [5, 5, 8, 1], [8, 4, 2, 2], [9, 2, 4, 4], [7, 3, 5, 6],
                   [4, 1, 10, 10], [3, 9, 1, 7], [2, 6, 9, 8], [6, 7, 6, 3], [1, 8, 7, 9]],
                  dtype=float)


def brute_force(protected, original):
    """Reference DBRL: every squared distance, ties exact."""
    n = len(protected)
    linked, ties, correct = [], [], []
    for i in range(n):
        if np.isnan(protected[i]).any():
            linked.append(-1), ties.append(0), correct.append(False)
            continue
        d = np.array([np.inf if np.isnan(o).any() else float(((protected[i] - o) ** 2).sum())
                      for o in original])
        tied = np.flatnonzero(d == d.min()) if np.isfinite(d.min()) else np.array([], int)
        linked.append(int(tied.min()) if len(tied) else -1)
        ties.append(len(tied))
        correct.append(bool(i in tied))
    return linked, ties, correct


# ------------------------------------------------------------------------------- DBRL


def test_hand_computed_four_records():
    # originals at the corners of a square; protected 0 and 1 stay near their own corner,
    # protected 2 moved next to corner 3 and protected 3 next to corner 2
    original = np.array([[0, 0], [10, 0], [0, 10], [10, 10]], dtype=float)
    protected = np.array([[1, 0], [9, 1], [10, 9], [0, 9]], dtype=float)
    for algorithm in ("kdtree", "blocked"):
        links = nearest_links(protected, original, algorithm=algorithm)
        assert links.linked.tolist() == [0, 1, 3, 2]
        assert links.ties.tolist() == [1, 1, 1, 1]
        assert links.correct.tolist() == [True, True, False, False]
        assert links.credit.sum() == 2.0


def test_ties_count_one_over_the_number_of_tied_originals():
    # protected record 0 at (5, 0) is 25 from originals 0 (0, 0) and 1 (10, 0): a tie of
    # two that includes its own original -> credit 1/2; record 1 at (10, 1) is nearest to
    # original 1 alone; record 2 at (5, 10) ties originals 2 and 3 -> 1/2
    original = np.array([[0, 0], [10, 0], [0, 10], [10, 10]], dtype=float)
    protected = np.array([[5, 0], [10, 1], [5, 10], [9, 10]], dtype=float)
    for algorithm in ("kdtree", "blocked"):
        links = nearest_links(protected, original, algorithm=algorithm)
        assert links.ties.tolist() == [2, 1, 2, 1]
        assert links.linked.tolist() == [0, 1, 2, 3]  # the lowest of the tied
        assert links.credit.tolist() == [0.5, 1.0, 0.5, 1.0]


def test_identical_files_link_every_record():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(500, 5))
    links = nearest_links(x, x)
    assert links.correct.all() and (links.ties == 1).all() and links.credit.sum() == 500


def test_duplicate_originals_share_the_credit():
    x = np.array([[1.0, 2.0], [1.0, 2.0], [3.0, 4.0]])
    links = nearest_links(x, x)
    assert links.ties.tolist() == [2, 2, 1]
    assert links.credit.tolist() == [0.5, 0.5, 1.0]


def test_missing_values_are_not_linked_nor_candidates():
    original = np.array([[0, 0], [np.nan, 1], [5, 5]], dtype=float)
    protected = np.array([[0, 1], [0, 1], [np.nan, 5]], dtype=float)
    links = nearest_links(protected, original)
    # record 1's own original is incomplete, so it links to original 0; record 2 is not
    # linked at all
    assert links.linked.tolist() == [0, 0, -1]
    assert links.ties.tolist() == [1, 1, 0]
    assert links.correct.tolist() == [True, False, False]


def test_different_numbers_of_records_are_refused():
    with pytest.raises(ValueError, match="linked by position"):
        nearest_links(np.zeros((3, 2)), np.zeros((4, 2)))


@pytest.mark.parametrize("seed", range(4))
def test_kdtree_and_blocked_scan_equal_the_brute_force(seed):
    # integer data: many exact ties, which both routes must decide by the direct sums
    rng = np.random.default_rng(seed)
    n, c = 300, 1 + seed
    original = rng.integers(0, 4, size=(n, c)).astype(float)
    protected = original + rng.integers(-1, 2, size=(n, c))
    original[rng.random(original.shape) < 0.02] = np.nan
    protected[rng.random(protected.shape) < 0.02] = np.nan
    expected = brute_force(protected, original)
    for algorithm in ("kdtree", "blocked"):
        links = nearest_links(protected, original, algorithm=algorithm, block_elements=997)
        assert (links.linked.tolist(), links.ties.tolist(), links.correct.tolist()) == expected


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(2, 12), st.integers(1, 3)),
              elements=st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.25])),
       st.randoms(use_true_random=False))
def test_routes_agree_with_brute_force(original, rnd):
    shift = np.array([[rnd.choice([-0.5, 0.0, 0.25, 1.0]) for _ in range(original.shape[1])]
                      for _ in range(original.shape[0])])
    protected = original + shift
    expected = brute_force(protected, original)
    for algorithm in ("kdtree", "blocked"):
        links = nearest_links(protected, original, algorithm=algorithm, block_elements=7)
        assert (links.linked.tolist(), links.ties.tolist(), links.correct.tolist()) == expected


def test_more_equidistant_originals_than_the_first_search_holds():
    # 325 = 1^2 + 18^2 = 6^2 + 17^2 = 10^2 + 15^2: 24 distinct originals at the same
    # distance from the origin, more than the 16 nearest the k-d route asks for first
    # (it must then ask for the whole ball); brute force decides, with 1 or 2 threads
    ring = sorted({(sx * a, sy * b) for a, b in [(1, 18), (6, 17), (10, 15)]
                   for a, b in [(a, b), (b, a)] for sx in (1, -1) for sy in (1, -1)})
    original = np.array(ring + [(40.0, 40.0)], dtype=float)
    protected = np.zeros_like(original)
    protected[:-1] = original[:-1] * 0.0  # every record but the last is moved to the origin
    protected[-1] = (40.0, 40.0)
    expected = brute_force(protected, original)
    assert expected[1][:3] == [24, 24, 24]
    for workers in (1, 2):
        links = nearest_links(protected, original, algorithm="kdtree", workers=workers)
        assert (links.linked.tolist(), links.ties.tolist(), links.correct.tolist()) == expected


def test_large_values_ties_are_exact():
    # the expanded form ||a||^2 - 2ab + ||b||^2 loses the last digits on values of 1e8;
    # the decisions use the direct sums, so the exact tie at distance 1 is kept
    original = np.array([[1e8], [1e8 + 2], [5e8]])
    protected = np.array([[1e8 + 1], [1e8 + 2], [5e8]])
    for algorithm in ("kdtree", "blocked"):
        links = nearest_links(protected, original, algorithm=algorithm)
        assert links.ties.tolist() == [2, 1, 1]
        assert links.credit.tolist() == [0.5, 1.0, 1.0]


# ------------------------------------------------------------------------- coordinates


def test_standardize_with_the_original_moments():
    original = np.array([[1.0, 10.0], [3.0, 10.0], [5.0, 10.0]])
    protected = np.array([[3.0, 11.0], [5.0, 10.0], [7.0, 9.0]])
    zo, zp = standardize(original, protected)
    # original mean 3, sd 2 (ddof 1); the constant column keeps sd 1
    np.testing.assert_allclose(zo[:, 0], [-1, 0, 1])
    np.testing.assert_allclose(zp[:, 0], [0, 1, 2])
    np.testing.assert_allclose(zp[:, 1], [1, 0, -1])
    _, zp_each = standardize(original, protected, "each")
    np.testing.assert_allclose(zp_each[:, 0], [-1, 0, 1])


def test_weighted_distance():
    a = np.array([[0.0, 0.0]])
    b = np.array([[1.0, 2.0]])
    d = ((weighted(a, [3.0, 0.5]) - weighted(b, [3.0, 0.5])) ** 2).sum()
    assert d == pytest.approx(3 * 1 + 0.5 * 4)


def test_mahalanobis_transform_is_the_pseudo_inverse_distance():
    rng = np.random.default_rng(5)
    original = rng.normal(size=(200, 3)) @ np.array([[2, 0, 0], [1, 1, 0], [0, 0.5, 3]])
    protected = original + rng.normal(scale=0.3, size=original.shape)
    a, b, info = mahalanobis_transform(original, protected)
    assert info["rank"] == 3
    pooled = (199 * np.cov(original.T) + 199 * np.cov(protected.T)) / 398
    inv = np.linalg.pinv(pooled)
    delta = protected[7] - original[3]
    assert ((b[7] - a[3]) ** 2).sum() == pytest.approx(delta @ inv @ delta, rel=1e-9)


def test_mahalanobis_collinear_variables_use_the_pseudo_inverse():
    rng = np.random.default_rng(6)
    x = rng.normal(size=(100, 1))
    original = np.hstack([x, 2 * x])  # rank 1: every record on the line (1, 2)
    # random moves off the line give the pooled covariance a second direction
    protected = original + rng.uniform(-1, 1, size=(100, 1)) * np.array([[2.0, -1.0]])
    assert mahalanobis_transform(original, protected)[2]["rank"] == 2
    # a constant move orthogonal to the line keeps both files on parallel lines: the
    # pooled covariance has rank 1, the pseudo-inverse ignores the orthogonal direction,
    # and every record links to its own original
    a, b, info = mahalanobis_transform(original, original + 0.5 * np.array([[2.0, -1.0]]))
    assert info["rank"] == 1 and a.shape == (100, 1)
    links = nearest_links(b, a)
    assert links.credit.sum() == 100


# ---------------------------------------------------------------- probabilistic linkage


def test_agreement_within_the_tolerance():
    original = np.array([[0.0], [1.0], [2.0], [3.0]])  # sd 1.2910
    protected = np.array([[0.1], [1.2], [2.0], [3.5]])
    so, sp = agreement_coordinates(original, protected, tolerance=0.1)  # 0.1291
    assert (np.abs(so - sp) <= 1).ravel().tolist() == [True, False, True, False]
    so, sp = agreement_coordinates(original, protected, tolerance=0.0)  # equality
    assert (np.abs(so - sp) <= 1).ravel().tolist() == [False, False, True, False]


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


def test_pattern_weights():
    m, u = [0.9, 0.8], [0.1, 0.4]
    w = pattern_weights(m, u)
    # pattern 0b01: variable 0 agrees, variable 1 does not
    assert w[0b01] == pytest.approx(np.log(0.9 / 0.1) + np.log(0.2 / 0.6))
    assert w[0b11] == pytest.approx(np.log(9) + np.log(2))
    assert w[0b00] == pytest.approx(np.log(0.1 / 0.9) + np.log(0.2 / 0.6))


def test_em_recovers_the_parameters_from_expected_counts():
    # pattern counts exactly as the model expects them, with conditional independence:
    # the true parameters are the maximum of the likelihood, and EM (p fixed at the truth)
    # returns them
    m = np.array([0.95, 0.8, 0.7])
    u = np.array([0.05, 0.2, 0.1])
    p, pairs = 0.01, 1e6
    counts = []
    for g in range(8):
        bits = np.array([(g >> j) & 1 for j in range(3)])
        pm = np.prod(np.where(bits, m, 1 - m))
        pu = np.prod(np.where(bits, u, 1 - u))
        counts.append(pairs * (p * pm + (1 - p) * pu))
    em = fellegi_sunter_em(np.array(counts), 3, p=p, max_iter=20000, tol=1e-12)
    assert em["converged"]
    np.testing.assert_allclose(em["m"], m, atol=1e-6)
    np.testing.assert_allclose(em["u"], u, atol=1e-6)


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


def test_seed_example_distance_linkage():
    # DBRL on the nested scenarios of the same table. Computed here (squared Euclidean on
    # standardised values, ties 1/t): 0, 2, 5.5, 6 correct links; the seed prints 0, 2,
    # 4, 1 (see tests/measures/test_record_linkage_measure.py for why these cannot come
    # from this Euclidean linkage).
    zo, zp = standardize(SEED_X, SEED_Y)
    found = [nearest_links(zp[:, :k], zo[:, :k]).credit.sum() for k in range(1, 5)]
    assert found == [0.0, 2.0, 5.5, 6.0]


# ------------------------------------------------------------------- interval disclosure


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


def test_subsets_are_itertools_combinations():
    # the scenario helper of the measures enumerates the same subsets
    from sdcflow.measures.linkage.record_linkage import scenario_sets

    assert scenario_sets(3, "subsets") == [s for k in (1, 2, 3)
                                          for s in itertools.combinations(range(3), k)]
    assert scenario_sets(3, "prefixes") == [(0,), (0, 1), (0, 1, 2)]
