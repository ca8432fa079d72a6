"""Targeted record swapping of households between geographic areas, the method
recommended by Eurostat for the 2021 European census (Shlomo, Tudor & Groom, "Data
swapping for protecting census tables", Privacy in Statistical Databases 2010; as
implemented in the R package sdcMicro 5.8, ``recordSwap``: J. Gussenbauer, "Targeted
Record Swapping", sdcMicro vignette, 2023).

Data: H households, each with its area at every level of a geographic hierarchy
(``geo``, H x L integer codes, top level first: region > district > municipality), its
similarity profiles (``profiles``, H x P: for profile p, a code of the values of the
profile's variables), and its risk at every level (``risk``, H x L, >= 0).

Risk from k-anonymity counts: at level h, a record's count is the number of records with
its values of the risk variables in its area of level h (the combination of the
geographic codes of levels 0..h); the risk of a record is 1 / count, and a household's
risk the largest of its members'. A household is *high-risk at level h* when h is the
first level where its risk exceeds the threshold (with k-anonymity: some member's count
is below k there; ``high_risk_levels``).

The swaps (``record_swap``), level by level from the top:

1. At each level h above the lowest, every high-risk household of level h that is not
   yet swapped gets a donor: a household not yet swapped, in another area of level h,
   with the recipient's values of the first similarity profile for which such a donor
   exists (the next profile only when the previous one has none). Donors are taken in
   the order of random keys ``risk_h / E`` (E ~ Exp(1)): a sample without replacement
   with probability by risk (Efraimidis & Spirakis, "Weighted random sampling with a
   reservoir", 2006), as sdcMicro does. A household for which no donor exists under any
   profile is *not swapped*; it is not tried again at lower levels (a swap there would
   leave it in its area of level h), but it may still be taken as a donor.
2. The total number of swaps is ``H * swaprate / 2`` (each swap moves two households),
   rounded down or up at random with the probability of its fractional part; it is
   shared among the areas of the lowest level in proportion to their households
   (``allocate_draws``). At the lowest level each area swaps its remaining high-risk
   households first, then households drawn (without replacement, with probability by
   their risk at the lowest level) until its share is reached, counting the swaps its
   households started at higher levels.
3. Swapping exchanges the geographic codes (and the carry-along variables) of the two
   whole households: the caller applies ``partner``. The two share the values of the
   profile they were matched on, so the table of areas (at every level) by the variables
   common to all the profiles is the same after the swaps.

Differences from sdcMicro 5.8 (all deliberate): a household with risk 0 is never swapped
(sdcMicro's documentation says so; its code can still pick one); a donor is always in
another area of the recipient's level (sdcMicro can pick a household of the same area
that failed earlier); an area's share counts the swaps made, not those attempted, so the
swap rate is met whenever donors exist; the extra draws left by rounding the shares go
to areas with probability by their fractional parts (sdcMicro: uniformly among all
areas). Donors and draws are random, so swap by swap the results differ from sdcMicro's
for the same data even with the same seed; the counts and properties do not.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...jit import njit
from ...risk.frequencies import row_ids


@dataclass
class SwapOutcome:
    """What :func:`record_swap` did, per household: ``partner`` (the household it
    exchanged its geography with, -1 if none), ``level`` (the hierarchy level of the swap,
    -1 if none), ``recipient`` (True for the household the donor was found for), and
    ``no_donor`` (high-risk households for which no donor existed, left unswapped);
    ``target`` is the number of swaps the swap rate asks for."""

    partner: np.ndarray
    level: np.ndarray
    recipient: np.ndarray
    no_donor: np.ndarray
    target: int


def area_codes(geo: np.ndarray) -> np.ndarray:
    """The area of each row at each level (H x L): dense ids of the combinations of the
    codes of levels 0..h (so an area of level h lies within one area of each level
    above, whether or not the codes themselves are nested)."""
    n, levels = geo.shape
    out = np.empty((n, levels), dtype=np.int64)
    for h in range(levels):
        out[:, h] = row_ids(geo[:, :h + 1])[0]
    return out


def level_counts(risk_codes: np.ndarray, geo: np.ndarray) -> np.ndarray:
    """For each record (rows of ``risk_codes``, n x r, and ``geo``, n x L) and level h,
    the number of records with its risk-variable values in its area of level h."""
    n, levels = geo.shape
    out = np.empty((n, levels), dtype=np.int64)
    for h in range(levels):
        ids, _ = row_ids(np.concatenate([risk_codes, geo[:, :h + 1]], axis=1))
        out[:, h] = np.bincount(ids)[ids]
    return out


def household_max(values: np.ndarray, units: np.ndarray, households: int) -> np.ndarray:
    """The largest value of each household's members (``values``: records x columns;
    ``units``: household number 0..H-1 of each record)."""
    out = np.full((households, values.shape[1]), -np.inf)
    for j in range(values.shape[1]):
        np.maximum.at(out[:, j], units, values[:, j])
    return out


def high_risk_levels(risk: np.ndarray, threshold: float) -> np.ndarray:
    """The first level at which each household's risk exceeds ``threshold`` (``risk >
    threshold``), or L (the number of levels) if none: the level across which it must be
    swapped."""
    above = risk > threshold
    return np.where(above.any(axis=1), above.argmax(axis=1), risk.shape[1])


def allocate_draws(sizes: np.ndarray, total: int, rng: np.random.Generator) -> np.ndarray:
    """``total`` draws shared among groups in proportion to ``sizes``: each group gets the
    integer part of its share, and the draws left over go to as many groups, drawn without
    replacement with probability by the fractional parts of their shares."""
    sizes = np.asarray(sizes, dtype=np.float64)
    out = np.zeros(len(sizes), dtype=np.int64)
    if total <= 0 or sizes.sum() <= 0:
        return out
    share = sizes / sizes.sum() * total
    out[:] = np.floor(share)
    frac = share - out
    left = int(total - out.sum())
    if left > 0:
        keys = _keys(frac, rng)
        out[np.argsort(-keys, kind="stable")[:left]] += 1
    return out


def _keys(weights: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Efraimidis-Spirakis keys ``w / E`` (E ~ Exp(1)): the n largest are a weighted sample
    without replacement; weight 0 gives key 0 (-1 never beats a positive key)."""
    e = rng.standard_exponential(len(weights))
    return np.where(weights > 0, weights / np.maximum(e, 1e-300), -1.0)


def record_swap(geo: np.ndarray, profiles: np.ndarray, risk: np.ndarray,
                levels: np.ndarray, swaprate: float,
                rng: np.random.Generator) -> SwapOutcome:
    """Targeted record swapping of H households (see the module's description).

    ``geo``: H x L integer codes of the areas, top level first; ``profiles``: H x P
    integer codes, one column per similarity profile (tried in order); ``risk``: H x L,
    >= 0, the sampling weights of each level (households with risk 0 at a level are
    never drawn there); ``levels``: the high-risk level of each household (L: none, see
    :func:`high_risk_levels`); ``swaprate``: share of households to swap, 0..1."""
    geo = _columns(geo, np.int64)
    hh, nlev = geo.shape
    profiles = _columns(profiles, np.int64)
    if profiles.shape[1] == 0:  # no profile: any household is a donor
        profiles = np.zeros((hh, 1), dtype=np.int64)
    risk = _columns(risk, np.float64)
    levels = np.asarray(levels, dtype=np.int64)
    partner = np.full(hh, -1, dtype=np.int64)
    swap_level = np.full(hh, -1, dtype=np.int64)
    recipient = np.zeros(hh, dtype=bool)
    no_donor = np.zeros(hh, dtype=bool)
    share = hh * swaprate / 2.0
    target = int(np.floor(share)) + int(rng.random() < share - np.floor(share))
    if hh == 0 or nlev == 0:
        return SwapOutcome(partner, swap_level, recipient, no_donor, 0)
    areas = area_codes(geo)
    used = np.zeros(hh, dtype=np.bool_)
    lowest = areas[:, -1]
    n_lowest = int(lowest.max()) + 1
    draws = allocate_draws(np.bincount(lowest, minlength=n_lowest), target, rng)
    for h in range(nlev):
        area = areas[:, h]
        must = np.flatnonzero((levels == h) & ~used & ~no_donor)
        if h < nlev - 1:
            if must.size == 0:
                continue
            order = must[rng.permutation(must.size)]
            groups = np.zeros(order.size, dtype=np.int64)
            offsets = np.array([0, order.size], dtype=np.int64)
            n_must = np.array([order.size], dtype=np.int64)
            quota = np.zeros(1, dtype=np.int64)
        else:
            # each lowest area: its high-risk households (random order), then the others
            # by their keys (a sample by risk), until its share of swaps is reached
            started = np.bincount(lowest[recipient], minlength=n_lowest)
            quota = np.maximum(draws - started, 0)
            keys = _keys(risk[:, h], rng)
            is_must = np.zeros(hh, dtype=bool)
            is_must[must] = True
            open_ = ~used & ~no_donor & (is_must | (keys > 0))
            cand = np.flatnonzero(open_)
            cand = cand[np.argsort(-keys[cand])]  # by key, then (stable) by area, must first
            order = cand[np.argsort(2 * lowest[cand] + ~is_must[cand], kind="stable")]
            groups = lowest[order]
            offsets = np.searchsorted(groups, np.arange(n_lowest + 1)).astype(np.int64)
            n_must = np.bincount(lowest[must], minlength=n_lowest).astype(np.int64)
        if order.size == 0:
            continue
        weight = np.ascontiguousarray(risk[:, h])
        _match_level(order, offsets, n_must, quota, np.ascontiguousarray(area), profiles,
                     weight, _keys(weight, rng), used, partner, swap_level, recipient,
                     no_donor, h)
    no_donor &= partner < 0  # (a household without a donor may have been one later)
    return SwapOutcome(partner, swap_level, recipient, no_donor, target)


def _columns(values, dtype) -> np.ndarray:
    """``values`` as a C-contiguous 2-d array of ``dtype`` (a vector as one column)."""
    out = np.ascontiguousarray(values, dtype=dtype)
    return out[:, None] if out.ndim == 1 else out


def _match_level(order, offsets, n_must, quota, area, profiles, weight, keys, used,
                 partner, swap_level, recipient, no_donor, h) -> None:
    """Find donors for the recipients of one level: ``order[offsets[g]:offsets[g+1]]``
    are the candidates of group g, its first ``n_must[g]`` high-risk (each tried), the
    others tried until ``quota[g]`` swaps are made in the group. Donors at this level:
    households with ``weight > 0``, by ``keys`` descending, within each profile's value."""
    hh, nprof = profiles.shape
    eligible = weight > 0
    pool = np.flatnonzero(eligible & ~used)
    donor_order = np.empty((nprof, pool.size), dtype=np.int64)
    starts, heads, counts, pair_ids, pair_counts = [], [], [], [], []
    width = 1
    by_key = pool[np.argsort(-keys[pool])]
    for p in range(nprof):
        prof = profiles[:, p]
        srt = by_key[np.argsort(prof[by_key], kind="stable")]
        donor_order[p] = srt
        n_values = int(prof.max(initial=0)) + 1
        starts.append(np.searchsorted(prof[srt], np.arange(n_values + 1)))
        counts.append(np.bincount(prof[pool], minlength=n_values))
        ids, _ = row_ids(np.column_stack([prof, area]))
        pair_ids.append(ids)
        pair_counts.append(np.bincount(ids[pool], minlength=int(ids.max()) + 1))
        width = max(width, n_values + 1, pair_counts[-1].size)
    start = np.zeros((nprof, width), dtype=np.int64)
    count = np.zeros((nprof, width), dtype=np.int64)
    pair_count = np.zeros((nprof, width), dtype=np.int64)
    pair = np.empty((nprof, hh), dtype=np.int64)
    for p in range(nprof):
        start[p, :starts[p].size] = starts[p]
        count[p, :counts[p].size] = counts[p]
        pair_count[p, :pair_counts[p].size] = pair_counts[p]
        pair[p] = pair_ids[p]
    heads = start.copy()
    _match(order, offsets, n_must, quota, area, profiles, pair, donor_order, start,
           heads, count, pair_count, eligible, used, partner, swap_level, recipient,
           no_donor, h)


@njit(cache=True)
def _take(i, profiles, pair, count, pair_count, eligible, used):
    """Mark household i swapped and out of the donor counts."""
    used[i] = True
    if eligible[i]:
        for p in range(profiles.shape[1]):
            count[p, profiles[i, p]] -= 1
            pair_count[p, pair[p, i]] -= 1


@njit(cache=True)
def _donor(r, area, profiles, pair, donor_order, start, heads, count, pair_count, used):
    """The first donor for recipient r: for each profile in turn, the first household by
    key with r's profile value, not swapped, in another area; -1 if none."""
    for p in range(profiles.shape[1]):
        g = profiles[r, p]
        # donors left with r's value, minus those in r's own area
        if count[p, g] - pair_count[p, pair[p, r]] <= 0:
            continue
        j = heads[p, g]
        end = start[p, g + 1]
        while j < end and used[donor_order[p, j]]:
            j += 1
        heads[p, g] = j  # the donors before j are all swapped: never look at them again
        while j < end:
            d = donor_order[p, j]
            if not used[d] and area[d] != area[r]:
                return d
            j += 1
    return -1


@njit(cache=True)
def _match(order, offsets, n_must, quota, area, profiles, pair, donor_order, start, heads,
           count, pair_count, eligible, used, partner, swap_level, recipient, no_donor, h):
    for g in range(offsets.size - 1):
        made = 0
        for j in range(offsets[g], offsets[g + 1]):
            r = order[j]
            forced = j - offsets[g] < n_must[g]
            if not forced and made >= quota[g]:
                break
            if used[r]:
                continue
            d = _donor(r, area, profiles, pair, donor_order, start, heads, count,
                       pair_count, used)
            if d < 0:
                if forced:
                    no_donor[r] = True
                continue
            _take(r, profiles, pair, count, pair_count, eligible, used)
            _take(d, profiles, pair, count, pair_count, eligible, used)
            partner[r] = d
            partner[d] = r
            swap_level[r] = h
            swap_level[d] = h
            recipient[r] = True
            made += 1
