"""Mondrian multidimensional partitioning for k-anonymity (K. LeFevre, D. J. DeWitt,
R. Ramakrishnan, "Mondrian multidimensional k-anonymity", ICDE 2006).

The records are split recursively, top down. A partition is cut on the dimension with
the widest normalised range among those where a cut is *allowable*: every part keeps at
least ``k`` records (and, with a sensitive variable, at least ``l`` distinct sensitive
values: distinct l-diversity, A. Machanavajjhala et al., "l-Diversity: Privacy beyond
k-anonymity", 2007). A partition with no allowable cut is final.

Dimensions are of two kinds:

- :class:`Ordered` (numbers, or categories in a fixed order): cut at the median. Strict
  partitioning puts every record of the median value on one side (``x <= median``, or
  ``x < median`` when that is the only allowable or the better balanced of the two), so
  the parts' regions do not overlap; relaxed partitioning cuts the sorted records in two
  halves, records of the median value going to either side (the paper's "relaxed
  multidimensional partitioning").
- :class:`Tree` (categories with a hierarchy): a partition's value is the least common
  ancestor of its records' values; a cut replaces it by its children, one part per
  child holding records (allowable when every part is), as the paper's categorical
  splits along a generalisation hierarchy.

The widths are normalised to [0, 1]: ``(max - min) / (table max - table min)`` of the
positions of an ordered dimension, ``(leaves(a) - 1) / (leaves(root) - 1)`` for the
ancestor ``a`` of a tree. All partitions of one depth are cut together with vectorised
sorts, so the work is O(n log n) per level and O(n log^2 n) in all.

Loss measures of a partition (:func:`partition_loss`): the normalised certainty penalty
(J. Xu, W. Wang, J. Pei, X. Wang, B. Shi, A. W.-C. Fu, "Utility-based anonymization using
local recoding", KDD 2006) and the discernibility metric (R. J. Bayardo, R. Agrawal,
"Data privacy through optimal k-anonymization", ICDE 2005).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Ordered:
    """A dimension with ordered values: ``codes[i]`` is the rank (0 .. m-1) of record
    ``i``'s value among the distinct values, ``positions`` the increasing value of each
    rank (the numbers themselves, or 0 .. m-1 for categories in order: ``numeric``
    False)."""

    codes: np.ndarray
    positions: np.ndarray
    numeric: bool = True


@dataclass(frozen=True)
class Tree:
    """A dimension with a hierarchy: ``parent[v]`` is the parent of node ``v`` (-1 for the
    root), ``codes[i]`` the node of record ``i``'s value. Build it with :func:`tree`, which
    numbers the nodes in depth-first preorder (a subtree is then a range of codes)."""

    codes: np.ndarray
    parent: np.ndarray
    depth: np.ndarray = field(repr=False)
    end: np.ndarray = field(repr=False)      # subtree of v: nodes v .. end[v] - 1
    leaves: np.ndarray = field(repr=False)   # leaves under v (1 for a leaf)
    up: np.ndarray = field(repr=False)       # up[d, v]: ancestor of v at depth d (or v)

    def lca(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """The least common ancestor of nodes ``u <= v`` (preorder), elementwise: the
        deepest ancestor of ``u`` whose subtree reaches ``v``."""
        out = np.zeros(len(u), dtype=np.int64)
        for d in range(self.up.shape[0]):
            a = self.up[d, u]
            out = np.where(self.end[a] > v, a, out)
        return out


def preorder(parent: np.ndarray) -> np.ndarray:
    """The nodes of a rooted tree (``parent``: -1 for the single root) in depth-first
    preorder, children in increasing number."""
    parent = np.asarray(parent, dtype=np.int64)
    children: list[list[int]] = [[] for _ in parent]
    roots = []
    for v, p in enumerate(parent.tolist()):
        (children[p] if p >= 0 else roots).append(v)
    if len(roots) != 1:
        raise ValueError(f"a tree has one root, got {len(roots)}")
    out, stack = [], roots
    while stack:
        v = stack.pop()
        out.append(v)
        stack.extend(reversed(children[v]))
    return np.asarray(out, dtype=np.int64)


def tree(parent: np.ndarray, codes: np.ndarray) -> tuple[Tree, np.ndarray]:
    """A :class:`Tree` dimension from any numbering of the nodes, and ``old`` such that
    preorder node ``v`` is node ``old[v]`` of ``parent``."""
    old = preorder(parent)
    new = np.empty_like(old)
    new[old] = np.arange(len(old))
    par = np.where(np.asarray(parent)[old] >= 0, new[np.maximum(np.asarray(parent)[old], 0)], -1)
    m = len(old)
    depth = np.zeros(m, dtype=np.int64)
    for v in range(1, m):  # preorder: a parent comes before its children
        depth[v] = depth[par[v]] + 1
    end = np.arange(1, m + 1, dtype=np.int64)
    leaves = np.zeros(m, dtype=np.int64)
    has_child = np.zeros(m, dtype=bool)
    has_child[par[par >= 0]] = True
    leaves[~has_child] = 1
    for v in range(m - 1, 0, -1):  # children after parents: accumulate upwards
        end[par[v]] = max(end[par[v]], end[v])
        leaves[par[v]] += leaves[v]
    up = np.empty((int(depth.max()) + 1, m), dtype=np.int64)
    up[-1] = np.arange(m)
    for d in range(up.shape[0] - 2, -1, -1):
        up[d] = np.where(depth[up[d + 1]] > d, par[np.maximum(up[d + 1], 0)], up[d + 1])
    mapped = np.asarray(codes, dtype=np.int64)
    return Tree(new[mapped], par, depth, end, leaves, up), old


Dimension = Ordered | Tree


def mondrian(dims: Sequence[Dimension], k: int, *, sensitive: np.ndarray | None = None,
             l: int = 1, strict: bool = True) -> np.ndarray:
    """Each record's partition, numbered 0 .. P-1 in the order of their first record.

    ``sensitive``: integer codes of a sensitive variable (-1: missing, counts as no value);
    with it every partition holds at least ``l`` distinct values. The whole table must
    itself hold ``k`` records (and ``l`` values); it is then one partition at least."""
    n = len(dims[0].codes) if dims else 0
    label = np.zeros(n, dtype=np.int64)
    is_open = np.array([n >= 2 * k and len(dims) > 0])
    codes = [np.asarray(d.codes, dtype=np.int64) for d in dims]
    span = max([len(d.positions) if isinstance(d, Ordered) else len(d.parent)
                for d in dims] + [1])
    while is_open.any():
        rec = np.flatnonzero(is_open[label])
        order = rec[np.argsort(label[rec], kind="stable")]
        parts, starts, sizes = np.unique(label[order], return_index=True, return_counts=True)
        widths, lcas = _widths(dims, codes, order, starts)
        rank = np.argsort(-widths, axis=1, kind="stable")
        undecided = np.ones(len(parts), dtype=bool)
        next_label = len(is_open)
        new_open: list[np.ndarray] = []
        for t in range(len(dims)):
            chosen = rank[:, t]
            cand = undecided & (widths[np.arange(len(parts)), chosen] > 0)
            if not cand.any():
                continue
            ok, records, groups = _cut(dims, codes, order, starts, sizes, cand, chosen, lcas,
                                       k, sensitive, l, strict, span)
            undecided[np.flatnonzero(cand)[ok]] = False
            if len(records):
                _, group, counts = np.unique(groups, return_inverse=True, return_counts=True)
                label[records] = next_label + group
                next_label += len(counts)
                new_open.append(counts >= 2 * k)
        is_open[parts] = False
        is_open = np.concatenate([is_open, *new_open]) if new_open else is_open
    _, first, inverse = np.unique(label, return_index=True, return_inverse=True)
    renumber = np.empty(len(first), dtype=np.int64)
    renumber[np.argsort(first, kind="stable")] = np.arange(len(first))
    return renumber[inverse.reshape(-1)] if n else label


def _widths(dims, codes, order, starts) -> tuple[np.ndarray, list]:
    """Normalised width of every partition (rows) on every dimension (columns); 0 where
    it cannot be cut. For trees also each partition's least common ancestor."""
    out = np.zeros((len(starts), len(dims)))
    lcas: list = [None] * len(dims)
    seg = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(order))))
    for j, dim in enumerate(dims):
        c = codes[j][order]
        lo = np.minimum.reduceat(c, starts)
        hi = np.maximum.reduceat(c, starts)
        if isinstance(dim, Ordered):
            pos = np.asarray(dim.positions, dtype=float)
            full = pos[-1] - pos[0]
            out[:, j] = (pos[hi] - pos[lo]) / full if full > 0 else 0.0
        else:
            lca = dim.lca(lo, hi)
            lcas[j] = lca
            total = dim.leaves[0] - 1
            w = (dim.leaves[lca] - 1) / total if total > 0 else np.zeros(len(lca))
            # a record whose value is the ancestor itself cannot go to a child
            stuck = np.maximum.reduceat((c == lca[seg]).astype(np.int8), starts) > 0
            out[:, j] = np.where(stuck, 0.0, w)
    return out, lcas


def _cut(dims, codes, order, starts, sizes, cand, chosen, lcas, k, sensitive, l, strict,
         span):
    """Cut the candidate partitions on their chosen dimension. Returns which candidates
    were cut, their records and each record's part (an id unique across partitions)."""
    seg = np.repeat(np.arange(len(starts)), sizes)
    mine = cand[seg]
    rec = order[mine]
    part = seg[mine]
    value = np.empty(len(rec), dtype=np.int64)
    dim_of = chosen[part]
    for j, dim in enumerate(dims):
        m = dim_of == j
        if not m.any():
            continue
        c = codes[j][rec[m]]
        if isinstance(dim, Tree):  # the child of the partition's ancestor above the value
            c = dim.up[dim.depth[lcas[j][part[m]]] + 1, c]
        value[m] = c
    local = np.cumsum(cand) - 1  # candidate number of each partition
    key = local[part] * span + value
    srt = np.argsort(key, kind="stable")
    rec, part, key, value = rec[srt], part[srt], key[srt], value[srt]
    cparts = np.flatnonzero(cand)
    s = np.searchsorted(local[part], np.arange(len(cparts)))  # segment starts
    size = sizes[cparts]
    first = np.zeros(len(rec), dtype=bool)
    first[s] = True
    tree_part = np.array([isinstance(dims[j], Tree) for j in chosen[cparts]], dtype=bool)
    # tree parts: a new part wherever the child changes
    change = np.ones(len(rec), dtype=bool)
    change[1:] = value[1:] != value[:-1]
    tree_flags = first | (change & tree_part[local[part]])
    if strict:
        mid = key[s + (size - 1) // 2]
        below = np.searchsorted(key, mid, side="left")   # x < median ends here
        upto = np.searchsorted(key, mid, side="right")   # x <= median ends here
        cuts_a, cuts_b = upto, below
    else:
        cuts_a = cuts_b = s + size // 2
    options = []
    for cuts in (cuts_a, cuts_b):
        flags = first.copy()
        inner = ~tree_part & (cuts > s) & (cuts < s + size)
        flags[cuts[inner]] = True
        flags |= tree_flags & tree_part[local[part]]
        options.append((flags, _allowable(flags, s, sensitive, rec, k, l)))
    (fa, oka), (fb, okb) = options
    balance_a = np.abs(cuts_a - s - size / 2)
    balance_b = np.abs(cuts_b - s - size / 2)
    use_a = oka & (~okb | (balance_a <= balance_b))
    ok = oka | okb
    flags = np.where(use_a[local[part]], fa, fb)
    keep = ok[local[part]]
    groups = np.cumsum(flags) - 1
    return ok, rec[keep], groups[keep]


def _allowable(flags, s, sensitive, rec, k, l) -> np.ndarray:
    """Per candidate partition: at least two parts, each of k records (and l distinct
    sensitive values)."""
    group = np.cumsum(flags) - 1
    gsize = np.bincount(group)
    ok = gsize >= k
    if sensitive is not None and l > 1:
        sens = np.asarray(sensitive, dtype=np.int64)[rec]
        present = sens >= 0
        pairs = np.unique(group[present] * (int(sens.max(initial=0)) + 1) + sens[present])
        distinct = np.bincount(pairs // (int(sens.max(initial=0)) + 1), minlength=len(gsize))
        ok &= distinct >= l
    gstart = group[s]
    ngroups = np.diff(np.append(gstart, len(gsize)))
    return np.logical_and.reduceat(ok, gstart) & (ngroups >= 2)


# --------------------------------------------------------------------- summaries
def grouped(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Records ordered by partition, each partition's first position and size."""
    order = np.argsort(labels, kind="stable")
    _, starts, sizes = np.unique(labels[order], return_index=True, return_counts=True)
    return order, starts, sizes


def ordered_range(codes: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Smallest and largest code of each partition."""
    order, starts, _ = grouped(labels)
    c = np.asarray(codes, dtype=np.int64)[order]
    return np.minimum.reduceat(c, starts), np.maximum.reduceat(c, starts)


def tree_ancestor(dim: Tree, labels: np.ndarray) -> np.ndarray:
    """The least common ancestor of each partition's values."""
    lo, hi = ordered_range(dim.codes, labels)
    return dim.lca(lo, hi)


def partition_mean(values: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Mean of ``values`` in each partition."""
    return np.bincount(labels, weights=values) / np.bincount(labels)


def partition_median(values: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Median of ``values`` in each partition (the mean of the two middle values of an
    even count)."""
    order = np.lexsort((values, labels))
    v = np.asarray(values, dtype=float)[order]
    _, starts, sizes = np.unique(labels[order], return_index=True, return_counts=True)
    return (v[starts + (sizes - 1) // 2] + v[starts + sizes // 2]) / 2


def distinct_codes(codes: np.ndarray, labels: np.ndarray, m: int) -> tuple[np.ndarray,
                                                                              np.ndarray]:
    """The distinct ``(partition, code)`` pairs, sorted, as two arrays."""
    pairs = np.unique(np.asarray(labels, dtype=np.int64) * m + np.asarray(codes, np.int64))
    return pairs // m, pairs % m


def partition_loss(dims: Sequence[Dimension], labels: np.ndarray) -> dict:
    """Loss of a partitioning: per dimension the normalised certainty penalty (Xu et al.
    2006) averaged over the records (0: values kept, 1: every value generalised to the
    whole domain): ``(max - min) / (table max - table min)`` for a number; for a category
    ``card / |A|`` (0 when ``card`` is 1), where ``card`` is the number of leaves under the
    ancestor (trees) or of distinct values in the partition, and ``|A|`` that of the whole
    domain (the tree's leaves, the table's distinct values); ``ncp``, their mean over the
    dimensions; the discernibility metric ``sum |E|^2`` (Bayardo & Agrawal 2005) and the
    normalised average class size ``(n / partitions) / k`` is left to the caller (needs k)."""
    sizes = np.bincount(labels).astype(float)
    n = sizes.sum()
    per_dim = []
    for dim in dims:
        if isinstance(dim, Tree):
            a = tree_ancestor(dim, labels)
            card = dim.leaves[a]
            penalty = np.where(card > 1, card / dim.leaves[0], 0.0)
        elif dim.numeric:
            lo, hi = ordered_range(dim.codes, labels)
            pos = dim.positions
            full = pos[-1] - pos[0]
            penalty = (pos[hi] - pos[lo]) / full if full > 0 else np.zeros(len(sizes))
        else:
            m = len(dim.positions)
            part, _ = distinct_codes(dim.codes, labels, m)
            card = np.bincount(part, minlength=len(sizes))
            present = len(np.unique(dim.codes))
            penalty = np.where(card > 1, card / present, 0.0)
        per_dim.append(float((penalty * sizes).sum() / n) if n else 0.0)
    return {"ncp": float(np.mean(per_dim)) if per_dim else 0.0, "per_dimension": per_dim,
            "discernibility": int((sizes ** 2).sum()), "partitions": len(sizes),
            "smallest": int(sizes.min()) if len(sizes) else 0}
