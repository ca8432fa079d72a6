"""Rank swapping and its two variants that resist the transparency attack (seed
003_fc14c51a27fe5611.txt, "Attacking Rank Swapping" and "Avoiding Transparency Attack in
Rank Swapping"; seed 000_1eece6b9d3791e64.txt, "Rank swapping"; Nin, Herranz & Torra,
"Rethinking rank swapping to decrease disclosure risk", DKE 64 (2008) 346-364).

The values a_1 <= ... <= a_n of one variable are taken in rank order (ties: stable order
by value, then by record position). The ranks are visited in increasing order; a rank
that is still unswapped picks a partner among the *unswapped* ranks above it and the two
values are exchanged; a rank with no admissible partner keeps its value. The variants
differ only in how the partner is drawn (with ``w = floor(p n / 100)``):

``standard`` (seed 003, algorithm "Rank swapping")
    uniformly among the unswapped ranks in ``[i + 1, min(n, i + w)]``: a value moves by
    at most ``w`` ranks, so an intruder who knows ``p`` can bound the masked record to
    the set ``B_j`` of seed 003 (at most ``2w`` candidates per variable).
``p_buckets`` (seed 003, "Rank swapping p-buckets")
    the ranks are cut into buckets ``B_1, B_2, ...`` of ``w`` consecutive ranks (the
    last one may be shorter, ``w >= 1``); rank ``i`` in bucket ``B_r`` picks bucket
    ``B_s``, ``s >= r``, with ``Pr[B_s | B_r] = (1/K) 2^-(s-r+1)``, then a partner
    uniformly among the unswapped ranks of ``B_s``. ``K`` normalises over the buckets
    that still hold an unswapped rank (other than ``i``), so every bucket above has a
    positive probability and ``B_j`` is the whole file.
``p_distribution`` (seed 003, "Rank swapping p-distribution")
    ``l = i + r`` with ``r`` drawn from ``N(0.5 q, 0.5 q)`` (mean and standard deviation,
    ``q = p n / 100`` ranks, not rounded) and rounded to the nearest integer, conditioned
    on ``l`` being an unswapped rank above ``i``; the normal has unbounded support, so
    again every rank above ``i`` is possible.

The seed's algorithm swaps towards higher ranks only (``l > i``); a value can still move
down, when a lower rank picks it. Every variant permutes the values, so the marginal
distribution (the multiset of values) is kept exactly.

Randomness: the partner choices consume a stream of uniform numbers drawn from the
caller's ``numpy.random.Generator`` (in blocks; the stream is the generator's own
sequence, so the result depends only on its state). The draws are exact: the standard
variant picks the k-th unswapped rank with a Fenwick tree; the p-buckets variant walks
the non-empty buckets (bucket weights below 2^-52 of the first are below the resolution
of a double uniform and are left out); the p-distribution variant draws from the normal
truncated to ``[i + 1, n]`` by inversion and rejects unavailable ranks, and after
``_MAX_REJECTIONS`` rejections samples the conditional distribution directly over the
available ranks up to ``mean + 12 sd`` (the neglected mass is below 1e-25; if no rank is
available there, the nearest available rank above is taken).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from ..jit import njit

VARIANTS = ("standard", "p_buckets", "p_distribution")
_MAX_REJECTIONS = 64
# p_buckets: buckets more than 52 above the first available one have a relative weight
# below 2^-52 and are left out (beyond the resolution of a double uniform); it also keeps
# the sum of the weights, 2 - 2^-52 at most, exact.
_BUCKET_REACH = 53
_SQRT2 = math.sqrt(2.0)


def rank_window(n: int, p: float) -> int:
    """The largest rank distance of a standard swap, ``floor(p n / 100)`` (seed 003: the
    partner of rank ``i`` is in ``[i + 1, min(n, i + p |X| / 100)]``); also the bucket
    size of ``p_buckets`` (there at least 1)."""
    # the epsilon keeps e.g. p = 4.6, n = 1500 at 69 although 4.6 * 1500 / 100 = 68.99...
    return math.floor(p * n / 100.0 + 1e-9)


# --- Fenwick tree over the unswapped ranks ------------------------------------------------

@njit(cache=True)
def _fw_add(tree, pos, delta):
    i = pos + 1
    size = tree.shape[0]
    while i < size:
        tree[i] += delta
        i += i & -i


@njit(cache=True)
def _fw_prefix(tree, end):
    """Number of unswapped ranks among positions 0 .. end-1."""
    s = 0
    i = end
    while i > 0:
        s += tree[i]
        i -= i & -i
    return s


@njit(cache=True)
def _fw_select(tree, k, top):
    """Position of the k-th (0-based) unswapped rank."""
    pos = 0
    step = top
    size = tree.shape[0]
    while step > 0:
        nxt = pos + step
        if nxt < size and tree[nxt] <= k:
            pos = nxt
            k -= tree[nxt]
        step >>= 1
    return pos


# --- normal distribution helpers (numba has erfc but no inverse) ------------------------

@njit(cache=True)
def _phi(z):
    return 0.5 * math.erfc(-z / 1.4142135623730951)


@njit(cache=True)
def _upper(z):
    return 0.5 * math.erfc(z / 1.4142135623730951)


@njit(cache=True)
def _ndtri(p):
    """Inverse of the standard normal CDF: Acklam's rational approximation refined by
    one Halley step (relative error ~1e-15)."""
    if p <= 0.0:
        return -np.inf
    if p >= 1.0:
        return np.inf
    if p < 0.02425:
        q = math.sqrt(-2.0 * math.log(p))
        x = ((((((-7.784894002430293e-03 * q - 3.223964580411365e-01) * q
                 - 2.400758277161838e+00) * q - 2.549732539343734e+00) * q
               + 4.374664141464968e+00) * q + 2.938163982698783e+00)
             / ((((7.784695709041462e-03 * q + 3.224671290700398e-01) * q
                  + 2.445134137142996e+00) * q + 3.754408661907416e+00) * q + 1.0))
    elif p <= 1.0 - 0.02425:
        q = p - 0.5
        r = q * q
        x = ((((((-3.969683028665376e+01 * r + 2.209460984245205e+02) * r
                 - 2.759285104469687e+02) * r + 1.383577518672690e+02) * r
               - 3.066479806614716e+01) * r + 2.506628277459239e+00) * q
             / (((((-5.447609879822406e+01 * r + 1.615858368580409e+02) * r
                   - 1.556989798598866e+02) * r + 6.680131188771972e+01) * r
                 - 1.328068155288572e+01) * r + 1.0))
    else:
        q = math.sqrt(-2.0 * math.log1p(-p))
        x = -((((((-7.784894002430293e-03 * q - 3.223964580411365e-01) * q
                  - 2.400758277161838e+00) * q - 2.549732539343734e+00) * q
                + 4.374664141464968e+00) * q + 2.938163982698783e+00)
              / ((((7.784695709041462e-03 * q + 3.224671290700398e-01) * q
                   + 2.445134137142996e+00) * q + 3.754408661907416e+00) * q + 1.0))
    if abs(x) < 37.0:
        e = _phi(x) - p
        u = e * 2.5066282746310002 * math.exp(0.5 * x * x)
        x = x - u / (1.0 + 0.5 * x * u)
    return x


@njit(cache=True)
def _offset_mass(r, mu, sigma):
    """P(round(N(mu, sigma)) == r): the normal mass of [r - 0.5, r + 0.5)."""
    lo = (r - 0.5 - mu) / sigma
    hi = (r + 0.5 - mu) / sigma
    if lo > 0.0:
        return _upper(lo) - _upper(hi)
    return _phi(hi) - _phi(lo)


@njit(cache=True)
def _truncated_offset(u, mu, sigma, rmax):
    """An offset r in 1 .. rmax: round(N(mu, sigma)) conditioned on 0.5 <= N < rmax + 0.5,
    by inversion of the truncated CDF with the uniform ``u``."""
    zlo = (0.5 - mu) / sigma
    zhi = (rmax + 0.5 - mu) / sigma
    if zlo > 0.0:
        # the whole range is in the upper tail: invert the survival function there
        qlo = _upper(zlo)
        if qlo == 0.0:
            return 1
        qhi = _upper(zhi)
        x = -_ndtri(qlo - u * (qlo - qhi))
    else:
        flo = _phi(zlo)
        x = _ndtri(flo + u * (_phi(zhi) - flo))
    r = math.floor(mu + sigma * x + 0.5)
    if r < 1.0:
        return 1
    if r > rmax:
        return rmax
    return int(r)


# --- buckets: skip the exhausted ones ----------------------------------------------------

@njit(cache=True)
def _next_bucket(nxt, bcount, s, nb):
    """The first bucket >= s that still holds an unswapped rank (nb if none)."""
    root = s
    while root < nb and bcount[root] == 0:
        root = nxt[root]
    while s < nb and s != root:
        t = nxt[s]
        nxt[s] = root
        s = t
    return root


@njit(cache=True)
def _take_from_bucket(bcount, etree, s):
    bcount[s] -= 1
    if bcount[s] == 0:
        _fw_add(etree, s, 1)  # etree counts the exhausted buckets


# --- the loop over ranks -----------------------------------------------------------------

@njit(cache=True)
def _swap_loop(variant, n, width, mu, sigma, tree, top, avail, bcount, bnext, etree,
               partner, start, pool):
    """Visit ranks ``start`` .. n-1, choosing partners with the uniforms in ``pool``;
    stop before a rank whose choice could need more uniforms than remain. Returns the
    next rank to visit and the number of uniforms used."""
    used = 0
    m = pool.shape[0]
    need = 1
    if variant == 1:
        need = 2
    elif variant == 2:
        need = _MAX_REJECTIONS + 1
    nb = bcount.shape[0]
    i = start
    while i < n:
        if not avail[i]:
            i += 1
            continue
        if m - used < need:
            return i, used
        avail[i] = False
        _fw_add(tree, i, -1)
        if variant == 1:
            _take_from_bucket(bcount, etree, i // width)
        left = _fw_prefix(tree, n)  # every rank below i is swapped or visited
        if left == 0:
            i += 1
            continue
        mate = -1
        if variant == 0:
            hi = min(n, i + width + 1)
            cnt = _fw_prefix(tree, hi)
            if cnt > 0:
                k = min(int(pool[used] * cnt), cnt - 1)
                used += 1
                mate = _fw_select(tree, k, top)
        elif variant == 1:
            s0 = _next_bucket(bnext, bcount, i // width, nb)
            hi = min(nb, s0 + _BUCKET_REACH)
            target = pool[used]
            used += 1
            chosen = s0
            acc = 0.0
            weight = 1.0  # 2^-(s-r+1) relative to the first available bucket s0
            if _fw_prefix(etree, hi) == _fw_prefix(etree, s0):
                # no exhausted bucket in reach: the weights are 1, 1/2, 1/4, ... exactly
                target *= 2.0 - 2.0 ** (1 - (hi - s0))
                for s in range(s0, hi):
                    acc += weight
                    chosen = s
                    if target < acc:
                        break
                    weight *= 0.5
            else:
                total = 0.0
                s = s0
                while s < hi:
                    total += 2.0 ** (s0 - s)
                    s = _next_bucket(bnext, bcount, s + 1, nb)
                target *= total
                s = s0
                while s < hi:
                    acc += 2.0 ** (s0 - s)
                    chosen = s
                    if target < acc:
                        break
                    s = _next_bucket(bnext, bcount, s + 1, nb)
            cnt = bcount[chosen]
            k = min(int(pool[used] * cnt), cnt - 1)
            used += 1
            mate = _fw_select(tree, _fw_prefix(tree, chosen * width) + k, top)
        else:
            rmax = n - 1 - i
            for _ in range(_MAX_REJECTIONS):
                r = _truncated_offset(pool[used], mu, sigma, rmax)
                used += 1
                if avail[i + r]:
                    mate = i + r
                    break
            if mate < 0:
                mate = _exact_offset(pool[used], i, rmax, mu, sigma, avail, tree, top)
                used += 1
        if mate >= 0:
            avail[mate] = False
            _fw_add(tree, mate, -1)
            if variant == 1:
                _take_from_bucket(bcount, etree, mate // width)
            partner[i] = mate
            partner[mate] = i
        i += 1
    return n, used


@njit(cache=True)
def _exact_offset(u, i, rmax, mu, sigma, avail, tree, top):
    """The partner of rank i drawn from round(N(mu, sigma)) restricted to the available
    ranks i + 1 .. i + min(rmax, mu + 12 sigma); the nearest available rank above if none
    of them has a positive mass."""
    reach = min(rmax, int(mu + 12.0 * sigma) + 1)
    total = 0.0
    for r in range(1, reach + 1):
        if avail[i + r]:
            total += _offset_mass(r, mu, sigma)
    if total > 0.0:
        target = u * total
        acc = 0.0
        last = -1
        for r in range(1, reach + 1):
            if avail[i + r]:
                acc += _offset_mass(r, mu, sigma)
                last = i + r
                if target < acc:
                    return i + r
        return last
    return _fw_select(tree, 0, top)


# Uniforms are drawn in pools of at most this many: successive draws continue the
# generator's one sequence, so the pool size changes no result, only the memory (a pool
# for every rank at once was up to 3 n doubles).
_MAX_POOL = 1 << 18


def _pool_size(variant: str, remaining: int) -> int:
    per_rank = {"standard": 1, "p_buckets": 2, "p_distribution": 3}[variant]
    return min(per_rank * remaining, _MAX_POOL) + _MAX_REJECTIONS + 2


def swap_partners(n: int, p: float, rng: np.random.Generator,
                  variant: str = "standard") -> np.ndarray:
    """The rank swaps of seed 003's algorithm (or a variant) for ``n`` sorted values:
    ``partner[i]`` is the rank whose value rank ``i`` receives (0-based; ``i`` itself
    when the value is not swapped). ``partner`` is an involution."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown rank swapping variant {variant!r}; one of {VARIANTS}")
    partner = np.arange(n, dtype=np.int64)
    width = rank_window(n, p)
    if variant == "p_buckets":
        width = max(width, 1)
    q = p * n / 100.0
    if n < 2 or (variant == "standard" and width < 1) or (variant == "p_distribution"
                                                          and q <= 0):
        return partner
    code = VARIANTS.index(variant)
    tree = np.zeros(n + 1, dtype=np.int64)
    idx = np.arange(1, n + 1, dtype=np.int64)
    tree[1:] = idx & -idx  # Fenwick tree of an all-ones array
    top = 1 << (n.bit_length() - 1)
    avail = np.ones(n, dtype=np.bool_)
    nb = -(-n // width) if variant == "p_buckets" else 1
    bcount = np.full(nb, width, dtype=np.int64)
    if variant == "p_buckets":
        bcount[-1] = n - width * (nb - 1)
    bnext = np.arange(1, nb + 1, dtype=np.int64)
    etree = np.zeros(nb + 1, dtype=np.int64)
    mu = sigma = 0.5 * q
    start = 0
    pool = rng.random(_pool_size(variant, n))
    while True:
        start, used = _swap_loop(code, n, width, mu, sigma, tree, top, avail, bcount,
                                 bnext, etree, partner, start, pool)
        if start >= n:
            return partner
        # keep the unused uniforms so that the stream is the generator's own sequence
        pool = np.concatenate([pool[used:], rng.random(_pool_size(variant, n - start))])


def rank_order(keys: np.ndarray) -> np.ndarray:
    """Positions of the non-missing ``keys`` in rank order: by value, ties by position."""
    valid = np.flatnonzero(~np.isnan(keys))
    return valid[np.argsort(keys[valid], kind="stable")]


def rank_swap(keys: np.ndarray, p: float, rng: np.random.Generator,
              variant: str = "standard") -> np.ndarray:
    """Rank swapping of one variable (module docstring): returns ``source`` such that the
    protected values are ``values[source]``. ``keys`` (float, NaN = missing) define the
    ranks; missing values are not ranked, not swapped and stay where they are; ``n`` in
    ``p n / 100`` is the number of non-missing values."""
    keys = np.asarray(keys, dtype=float)
    order = rank_order(keys)
    partner = swap_partners(len(order), p, rng, variant)
    source = np.arange(len(keys), dtype=np.int64)
    source[order] = order[partner]
    return source


def apply_rank_swaps(values: Iterable[float], swaps: Iterable[tuple[int, int]],
                     max_distance: int | None = None) -> np.ndarray:
    """The protected values of seed 003's rank swapping for given swap choices: the
    values of each pair of ranks ``(i, l)`` (1-based, ranks by value then position) are
    exchanged. Each rank may be in at most one pair. With ``max_distance`` (the seed's
    ``p |X| / 100`` in ranks) the pairs must be choices the algorithm can make: ``i < l
    <= i + max_distance``, and a rank left unswapped must have had no unswapped rank in
    its range when it was visited (every rank of its range is paired with a lower rank).

    Reproduces the 10-record example of seed 003 / seed 000 ("Rank swapping: Example I",
    p = 2 ranks) from the swaps its protected file shows."""
    keys = np.asarray(list(values), dtype=float)
    n = len(keys)
    partner = np.arange(n, dtype=np.int64)
    for a, b in swaps:
        i, l = min(a, b), max(a, b)
        if not (1 <= i < l <= n):
            raise ValueError(f"swap ({a}, {b}): ranks must be distinct and in 1..{n}")
        if partner[i - 1] != i - 1 or partner[l - 1] != l - 1:
            raise ValueError(f"swap ({a}, {b}): a rank can be swapped only once")
        if max_distance is not None and l - i > max_distance:
            raise ValueError(f"swap ({a}, {b}): ranks more than {max_distance} apart")
        partner[i - 1], partner[l - 1] = l - 1, i - 1
    if max_distance is not None:
        for i in np.flatnonzero(partner == np.arange(n)):
            for l in range(i + 1, min(n, i + max_distance + 1)):
                if partner[l] > i:  # l was still unswapped when rank i was visited
                    raise ValueError(f"rank {i + 1} is left unswapped although rank "
                                     f"{l + 1} was available")
    order = rank_order(keys)
    out = keys.copy()
    out[order] = keys[order[partner]]
    return out
