"""Hierarchical classification variables and the linear relations of a table over them.

A :class:`Dimension` lists every code of a variable (leaves, subtotals and the total) in
post-order, children before their parent; a table is the full cross-classification of
its dimensions, C-ordered, and every "parent = sum of its children" along one dimension,
the other codes fixed, is one of its relations (:func:`relations`). :func:`aggregate`
fills the subtotal and total cells from the leaf cells along those relations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

__all__ = ["Dimension", "aggregate", "make_dimension", "relations"]


@dataclass(frozen=True, eq=False)
class Dimension:
    """One classification variable with its hierarchy.

    ``codes`` lists every code (leaves, subtotals, total) in post-order; ``parent[i]`` is
    the position of the parent of code ``i`` (-1 for the total), ``depth[i]`` its distance
    from the total and ``height[i]`` its distance to its deepest leaf (0 for a leaf)."""

    name: str
    codes: tuple[str, ...]
    parent: np.ndarray
    depth: np.ndarray
    height: np.ndarray

    @property
    def size(self) -> int:
        return len(self.codes)

    @property
    def total(self) -> str:
        return self.codes[-1]

    @property
    def is_leaf(self) -> np.ndarray:
        return self.height == 0

    def children(self, i: int) -> np.ndarray:
        """Positions of the children of code ``i`` (in code order)."""
        return np.flatnonzero(self.parent == i)

    def position(self) -> dict[str, int]:
        return {c: i for i, c in enumerate(self.codes)}

    def positions(self, text: pd.Series) -> np.ndarray:
        """The position of each code of ``text`` (vectorised :meth:`position`); every code
        must belong to the dimension."""
        pos = pd.Index(self.codes).get_indexer(text)
        if (pos < 0).any():
            raise ValueError(f"codes not in dimension '{self.name}': "
                             f"{sorted(set(text[pos < 0]))[:5]}")
        return pos.astype(np.int64)


def make_dimension(name: str, leaves: Sequence[str], hierarchy: Mapping[str, str] | None,
                   total: str = "Total") -> Dimension:
    """A :class:`Dimension` from the codes seen in the data and an optional hierarchy.

    ``hierarchy`` maps each code (leaf or subtotal) to its parent; exactly one code, the
    root (the total, e.g. ``"Total"``), is a parent and nobody's child. Without a
    hierarchy the leaves get the single total ``total``. Codes seen in the data must be
    leaves of the hierarchy; leaves of the hierarchy absent from the data are kept
    (their cells are empty). Children keep the order of the hierarchy mapping (without a
    hierarchy, ``leaves`` order)."""
    leaves = [str(c) for c in leaves]
    if hierarchy is None:
        if total in leaves:
            raise ValueError(f"dimension {name!r}: the total label {total!r} is also a code")
        links = {c: total for c in leaves}
    else:
        links = {str(k): str(v) for k, v in hierarchy.items()}
    children: dict[str, list[str]] = {}
    for child, par in links.items():
        if child == par:
            raise ValueError(f"dimension {name!r}: code {child!r} is its own parent")
        children.setdefault(par, []).append(child)
    roots = [p for p in children if p not in links]
    if len(roots) != 1:
        raise ValueError(f"dimension {name!r}: the hierarchy needs exactly one root (total), "
                         f"found {sorted(roots)}")
    root = roots[0]
    inner = set(children)
    bad = sorted(c for c in leaves if c not in links and c != root)
    if bad:
        raise ValueError(f"dimension {name!r}: codes {bad[:10]} are not in the hierarchy")
    not_leaf = sorted(c for c in leaves if c in inner or c == root)
    if not_leaf:
        raise ValueError(f"dimension {name!r}: data codes {not_leaf[:10]} are subtotals of "
                         "the hierarchy, records must carry leaf codes")
    order: list[str] = []
    seen: set[str] = set()
    # iterative post-order so that deep hierarchies do not hit the recursion limit
    stack: list[tuple[str, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if node in seen:
            raise ValueError(f"dimension {name!r}: the hierarchy has a cycle at {node!r}")
        seen.add(node)
        stack.append((node, True))
        for ch in reversed(children.get(node, [])):
            stack.append((ch, False))
    unreachable = sorted(set(links) - seen)
    if unreachable:
        raise ValueError(f"dimension {name!r}: codes {unreachable[:10]} do not reach the root")
    pos = {c: i for i, c in enumerate(order)}
    parent = np.array([pos[links[c]] if c in links else -1 for c in order], dtype=np.int64)
    depth = np.zeros(len(order), dtype=np.int64)
    for i in range(len(order) - 1, -1, -1):  # parents come after children
        if parent[i] >= 0:
            depth[i] = depth[parent[i]] + 1
    height = np.zeros(len(order), dtype=np.int64)
    for i in range(len(order)):  # children come before parents
        if parent[i] >= 0:
            height[parent[i]] = max(height[parent[i]], height[i] + 1)
    return Dimension(name, tuple(order), parent, depth, height)



def relations(dimensions: Sequence[Dimension]) -> sp.csr_matrix:
    """The "parent = sum of children" relations of the full cross-classification."""
    shape = tuple(d.size for d in dimensions)
    n = int(np.prod(shape))
    ids = np.arange(n).reshape(shape)
    rows_parts, cols_parts, vals_parts = [], [], []
    nrow = 0
    for axis, dim in enumerate(dimensions):
        moved = np.moveaxis(ids, axis, 0).reshape(dim.size, -1)
        m = moved.shape[1]
        inner = np.flatnonzero(~dim.is_leaf)
        if not len(inner):
            continue
        # one block of m rows per subtotal p: -1 at p, then +1 at each child (in code
        # order), all blocks at once
        block = np.full(dim.size, -1, dtype=np.int64)
        block[inner] = np.arange(len(inner))
        child = np.flatnonzero(dim.parent >= 0)
        child = child[block[dim.parent[child]] >= 0]
        owner = np.r_[block[inner], block[dim.parent[child]]]
        entry = np.r_[inner, child]
        is_child = np.r_[np.zeros(len(inner), dtype=bool), np.ones(len(child), dtype=bool)]
        seq = np.lexsort((entry, is_child, owner))
        owner, entry = owner[seq], entry[seq]
        rows_parts.append((nrow + owner[:, None] * m + np.arange(m)).ravel())
        cols_parts.append(moved[entry].ravel())
        vals_parts.append(np.repeat(np.where(is_child[seq], 1.0, -1.0), m))
        nrow += len(inner) * m
    if not rows_parts:
        return sp.csr_matrix((0, n))
    mat = sp.coo_matrix((np.concatenate(vals_parts),
                         (np.concatenate(rows_parts), np.concatenate(cols_parts))),
                        shape=(nrow, n))
    return mat.tocsr()


def aggregate(dimensions: Sequence[Dimension], sums: Sequence[np.ndarray],
              top: np.ndarray | None = None) -> None:
    """Fill every subtotal/total cell of dense arrays from the leaf cells, in place.

    Each array of ``sums`` has the table's shape, possibly followed by axes of its own
    (the digits of exact sums): a margin is the sum of its children, exact for integer
    arrays. ``top`` (the table's shape followed by ``k``) gets the ``k`` largest of the
    children's ``k`` largest (exact: the top ``k`` of a union are among the top ``k`` of
    its parts). Dimensions are done one after the other and, within one, the lower
    subtotals first, so that every margin is complete when its own parent is summed."""
    k = 0 if top is None else top.shape[-1]
    for axis, dim in enumerate(dimensions):
        inner = np.flatnonzero(~dim.is_leaf)
        for p in inner[np.argsort(dim.height[inner], kind="stable")]:
            kids = dim.children(int(p))
            for arr in sums:
                idx = [slice(None)] * arr.ndim
                idx[axis] = p
                arr[tuple(idx)] = np.take(arr, kids, axis=axis).sum(axis=axis)
            if k:
                parts = np.take(top, kids, axis=axis)  # (..., len(kids), ..., k)
                parts = np.moveaxis(parts, axis, -2)
                merged = parts.reshape(parts.shape[:-2] + (-1,))
                best = -np.sort(-merged, axis=-1)[..., :k]
                idx = [slice(None)] * top.ndim
                idx[axis] = p
                top[tuple(idx)] = best
