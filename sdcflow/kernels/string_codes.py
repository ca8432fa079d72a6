"""Integer codes of strings held as UTF-8 bytes with offsets (the layout of Apache Arrow's
string arrays), in one pass with an open-addressing hash table; compiled with numba.
Pure NumPy in and out.

A string of at most 8 bytes is compared as one 64-bit word (its bytes packed) and its
length; a longer one by its FNV-1a hash (Fowler, Noll & Vo, "The FNV non-cryptographic
hash algorithm", IETF draft-eastlake-fnv, 2019) and then byte by byte. Slots come from
the hash mixed by MurmurHash3's 64-bit finaliser (Appleby 2011)."""

from __future__ import annotations

import numpy as np

from .jit import njit

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
_SHORT = 8  # bytes packed in one word


def first_seen_codes(offsets: np.ndarray, data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, first)`` of the strings ``data[offsets[i]:offsets[i+1]]`` (``i`` in
    ``0 .. len(offsets) - 2``): ``codes[i]`` numbers the distinct strings in the order of
    their first appearance, ``first[k]`` is the position of the first string of code
    ``k``. Strings are equal when their bytes are (exactly: a hash only chooses where to
    look)."""
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    data = np.ascontiguousarray(data, dtype=np.uint8)
    if offsets.ndim != 1 or offsets.size == 0:
        raise ValueError("offsets must be a 1-dimensional array of at least one entry")
    if offsets[0] < 0 or offsets[-1] > data.size:
        raise ValueError("offsets must be non-decreasing positions within data")
    return _first_seen_codes(offsets, data)


@njit(cache=True)
def _mix(h):  # pragma: no cover - numba
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    return h


@njit(cache=True)
def _first_seen_codes(offsets, data):  # pragma: no cover - numba
    n = offsets.size - 1
    codes = np.empty(n, dtype=np.int64)
    # per code (pages of these not written cost nothing): its hash, packed word, length
    # and first position
    hashes = np.empty(n, dtype=np.uint64)
    words = np.empty(n, dtype=np.uint64)
    sizes = np.empty(n, dtype=np.int64)
    first = np.empty(n, dtype=np.int64)
    cap = 512
    count = 0
    i = 0
    while i < n:
        cap *= 2  # a power of 2, at most a quarter full (few collisions)
        # a slot: its code (-1: empty), and the hash, word and length of the code's
        # string (what a lookup compares, in one cache line)
        slots = np.zeros((cap, 4), dtype=np.int64)
        slots[:, 0] = -1
        mask = np.uint64(cap - 1)
        for k in range(count):
            s = hashes[k] & mask
            while slots[s, 0] >= 0:
                s = (s + np.uint64(1)) & mask
            slots[s, 0], slots[s, 1] = k, np.int64(hashes[k])
            slots[s, 2], slots[s, 3] = np.int64(words[k]), sizes[k]
        i, count = _fill(offsets, data, i, count, cap // 4, codes, hashes, words, sizes,
                         first, slots)
    return codes, first[:count].copy()


@njit(cache=True)
def _fill(offsets, data, i, count, limit, codes, hashes, words, sizes, first,
          slots):  # pragma: no cover - numba
    """Codes of the strings from ``i`` on, until the end or until ``limit`` codes
    exist (then the table must grow): the next position and the number of codes. (The
    arrays are not replaced in this loop, so that numba keeps them in registers.)"""
    n = offsets.size - 1
    mask = np.uint64(slots.shape[0] - 1)
    while i < n and count < limit:
        lo, hi = offsets[i], offsets[i + 1]
        size = hi - lo
        if size < 0:  # (with the first and last offsets within data: every one is)
            raise ValueError("offsets must be non-decreasing positions within data")
        word = np.uint64(0)
        if size <= _SHORT:
            for j in range(lo, hi):
                word = (word << np.uint64(8)) | np.uint64(data[j])
            h = _mix(word ^ (np.uint64(size) << np.uint64(59)))
        else:
            h = _FNV_OFFSET
            for j in range(lo, hi):
                h = (h ^ np.uint64(data[j])) * _FNV_PRIME
            h = _mix(h)
        slot = h & mask
        code = -1
        while slots[slot, 0] >= 0:
            if (slots[slot, 1] == np.int64(h) and slots[slot, 3] == size
                    and slots[slot, 2] == np.int64(word)):
                k = slots[slot, 0]
                if size <= _SHORT:  # the word is the string
                    code = k
                    break
                shift = offsets[first[k]] - lo
                same = True
                for j in range(lo, hi):
                    if data[j + shift] != data[j]:
                        same = False
                        break
                if same:
                    code = k
                    break
            slot = (slot + np.uint64(1)) & mask
        if code < 0:
            code = count
            hashes[code], words[code], sizes[code], first[code] = h, word, size, i
            slots[slot, 0], slots[slot, 1] = code, np.int64(h)
            slots[slot, 2], slots[slot, 3] = np.int64(word), size
            count += 1
        codes[i] = code
        i += 1
    return i, count
