"""Record linkage by direct evaluation of a distance over every (protected, original) pair,
for files that need not hold the same records, and the kernel distance of kernel-based
record linkage.

Kernel DBRL (Torra, Abowd & Domingo-Ferrer, "Using Mahalanobis distance-based record
linkage for disclosure risk assessment", PSD 2006, KDBRL; after the kernel methods of
Schoelkopf & Smola, "Learning with kernels", 2002) links in the feature space of a kernel
``K``: ``d^2(a, b) = ||phi(a) - phi(b)||^2 = K(a, a) - 2 K(a, b) + K(b, b)``, here with
the polynomial kernel ``K(x, y) = (1 + <x, y>)^degree`` (degree 1: the Euclidean distance).

``truth[i]`` is the position of protected record ``i``'s own original in the original
file, or -1 when it is not there (an intruder holding only some individuals, a sampled
release): its link is then never correct. NumPy only; blocks of rows keep the memory
bounded, the cost is that of every pair.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .links import Links

BLOCK_ELEMENTS = 4_000_000


def _sq_euclidean(P: np.ndarray, O: np.ndarray) -> np.ndarray:
    return ((P[:, None, :] - O[None, :, :]) ** 2).sum(axis=-1)


def polynomial_kernel(P: np.ndarray, O: np.ndarray, degree: int) -> np.ndarray:
    """``(1 + <p, o>)^degree`` for every row pair, by direct sums (so that identical rows
    give identical values)."""
    return (1.0 + (P[:, None, :] * O[None, :, :]).sum(axis=-1)) ** degree


def kernel_distance(degree: int) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """The squared feature-space distance of the polynomial kernel of ``degree``."""

    def distance(P: np.ndarray, O: np.ndarray) -> np.ndarray:
        kp = (1.0 + (P * P).sum(axis=1)) ** degree
        ko = (1.0 + (O * O).sum(axis=1)) ** degree
        return kp[:, None] - 2.0 * polynomial_kernel(P, O, degree) + ko[None, :]

    return distance


def pairwise_links(protected: np.ndarray, original: np.ndarray,
                   truth: np.ndarray | None = None,
                   distance: Callable[[np.ndarray, np.ndarray], np.ndarray] = _sq_euclidean,
                   block_elements: int = BLOCK_ELEMENTS) -> Links:
    """Link each protected record (row) to the original(s) of smallest ``distance``
    (default: squared Euclidean), over every pair. ``truth``: the position of each
    protected record's own original (-1: absent); default, the same position (files of
    equal length). Records with a missing value are not linked (protected) or not
    candidates (original); ties are exact float equality, a link is ``correct`` when the
    own original is among the tied."""
    protected = np.asarray(protected, dtype=float)
    original = np.asarray(original, dtype=float)
    n, m = len(protected), len(original)
    if protected.ndim != 2 or original.ndim != 2 or protected.shape[1] != original.shape[1]:
        raise ValueError("both files need the same variables (2-d arrays)")
    if truth is None:
        if n != m:
            raise ValueError(f"the protected file has {n} records and the original {m}: "
                             "say which original each protected record comes from")
        truth = np.arange(n)
    truth = np.asarray(truth, dtype=np.int64)
    if truth.shape != (n,) or (truth >= m).any():
        raise ValueError("truth must give, for each protected record, a position in the "
                         "original file or -1")
    linked = np.full(n, -1, dtype=np.int64)
    ties = np.zeros(n, dtype=np.int64)
    correct = np.zeros(n, dtype=bool)
    # (an infinite coordinate counts as a missing value: see nearest_links)
    p_ok = np.flatnonzero(np.isfinite(protected).all(axis=1))
    cand = np.flatnonzero(np.isfinite(original).all(axis=1))
    if not len(p_ok) or not len(cand):
        return Links(linked, ties, correct, {"algorithm": "direct"})
    O = original[cand]
    pos = np.full(m, -1, dtype=np.int64)
    pos[cand] = np.arange(len(cand))  # an original's column among the candidates
    rows = max(1, block_elements // max(len(cand) * max(protected.shape[1], 1), 1))
    for start in range(0, len(p_ok), rows):
        idx = p_ok[start:start + rows]
        d = distance(protected[idx], O)
        best = d.min(axis=1)
        tied = d == best[:, None]
        ties[idx] = tied.sum(axis=1)
        linked[idx] = cand[tied.argmax(axis=1)]
        own = np.where(truth[idx] >= 0, pos[np.maximum(truth[idx], 0)], -1)
        has = own >= 0
        correct[idx[has]] = tied[np.flatnonzero(has), own[has]]
    return Links(linked, ties, correct, {"algorithm": "direct"})
