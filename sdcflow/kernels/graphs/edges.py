"""Edge lists of undirected simple graphs: nodes numbered ``0..n-1``, edges as two integer
arrays ``u``, ``v`` (one entry per edge), and what makes an edge list unusable (a self
loop, an edge given twice)."""

from __future__ import annotations

import numpy as np


def index_nodes(source: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                  np.ndarray]:
    """The nodes of an edge list given by labels: the sorted distinct labels, and each
    edge's end points as indices into them."""
    labels, inverse = np.unique(np.concatenate([source, target]), return_inverse=True)
    m = len(source)
    return labels, inverse[:m].astype(np.int64), inverse[m:].astype(np.int64)


def self_loops(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Positions of the edges joining a node to itself."""
    return np.flatnonzero(u == v)


def repeated_edges(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Positions of the edges that repeat an earlier one (in either direction: the
    graph is undirected)."""
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    order = np.lexsort((hi, lo))
    same = np.zeros(len(u), dtype=bool)
    same[order[1:]] = (lo[order[1:]] == lo[order[:-1]]) & (hi[order[1:]] == hi[order[:-1]])
    return np.flatnonzero(same)


def degrees(n: int, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The degree of every node (number of edges at it)."""
    return np.bincount(u, minlength=n) + np.bincount(v, minlength=n)


def canonical(u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The edges with the smaller end first, sorted: the order of an edge list that says
    nothing of how it was made (which edges are new, which were kept)."""
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    order = np.lexsort((hi, lo))
    return lo[order], hi[order]


def edge_keys(n: int, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """One integer per undirected edge (``min * n + max``), for set operations."""
    return np.minimum(u, v).astype(np.int64) * n + np.maximum(u, v)
