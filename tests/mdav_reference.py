"""A plain, quadratic implementation of the textbook MDAV (the seed's algorithm, written
as directly as possible), to check the fast kernel against."""

import numpy as np


def mdav_reference(X, k):
    X = np.asarray(X, float)
    n = len(X)
    labels = -np.ones(n, int)
    alive = np.ones(n, bool)
    group = 0

    def dist2(idx, q):
        s = (X[idx, 0] - q[0]) ** 2
        for j in range(1, X.shape[1]):
            s = s + (X[idx, j] - q[j]) ** 2
        return s

    def farthest(q):
        idx = np.flatnonzero(alive)
        return idx[np.argmax(dist2(idx, q))]  # argmax: the first (smallest index) of ties

    def group_around(r):
        nonlocal group
        idx = np.flatnonzero(alive & (np.arange(n) != r))
        order = np.lexsort((idx, dist2(idx, X[r])))  # by distance, then index
        members = np.r_[r, idx[order[:k - 1]]]
        labels[members] = group
        alive[members] = False
        group += 1

    while alive.sum() >= 3 * k:
        r = farthest(X[alive].mean(axis=0))
        group_around(r)
        s = farthest(X[r])
        group_around(s)
    if alive.sum() >= 2 * k:
        group_around(farthest(X[alive].mean(axis=0)))
    if alive.any():
        labels[alive] = group
    return labels
