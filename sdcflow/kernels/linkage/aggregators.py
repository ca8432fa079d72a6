"""Aggregation operators that turn the per-variable squared differences of two records
into a distance, for record linkage with learned distances (Abril, Navarro-Arribas &
Torra, "Improving record linkage with supervised learning for disclosure risk
assessment", Information Fusion 13(4), 2012; "Choquet integral for record linkage",
Annals of Operations Research 195, 2012; "Supervised learning using a symmetric bilinear
form for record linkage", Information Fusion 26, 2015):

* the OWA operator (Yager, "On ordered weighted averaging aggregation operators in
  multicriteria decisionmaking", IEEE SMC 18, 1988): ``OWA_w(x) = sum_i w_i x_(i)`` with
  ``x_(1) >= x_(2) >= ...`` the values in decreasing order, ``w >= 0``, ``sum w = 1``;
* the Choquet integral of ``x >= 0`` for a fuzzy measure ``mu`` (monotone set function
  on the variables, ``mu(empty) = 0``, ``mu(all) = 1``):
  ``CI_mu(x) = sum_i (x_s(i) - x_s(i-1)) mu(A_s(i))`` with ``x_s(1) <= ... <= x_s(n)``,
  ``x_s(0) = 0`` and ``A_s(i) = {s(i), ..., s(n)}``.

Both are linear in their parameters: the *features* of a row of values are the
coefficients of that linear function (the sorted values for OWA; the increments placed at
the subsets ``A_s(i)`` for the Choquet integral, a sparse row). A fuzzy measure is an
array indexed by the bit mask of the subset (bit ``j``: variable ``j``), ``mu[0] = 0``.
NumPy/SciPy only.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import sparse

from .links import Links
from .paired import paired_files

MAX_CHOQUET_VARIABLES = 10  # 2^10 - 2 = 1,022 free values of the fuzzy measure


def owa_features(values: np.ndarray) -> np.ndarray:
    """The values of each row in decreasing order: ``OWA_w(x) = owa_features(x) @ w``."""
    return -np.sort(-np.asarray(values, dtype=float), axis=-1)


def owa(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The OWA aggregation of each row of ``values`` (last axis) with ``weights`` (the
    first weight goes to the largest value)."""
    return owa_features(values) @ np.asarray(weights, dtype=float)


def _choquet_parts(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each row: the increments ``x_s(i) - x_s(i-1)`` and the masks of ``A_s(i)``."""
    values = np.asarray(values, dtype=float)
    order = np.argsort(values, axis=-1, kind="stable")
    xs = np.take_along_axis(values, order, axis=-1)
    inc = np.diff(xs, axis=-1, prepend=0.0)
    bits = np.left_shift(np.int64(1), order.astype(np.int64))
    # A_s(i) = {s(i), ..., s(n)}: the OR of the bits from position i to the end
    masks = np.flip(np.cumsum(np.flip(bits, axis=-1), axis=-1), axis=-1)
    return inc, masks


def choquet(values: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """The Choquet integral of each row of ``values`` (last axis, non-negative) with
    respect to the fuzzy measure ``mu`` (array of length ``2^c`` indexed by subset mask)."""
    mu = np.asarray(mu, dtype=float)
    inc, masks = _choquet_parts(values)
    return (inc * mu[masks]).sum(axis=-1)


def choquet_features(values: np.ndarray) -> sparse.csr_matrix:
    """Sparse rows ``F`` with ``CI_mu(x) = F @ mu[1:]`` (column ``m - 1`` is the subset of
    mask ``m``; ``mu(empty) = 0`` has no column)."""
    values = np.asarray(values, dtype=float)
    m, c = values.shape
    inc, masks = _choquet_parts(values)
    rows = np.repeat(np.arange(m), c)
    return sparse.csr_matrix((inc.ravel(), (rows, masks.ravel() - 1)),
                             shape=(m, 2 ** c - 1))


def additive_measure(weights: np.ndarray) -> np.ndarray:
    """The additive fuzzy measure ``mu(A) = sum_{j in A} w_j`` (its Choquet integral is
    the weighted mean), as an array indexed by mask."""
    weights = np.asarray(weights, dtype=float)
    c = len(weights)
    masks = np.arange(2 ** c)
    member = (masks[:, None] >> np.arange(c)) & 1
    return member @ weights


def monotonicity_rows(c: int) -> sparse.csr_matrix:
    """The rows ``mu(A + {j}) - mu(A) >= 0`` over the columns ``mu[1:]``, for every
    non-empty ``A`` and ``j`` not in ``A`` (``mu(empty) = 0 <= mu({j})`` is a bound)."""
    full = 2 ** c - 1
    rows, cols, vals = [], [], []
    r = 0
    for mask in range(1, full):
        for j in range(c):
            bigger = mask | (1 << j)
            if bigger != mask:
                rows += [r, r]
                cols += [bigger - 1, mask - 1]
                vals += [1.0, -1.0]
                r += 1
    return sparse.csr_matrix((vals, (rows, cols)), shape=(r, full))


def submodularity_rows(c: int) -> sparse.csr_matrix:
    """The rows ``mu(A + {i}) + mu(A + {j}) - mu(A + {i, j}) - mu(A) >= 0`` over the
    columns ``mu[1:]``, for ``i < j`` and every ``A`` holding neither (the local form of
    submodularity, ``mu(A) + mu(B) >= mu(A | B) + mu(A & B)``, which it implies)."""
    rows, cols, vals = [], [], []
    r = 0
    for i in range(c):
        for j in range(i + 1, c):
            bi, bj = 1 << i, 1 << j
            for mask in range(2 ** c):
                if mask & (bi | bj):
                    continue
                for col, val in ((mask | bi, 1.0), (mask | bj, 1.0), (mask | bi | bj, -1.0),
                                 (mask, -1.0)):
                    if col:  # mu(empty) = 0 has no column
                        rows.append(r)
                        cols.append(col - 1)
                        vals.append(val)
                r += 1
    return sparse.csr_matrix((vals, (rows, cols)), shape=(r, 2 ** c - 1))


def is_fuzzy_measure(mu: np.ndarray, tol: float = 1e-9) -> bool:
    """``mu[0] = 0``, ``mu[-1] = 1`` and monotone (within ``tol``)."""
    mu = np.asarray(mu, dtype=float)
    c = int(np.log2(len(mu)))
    if len(mu) != 2 ** c or abs(mu[0]) > tol or abs(mu[-1] - 1) > tol:
        return False
    return bool((monotonicity_rows(c) @ mu[1:] >= -tol).all()) if c else True


def aggregated_links(z_protected: np.ndarray, z_original: np.ndarray,
                     distance: Callable[[np.ndarray], np.ndarray],
                     block_elements: int = 4_000_000) -> Links:
    """Link each protected record to the original(s) of smallest ``distance(delta^2)``
    (``distance`` maps an array ``(..., c)`` of squared differences to ``(...)``), by
    direct evaluation over all pairs, block of rows by block of rows; ties are exact float
    equality. Returns :class:`sdcflow.kernels.linkage.links.Links`."""
    zo, zp = paired_files(z_original, z_protected)
    n, c = zp.shape
    linked = np.full(n, -1, dtype=np.int64)
    ties = np.zeros(n, dtype=np.int64)
    correct = np.zeros(n, dtype=bool)
    rows = max(1, block_elements // max(n * max(c, 1), 1))
    for start in range(0, n, rows):
        stop = min(start + rows, n)
        delta = zp[start:stop, None, :] - zo[None, :, :]  # (b, n, c)
        d = distance(delta * delta)
        best = d.min(axis=1)
        tied = d == best[:, None]
        ties[start:stop] = tied.sum(axis=1)
        linked[start:stop] = tied.argmax(axis=1)
        correct[start:stop] = tied[np.arange(stop - start), np.arange(start, stop)]
    return Links(linked, ties, correct, {"algorithm": "direct"})
