"""A synthetic spatial graph with a given degree sequence (Torra, Jonsson,
Navarro-Arribas and Salas, "Generation of spatial graphs for a given degree sequence"):
the nodes are placed on a map according to a density, edges join nodes that are near,
a heuristic assignment of the edges gives a multigraph, and its multiple edges are then
corrected.

As implemented here (the steps of the method, with choices where its outline is silent):

1. positions: ``n`` points drawn from the density on the unit square (``uniform``) or
   the plane (``normal``: independent standard normal coordinates);
2. assignment: the nodes are taken in decreasing order of degree (ties at random); a
   node with ``r`` free edge ends joins them to the ``r`` nearest other nodes that still
   have free ends, one each; when fewer than ``r`` such nodes are left it goes round them
   again (multiple edges), and ends left on the node alone make loops;
3. correction: every loop and every copy of an edge beyond the first, ``(u, v)``, is
   exchanged with a simple edge ``(x, y)`` for ``(u, x)`` and ``(v, y)``, both new, with
   ``x`` as near to ``u`` as possible (a degree-preserving switch that keeps edges short);
   a copy for which no such edge exists is dropped (its two nodes lose one degree).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

DENSITIES = ("uniform", "normal")


def positions(n: int, density: str, rng: np.random.Generator) -> np.ndarray:
    """``n`` points in the plane drawn from ``density``."""
    if density == "uniform":
        return rng.random((n, 2))
    if density == "normal":
        return rng.standard_normal((n, 2))
    raise ValueError(f"unknown density {density!r}")


def assign_edges(degrees: np.ndarray, points: np.ndarray,
                 rng: np.random.Generator) -> list[tuple[int, int]]:
    """The multigraph of step 2: a list of edges ``(min, max)``, loops and repeats
    included, in which node ``i`` has degree ``degrees[i]`` (a loop counts twice)."""
    free = np.asarray(degrees, dtype=np.int64).copy()
    n = len(free)
    order = np.lexsort((rng.random(n), -free))
    edges: list[tuple[int, int]] = []
    for x in order.tolist():
        r = int(free[x])
        if r == 0:
            continue
        free[x] = 0
        others = np.flatnonzero(free > 0)
        if len(others):
            dist = np.hypot(*(points[others] - points[x]).T)
            others = others[np.argsort(dist, kind="stable")]
        chosen: list[int] = []
        while len(others) and len(chosen) < r and np.any(free[others] > 0):
            for y in others.tolist():
                if len(chosen) == r:
                    break
                if free[y] > 0:
                    chosen.append(y)
                    free[y] -= 1
        for y in chosen:
            edges.append((min(x, y), max(x, y)))
        edges += [(x, x)] * ((r - len(chosen)) // 2)
    return edges


def correct_multigraph(edges: list[tuple[int, int]], points: np.ndarray
                       ) -> tuple[list[tuple[int, int]], dict]:
    """Step 3: a simple graph from the multigraph ``edges``; counts of the loops and
    repeated edges found, switched and dropped."""
    counts = Counter(edges)
    simple = {e for e in counts if e[0] != e[1]}
    surplus = [e for e, c in sorted(counts.items()) for _ in range(c - (e[0] != e[1]))]
    info = {"loops": sum(c for e, c in counts.items() if e[0] == e[1]),
            "repeated_edges": sum(c - 1 for e, c in counts.items() if e[0] != e[1]),
            "switched": 0, "dropped": 0}
    for u, v in surplus:
        ends = np.array(sorted(simple))
        if len(ends) == 0:
            info["dropped"] += 1
            continue
        # both orientations of every simple edge, the end x nearest to u first
        x = np.concatenate([ends[:, 0], ends[:, 1]])
        y = np.concatenate([ends[:, 1], ends[:, 0]])
        near = np.argsort(np.hypot(*(points[x] - points[u]).T), kind="stable")
        for i in near.tolist():
            a, b = int(x[i]), int(y[i])
            new1, new2 = (min(u, a), max(u, a)), (min(v, b), max(v, b))
            if u in (a, b) or v in (a, b):  # (x and y must differ from u and v)
                continue
            if new1 in simple or new2 in simple or new1 == new2:
                continue
            simple.discard((min(a, b), max(a, b)))
            simple |= {new1, new2}
            info["switched"] += 1
            break
        else:
            info["dropped"] += 1
    return sorted(simple), info


def spatial_graph(degrees: np.ndarray, density: str, rng: np.random.Generator
                  ) -> tuple[np.ndarray, np.ndarray, dict]:
    """A simple spatial graph whose node ``i`` has degree ``degrees[i]`` unless the
    correction had to drop edges at it (``info['dropped']``)."""
    points = positions(len(degrees), density, rng)
    edges, info = correct_multigraph(assign_edges(degrees, points, rng), points)
    a = np.array([e[0] for e in edges], dtype=np.int64)
    b = np.array([e[1] for e in edges], dtype=np.int64)
    return a, b, info
