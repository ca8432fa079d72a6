"""Generalisation of a graph into super-nodes (Hay, Miklau, Jensen, Towsley and Weis,
"Resisting structural re-identification in anonymized social networks", VLDB 2008).

The nodes are partitioned into super-nodes of at least ``k`` nodes; the generalised graph
keeps only the size of each super-node, the number of edges inside it and the number of
edges between every two of them. The partition is the one of highest likelihood found by
simulated annealing: the generalised graph stands for the graphs with those counts, all
equally likely, so the likelihood of the original graph is

    L = prod_X 1 / C(|X|(|X|-1)/2, d(X, X)) * prod_{X<Y} 1 / C(|X||Y|, d(X, Y)).

Hay et al. search over partitions with moves that relocate a node, merge or split
super-nodes; here the number of super-nodes is fixed at ``n // k`` (a random start of
equal sizes) and the moves relocate a node (keeping every super-node at ``k`` or more) or
exchange two nodes of different super-nodes. As they do for analysis, the method releases
a graph drawn uniformly from those the generalised graph stands for (each super-node's and
each pair's edges placed at random among its possible pairs)."""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln


def _log_choose(pairs: np.ndarray, edges: np.ndarray) -> np.ndarray:
    return gammaln(pairs + 1) - gammaln(edges + 1) - gammaln(pairs - edges + 1)


def log_likelihood(sizes: np.ndarray, counts: np.ndarray) -> float:
    """log L of the generalised graph with super-node ``sizes`` and edge ``counts``
    (symmetric, ``counts[X, X]`` the edges inside ``X``)."""
    s = sizes.astype(float)
    inside = s * (s - 1) / 2
    between = np.outer(s, s)
    upper = np.triu_indices(len(sizes), 1)
    return float(-_log_choose(inside, np.diag(counts).astype(float)).sum()
                 - _log_choose(between[upper], counts[upper].astype(float)).sum())


def _local(sizes: np.ndarray, counts: np.ndarray, a: int, b: int) -> float:
    """The terms of log L that involve super-node ``a`` or ``b`` (all a move between them
    changes): O(number of super-nodes)."""
    s = sizes.astype(float)
    out = 0.0
    for x in (a, b):
        out -= float(_log_choose(np.array(s[x] * (s[x] - 1) / 2), np.array(float(counts[x, x]))))
        others = np.ones(len(s), dtype=bool)
        others[x] = False
        if x == b:
            others[a] = False  # (the pair a, b is counted with a)
        out -= float(_log_choose(s[x] * s[others], counts[x, others].astype(float)).sum())
    return out


def block_counts(groups: np.ndarray, g: int, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The symmetric matrix of edge counts between (and, on the diagonal, inside) the
    ``g`` super-nodes, node ``i`` being in super-node ``groups[i]``."""
    counts = np.zeros((g, g), dtype=np.int64)
    np.add.at(counts, (groups[u], groups[v]), 1)
    off = counts + counts.T
    np.fill_diagonal(off, np.diag(counts))
    return off


def _move(counts: np.ndarray, by_group: np.ndarray, a: int, b: int) -> None:
    """Update ``counts`` in place for a node with ``by_group[Y]`` neighbours in each
    super-node ``Y`` leaving ``a`` for ``b`` (its edges to a's other members then count
    between a and b, those to b's members inside b); moving it back undoes it."""
    counts[a, :] -= by_group
    counts[:, a] -= by_group
    counts[a, a] += by_group[a]  # (the diagonal was lowered twice)
    counts[b, :] += by_group
    counts[:, b] += by_group
    counts[b, b] -= by_group[b]


def partition(n: int, u: np.ndarray, v: np.ndarray, k: int, rng: np.random.Generator,
              *, iterations: int) -> tuple[np.ndarray, dict]:
    """Super-node of every node (``0..n//k - 1``) by simulated annealing on log L."""
    g = max(n // k, 1)
    groups = np.empty(n, dtype=np.int64)
    groups[rng.permutation(n)] = np.minimum(np.arange(n) // k, g - 1)
    neighbours = [[] for _ in range(n)]
    for a, b in zip(u.tolist(), v.tolist()):
        neighbours[a].append(b)
        neighbours[b].append(a)
    sizes = np.bincount(groups, minlength=g)
    counts = block_counts(groups, g, u, v)
    current = log_likelihood(sizes, counts)
    start = current
    temperature = 1.0
    cooling = (1e-3) ** (1.0 / max(iterations, 1))
    accepted = 0
    for _ in range(iterations if g > 1 else 0):
        x = int(rng.integers(n))
        a = int(groups[x])
        swap = sizes[a] <= k or rng.random() < 0.5
        if swap:
            y = int(rng.integers(n))
            b = int(groups[y])
            if b == a:
                temperature *= cooling
                continue
        else:
            b = int(rng.integers(g - 1))
            b += b >= a
        before = _local(sizes, counts, a, b)
        moves = [(x, a, b, _neighbour_groups(groups, neighbours, x, g))]
        _move(counts, moves[0][3], a, b)
        groups[x] = b
        if swap:
            moves.append((y, b, a, _neighbour_groups(groups, neighbours, y, g)))
            _move(counts, moves[1][3], b, a)
            groups[y] = a
        else:
            sizes[a] -= 1
            sizes[b] += 1
        delta = _local(sizes, counts, a, b) - before
        if delta >= 0 or rng.random() < np.exp(delta / temperature):
            current += delta
            accepted += 1
        else:  # undo, last move first
            for node, old, new, by_group in reversed(moves):
                _move(counts, by_group, new, old)
                groups[node] = old
            if not swap:
                sizes[a] += 1
                sizes[b] -= 1
        temperature *= cooling
    return groups, {"supernodes": g, "smallest": int(sizes.min()),
                    "largest": int(sizes.max()), "log_likelihood": round(current, 6),
                    "log_likelihood_start": round(start, 6), "moves_accepted": accepted}


def _neighbour_groups(groups: np.ndarray, neighbours: list, x: int, g: int) -> np.ndarray:
    """How many neighbours node ``x`` has in each super-node."""
    return np.bincount(groups[neighbours[x]], minlength=g) if neighbours[x] \
        else np.zeros(g, dtype=np.int64)


def sample_graph(groups: np.ndarray, counts: np.ndarray, rng: np.random.Generator
                 ) -> tuple[np.ndarray, np.ndarray]:
    """A graph drawn uniformly among those with these super-nodes and edge counts."""
    order = np.argsort(groups, kind="stable")
    members = np.split(order, np.searchsorted(groups[order], np.arange(1, len(counts))))
    us, vs = [], []
    # the pairs of super-nodes joined by edges, in row order (a super-node with itself
    # first): only those, not all g^2 pairs
    for x, y in np.argwhere(np.triu(counts)).tolist():
        mx, d = members[x], int(counts[x, y])
        if x == y:
            lo, hi = np.triu_indices(len(mx), 1)
            pick = rng.choice(len(lo), size=d, replace=False)
            us.append(mx[lo[pick]])
            vs.append(mx[hi[pick]])
        else:
            my = members[y]
            pick = rng.choice(len(mx) * len(my), size=d, replace=False)
            us.append(mx[pick // len(my)])
            vs.append(my[pick % len(my)])
    if not us:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    a, b = np.concatenate(us), np.concatenate(vs)
    return np.minimum(a, b), np.maximum(a, b)
