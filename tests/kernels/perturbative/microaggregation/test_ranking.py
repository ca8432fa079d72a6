"""The ranking behind MDAV's farthest-record queries
(sdcflow.kernels.perturbative.microaggregation.ranking): cones that hold their
directions, and scans that return exactly the farthest record."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from sdcflow.kernels.perturbative.microaggregation.ranking import (
    _cone_of,
    cone_geometry,
    farthest_ranked,
    rank_by_distance,
)


@pytest.mark.parametrize("d, m, cones", [(1, 1, 2), (2, 16, 64), (3, 4, 96), (4, 2, 64),
                                         (5, 2, 160), (6, 1, 12), (13, 1, 26)])
def test_cone_counts(d, m, cones):
    # 2d faces of the cube of directions, each cut into m^(d-1) cells, m the largest
    # integer with m^(d-1) <= 16 (and at most 256 cones)
    got_m, centre, spread = cone_geometry(d)
    assert got_m == m and centre.shape == (cones, d) and spread.shape == (cones, 2)
    np.testing.assert_allclose(np.linalg.norm(centre, axis=1), 1.0)
    np.testing.assert_allclose(spread[:, 0] ** 2 + spread[:, 1] ** 2, 1.0)


@pytest.mark.parametrize("d", [1, 2, 3, 4, 5, 7])
def test_every_direction_lies_within_its_cone(d):
    # the bound is only valid if the angle between a direction and its cone's centre is
    # at most the cone's radius: directions at random, on the cells' edges (ratios
    # 0, +-1 and the bin edges) and along the axes
    m, centre, spread = cone_geometry(d)
    rng = np.random.default_rng(d)
    U = [rng.standard_normal(d) for _ in range(3000)]
    edges = np.linspace(-1, 1, m + 1)
    for _ in range(2000):
        u = rng.choice(edges, d) * rng.uniform(0.5, 2)
        u[rng.integers(d)] = rng.choice([-1.0, 1.0]) * abs(u).max() if abs(u).max() else 1.0
        U.append(u)
    U += list(np.eye(d)) + list(-np.eye(d))
    for u in U:
        b = _cone_of(np.asarray(u, float), m)
        cos = centre[b] @ u / np.linalg.norm(u)
        assert cos >= spread[b, 0] - 1e-12, (u, b)


def brute_farthest(X, alive, q, rank):
    best, best_d = -1, -1.0
    for p in np.flatnonzero(alive):
        dd = ((X[p] - q) ** 2).sum()
        if dd > best_d or (dd == best_d and rank[p] < rank[best]):
            best, best_d = p, dd
    return best, best_d


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 200), st.integers(1, 5)),
              elements=st.integers(-6, 6).map(float)),
       st.integers(1, 64), st.integers(0, 2 ** 32 - 1))
def test_scans_return_the_farthest_record(X, top, seed):
    # with some records dead and a ranking of only the top records, the scan either
    # answers exactly (ties by rank) or says it is not certain
    rng = np.random.default_rng(seed)
    n, d = X.shape
    alive = rng.random(n) < 0.8
    if not alive.any():
        alive[0] = True
    rank = rng.permutation(n)
    m, centre, spread = cone_geometry(d)
    c_ref = X[alive].mean(0) + rng.normal(0, 0.5, d)
    ranked, radius = np.empty(n, np.int64), np.empty(n)
    Xr, alive_r, pos = np.empty((n, d)), np.zeros(n, bool), np.empty(n, np.int64)
    starts = np.zeros(centre.shape[0] + 1, np.int64)
    rest = rank_by_distance(X, alive, c_ref, top, ranked, radius, Xr, alive_r, pos, starts, m)
    assert (rest < 0) == (alive.sum() <= top)
    for q in [X[rng.integers(n)], c_ref, rng.normal(0, 10, d)]:
        heads = starts[:-1].copy()
        best, best_d, _, certain = farthest_ranked(
            np.asarray(q, float), c_ref, heads, starts, rest, ranked, radius, Xr, alive_r,
            rank, np.empty(centre.shape[0]), centre, spread, -1)
        if alive.sum() <= top:
            assert certain
        if certain:
            assert (best, best_d) == brute_farthest(X, alive, q, rank)
