"""Re-identification by a subgraph attack (Hay, Miklau, Jensen, Towsley and Weis,
"Resisting structural re-identification in anonymized social networks", 2008, "edge
facts"): the intruder knows ``t`` edges of a connected subgraph around the target.

The known subgraph is taken from the original graph deterministically: a breadth-first
search from the target, each node's neighbours visited in label order, keeping the first
``t`` edges met (every edge met joins a node already reached, so the edges kept are
connected and hold the target). A released node ``w`` is a candidate for the target when
the known subgraph embeds into the released graph with the target mapped to ``w``
(subgraph monomorphism: the known edges must be present among distinct released nodes,
other released edges may exist).

The embedding is searched by backtracking over the pattern nodes in breadth-first order,
each mapped among the released neighbours of its parent's image (not yet used, of a
degree at least its pattern degree, joined to the images of all its earlier pattern
neighbours). Targets whose known subgraphs are isomorphic (rooted: target onto target)
share their candidates, so each distinct pattern is searched once per released node.
Each search is bounded by ``search_limit`` extension steps; a search that reaches it is
*undecided*: an undecided node is not counted as a candidate, except the target itself,
which is counted and taken as among its candidates. The risk is so over-estimated, never
under-estimated, and the number of undecided searches is reported.
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from .attacks import ROOT

FOUND, ABSENT, UNDECIDED = 1, 0, -1


def known_subgraph(graph: nx.Graph, target, edges: int) -> list[tuple]:
    """The first ``edges`` edges met by a breadth-first search of ``graph`` from
    ``target``, each node's neighbours taken in label order: a list of ``(reached,
    neighbour)`` pairs, the first node of each already reached by the earlier edges."""
    kept: list[tuple] = []
    seen_nodes, seen_edges = {target}, set()
    queue = [target]
    for u in queue:
        for w in sorted(graph.neighbors(u)):
            if len(kept) == edges:
                return kept
            key = frozenset((u, w))
            if key in seen_edges:
                continue
            seen_edges.add(key)
            kept.append((u, w))
            if w not in seen_nodes:
                seen_nodes.add(w)
                queue.append(w)
    return kept


class Pattern:
    """A known subgraph as the search needs it: its nodes in breadth-first order (0 the
    target), each node's parent (the node through which it was reached), its earlier
    neighbours and its degree."""

    def __init__(self, edges: list[tuple], target) -> None:
        order = {target: 0}
        parent = [-1]
        for u, w in edges:
            if w not in order:
                order[w] = len(order)
                parent.append(order[u])
        self.size = len(order)
        self.parent = parent
        self.earlier: list[list[int]] = [[] for _ in range(self.size)]
        self.degree = [0] * self.size
        for u, w in edges:
            a, b = order[u], order[w]
            self.degree[a] += 1
            self.degree[b] += 1
            self.earlier[max(a, b)].append(min(a, b))
        self.graph = nx.Graph()
        self.graph.add_nodes_from(range(self.size))
        self.graph.add_edges_from((order[u], order[w]) for u, w in edges)
        nx.set_node_attributes(self.graph, {i: i == 0 for i in range(self.size)}, ROOT)


def embeds(pattern: Pattern, graph: nx.Graph, root, search_limit: int) -> int:
    """Whether ``pattern`` embeds into ``graph`` with its target mapped to ``root``:
    :data:`FOUND`, :data:`ABSENT`, or :data:`UNDECIDED` when ``search_limit`` extension
    steps did not settle it."""
    if graph.degree(root) < pattern.degree[0]:
        return ABSENT
    image = [root] + [None] * (pattern.size - 1)
    used = {root}
    steps = 0

    def extend(i: int) -> int:
        nonlocal steps
        if i == pattern.size:
            return FOUND
        need = pattern.degree[i]
        for w in graph.neighbors(image[pattern.parent[i]]):
            steps += 1
            if steps > search_limit:
                return UNDECIDED
            if w in used or graph.degree(w) < need:
                continue
            if not all(graph.has_edge(w, image[j]) for j in pattern.earlier[i]):
                continue
            image[i] = w
            used.add(w)
            outcome = extend(i + 1)
            used.discard(w)
            if outcome != ABSENT:
                return outcome
        return ABSENT

    return extend(1)


def _fingerprint(pattern: Pattern) -> str:
    marks = {n: "1" if a else "0" for n, a in pattern.graph.nodes(data=ROOT)}
    nx.set_node_attributes(pattern.graph, marks, "mark")
    return nx.weisfeiler_lehman_graph_hash(pattern.graph, node_attr="mark", iterations=3)


def _same(a: Pattern, b: Pattern) -> bool:
    return (a.size == b.size and a.graph.number_of_edges() == b.graph.number_of_edges()
            and nx.vf2pp_is_isomorphic(a.graph, b.graph, node_label=ROOT))


def subgraph_candidates(original: nx.Graph, released: nx.Graph, *, edges: int = 4,
                        search_limit: int = 10_000
                        ) -> tuple[np.ndarray, np.ndarray, int]:
    """For every node of ``original`` (in its node order): the number of released nodes
    into which its known subgraph of ``edges`` edges embeds (target onto the node), and
    whether it is one of them; and the number of undecided searches (see the module
    docstring for how they are counted)."""
    classes: dict[str, list[tuple[Pattern, dict]]] = {}  # hash -> [(pattern, outcomes)]
    released_nodes = list(released.nodes)
    undecided = 0
    candidates, among = [], []
    for v in original.nodes:
        pattern = Pattern(known_subgraph(original, v, edges), v)
        bucket = classes.setdefault(_fingerprint(pattern), [])
        outcomes = next((out for rep, out in bucket if _same(rep, pattern)), None)
        if outcomes is None:
            outcomes = {w: embeds(pattern, released, w, search_limit) for w in released_nodes}
            undecided += sum(1 for o in outcomes.values() if o == UNDECIDED)
            bucket.append((pattern, outcomes))
        found = sum(1 for o in outcomes.values() if o == FOUND)
        mine = outcomes.get(v, ABSENT)
        candidates.append(found + (mine == UNDECIDED))
        among.append(mine != ABSENT)
    return np.array(candidates, dtype=np.int64), np.array(among, dtype=bool), undecided
