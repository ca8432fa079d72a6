"""Univariate microaggregation (Torra, "Masking methods", 2013, "Optimal Univariate
Microaggregation"; Hansen & Mukherjee 2003) and individual ranking (Templ 2019,
"Univariate microaggregation").

The optimal partition of one variable into groups of k to 2k-1 records minimising the
within-group sum of squares consists of groups of consecutive sorted values; it is the
shortest path from g_0 to g_n in the graph whose edge (g_i, g_j), i + k <= j < i + 2k,
costs the SSE of the values a_{i+1..j}. The graph is acyclic and ordered, so the shortest
path is a dynamic programme over j, O(n k); each edge's SSE is accumulated with
Welford's update (no cancellation, even for ten million values).
"""

from __future__ import annotations

import numpy as np

from ...jit import njit


@njit(cache=True)
def shortest_path(A, k):
    """Optimal cut of the rows of ``A`` (n x d, in their order) into consecutive groups
    of k .. 2k-1 rows minimising the total within-group sum of squares: returns the cost
    and, per prefix length j, the start of the last group of the best cut of A[:j]."""
    n, d = A.shape
    cost = np.full(n + 1, np.inf)
    back = -np.ones(n + 1, np.int64)
    cost[0] = 0.0
    mean = np.empty(d)
    for j in range(k, n + 1):
        # groups A[i:j] with k <= j - i <= 2k - 1, grown backwards from A[j-1]
        for c in range(d):
            mean[c] = 0.0
        sse = 0.0
        size = 0
        i = j
        while i > 0 and size < 2 * k - 1:
            i -= 1
            size += 1
            for c in range(d):
                x = A[i, c]
                delta = x - mean[c]
                mean[c] += delta / size
                sse += delta * (x - mean[c])
            # strict: among equal costs the shortest last group (found first) wins
            if size >= k and cost[i] + sse < cost[j]:
                cost[j] = cost[i] + sse
                back[j] = i
    return cost, back


def path_labels(back: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Group labels, in record order, of the cut found by :func:`shortest_path` over the
    records taken in ``order``."""
    n = len(order)
    sizes = []
    j = n
    while j > 0:
        sizes.append(j - back[j])
        j = back[j]
    sorted_labels = np.repeat(np.arange(len(sizes)), sizes[::-1])
    labels = np.empty(n, dtype=np.int64)
    labels[order] = sorted_labels
    return labels


def optimal_univariate(x: np.ndarray, k: int) -> np.ndarray:
    """Group labels of the optimal univariate microaggregation of ``x`` (groups numbered
    in increasing order of their values). Ties in the values are ordered by record index;
    among partitions of equal cost the one whose groups are shortest from the right wins."""
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if n < k:
        raise ValueError(f"{n} values cannot form a group of k = {k}")
    order = np.argsort(x, kind="stable")
    _, back = shortest_path(np.ascontiguousarray(x[order][:, None]), int(k))
    return path_labels(back, order)


def individual_ranking(x: np.ndarray, k: int) -> np.ndarray:
    """Group labels of individual ranking (sdcMicro's ``onedims``): sort, then groups of k
    consecutive values, the last group taking the remainder (k .. 2k-1 values)."""
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    order = np.argsort(x, kind="stable")
    groups = max(n // k, 1)
    sorted_labels = np.minimum(np.arange(n) // k, groups - 1)
    labels = np.empty(n, dtype=np.int64)
    labels[order] = sorted_labels
    return labels
