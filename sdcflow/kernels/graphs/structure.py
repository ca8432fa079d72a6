"""Structural statistics of an undirected graph, the utility figures of graph
anonymisation (Hay et al., "Resisting structural re-identification in anonymized social
networks", 2008: degree distribution, path lengths, clustering; Ying and Wu,
"Randomizing social networks: a spectrum preserving approach", 2008: the largest
eigenvalues of the adjacency matrix)."""

from __future__ import annotations

import networkx as nx
import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import connected_components, shortest_path
from scipy.stats import wasserstein_distance

EXACT_PATHS = 2000  # nodes of the largest component up to which every path is measured
PATH_SOURCES = 500  # sources sampled beyond that


def statistics(graph: nx.Graph, eigenvalues: int, rng: np.random.Generator) -> dict:
    """Nodes, edges, mean degree, average clustering coefficient (Watts and Strogatz),
    the largest connected component's size, mean shortest path length and diameter
    (from every node when it has at most 2000 nodes, else from 500 nodes drawn with
    ``rng``, the diameter then a lower bound), and the ``eigenvalues`` largest eigenvalues
    of the adjacency matrix."""
    n = graph.number_of_nodes()
    adjacency = nx.to_scipy_sparse_array(graph, format="csr", dtype=float)
    out = {"nodes": n, "edges": graph.number_of_edges(),
           "mean_degree": round(2 * graph.number_of_edges() / n, 6) if n else 0.0,
           "clustering": round(float(nx.average_clustering(graph)), 6) if n else 0.0}
    out.update(_paths(adjacency, rng))
    out["eigenvalues"] = _largest_eigenvalues(adjacency, eigenvalues)
    return out


def _paths(adjacency: sparse.csr_array, rng: np.random.Generator) -> dict:
    if adjacency.shape[0] == 0:
        return {"largest_component": 0, "mean_path_length": 0.0, "diameter": 0}
    _, labels = connected_components(adjacency, directed=False)
    largest = np.flatnonzero(labels == np.bincount(labels).argmax())
    sub = adjacency[largest][:, largest]
    size = len(largest)
    sources = (np.arange(size) if size <= EXACT_PATHS
               else np.sort(rng.choice(size, PATH_SOURCES, replace=False)))
    dist = shortest_path(sub, directed=False, unweighted=True, indices=sources)
    off = dist[dist > 0]  # (a component: every distance is finite)
    return {"largest_component": int(size),
            "mean_path_length": round(float(off.mean()), 6) if len(off) else 0.0,
            "diameter": int(off.max()) if len(off) else 0}


def _largest_eigenvalues(adjacency: sparse.csr_array, count: int) -> list[float]:
    n = adjacency.shape[0]
    if count == 0 or n == 0:
        return []
    if n <= 1000 or count >= n - 1:
        values = np.linalg.eigvalsh(adjacency.toarray())[::-1][:count]
    else:
        from scipy.sparse.linalg import eigsh

        values = np.sort(eigsh(adjacency, k=count, which="LA", v0=np.ones(n),
                               return_eigenvectors=False))[::-1]
    return [round(float(x), 6) for x in values]


def degree_distance(original: nx.Graph, released: nx.Graph) -> float:
    """The earth mover's distance between the degree distributions of the two graphs
    (the mean number of edge ends that would have to move to turn one into the other)."""
    a = [d for _, d in original.degree()]
    b = [d for _, d in released.degree()]
    if not a or not b:
        return 0.0
    return round(float(wasserstein_distance(a, b)), 6)
