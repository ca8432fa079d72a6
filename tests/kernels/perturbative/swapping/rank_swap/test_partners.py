"""The partners of rank swapping and its p-buckets / p-distribution variants
(sdcflow.kernels.perturbative.swapping.rank_swap.partners; seed 003_fc14c51a27fe5611.txt)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from sdcflow.kernels.perturbative.swapping.rank_swap.fenwick import _fw_add
from sdcflow.kernels.perturbative.swapping.rank_swap.partners import (
    _MAX_REJECTIONS,
    _swap_loop,
    rank_window,
    swap_partners,
)


def test_rank_window_is_p_percent_of_n_rounded_down():
    assert rank_window(10, 20) == 2
    assert rank_window(1000, 5) == 50
    assert rank_window(1500, 4.6) == 69  # 4.6 * 1500 / 100 is 68.99999999999999 in floats
    assert rank_window(99, 1) == 0


# --- pure-Python references of seed 003's algorithm, on the same uniform stream ---------

def reference_standard(n, p, uniforms):
    """Seed 003's loop, written out: partner uniformly among the unswapped ranks in
    [i + 1, min(n, i + w)] (0-based)."""
    w = rank_window(n, p)
    partner = list(range(n))
    swapped = [False] * n
    it = iter(uniforms)
    if w < 1:
        return partner
    for i in range(n):
        if swapped[i]:
            continue
        swapped[i] = True
        candidates = [l for l in range(i + 1, min(n, i + w + 1)) if not swapped[l]]
        if candidates:
            l = candidates[min(int(next(it) * len(candidates)), len(candidates) - 1)]
            swapped[l] = True
            partner[i], partner[l] = l, i
    return partner


def reference_buckets(n, p, uniforms):
    """p-buckets: bucket s >= r with probability (1/K) 2^-(s-r+1) over the buckets that
    still hold an unswapped rank, then a rank of it uniformly. As in the kernel, buckets
    more than 52 above the first available one (relative weight < 2^-52) are left out."""
    b = max(rank_window(n, p), 1)
    partner = list(range(n))
    swapped = [False] * n
    it = iter(uniforms)
    for i in range(n):
        if swapped[i]:
            continue
        swapped[i] = True
        r = i // b
        free = {}
        for l in range(i + 1, n):
            if not swapped[l]:
                free.setdefault(l // b, []).append(l)
        if not free:
            continue
        first = min(free)
        weights = {s: 2.0 ** -(s - r + 1) for s in sorted(free) if s - first < 53}
        target = next(it) * sum(weights.values())
        acc = 0.0
        for s, wgt in weights.items():
            acc += wgt
            chosen = s
            if target < acc:
                break
        cands = free[chosen]
        l = cands[min(int(next(it) * len(cands)), len(cands) - 1)]
        swapped[l] = True
        partner[i], partner[l] = l, i
    return partner


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 90), st.floats(0.5, 100), st.integers(0, 2**32 - 1),
       st.sampled_from(["standard", "p_buckets"]))
def test_kernel_equals_the_reference_algorithm(n, p, seed, variant):
    got = swap_partners(n, p, np.random.default_rng(seed), variant)
    uniforms = np.random.default_rng(seed).random(3 * n + 200)
    ref = (reference_standard if variant == "standard" else reference_buckets)(n, p, uniforms)
    assert got.tolist() == ref


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 300), st.floats(0.1, 100), st.integers(0, 2**32 - 1),
       st.sampled_from(["standard", "p_buckets", "p_distribution"]))
def test_partners_form_swaps_and_standard_stays_in_range(n, p, seed, variant):
    partner = swap_partners(n, p, np.random.default_rng(seed), variant)
    ranks = np.arange(n)
    assert (partner[partner] == ranks).all()  # each swap is an exchange of two values
    if variant == "standard":
        w = rank_window(n, p)
        assert (np.abs(partner - ranks) <= w).all()
        # a rank left alone had no unswapped rank in its range when it was visited
        for i in ranks[partner == ranks]:
            above = partner[i + 1:min(n, i + w + 1)]
            assert (above < i).all()
    else:
        # the variants leave at most one rank alone (the last unswapped one)
        assert (partner == ranks).sum() <= 1


def test_same_generator_state_same_swaps_and_different_seeds_differ():
    for variant in ("standard", "p_buckets", "p_distribution"):
        a = swap_partners(5000, 3, np.random.default_rng(7), variant)
        b = swap_partners(5000, 3, np.random.default_rng(7), variant)
        c = swap_partners(5000, 3, np.random.default_rng(8), variant)
        assert (a == b).all() and (a != c).any()


def _first_partners(n, p, variant, runs, seed=2024):
    rng = np.random.default_rng(seed)
    return np.array([swap_partners(n, p, rng, variant)[0] for _ in range(runs)])


def _within_six_sigma(counts, probs, runs):
    expected = runs * probs
    sd = np.sqrt(runs * probs * (1 - probs))
    assert (np.abs(counts - expected) <= 6 * sd + 1e-9).all(), (counts, expected)


def test_standard_partner_of_the_lowest_rank_is_uniform_in_its_window():
    runs = 6000
    first = _first_partners(100, 5, "standard", runs)  # w = 5: ranks 1..5
    counts = np.bincount(first, minlength=6)[1:6]
    assert first.min() >= 1 and first.max() <= 5
    _within_six_sigma(counts, np.full(5, 0.2), runs)


def test_p_buckets_picks_bucket_s_with_probability_two_to_minus_s_minus_r_plus_1():
    # n = 40, p = 10: buckets of 4 ranks, B_1..B_10. Rank 1 (bucket r = 1) finds every
    # bucket available, so Pr[B_s] = 2^-(s-r+1) / K, K = sum_{s=1}^{10} 2^-s (seed 003).
    runs = 20000
    first = _first_partners(40, 10, "p_buckets", runs)
    counts = np.bincount(first // 4, minlength=10)
    probs = 0.5 ** np.arange(1, 11)
    _within_six_sigma(counts, probs / probs.sum(), runs)
    # within the chosen bucket uniformly: bucket 1 offers ranks 2, 3, 4 (0-based 1..3)
    inside = np.bincount(first[first < 4], minlength=4)[1:]
    _within_six_sigma(inside, np.full(3, 1 / 3), int((first < 4).sum()))
    # every bucket is reachable: far beyond the standard window of 4 ranks
    assert first.max() >= 28


def test_p_distribution_offset_is_the_rounded_normal_restricted_to_available_ranks():
    # n = 200, p = 10: q = 20 ranks, r ~ N(10, 10) rounded; rank 1 can pick any r >= 1
    runs = 20000
    offsets = _first_partners(200, 10, "p_distribution", runs)
    k = np.arange(1, 200)
    mass = norm.cdf(k + 0.5, 10, 10) - norm.cdf(k - 0.5, 10, 10)
    probs = mass / mass.sum()
    bins = [(1, 5), (5, 10), (10, 15), (15, 20), (20, 30), (30, 200)]
    counts = np.array([((offsets >= a) & (offsets < b)).sum() for a, b in bins])
    binned = np.array([probs[(k >= a) & (k < b)].sum() for a, b in bins])
    _within_six_sigma(counts, binned, runs)
    assert offsets.max() > 30  # unbounded support: beyond mean + 2 sd


def _state(n, available):
    avail = np.zeros(n, dtype=np.bool_)
    avail[list(available)] = True
    tree = np.zeros(n + 1, dtype=np.int64)
    for i in np.flatnonzero(avail):
        _fw_add(tree, i, 1)
    top = 1 << (n.bit_length() - 1)
    return avail, tree, top


def test_p_distribution_after_many_rejections_samples_the_exact_conditional():
    # Only ranks 6 and 7 are free above rank 0 and mu = sd = 1: the proposal hits them
    # with probability ~2e-3, so most draws reach the exact fallback. Either way the
    # partner must follow P(r = 6) : P(r = 7) = mass(6) : mass(7).
    n, runs = 50, 4000
    rng = np.random.default_rng(11)
    picks = []
    for _ in range(runs):
        avail, tree, top = _state(n, [0, 6, 7])
        partner = np.arange(n, dtype=np.int64)
        pool = rng.random(_MAX_REJECTIONS + 2)
        _swap_loop(2, n, 1, 1.0, 1.0, tree, top, avail, np.zeros(1, np.int64),
                   np.ones(1, np.int64), np.zeros(2, np.int64), partner, 0, pool)
        picks.append(partner[0])
    picks = np.array(picks)
    m6, m7 = (norm.cdf(6.5, 1, 1) - norm.cdf(5.5, 1, 1),
              norm.cdf(7.5, 1, 1) - norm.cdf(6.5, 1, 1))
    assert set(picks) == {6, 7}
    _within_six_sigma(np.array([(picks == 6).sum()]), np.array([m6 / (m6 + m7)]), runs)


def test_p_distribution_takes_the_nearest_free_rank_when_the_normal_has_no_mass_there():
    n = 1000
    avail, tree, top = _state(n, [0, 999])
    partner = np.arange(n, dtype=np.int64)
    _swap_loop(2, n, 1, 2.0, 2.0, tree, top, avail, np.zeros(1, np.int64),
               np.ones(1, np.int64), np.zeros(2, np.int64), partner, 0,
               np.random.default_rng(0).random(80))
    assert partner[0] == 999 and partner[999] == 0


def test_too_small_p_swaps_nothing_in_the_standard_variant():
    assert (swap_partners(30, 3, np.random.default_rng(0)) == np.arange(30)).all()
    # the variants still swap: a bucket has at least one rank, the normal any offset
    assert (swap_partners(30, 3, np.random.default_rng(0), "p_buckets") != np.arange(30)).any()
    assert (swap_partners(30, 3, np.random.default_rng(0), "p_distribution")
            != np.arange(30)).any()


def test_unknown_variant_is_refused():
    with pytest.raises(ValueError, match="unknown rank swapping variant"):
        swap_partners(10, 5, np.random.default_rng(0), "p_random")
