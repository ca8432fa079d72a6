"""Re-identification of the nodes of a released graph by an intruder who knows something
of the structure around a target node in the original graph.

* degree attack (Liu and Terzi, "Towards identity anonymization on graphs", 2008; Hay,
  Miklau, Jensen, Towsley and Weis, "Resisting structural re-identification in anonymized
  social networks", 2008, knowledge query H_1): the intruder knows the target's degree;
* neighbour-degrees attack (Hay et al. 2008, knowledge query H_2): the intruder knows
  the degrees of the target's neighbours (as a multiset), hence its degree too;
* degree-and-attributes attack: the intruder knows the target's degree and its
  attribute values (age, gender: the quasi-identifiers of a node, as in Zhou and Pei
  2008's labelled neighbourhoods and Campan and Truta, "Data and structural k-anonymity
  in social networks", 2008); a candidate must match both;
* neighbourhood attack (Zhou and Pei, "Preserving privacy in social networks against
  neighborhood attacks", 2008): the intruder knows the subgraph induced by the target and
  its neighbours (its 1-neighbourhood), up to isomorphism, the target marked in it.

The candidates of a node ``v`` are the released nodes that match what the intruder knows
of ``v``. ``v`` is re-identified when it is its only candidate; an intruder who picks one
candidate at random finds ``v`` with probability ``1 / candidates`` when ``v`` is among them
(0 otherwise), and the expected number of nodes re-identified so is the sum of these
probabilities (Hay et al. 2008, "candidate set").

Both graphs are :class:`networkx.Graph` on the same node ids (a node of the original
graph absent from the released edge list is an isolated released node).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping

import networkx as nx
import numpy as np

ROOT = "target"


def degree_candidates(original: nx.Graph, released: nx.Graph) -> tuple[np.ndarray, np.ndarray]:
    """For every node of ``original`` (in its node order): the number of released nodes
    with its original degree, and whether it is one of them."""
    released_degrees = np.array([d for _, d in released.degree()], dtype=np.int64)
    values, counts = np.unique(released_degrees, return_counts=True)
    by_degree = dict(zip(values.tolist(), counts.tolist()))
    known = [original.degree(v) for v in original.nodes]
    candidates = np.array([by_degree.get(d, 0) for d in known], dtype=np.int64)
    among = np.array([released.degree(v) == d for v, d in zip(original.nodes, known)])
    return candidates, among


def degree_attribute_candidates(original: nx.Graph, released: nx.Graph,
                                attributes: Mapping[Hashable, tuple | None]
                                ) -> tuple[np.ndarray, np.ndarray]:
    """For every node of ``original`` (in its node order): the number of released nodes
    with its original degree and its attribute values (``attributes``: node -> values; a
    node without them matches nothing), and whether it is one of them."""
    counts: dict[tuple, int] = {}
    for w, d in released.degree():
        if attributes.get(w) is not None:
            key = (d, attributes[w])
            counts[key] = counts.get(key, 0) + 1
    candidates, among = [], []
    for v in original.nodes:
        values = attributes.get(v)
        key = (original.degree(v), values)
        candidates.append(counts.get(key, 0) if values is not None else 0)
        among.append(values is not None and v in released and released.degree(v) == key[0])
    return np.array(candidates, dtype=np.int64), np.array(among, dtype=bool)


def neighbour_degree_candidates(original: nx.Graph, released: nx.Graph
                                ) -> tuple[np.ndarray, np.ndarray]:
    """For every node of ``original`` (in its node order): the number of released nodes
    whose neighbours have the degrees (as a multiset) its neighbours have in the
    original, and whether it is one of them."""
    def signature(graph: nx.Graph, v) -> tuple:
        return tuple(sorted(graph.degree(w) for w in graph.neighbors(v)))

    released_sigs = {v: signature(released, v) for v in released.nodes}
    counts: dict[tuple, int] = {}
    for sig in released_sigs.values():
        counts[sig] = counts.get(sig, 0) + 1
    known = [signature(original, v) for v in original.nodes]
    candidates = np.array([counts.get(sig, 0) for sig in known], dtype=np.int64)
    among = np.array([released_sigs.get(v) == sig for v, sig in zip(original.nodes, known)])
    return candidates, among


def neighbourhood(graph: nx.Graph, v) -> nx.Graph:
    """The subgraph induced by ``v`` and its neighbours, ``v`` marked as the target."""
    ego = nx.Graph(graph.subgraph([v, *graph.neighbors(v)]))
    nx.set_node_attributes(ego, False, ROOT)
    ego.nodes[v][ROOT] = True
    return ego


def _fingerprint(ego: nx.Graph) -> str:
    """A Weisfeiler-Lehman hash: equal for isomorphic neighbourhoods (not conversely)."""
    labels = {n: "1" if a else "0" for n, a in ego.nodes(data=ROOT)}
    nx.set_node_attributes(ego, labels, "mark")
    return nx.weisfeiler_lehman_graph_hash(ego, node_attr="mark", iterations=3)


def _same(a: nx.Graph, b: nx.Graph) -> bool:
    return (a.number_of_nodes() == b.number_of_nodes() and
            a.number_of_edges() == b.number_of_edges() and
            nx.vf2pp_is_isomorphic(a, b, node_label=ROOT))


def neighbourhood_candidates(original: nx.Graph, released: nx.Graph
                             ) -> tuple[np.ndarray, np.ndarray]:
    """For every node of ``original`` (in its node order): the number of released nodes
    whose 1-neighbourhood is isomorphic with its original one (target onto target), and
    whether it is one of them. Released neighbourhoods are grouped by their WL hash, then
    into exact isomorphism classes within a hash (VF2++: Juttner and Madarasi, "VF2++ -
    an improved subgraph isomorphism algorithm", 2018; plain VF2 can take hours on the
    many-leaved neighbourhood of a hub)."""
    classes: dict[str, list[tuple[nx.Graph, set]]] = {}  # hash -> [(representative, nodes)]
    for w in released.nodes:
        ego = neighbourhood(released, w)
        bucket = classes.setdefault(_fingerprint(ego), [])
        for rep, members in bucket:
            if _same(rep, ego):
                members.add(w)
                break
        else:
            bucket.append((ego, {w}))
    candidates, among = [], []
    for v in original.nodes:
        ego = neighbourhood(original, v)
        match = next((members for rep, members in classes.get(_fingerprint(ego), [])
                      if _same(rep, ego)), set())
        candidates.append(len(match))
        among.append(v in match)
    return np.array(candidates, dtype=np.int64), np.array(among, dtype=bool)


def re_identification(candidates: np.ndarray, among: np.ndarray) -> dict:
    """The nodes re-identified (their only candidate is themselves), the expected number
    found by a random pick among the candidates, and the nodes with fewer candidates than
    each of 2, 5, 10 (a k-anonymity-like count of how exposed the nodes are)."""
    safe = np.where(among, candidates, 1)
    expected = float(np.sum(np.where(among, 1.0 / safe, 0.0)))
    return {"re_identified": int(np.sum(among & (candidates == 1))),
            "expected": round(expected, 6),
            "below_k": {str(k): int(np.sum(among & (candidates < k))) for k in (2, 5, 10)}}
