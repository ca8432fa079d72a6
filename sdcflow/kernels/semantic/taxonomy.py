"""A taxonomy of categories (a tree of concepts, each with one parent), as semantic
masking methods use it (S. Martinez, D. Sanchez, A. Valls, "Semantic adaptive
microaggregation of categorical microdata", Computers & Security 31(5), 2012).

Concepts are numbered 0 .. n-1; the tree is held as arrays (parent of each concept, -1
for the root; depth in edges from the root), so the kernels work on integer codes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

ROOT = "*"  # the root added above several top concepts (the fully generalised value)


class TaxonomyError(ValueError):
    """A taxonomy that is not a tree: a cycle, a concept with two parents, a bad name."""


@dataclass(frozen=True)
class Taxonomy:
    """A rooted tree of concepts.

    ``names[i]`` is concept ``i``; ``parent[i]`` its parent (-1 for the root);
    ``depth[i]`` its number of edges from the root."""

    names: tuple[str, ...]
    parent: np.ndarray
    depth: np.ndarray

    @property
    def root(self) -> int:
        return int(np.flatnonzero(self.parent < 0)[0])

    def index(self) -> dict[str, int]:
        """Concept name -> code."""
        return {name: i for i, name in enumerate(self.names)}

    def ancestors(self, i: int) -> list[int]:
        """``i`` and its ancestors up to the root, ``i`` first."""
        out = [i]
        while self.parent[out[-1]] >= 0:
            out.append(int(self.parent[out[-1]]))
        return out

    def lcs(self, a: int, b: int) -> int:
        """The least common subsumer of ``a`` and ``b``: their deepest common ancestor
        (a concept subsumes itself)."""
        while self.depth[a] > self.depth[b]:
            a = int(self.parent[a])
        while self.depth[b] > self.depth[a]:
            b = int(self.parent[b])
        while a != b:
            a, b = int(self.parent[a]), int(self.parent[b])
        return a

    def lcs_of(self, codes: Sequence[int]) -> int:
        """The least common subsumer of every concept in ``codes`` (at least one)."""
        it = iter(codes)
        out = int(next(it))
        for c in it:
            out = self.lcs(out, int(c))
        return out

    def ancestor_at(self, codes: np.ndarray, depth: int) -> np.ndarray:
        """Each concept's ancestor at ``depth`` (edges from the root); concepts no deeper
        than ``depth`` are their own."""
        out = np.asarray(codes, dtype=np.int64).copy()
        while True:
            deep = self.depth[out] > depth
            if not deep.any():
                return out
            out[deep] = self.parent[out[deep]]

    def subsumed_counts(self, counts: np.ndarray) -> np.ndarray:
        """For each concept, the sum of ``counts`` over it and every concept it subsumes
        (the frequency of a concept in P. Resnik's information content)."""
        out = np.asarray(counts, dtype=float).copy()
        for i in np.argsort(-self.depth, kind="stable"):  # deepest first
            p = self.parent[i]
            if p >= 0:
                out[p] += out[i]
        return out


def from_parents(parents: Mapping[str, str | None]) -> Taxonomy:
    """The taxonomy of a ``child -> parent`` mapping (``None`` or a missing entry: a top
    concept). Several top concepts are placed under a root named ``*``.

    Raises :class:`TaxonomyError` on a cycle or an empty name."""
    names: list[str] = []
    seen: dict[str, int] = {}

    def code(name: str) -> int:
        if name not in seen:
            if not isinstance(name, str) or not name:
                raise TaxonomyError(f"a concept needs a non-empty name, not {name!r}")
            seen[name] = len(names)
            names.append(name)
        return seen[name]

    edges: dict[int, int] = {}
    for child, parent in parents.items():
        c = code(child)
        if parent is not None:
            if parent == child:
                raise TaxonomyError(f"'{child}' is its own parent")
            edges[c] = code(parent)
    parent = np.full(len(names), -1, dtype=np.int64)
    for c, p in edges.items():
        parent[c] = p
    tops = np.flatnonzero(parent < 0)
    if len(names) and not len(tops):
        raise TaxonomyError(f"the taxonomy has a cycle and no top concept: {_cycle(parent, 0, names)}")
    if len(tops) != 1:
        if ROOT in seen:
            raise TaxonomyError(f"several top concepts ({', '.join(names[t] for t in tops[:5])}) "
                                f"and a concept named '{ROOT}', the name of the root that "
                                "would join them")
        names.append(ROOT)
        parent = np.append(parent, -1)
        parent[tops] = len(names) - 1
    depth = np.full(len(names), -1, dtype=np.int64)
    for start in range(len(names)):
        path = []
        i = start
        while depth[i] < 0 and parent[i] >= 0:
            path.append(i)
            i = int(parent[i])
            if len(path) > len(names):
                raise TaxonomyError(f"the taxonomy has a cycle: {_cycle(parent, start, names)}")
        base = max(depth[i], 0)
        depth[i] = base
        for d, j in enumerate(reversed(path), start=1):
            depth[j] = base + d
    return Taxonomy(tuple(names), parent, depth)


def from_tree(tree: Mapping) -> Taxonomy:
    """The taxonomy of a nested mapping ``{concept: {narrower concept: {...}, ...}}``; a
    concept's narrower concepts may also be a list of names, and a leaf ``None``, ``{}``
    or ``[]``. Raises :class:`TaxonomyError` when a concept appears twice."""
    parents: dict[str, str | None] = {}

    def walk(children, parent):
        items = children.items() if isinstance(children, Mapping) else (
            ((c, None) for c in children) if isinstance(children, list) else None)
        if items is None:
            raise TaxonomyError(f"the narrower concepts of '{parent}' must be a mapping or a "
                                f"list of names, not {type(children).__name__}")
        for name, below in items:
            name = _name(name)
            if name in parents:
                raise TaxonomyError(f"concept '{name}' appears twice (under "
                                    f"'{parents[name] or 'the top'}' and under "
                                    f"'{parent or 'the top'}'): a taxonomy is a tree")
            parents[name] = parent
            if below:
                walk(below, name)

    walk(tree, None)
    return from_parents(parents)


def from_levels(levels: Mapping[str, Mapping]) -> Taxonomy:
    """The taxonomy of a generalisation hierarchy given by levels, finest first, each
    mapping a value of the level below to its parent (a variable's ``hierarchy``)."""
    parents: dict[str, str | None] = {}
    for level in levels.values():
        for child, parent in level.items():
            child, parent = _name(child), _name(parent)
            if parents.get(child) not in (None, parent):
                raise TaxonomyError(f"'{child}' has two parents ('{parents[child]}' and "
                                    f"'{parent}')")
            parents[child] = parent
            parents.setdefault(parent, None)
    return from_parents(parents)


def _name(value) -> str:
    """Concepts are text: 6 or 6.0 is '6'."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _cycle(parent: np.ndarray, start: int, names: list[str]) -> str:
    path, i = [], start
    while i not in path:
        path.append(i)
        i = int(parent[i])
    loop = path[path.index(i):] + [i]
    return " -> ".join(names[j] for j in loop)
