"""k-degree anonymity (Liu and Terzi, "Towards identity anonymization on graphs", SIGMOD
2008): a graph is k-degree anonymous when every degree value that occurs is the degree of
at least ``k`` nodes, so that an intruder who knows a node's degree finds at least ``k``
candidates.

Degree anonymisation (their section 4.1): with the degrees sorted in decreasing order
``d_1 >= ... >= d_n``, the cheapest k-anonymous sequence ``d'`` with ``d' >= d`` (cost
``sum d'_i - d_i``) puts consecutive nodes in groups of ``k`` to ``2k - 1`` nodes raised
to the largest degree of their group; with ``I(i, j) = sum_{l=i..j} (d_i - d_l)``,

    DA(1, i) = I(1, i)                                             for i < 2k
    DA(1, i) = min_{max(k, i-2k+1) <= t <= i-k} DA(1, t) + I(t+1, i)  otherwise.

Graph construction: by default their Supergraph (section 5.3), which keeps every original
edge and adds edges only: each node needs ``d'_i - d_i`` more, and, largest need first,
a node is joined to the nodes of largest need it is not yet joined to (their greedy on
the residual degrees). When that gets stuck, the degrees are probed (below) and
anonymised again; when 20 graphical sequences got stuck, or with ``construction:
havel_hakimi``,
their ConstructGraph (section 5.1): Havel-Hakimi, the node of largest remaining degree
``d`` joined to the ``d`` nodes of largest remaining degree; among nodes
of equal remaining degree those joined in the original graph are chosen first, so that
more original edges are kept. When the anonymised sequence is not the degree sequence of
any simple graph (Erdos-Gallai), their Probing scheme adds noise to the degrees and
anonymises again: here one degree raised by one, for a node drawn at random among those of
at most the median degree (the noise is cheap on low degrees, costly on a hub).
"""

from __future__ import annotations

import itertools

import numpy as np


def anonymise_degrees(degrees: np.ndarray, k: int) -> np.ndarray:
    """The k-anonymous degree sequence of least total increase (dynamic programme above),
    in the order of ``degrees``. Nodes of equal degree are taken in index order."""
    d = np.asarray(degrees, dtype=np.int64)
    n = len(d)
    if n == 0:
        return d.copy()
    if not 1 <= k <= n:
        raise ValueError(f"k = {k} must be between 1 and the number of nodes ({n})")
    order = np.lexsort((np.arange(n), -d))  # decreasing degree, ties by index
    s = d[order]
    # (Python integers in the loop: NumPy scalars would make it several times slower)
    sl = s.tolist()
    prefix = [0, *itertools.accumulate(sl)]

    def cost(i: int, j: int) -> int:  # I(i, j) over 0-based positions i..j
        return (j - i + 1) * sl[i] - (prefix[j + 1] - prefix[i])

    best = [np.iinfo(np.int64).max] * (n + 1)
    cut = [0] * (n + 1)  # start of the last group of the prefix
    best[0] = 0
    for i in range(k, n + 1):  # prefix of i nodes
        if i < 2 * k:
            best[i], cut[i] = cost(0, i - 1), 0
            continue
        for t in range(max(k, i - 2 * k + 1), i - k + 1):
            c = best[t] + cost(t, i - 1)
            if c < best[i]:
                best[i], cut[i] = c, t
    out_sorted = np.empty(n, dtype=np.int64)
    end = n
    while end > 0:
        start = cut[end]
        out_sorted[start:end] = sl[start]
        end = start
    out = np.empty(n, dtype=np.int64)
    out[order] = out_sorted
    return out


def is_graphical(degrees: np.ndarray) -> bool:
    """Whether ``degrees`` is the degree sequence of a simple graph (Erdos and Gallai,
    1960: an even sum and, for the sorted sequence, ``sum_{i<=r} d_i <= r(r-1) +
    sum_{i>r} min(r, d_i)`` for every ``r``)."""
    d = np.sort(np.asarray(degrees, dtype=np.int64))[::-1]
    n = len(d)
    if n == 0:
        return True
    if d[-1] < 0 or d[0] > n - 1 or int(d.sum()) % 2:
        return False
    # right side for every r at once: of the nodes after r, those of degree >= r (the
    # first c_r - r of them, c_r nodes having degree >= r) count r, the others their degree
    r = np.arange(1, n + 1)
    at_least = np.searchsorted(-d, -r, side="right")  # c_r
    suffix = np.concatenate([np.cumsum(d[::-1])[::-1], [0]])  # suffix[j] = sum d[j:]
    right = r * (r - 1) + r * np.maximum(at_least - r, 0) + suffix[np.maximum(r, at_least)]
    return bool(np.all(np.cumsum(d) <= right))


def construct_graph(degrees: np.ndarray, preferred: set[tuple[int, int]] | None = None
                    ) -> tuple[np.ndarray, np.ndarray]:
    """A simple graph whose node ``i`` has degree ``degrees[i]`` (Havel-Hakimi), joining,
    among nodes of equal remaining degree, first those whose pair is in ``preferred``
    (pairs ``(min, max)``), then the others in the order they reached that degree (index
    order at first). Raises ``ValueError`` if the sequence is not graphical.

    Nodes are kept in buckets by remaining degree, so that a node's partners are found in
    time proportional to their number and to the number of distinct degrees."""
    d = np.asarray(degrees, dtype=np.int64)
    if not is_graphical(d):
        raise ValueError("the degree sequence is not graphical")
    neighbours: dict[int, list[int]] = {}
    for a, b in sorted(preferred or ()):
        neighbours.setdefault(a, []).append(b)
        neighbours.setdefault(b, []).append(a)
    top = int(d.max()) if len(d) else 0
    buckets: list[dict[int, None]] = [{} for _ in range(top + 1)]
    for i in np.flatnonzero(d > 0).tolist():
        buckets[int(d[i])][i] = None
    us: list[int] = []
    vs: list[int] = []
    while True:
        while top > 0 and not buckets[top]:
            top -= 1
        if top == 0:
            break
        x = next(iter(buckets[top]))
        del buckets[top][x]
        need = top
        chosen: list[tuple[int, int]] = []  # (node, its remaining degree)
        for degree in range(top, 0, -1):
            bucket = buckets[degree]
            if len(chosen) + len(bucket) <= need:
                chosen += [(y, degree) for y in bucket]
            else:
                room = need - len(chosen)
                first = [y for y in neighbours.get(x, ()) if y in bucket][:room]
                rest = (y for y in bucket if y not in set(first))
                chosen += [(y, degree) for y in [*first, *(next(rest) for _ in
                                                           range(room - len(first)))]]
            if len(chosen) == need:
                break
        if len(chosen) < need:  # (cannot happen for a graphical sequence)
            raise ValueError("the degree sequence is not graphical")
        for y, degree in chosen:
            us.append(min(x, y))
            vs.append(max(x, y))
            del buckets[degree][y]
            if degree > 1:
                buckets[degree - 1][y] = None
    return np.array(us, dtype=np.int64), np.array(vs, dtype=np.int64)


SUPERGRAPH_PROBES = 20  # graphical sequences tried with the Supergraph greedy


def supergraph_edges(need: np.ndarray, existing: set[tuple[int, int]]
                     ) -> list[tuple[int, int]] | None:
    """Edges ``(min, max)`` not in ``existing`` that raise node ``i``'s degree by
    ``need[i]`` (Liu and Terzi's Supergraph greedy: the node of largest need, smallest
    index among equals, joined to those of largest need it is not joined to); ``None``
    when the greedy gets stuck."""
    left = np.asarray(need, dtype=np.int64).copy()
    added: list[tuple[int, int]] = []
    joined = set(existing)
    alive = [int(i) for i in np.flatnonzero(left > 0)]
    while alive:
        alive.sort(key=lambda i: (-left[i], i))
        x = alive.pop(0)
        partners = [y for y in alive if (min(x, y), max(x, y)) not in joined][:int(left[x])]
        if len(partners) < left[x]:
            return None
        left[x] = 0
        for y in partners:
            edge = (min(x, y), max(x, y))
            joined.add(edge)
            added.append(edge)
            left[y] -= 1
        alive = [i for i in alive if left[i] > 0]
    return added


def probe_steps(n: int, k: int) -> int:
    """The loop steps of one probe: the dynamic programme over ``n`` degrees, at most
    ``k`` candidate cuts each, and the bookkeeping around it."""
    return n * (k + 2)


def k_degree_anonymise(n: int, u: np.ndarray, v: np.ndarray, k: int,
                       rng: np.random.Generator, *, max_probes: int = 1000,
                       construction: str = "supergraph", max_steps: int | None = None
                       ) -> tuple[np.ndarray, np.ndarray, dict]:
    """A k-degree anonymous graph on the ``n`` nodes of the graph with edges ``(u, v)``:
    degrees anonymised, then the graph constructed (module docstring). Returns its edges
    (smaller end first) and counts: the probes needed, the total degree increase, the
    original edges kept. ``max_steps``: probing stops before its steps
    (:func:`probe_steps` each) would pass this many, as after ``max_probes``."""
    from .edges import degrees as degree_of

    d = degree_of(n, u, v)
    preferred = {(int(min(a, b)), int(max(a, b))) for a, b in zip(u, v)}
    noisy = d.copy()
    graphical, added, stuck, over_budget = None, None, 0, False
    for probe in range(max_probes + 1):
        target = anonymise_degrees(noisy, k)
        if is_graphical(target):
            if graphical is None:
                graphical = target  # (the least noisy: Havel-Hakimi's if it comes to that)
            if construction != "supergraph":
                break
            added = supergraph_edges(target - d, preferred)
            stuck += added is None
            if added is not None or stuck == SUPERGRAPH_PROBES:
                break
        # noise where it costs least: a node of at most the median degree (raising a hub
        # would raise its whole group)
        room = np.flatnonzero((noisy < n - 1) & (noisy <= np.median(noisy)))
        over_budget = max_steps is not None and (probe + 2) * probe_steps(n, k) > max_steps
        if len(room) == 0 or probe == max_probes or over_budget:
            break
        noisy[rng.choice(room)] += 1
    if graphical is None:
        if over_budget:
            raise ValueError(f"no graphical k-anonymous degree sequence in {probe + 1} "
                             f"probes, as many as {max_steps:,} steps allow")
        raise ValueError(f"no graphical k-anonymous degree sequence in {max_probes} probes")
    if added is not None:
        edges = sorted(preferred | set(added))
        a = np.array([e[0] for e in edges], dtype=np.int64)
        b = np.array([e[1] for e in edges], dtype=np.int64)
        built = "supergraph"
    else:  # (asked for, or the supergraph greedy got stuck on every sequence tried)
        target = graphical
        a, b = construct_graph(target, preferred)
        built = "havel_hakimi"
    kept = sum((int(x), int(y)) in preferred for x, y in zip(a, b))
    info = {"construction": built, "probes": probe, "degree_increase": int((target - d).sum()),
            "edges_before": len(u), "edges_after": len(a), "original_edges_kept": kept}
    return a, b, info
