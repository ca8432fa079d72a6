"""Random edge perturbation of an undirected simple graph.

* ``add_delete`` (Hay, Miklau, Jensen, Weis and Srivastava, "Anonymizing social networks",
  2007, and Hay et al., "Resisting structural re-identification in anonymized social
  networks", 2008: "random perturbation"): ``m`` edges chosen uniformly at random are
  deleted, then ``m`` node pairs chosen uniformly among the pairs not joined in the
  original graph are joined; the number of edges is kept;
* ``add`` / ``delete``: only the first or the second half of it;
* ``switch`` (Ying and Wu, "Randomizing social networks: a spectrum preserving approach",
  2008, "Rand Switch"): ``m`` times, two edges ``(t, w)``, ``(u, v)`` chosen at random
  with ``(t, v)`` and ``(u, w)`` not edges are replaced by those two; every node keeps its
  degree.
"""

from __future__ import annotations

import numpy as np

from .edges import canonical, edge_keys

MODES = ("add_delete", "add", "delete", "switch")


def non_edges_count(n: int, m: int) -> int:
    """The number of node pairs that are not joined in a simple graph of ``n`` nodes and
    ``m`` edges."""
    return n * (n - 1) // 2 - m


def _random_non_edges(n: int, taken: set, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` distinct pair keys drawn uniformly among the pairs not in ``taken``."""
    free = non_edges_count(n, len(taken))
    if count > free:
        raise ValueError(f"only {free} node pairs are not joined; {count} cannot be added")
    if 2 * count >= free:  # dense: list the free pairs and choose among them
        lo, hi = np.triu_indices(n, 1)
        keys = lo.astype(np.int64) * n + hi
        keys = keys[~np.isin(keys, np.fromiter(taken, np.int64, len(taken)))]
        return np.sort(rng.choice(keys, size=count, replace=False))
    chosen: list[int] = []
    seen = set(taken)
    while len(chosen) < count:  # rejection: at least half the pairs are free
        a, b = rng.integers(0, n, size=2)
        key = int(min(a, b)) * n + int(max(a, b))
        if a != b and key not in seen:
            seen.add(key)
            chosen.append(key)
    return np.array(chosen, dtype=np.int64)


def perturb_edges(n: int, u: np.ndarray, v: np.ndarray, m: int, mode: str,
                  rng: np.random.Generator, *, max_tries: int = 100) -> tuple[np.ndarray,
                                                                              np.ndarray, dict]:
    """Perturb ``m`` edges of the graph on ``n`` nodes with edges ``(u[i], v[i])`` by
    ``mode`` (see the module); returns the new edges (canonical order: smaller end first,
    sorted) and counts of what was done. ``switch`` gives up a draw whose pairs are already
    joined and tries again, at most ``max_tries * m`` draws in all (``switched`` says how
    many switches were made)."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}")
    keys = edge_keys(n, u, v)
    info = {"edges_before": len(keys)}
    if mode in ("add_delete", "delete") and m > len(keys):
        raise ValueError(f"cannot delete {m} of {len(keys)} edges")
    if mode == "switch":
        keys, done = _switch(n, keys, m, rng, max_tries)
        info["switched"] = done
    else:
        kept = keys
        if mode != "add":
            drop = rng.choice(len(keys), size=m, replace=False)
            kept = np.delete(keys, drop)
            info["deleted"] = m
        if mode != "delete":
            # new pairs are drawn among those not joined in the original graph, so that a
            # deleted edge is not put back
            added = _random_non_edges(n, set(keys.tolist()), m, rng)
            kept = np.concatenate([kept, added])
            info["added"] = m
        keys = kept
    a, b = canonical(keys // n, keys % n)
    info["edges_after"] = len(a)
    return a, b, info


def _switch(n: int, keys: np.ndarray, m: int, rng: np.random.Generator,
            max_tries: int) -> tuple[np.ndarray, int]:
    edges = [(int(k // n), int(k % n)) for k in keys]
    present = {int(k) for k in keys}
    done = tries = 0
    while done < m and tries < max_tries * max(m, 1) and len(edges) >= 2:
        tries += 1
        i, j = rng.choice(len(edges), size=2, replace=False)
        t, w = edges[i]
        x, y = edges[j]
        if rng.random() < 0.5:  # either orientation of the second edge
            x, y = y, x
        if len({t, w, x, y}) < 4:
            continue
        new1 = min(t, y) * n + max(t, y)
        new2 = min(x, w) * n + max(x, w)
        if new1 in present or new2 in present:
            continue
        present -= {min(t, w) * n + max(t, w), min(x, y) * n + max(x, y)}
        present |= {new1, new2}
        edges[i], edges[j] = (t, y), (x, w)
        done += 1
    return np.array(sorted(present), dtype=np.int64), done
