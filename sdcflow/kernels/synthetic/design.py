"""A regression design matrix held by its terms (an intercept, numeric columns, dummy
variables of categories) and materialised a block of rows at a time.

The regression-based synthesisers (IPSO, shuffling, sequential regression imputation)
touch the design only through products with tall matrices, X'Y and X M, and through
the triangular factor of its QR decomposition; all three can be accumulated over blocks
of rows (:mod:`sdcflow.kernels.synthetic.least_squares`). Holding the terms instead of the n x p
floats keeps a categorical predictor with L categories at one code per record instead
of L - 1 floats, so the memory a model needs is that of its inputs, not of its design.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np


def block_rows(cols: int) -> int:
    """Rows per block for a product with ``cols`` columns. A block this small runs on one
    OpenBLAS thread: as fast as one large call on an idle machine, and many times faster
    on a busy one, where OpenBLAS threads oversubscribe the cores."""
    return max(256, min(4096, 65536 // max(cols, 1)))


def as_columns(values: np.ndarray) -> np.ndarray:
    """``values`` as a float array of n rows and k columns (a 1-d array: one column)."""
    values = np.asarray(values, dtype=float)
    return values[:, None] if values.ndim == 1 else values


def flat_columns(values: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """Which columns of ``values`` (n x k) minus ``shift`` are zero up to rounding (a
    constant column centred by its mean): they must become exactly zero, or the
    rounding noise passes for a predictor once the columns are scaled."""
    if not len(values):
        return np.zeros(values.shape[1], dtype=bool)
    high, low = values.max(axis=0), values.min(axis=0)
    spread = np.maximum(high - shift, shift - low)
    return spread <= 1e-12 * np.maximum(high, -low)


@dataclass(frozen=True)
class Constant:
    """A column of ones (the intercept)."""

    n: int
    width: int = 1

    def fill(self, out: np.ndarray, start: int, stop: int) -> None:
        out[:] = 1.0

    def take(self, rows: np.ndarray) -> Constant:
        return Constant(len(rows))


@dataclass(frozen=True)
class Columns:
    """Numeric columns ``values - shift`` (``values``: n x k, any layout; a column flat
    up to rounding after the shift is exactly zero)."""

    values: np.ndarray
    shift: np.ndarray
    flat: np.ndarray

    @classmethod
    def centred(cls, values: np.ndarray, centre: np.ndarray | None = None) -> Columns:
        """The columns minus their means (or ``centre``): a reparametrisation when the
        design has an intercept, which keeps it well conditioned."""
        values = as_columns(values)
        if centre is None:
            centre = values.mean(axis=0) if len(values) else np.zeros(values.shape[1])
        centre = np.asarray(centre, dtype=float).reshape(-1)
        return cls(values, centre, flat_columns(values, centre))

    @classmethod
    def raw(cls, values: np.ndarray) -> Columns:
        """The columns as they are."""
        values = as_columns(values)
        k = values.shape[1]
        return cls(values, np.zeros(k), np.zeros(k, dtype=bool))

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def width(self) -> int:
        return self.values.shape[1]

    def fill(self, out: np.ndarray, start: int, stop: int) -> None:
        np.subtract(self.values[start:stop], self.shift, out=out)
        if self.flat.any():
            out[:, self.flat] = 0.0

    def take(self, rows: np.ndarray) -> Columns:
        return Columns(self.values[rows], self.shift, self.flat)

    def transformed(self, f: Callable[[np.ndarray], np.ndarray]) -> Columns:
        """``f`` of the shifted columns, unshifted."""
        shifted = np.empty(self.values.shape)
        self.fill(shifted, 0, self.n)
        return Columns.raw(f(shifted))


@dataclass(frozen=True)
class Indicators:
    """Dummy variables of a category code: column c - 1 is 1 where ``codes == c``, for
    c = 1 .. ``width`` (code 0 is the reference category and has no column)."""

    codes: np.ndarray
    width: int

    @property
    def n(self) -> int:
        return len(self.codes)

    def fill(self, out: np.ndarray, start: int, stop: int) -> None:
        out[:] = 0.0
        codes = self.codes[start:stop]
        rows = np.flatnonzero(codes > 0)
        out[rows, codes[rows] - 1] = 1.0

    def take(self, rows: np.ndarray) -> Indicators:
        return Indicators(self.codes[rows], self.width)


Term = Constant | Columns | Indicators


class Design:
    """The n x p matrix whose columns are those of its ``terms`` side by side, never
    held whole: :meth:`blocks` materialises it by blocks of rows."""

    def __init__(self, terms: Sequence[Term], n: int | None = None):
        self.terms = tuple(terms)
        sizes = {term.n for term in self.terms}
        if n is not None:
            sizes.add(n)
        if len(sizes) > 1:
            raise ValueError(f"the terms of a design have different lengths {sorted(sizes)}")
        self.n = sizes.pop() if sizes else 0
        self.p = sum(term.width for term in self.terms)

    @classmethod
    def of(cls, X: np.ndarray | Design, intercept: bool = True) -> Design:
        """``X`` as a design: an array's columns :meth:`Columns.centred` after a
        :class:`Constant` (``intercept``), or as they are; a design gets the constant
        added in front when ``intercept``."""
        if isinstance(X, Design):
            return X.with_terms(Constant(X.n), first=True) if intercept else X
        X = as_columns(X)
        if intercept:
            return cls([Constant(len(X)), Columns.centred(X)], len(X))
        return cls([Columns.raw(X)], len(X))

    @property
    def shape(self) -> tuple[int, int]:
        return self.n, self.p

    def with_terms(self, *terms: Term, first: bool = False) -> Design:
        """This design with more terms after (or before) its own."""
        return Design((*terms, *self.terms) if first else (*self.terms, *terms), self.n)

    def take(self, rows: np.ndarray) -> Design:
        """The design of the records ``rows``."""
        return Design([term.take(rows) for term in self.terms], len(rows))

    def transformed(self, f: Callable[[np.ndarray], np.ndarray]) -> Design:
        """The design with every numeric term replaced by ``f`` of its columns."""
        return Design([t.transformed(f) if isinstance(t, Columns) else t
                       for t in self.terms], self.n)

    def block(self, start: int, stop: int, out: np.ndarray | None = None) -> np.ndarray:
        """Rows ``start:stop`` of the matrix."""
        stop = min(stop, self.n)
        if out is None:
            out = np.empty((stop - start, self.p))
        j = 0
        for term in self.terms:
            term.fill(out[:, j:j + term.width], start, stop)
            j += term.width
        return out

    def blocks(self, rows: int | None = None) -> Iterator[tuple[int, int, np.ndarray]]:
        """``(start, stop, rows start:stop of the matrix)`` covering every row; the block
        array is reused: it is valid until the next one."""
        rows = rows or block_rows(self.p)
        buf = np.empty((min(rows, self.n), self.p))
        for start in range(0, self.n, rows):
            stop = min(start + rows, self.n)
            yield start, stop, self.block(start, stop, buf[:stop - start])

    def toarray(self) -> np.ndarray:
        """The whole matrix (for tests and small designs)."""
        return self.block(0, self.n)

    def constant_columns(self) -> np.ndarray:
        """Which columns hold one non-zero value in every row."""
        high = np.full(self.p, -np.inf)
        low = np.full(self.p, np.inf)
        for _, _, X in self.blocks():
            np.maximum(high, X.max(axis=0), out=high)
            np.minimum(low, X.min(axis=0), out=low)
        return (high == low) & (high != 0) if self.n else np.zeros(self.p, dtype=bool)
