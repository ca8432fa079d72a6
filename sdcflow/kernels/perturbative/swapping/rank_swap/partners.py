"""The partners of rank swapping: which rank each rank of ``n`` sorted values exchanges its
value with, for the standard variant, p-buckets and p-distribution (the algorithm and its
randomness are described in :mod:`sdcflow.kernels.perturbative.swapping.rank_swap`), by a loop over
the ranks compiled with numba that consumes uniforms drawn from the caller's generator.
"""

from __future__ import annotations

import math

import numpy as np

from ....jit import njit
from .fenwick import _fw_add, _fw_prefix, _fw_select
from .rounded_normal import _offset_mass, _truncated_offset

VARIANTS = ("standard", "p_buckets", "p_distribution")
_MAX_REJECTIONS = 64
# p_buckets: buckets more than 52 above the first available one have a relative weight
# below 2^-52 and are left out (beyond the resolution of a double uniform); it also keeps
# the sum of the weights, 2 - 2^-52 at most, exact.
_BUCKET_REACH = 53


def rank_window(n: int, p: float) -> int:
    """The largest rank distance of a standard swap, ``floor(p n / 100)`` (Torra 2016: the
    partner of rank ``i`` is in ``[i + 1, min(n, i + p |X| / 100)]``); also the bucket
    size of ``p_buckets`` (there at least 1)."""
    # the epsilon keeps e.g. p = 4.6, n = 1500 at 69 although 4.6 * 1500 / 100 = 68.99...
    return math.floor(p * n / 100.0 + 1e-9)


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
    """The rank swaps of Torra's (2016) algorithm (or a variant) for ``n`` sorted values:
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
