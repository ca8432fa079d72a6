"""Whether the sums of squares and products of numeric columns stay within 64-bit floats.

Regressions, covariance matrices and Mahalanobis distances add up products of two values
over the records: values near the float range (``1e200``) make those sums infinite, and
the linear algebra then fails deep inside (NaN coefficients, a singular value
decomposition that does not converge). Plugins that compute them refuse such columns in
``check_data``, naming the column, instead of failing inside their kernel.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from ..plugins.limits import FLOAT_MAX

# room for the solvers' own intermediate sums beyond the plain sum of products
_HEADROOM = 1e4


def squares_overflow(values: np.ndarray) -> float | None:
    """The largest magnitude among ``values`` (missing ignored) when the sum over the
    records of products of two such values, with some headroom, would not be finite in
    64-bit floats; None when it stays finite."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if not len(x):
        return None
    top = float(np.abs(x).max())
    if top == 0:
        return None
    if not math.isfinite(top) or \
            2 * math.log10(top) + math.log10(len(x) * _HEADROOM) > math.log10(FLOAT_MAX):
        return top
    return None


def squares_message(name: str, top: float, n: int) -> str:
    """What a plugin says of a column :func:`squares_overflow` refuses."""
    return (f"'{name}' has values up to {top:.3g}: their sums of squares over {n} records "
            "leave the range of 64-bit floats; rescale it (e.g. to thousands or millions)")


def matrix_squares_problems(X: np.ndarray, names: list[str],
                            where: tuple = ("variables",)) -> Iterator[tuple[tuple, str]]:
    """``check_data`` findings (at ``where``) for the columns of ``X`` (named ``names``)
    that :func:`squares_overflow` refuses."""
    for j, name in enumerate(names):
        top = squares_overflow(X[:, j])
        if top is not None:
            yield where, squares_message(name, top, len(X))
