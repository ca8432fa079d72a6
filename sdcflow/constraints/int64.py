"""64-bit integer arithmetic on NumPy arrays that says where it overflows.

NumPy's integer operations wrap around silently (``2**62 * 4 == 0``). Each function here
returns the wrapped result together with a boolean mask of the elements where the exact
result does not fit in ``int64`` (and, for division, where the divisor is 0), so that the
caller can refuse them; the tests are exact (two's-complement sign rules, division back,
Python integers for the borderline powers).
"""

from __future__ import annotations

import ast

import numpy as np

from .exact import Unrepresentable, shown

__all__ = ["MAX", "MIN", "arithmetic", "fit", "power"]

MIN, MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)


def fit(value: int) -> np.int64:
    """``value`` as an int64, refused with :class:`Unrepresentable` when it does not fit."""
    if not MIN <= value <= MAX:
        try:
            hint = f"; to compare with decimal numbers write it as one, e.g. {float(value)!r}"
        except OverflowError:
            hint = ", nor in 64-bit floats"
        raise Unrepresentable(f"{shown(value)} does not fit in 64-bit integers ({MIN} to "
                              f"{MAX}), the arithmetic of integer columns{hint}")
    return np.int64(value)


def arithmetic(op: ast.operator, a, b):
    """``a op b`` for ``+ - * // %`` on int64 arrays: (result, overflow, division by
    zero), the masks broadcast like the result (run under ``np.errstate(all="ignore")``)."""
    zero = np.zeros(np.broadcast_shapes(np.shape(a), np.shape(b)), dtype=bool)
    if isinstance(op, ast.Add):
        r = a + b
        return r, ((a ^ r) & (b ^ r)) < 0, zero
    if isinstance(op, ast.Sub):
        r = a - b
        return r, ((a ^ b) & (a ^ r)) < 0, zero
    if isinstance(op, ast.Mult):
        r = a * b
        safe = np.where(a == 0, 1, a)
        # exact iff dividing by a gives b back; -1 * MIN wraps to MIN, which divides back
        return r, ((a != 0) & (r // safe != b)) | ((a == -1) & (b == MIN)), zero
    zero = np.broadcast_to(b == 0, zero.shape)
    safe = np.where(b == 0, 1, b)
    if isinstance(op, ast.FloorDiv):
        return a // safe, (a == MIN) & (b == -1), zero
    return np.where(b == -1, 0, a % safe), np.zeros_like(zero), zero


def power(a, b):
    """``a ** b`` for int64 arrays with ``b >= 0``: (result, overflow)."""
    shape = np.broadcast_shapes(np.shape(a), np.shape(b)) or (1,)
    a, b = np.broadcast_to(a, shape), np.where(np.broadcast_to(b, shape) < 0, 0, b)
    estimate = np.abs(a.astype(np.float64)) ** b.astype(np.float64)
    limit = float(2 ** 63)
    near = np.abs(estimate - limit) <= limit * 1e-9
    over = (estimate > limit) & ~near
    for index in zip(*np.nonzero(near)):  # the few borderline cases, exactly
        if not MIN <= int(a[index]) ** int(b[index]) <= MAX:
            over[index] = True
    return np.power(a, b), over
