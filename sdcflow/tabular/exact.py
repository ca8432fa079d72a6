"""Exact, order-free sums for building tables from partitions.

A table built from partitions of the records (map-reduce) must equal the table built from
all records at once, whatever the partitions. Floating-point addition is not associative,
so a cell's sum computed partition by partition would differ from the one-shot sum in its
last bits; instead every sum is kept *exactly*, as an integer multiple of a power of two,
and rounded to a double once, at the end (correctly rounded, half to even: the value
``math.fsum`` gives). The result then depends on the multiset of records only, not on
their order nor on how they were split.

Representation ("chunks"): a double ``x = M 2^p`` (``M`` an integer of at most 53 bits)
is written in base ``2^32`` as three integer digits at positions ``k, k+1, k+2`` with
``k = floor(p / 32)``; a sum is a row of ``int64`` digits, column ``j`` worth
``2^(32 (base + j))``. Adding a record adds at most ``2^33`` to a digit, so a digit
cannot overflow before ``2^30`` records; :func:`normalise` carries every digit back into
``[0, 2^32)`` (the top digit keeps the sign), after which sums of up to ``2^31`` rows are
safe. This is the classical long accumulator (Kulisch & Miranker 1986, "The arithmetic
of the digital computer: a new approach", *SIAM Review* 28(1)) cut to the range the data
use.

The weighted top contributions need ``W > j`` for exact sums ``W`` of weights and small
integers ``j`` (:func:`weighted_top`), computed on the same digits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..kernels.jit import njit

__all__ = ["ExactSums", "digit_range", "to_float", "weighted_top"]

_BITS = 32
_MASK = (1 << _BITS) - 1
#: digits above the largest one of the data: room for the carries of many additions
_HEADROOM = 2


@njit(cache=True)
def _split(v):
    """``(k, c0, c1, c2)``: the digits of the non-zero double ``v`` at positions ``k``,
    ``k+1``, ``k+2`` (signed like ``v``)."""
    m, e = math.frexp(v)  # v = m 2^e, 0.5 <= |m| < 1
    mant = np.int64(m * 9007199254740992.0)  # m 2^53: exact, |mant| < 2^53
    sign = np.int64(1)
    if mant < 0:
        sign = np.int64(-1)
        mant = -mant
    p = np.int64(e) - 53
    k = p // _BITS  # floor division: the digit holding the lowest bit
    s = p - k * _BITS
    a = (mant & _MASK) << s  # < 2^63
    b = (mant >> _BITS) << s  # < 2^53
    return k, sign * (a & _MASK), sign * ((a >> _BITS) + (b & _MASK)), sign * (b >> _BITS)


@njit(cache=True)
def _accumulate(group, x, base, out):
    for r in range(x.shape[0]):
        v = x[r]
        if v == 0.0:
            continue
        k, c0, c1, c2 = _split(v)
        j = k - base
        g = group[r]
        out[g, j] += c0
        out[g, j + 1] += c1
        out[g, j + 2] += c2


@njit(cache=True)
def _normalise_row(row):
    """Carry every digit but the top one into [0, 2^32); False if the top digit leaves
    [-2^31, 2^31) (one more digit is then needed)."""
    carry = np.int64(0)
    n = row.shape[0]
    for j in range(n - 1):
        v = row[j] + carry
        carry = v >> _BITS  # arithmetic shift: floor(v / 2^32)
        row[j] = v & _MASK
    top = row[n - 1] + carry
    row[n - 1] = top
    return -(1 << 31) <= top < (1 << 31)


@njit(cache=True)
def _normalise(chunks):
    ok = True
    for i in range(chunks.shape[0]):
        ok &= _normalise_row(chunks[i])
    return ok


@njit(cache=True)
def _bit_length(v):
    n = 0
    while v:
        v >>= 1
        n += 1
    return n


@njit(cache=True)
def _row_to_double(row, base):
    """The normalised digits ``row`` rounded to the nearest double (ties to even)."""
    n = row.shape[0]
    neg = row[n - 1] < 0
    mag = row.copy()
    if neg:
        for j in range(n):
            mag[j] = -mag[j]
        _normalise_row(mag)
    h = n - 1
    while h >= 0 and mag[h] == 0:
        h -= 1
    if h < 0:
        return 0.0
    t = _bit_length(mag[h])
    mant = mag[h]
    nbits = t
    sticky = False
    # gather the leading 62 bits (53 kept, the rest decide the rounding) and whether any
    # lower bit is set
    for j in range(h - 1, -1, -1):
        c = mag[j]
        if nbits >= 62:
            if c != 0:
                sticky = True
            continue
        take = min(_BITS, 62 - nbits)
        if take == _BITS:
            mant = (mant << _BITS) | c
        else:
            mant = (mant << take) | (c >> (_BITS - take))
            if c & ((np.int64(1) << (_BITS - take)) - 1):
                sticky = True
        nbits += take
    lsb = _BITS * (h + base) - (nbits - t)
    if nbits > 53:
        drop = nbits - 53
        rem = mant & ((np.int64(1) << drop) - 1)
        mant >>= drop
        half = np.int64(1) << (drop - 1)
        if rem > half or (rem == half and (sticky or (mant & 1) == 1)):
            mant += 1
        lsb += drop
    val = math.ldexp(float(mant), lsb)
    return -val if neg else val


@njit(cache=True)
def _to_double(chunks, base, out):
    for i in range(chunks.shape[0]):
        out[i] = _row_to_double(chunks[i], base)


def digit_range(x: np.ndarray) -> tuple[int, int]:
    """``(lowest, highest)`` digit positions that the non-zero values of ``x`` touch
    (``(0, 0)`` when there are none)."""
    x = x[x != 0]
    if len(x) == 0:
        return 0, 0
    _, e = np.frexp(x)
    return int((e.min() - 53) // _BITS), int((e.max() - 1) // _BITS)


def _normalised(digits: np.ndarray) -> np.ndarray:
    """``digits`` normalised in place, with one more top digit while the top one
    overflows its room."""
    while not _normalise(digits):
        digits = np.hstack([digits, np.zeros((len(digits), 1), dtype=np.int64)])
    return digits


def to_float(digits: np.ndarray, base: int) -> np.ndarray:
    """Each row of digits (any leading shape, the digits last) rounded to the nearest
    double."""
    flat = _normalised(np.array(digits.reshape(-1, digits.shape[-1]), dtype=np.int64))
    out = np.empty(len(flat))
    _to_double(flat, base, out)
    return out.reshape(digits.shape[:-1])


@dataclass
class ExactSums:
    """Exact per-group sums: ``digits[g, j]`` is worth ``2^(32 (base + j))``."""

    digits: np.ndarray  # (groups, width) int64, normalised
    base: int

    @classmethod
    def of(cls, group: np.ndarray, x: np.ndarray, n_groups: int) -> ExactSums:
        """The exact sum of the finite values ``x`` per ``group`` (0 .. n_groups-1)."""
        lo, hi = digit_range(x)
        digits = np.zeros((n_groups, hi - lo + 1 + _HEADROOM), dtype=np.int64)
        _accumulate(np.ascontiguousarray(group, dtype=np.int64),
                    np.ascontiguousarray(x, dtype=float), lo, digits)
        return cls(_normalised(digits), lo)

    def widen(self, base: int, width: int) -> np.ndarray:
        """The digits on the positions ``base .. base + width - 1`` (a superset)."""
        out = np.zeros((len(self.digits), width), dtype=np.int64)
        at = self.base - base
        out[:, at:at + self.digits.shape[1]] = self.digits
        return out

    @staticmethod
    def concat(parts: list[ExactSums]) -> ExactSums:
        """The rows of every part, one after the other, on a common digit range."""
        base = min(p.base for p in parts)
        width = max(p.base + p.digits.shape[1] for p in parts) - base
        return ExactSums(np.vstack([p.widen(base, width) for p in parts]), base)

    def reduce(self, starts: np.ndarray) -> ExactSums:
        """Sums of the consecutive row groups starting at ``starts`` (integer sums of
        normalised digits: exact for up to 2^31 rows)."""
        if len(self.digits) == 0:
            return ExactSums(self.digits.copy(), self.base)
        return ExactSums(_normalised(np.add.reduceat(self.digits, starts, axis=0)),
                         self.base)

    def to_float(self) -> np.ndarray:
        return to_float(self.digits, self.base)


@njit(cache=True)
def _exceeds(acc, at, j, tmp):
    """Whether the digits ``acc`` are worth more than the integer ``j`` (digit ``at`` is
    worth 1)."""
    n = acc.shape[0]
    for q in range(n):
        tmp[q] = acc[q]
    tmp[at] -= j
    _normalise_row(tmp)
    if tmp[n - 1] < 0:
        return False
    for q in range(n):
        if tmp[q] != 0:
            return True
    return False


@njit(cache=True)
def _weighted_top(starts, y, w, top, base, width, out, keep):
    at = -base
    acc = np.zeros(width, dtype=np.int64)
    tmp = np.zeros(width, dtype=np.int64)
    for g in range(starts.shape[0] - 1):
        acc[:] = 0
        nxt = 0
        for r in range(starts[g], starts[g + 1]):
            if nxt >= top:
                break
            keep[r] = True
            if w[r] != 0.0:
                k, c0, c1, c2 = _split(w[r])
                j = k - base
                acc[j] += c0
                acc[j + 1] += c1
                acc[j + 2] += c2
            while nxt < top and _exceeds(acc, at, nxt, tmp):
                out[g, nxt] = y[r]
                nxt += 1


def weighted_top(starts: np.ndarray, y: np.ndarray, w: np.ndarray,
                 top: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``top`` largest contributions of each group of weighted records, and which
    records can matter to them.

    The records of group ``g`` are ``starts[g] .. starts[g+1]-1``, sorted by decreasing
    value ``y`` (ties by decreasing weight ``w >= 0``). A record of weight ``w`` stands
    for ``w`` units of value ``y`` (Hundepool et al. 2012, *Statistical Disclosure
    Control*, Wiley, section 4.2.2): contribution ``j`` (0-based) is the ``y`` of the first
    record whose cumulative weight exceeds ``j``, that is ``max{y : W(>= y) > j}`` with
    ``W(>= y)`` the weight of the records of value at least ``y`` (0 when the group's
    weight is at most ``j``). The cumulative weights are exact (see the module
    docstring), so the result depends on the multiset of records only.

    ``keep`` marks the records whose preceding weight is at most ``top - 1``; the others
    can be dropped without changing the contributions of this group or of any union with
    other groups: for a value ``y`` above the first dropped record's, ``W(>= y)`` is
    unchanged, and for any other ``y`` both ``W(>= y)`` (kept, and all) exceed ``top - 1``
    already, so every comparison ``W(>= y) > j``, ``j < top``, keeps its outcome."""
    n_groups = len(starts) - 1
    out = np.zeros((n_groups, top))
    keep = np.zeros(len(y), dtype=bool)
    if top == 0 or len(y) == 0:
        return out, keep
    lo, hi = digit_range(w)
    lo, hi = min(lo, 0), max(hi, 0)  # the integers j sit on digit 0
    width = hi - lo + 1 + _HEADROOM + 1
    _weighted_top(np.ascontiguousarray(starts, dtype=np.int64),
                  np.ascontiguousarray(y, dtype=float), np.ascontiguousarray(w, dtype=float),
                  top, lo, width, out, keep)
    return out, keep
