"""k-means for the clustering agreement of the original and the protected data (Torra,
"Masking methods", 2013, "Specific Information Loss Measure"): k-means++ seeding and Lloyd's
algorithm with Hamerly's bounds, compiled with numba (a per-record skip test that NumPy
cannot express without gathering the records), restarted on a subsample for large files.
"""

from __future__ import annotations

import math

import numpy as np

from ..jit import njit


def _sq_norms(x: np.ndarray) -> np.ndarray:
    return np.einsum("ij,ij->i", x, x)


def kmeans_plus_plus(x: np.ndarray, c: int, rng: np.random.Generator,
                     xx: np.ndarray | None = None) -> np.ndarray:
    """k-means++ seeding (Arthur & Vassilvitskii 2007): the first centre uniformly, each next
    one with probability proportional to the squared distance to the nearest centre."""
    xx = _sq_norms(x) if xx is None else xx
    n = len(x)
    centres = np.empty((c, x.shape[1]))
    centres[0] = x[rng.integers(n)]
    best = np.maximum(xx - 2.0 * (x @ centres[0]) + centres[0] @ centres[0], 0.0)
    for k in range(1, c):
        total = best.sum()
        if total > 0:
            i = int(np.searchsorted(np.cumsum(best), rng.random() * total, side="right"))
            i = min(i, n - 1)
        else:  # every record already sits on a centre
            i = int(rng.integers(n))
        centres[k] = x[i]
        best = np.minimum(best, np.maximum(xx - 2.0 * (x @ centres[k]) + centres[k] @ centres[k],
                                           0.0))
    return centres


@njit(cache=True)
def _two_nearest(x, i, centres):
    """Index of the centre nearest to record ``i`` (first on ties) and the squared
    distances to the nearest and the second nearest."""
    best = np.inf
    second = np.inf
    arg = 0
    for k in range(centres.shape[0]):
        d = 0.0
        for j in range(x.shape[1]):
            t = x[i, j] - centres[k, j]
            d += t * t
        if d < best:
            second = best
            best = d
            arg = k
        elif d < second:
            second = d
    return arg, best, second


@njit(cache=True)
def _assign_all(x, centres, labels, upper, lower, sums, counts):
    """Every record to its nearest centre (first on ties): labels, the distance to it
    (``upper``) and to the second nearest (``lower``), and the clusters' sums and sizes."""
    n, p = x.shape
    sums[:] = 0.0
    counts[:] = 0
    for i in range(n):
        arg, best, second = _two_nearest(x, i, centres)
        labels[i] = arg
        upper[i] = np.sqrt(best)
        lower[i] = np.sqrt(second)
        counts[arg] += 1
        for j in range(p):
            sums[arg, j] += x[i, j]


@njit(cache=True)
def _hamerly(x, centres, max_iter, threshold):
    """Lloyd's iterations with Hamerly's bounds (see :func:`lloyd`); returns labels, centres
    and the number of centre updates."""
    n, p = x.shape
    c = centres.shape[0]
    centres = centres.copy()
    labels = np.empty(n, dtype=np.int64)
    upper = np.empty(n)
    lower = np.empty(n)
    sums = np.zeros((c, p))
    counts = np.zeros(c, dtype=np.int64)
    _assign_all(x, centres, labels, upper, lower, sums, counts)
    delta = np.empty(c)
    half_gap = np.empty(c)
    it = 0
    for it in range(1, max_iter + 1):
        moved = centres.copy()
        empty = False
        for k in range(c):
            if counts[k] > 0:
                for j in range(p):
                    moved[k, j] = sums[k, j] / counts[k]
            else:
                empty = True
        if empty:
            # an emptied cluster takes the record farthest from its centre; the bounds are
            # then void, so everything is assigned afresh
            taken = np.zeros(n, dtype=np.bool_)
            exhausted = False
            for k in range(c):
                if counts[k] > 0:
                    continue
                far = -1
                far_d = 0.0
                for i in range(n):
                    if taken[i]:
                        continue
                    d = 0.0
                    for j in range(p):
                        t = x[i, j] - moved[labels[i], j]
                        d += t * t
                    if d > far_d:
                        far_d = d
                        far = i
                if far < 0:
                    # every record sits on its centre (fewer distinct records than
                    # clusters): nothing can fill the cluster, and nothing can improve
                    exhausted = True
                    break
                taken[far] = True
                for j in range(p):
                    moved[k, j] = x[far, j]
            if exhausted:
                for k in range(c):
                    if counts[k] > 0:
                        for j in range(p):
                            centres[k, j] = moved[k, j]
                break
            centres = moved
            _assign_all(x, centres, labels, upper, lower, sums, counts)
            continue
        shift = 0.0
        top = 0
        for k in range(c):
            d = 0.0
            for j in range(p):
                t = moved[k, j] - centres[k, j]
                d += t * t
            shift += d
            delta[k] = np.sqrt(d)
            if delta[k] > delta[top]:
                top = k
        runner_up = 0.0
        for k in range(c):
            if k != top and delta[k] > runner_up:
                runner_up = delta[k]
        centres = moved
        if shift == 0.0:
            break
        for k in range(c):
            g = np.inf
            for m in range(c):
                if m != k:
                    d = 0.0
                    for j in range(p):
                        t = centres[k, j] - centres[m, j]
                        d += t * t
                    g = min(g, d)
            half_gap[k] = np.sqrt(g) / 2.0
        changed = 0
        for i in range(n):
            a = labels[i]
            upper[i] += delta[a]
            lower[i] -= runner_up if a == top else delta[top]
            bound = max(half_gap[a], lower[i])
            if upper[i] <= bound:
                continue
            d = 0.0
            for j in range(p):
                t = x[i, j] - centres[a, j]
                d += t * t
            upper[i] = np.sqrt(d)
            if upper[i] <= bound:
                continue
            arg, best, second = _two_nearest(x, i, centres)
            upper[i] = np.sqrt(best)
            lower[i] = np.sqrt(second)
            if arg != a:
                labels[i] = arg
                counts[a] -= 1
                counts[arg] += 1
                for j in range(p):
                    sums[a, j] -= x[i, j]
                    sums[arg, j] += x[i, j]
                changed += 1
        if changed == 0 or shift <= threshold:
            break
    return labels, centres, it


@njit(cache=True)
def _inertia(x, centres, labels):
    total = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            t = x[i, j] - centres[labels[i], j]
            total += t * t
    return total


def lloyd(x: np.ndarray, centres: np.ndarray, *, max_iter: int = 300,
          tol: float = 1e-4) -> tuple[np.ndarray, np.ndarray, float, int]:
    """Lloyd's algorithm from ``centres``: records to the nearest centre (first on ties),
    centres to the mean of their records, until no record changes cluster, the centres
    move less than ``tol`` times the mean variance of the data (squared shifts summed over
    centres, as scikit-learn) or after ``max_iter`` updates. An emptied cluster gets the
    record farthest from its centre. Returns labels, centres, inertia (the sum of squared
    distances to the centres) and the number of updates.

    The assignments are those of plain Lloyd, computed with Hamerly's bounds (G. Hamerly,
    "Making k-means even faster", SDM 2010): a record whose distance to its centre is at
    most both a lower bound on its distance to every other centre and half the distance
    from its centre to the nearest other one cannot change cluster and is skipped, so late
    iterations, where few records move, compute few distances. Compiled with numba: the
    per-record skip test is a branch NumPy can only emulate with costly gathers."""
    x = np.ascontiguousarray(x, dtype=float)
    threshold = tol * float(np.mean(x.var(axis=0))) if len(x) else 0.0
    labels, centres, it = _hamerly(x, np.ascontiguousarray(centres, dtype=float),
                                   int(max_iter), threshold)
    return labels, centres, float(_inertia(x, centres, labels)), int(it)


SAMPLE = 100_000  # records on which k-means restarts run (kmeans' default sample)


def kmeans(x: np.ndarray, c: int, rng: np.random.Generator, *, n_init: int = 3,
           max_iter: int = 300, sample: int = SAMPLE) -> tuple[np.ndarray, float]:
    """k-means with ``c`` clusters: ``n_init`` k-means++ seedings drawn from ``rng``, each
    refined by :func:`lloyd`; the solution with the least inertia is kept (the first on a
    tie). With more than ``sample`` records the restarts run on a uniform subsample of
    ``sample`` records (drawn from ``rng``) and the best one's centres are then refined by
    Lloyd on every record: one full-size run instead of ``n_init``. Deterministic for a
    given generator state. Returns labels and inertia."""
    x = np.ascontiguousarray(x, dtype=float)
    n = len(x)
    c = min(c, n)
    if n > sample:
        rows = np.sort(rng.choice(n, size=sample, replace=False))
        sub = x[rows]
        sub_xx = _sq_norms(sub)
        best, best_inertia = None, math.inf
        for _ in range(n_init):
            _, centres, inertia, _ = lloyd(sub, kmeans_plus_plus(sub, c, rng, sub_xx),
                                           max_iter=max_iter)
            if inertia < best_inertia:
                best, best_inertia = centres, inertia
        labels, _, inertia, _ = lloyd(x, best, max_iter=max_iter)
        return labels, inertia
    xx = _sq_norms(x)
    best_labels, best_inertia = None, math.inf
    for _ in range(n_init):
        labels, _, inertia, _ = lloyd(x, kmeans_plus_plus(x, c, rng, xx), max_iter=max_iter)
        if inertia < best_inertia:
            best_labels, best_inertia = labels, inertia
    return best_labels, best_inertia
