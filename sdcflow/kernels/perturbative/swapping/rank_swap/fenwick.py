"""A Fenwick (binary indexed) tree over the ranks still unswapped, compiled with numba:
take a rank out, count the unswapped ranks below a position, find the k-th unswapped
rank, each in O(log n). The standard variant draws its partners with it, and counts the
exhausted buckets of p-buckets with another.
"""

from __future__ import annotations

from ....jit import njit


@njit(cache=True)
def _fw_add(tree, pos, delta):
    i = pos + 1
    size = tree.shape[0]
    while i < size:
        tree[i] += delta
        i += i & -i


@njit(cache=True)
def _fw_prefix(tree, end):
    """Number of unswapped ranks among positions 0 .. end-1."""
    s = 0
    i = end
    while i > 0:
        s += tree[i]
        i -= i & -i
    return s


@njit(cache=True)
def _fw_select(tree, k, top):
    """Position of the k-th (0-based) unswapped rank."""
    pos = 0
    step = top
    size = tree.shape[0]
    while step > 0:
        nxt = pos + step
        if nxt < size and tree[nxt] <= k:
            pos = nxt
            k -= tree[nxt]
        step >>= 1
    return pos
