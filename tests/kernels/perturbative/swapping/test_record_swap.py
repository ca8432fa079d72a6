"""Targeted record swapping kernel: risk counts, high-risk levels, the allocation of the
swaps, and the properties of the swaps (sdcMicro 5.8's recordSwap, documented in its
R/recordSwap.R and vignette "recordSwapping"; values below are computed by hand from
those definitions)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.perturbative.swapping.record_swap import (
    allocate_draws,
    area_codes,
    high_risk_levels,
    household_max,
    level_counts,
    record_swap,
)


def test_level_counts_by_hand():
    # risk variable r and two levels (region g0, municipality g1, codes not nested):
    # level 0 counts (r, g0): (0,0) x2, (1,0) x1, (0,1) x3; level 1 adds g1
    r = np.array([[0], [0], [1], [0], [0], [0]])
    geo = np.array([[0, 0], [0, 1], [0, 1], [1, 0], [1, 0], [1, 1]])
    np.testing.assert_array_equal(level_counts(r, geo),
                                  [[2, 1], [2, 1], [1, 1], [3, 2], [3, 2], [3, 1]])


def test_area_codes_nest_each_level_in_the_one_above():
    # municipality code 0 exists in both regions: two different areas of level 1
    areas = area_codes(np.array([[0, 0], [1, 0], [0, 0], [1, 1]]))
    assert areas[0, 1] == areas[2, 1] and areas[0, 1] != areas[1, 1] != areas[3, 1]
    assert len(set(areas[:, 1])) == 3


def test_household_max_and_high_risk_levels_by_hand():
    units = np.array([0, 0, 1, 2, 2])
    values = np.array([[0.1, 0.5], [0.2, 0.1], [0.6, 0.7], [0.1, 0.2], [0.1, 0.3]])
    np.testing.assert_array_equal(household_max(values, units, 3),
                                  [[0.2, 0.5], [0.6, 0.7], [0.1, 0.3]])
    # first level with risk > 0.4: household 0 at level 1, 1 at level 0, 2 none (= L = 2)
    np.testing.assert_array_equal(high_risk_levels(household_max(values, units, 3), 0.4),
                                  [1, 0, 2])
    # k-anonymity as sdcMicro: risk 1 / count > 1 / k exactly when count < k
    counts = np.array([[5.0, 2.0], [3.0, 3.0], [2.0, 1.0]])
    np.testing.assert_array_equal(high_risk_levels(1 / counts, 1 / 3), [1, 2, 0])


@pytest.mark.parametrize("seed", range(20))
def test_allocate_draws_by_hand(seed):
    # shares 0.5, 1.5, 3: integer parts 0, 1, 3 and the draw left over goes to the first
    # or the second group (fraction 0.5 each), never to the third (fraction 0)
    out = allocate_draws(np.array([10, 30, 60]), 5, np.random.default_rng(seed))
    assert out[2] == 3 and out[0] + out[1] == 2 and out.min() >= 0 and out[1] >= 1


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, 40), min_size=1, max_size=30), st.integers(0, 200),
       st.integers(0, 2**32 - 1))
def test_allocate_draws_sums_to_total_within_one_of_each_share(sizes, total, seed):
    sizes = np.array(sizes)
    out = allocate_draws(sizes, total, np.random.default_rng(seed))
    if sizes.sum() == 0:
        assert out.sum() == 0
        return
    share = sizes / sizes.sum() * total
    assert out.sum() == total
    assert (out >= np.floor(share)).all() and (out <= np.ceil(share)).all()


# --- the swaps --------------------------------------------------------------------------

def _grid(hh_per_area=2):
    """2 regions x 2 municipalities, ``hh_per_area`` households in each."""
    region = np.repeat([0, 0, 1, 1], hh_per_area)
    muni = np.repeat([0, 1, 0, 1], hh_per_area)
    return np.column_stack([region, muni])


def test_swap_rate_by_hand():
    # 8 households, swaprate 0.5: 8 * 0.5 / 2 = 2 swaps exactly, so 4 households move;
    # nobody is high-risk (levels = L = 2)
    geo = _grid()
    for seed in range(10):
        out = record_swap(geo, np.zeros((8, 1)), np.ones((8, 2)), np.full(8, 2), 0.5,
                          np.random.default_rng(seed))
        assert out.target == 2
        assert (out.partner >= 0).sum() == 4 and out.recipient.sum() == 2
        assert (out.level[out.partner >= 0] == 1).all()  # swapped at the lowest level


def test_high_risk_household_gets_a_donor_of_its_profile_in_another_region():
    # household 0 (region 0, profile 0) is high-risk at level 0: its donor must be in
    # region 1 with profile 0, i.e. household 4 or 6
    geo = _grid()
    profiles = np.array([0, 1, 0, 1, 0, 1, 0, 1])[:, None]
    levels = np.full(8, 2)
    levels[0] = 0
    for seed in range(10):
        out = record_swap(geo, profiles, np.ones((8, 2)), levels, 0.0,
                          np.random.default_rng(seed))
        assert out.partner[0] in (4, 6) and out.level[0] == 0 and out.recipient[0]
        assert (out.partner >= 0).sum() == 2  # swaprate 0: only the high-risk one
        assert not out.no_donor.any()


def test_next_profile_when_the_first_has_no_donor():
    # profile 1 of household 0 (value 9) is unique; profile 2 matches households 1 and 5
    # only, of which 5 is in the other region
    geo = _grid()
    profiles = np.column_stack([[9, 0, 0, 0, 0, 0, 0, 0], [3, 3, 0, 0, 0, 3, 0, 0]])
    levels = np.full(8, 2)
    levels[0] = 0
    out = record_swap(geo, profiles, np.ones((8, 2)), levels, 0.0, np.random.default_rng(1))
    assert out.partner[0] == 5 and out.partner[5] == 0


def test_no_donor_is_reported_and_never_tried_again():
    # household 0's profile is unique: no donor, so it stays, even with swaprate 1
    geo = _grid()
    profiles = np.array([7, 0, 0, 0, 0, 0, 0, 0])[:, None]
    levels = np.full(8, 2)
    levels[0] = 0
    out = record_swap(geo, profiles, np.ones((8, 2)), levels, 1.0, np.random.default_rng(3))
    assert out.no_donor[0] and out.partner[0] == -1 and out.no_donor.sum() == 1


def test_households_with_risk_zero_are_never_swapped():
    geo = _grid(5)
    risk = np.ones((20, 2))
    risk[::3] = 0.0
    out = record_swap(geo, np.zeros((20, 1)), risk, np.full(20, 2), 1.0,
                      np.random.default_rng(0))
    assert (out.partner[::3] == -1).all() and (out.partner >= 0).sum() > 0


def test_no_households():
    out = record_swap(np.zeros((0, 2), dtype=np.int64), np.zeros((0, 1)), np.zeros((0, 2)),
                      np.zeros(0, dtype=np.int64), 0.1, np.random.default_rng(0))
    assert out.partner.size == 0 and out.target == 0


def test_swap_rate_met_on_a_larger_file():
    # 2000 households in 5 x 8 areas, profiles of 4 values, no high-risk household:
    # 2000 * 0.1 / 2 = 100 swaps exactly, 200 households
    rng = np.random.default_rng(5)
    geo = np.column_stack([rng.integers(0, 5, 2000), rng.integers(0, 8, 2000)])
    out = record_swap(geo, rng.integers(0, 4, (2000, 1)), rng.random((2000, 2)) + 0.01,
                      np.full(2000, 2), 0.1, np.random.default_rng(6))
    assert out.target == 100 and out.recipient.sum() == 100
    assert (out.partner >= 0).sum() == 200


def test_deterministic_under_the_seed():
    rng = np.random.default_rng(5)
    geo = np.column_stack([rng.integers(0, 3, 500), rng.integers(0, 4, 500)])
    args = (geo, rng.integers(0, 3, (500, 2)), rng.random((500, 2)),
            rng.integers(0, 3, 500), 0.2)
    a = record_swap(*args, np.random.default_rng(11))
    b = record_swap(*args, np.random.default_rng(11))
    c = record_swap(*args, np.random.default_rng(12))
    np.testing.assert_array_equal(a.partner, b.partner)
    np.testing.assert_array_equal(a.level, b.level)
    assert not np.array_equal(a.partner, c.partner)


@st.composite
def swap_inputs(draw):
    hh = draw(st.integers(1, 60))
    nlev = draw(st.integers(1, 3))
    nprof = draw(st.integers(1, 2))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    geo = rng.integers(0, draw(st.integers(1, 4)), (hh, nlev))
    profiles = rng.integers(0, draw(st.integers(1, 4)), (hh, nprof))
    risk = rng.choice([0.0, 0.2, 0.5, 1.0], (hh, nlev))
    threshold = draw(st.sampled_from([0.3, 0.6, 2.0]))
    rate = draw(st.floats(0, 1))
    return geo, profiles, risk, high_risk_levels(risk, threshold), rate, draw(
        st.integers(0, 2**32 - 1))


@settings(max_examples=150, deadline=None)
@given(swap_inputs())
def test_swap_properties(inputs):
    geo, profiles, risk, levels, rate, seed = inputs
    nlev = geo.shape[1]
    out = record_swap(geo, profiles, risk, levels, rate, np.random.default_rng(seed))
    areas = area_codes(geo)
    swapped = np.flatnonzero(out.partner >= 0)
    p = out.partner
    # pairs: each household swapped at most once, with a partner that swapped with it
    assert (p[p[swapped]] == swapped).all() and (p[swapped] != swapped).all()
    assert (out.level[swapped] == out.level[p[swapped]]).all()
    # one of each pair is the recipient
    assert (out.recipient[swapped] != out.recipient[p[swapped]]).all()
    for i in swapped:
        h = out.level[i]
        # the partner is in another area of the level of the swap ...
        assert areas[i, h] != areas[p[i], h]
        # ... shares a similarity profile, and was drawn with positive risk there
        assert (profiles[i] == profiles[p[i]]).any()
        assert risk[i, h] > 0 and risk[p[i], h] > 0
        # above the lowest level only high-risk households of that level start a swap
        if out.recipient[i] and h < nlev - 1:
            assert levels[i] == h
    # every high-risk household is swapped or has no donor: and then none existed, i.e.
    # every household that could have been its donor was swapped (with someone else)
    high = levels < nlev
    assert (out.partner[high] >= 0).sum() + out.no_donor.sum() == high.sum()
    for r in np.flatnonzero(out.no_donor):
        h = levels[r]
        could = (areas[:, h] != areas[r, h]) & (risk[:, h] > 0) & \
            (profiles == profiles[r]).any(axis=1)
        assert (out.partner[could] >= 0).all()
    # the swap rate is never exceeded by households drawn without being high-risk
    drawn = out.recipient & (out.level == nlev - 1) & (levels == nlev)
    assert drawn.sum() <= out.target
