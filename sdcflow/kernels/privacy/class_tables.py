"""The equivalence classes of the nodes of a generalisation lattice, each rolled up from
the class table of a finer node already computed, as ARX does (F. Kohlmayer, F. Prasser,
C. Eckert, A. Kemper & K. Kuhn, "Flash: efficient, stable and optimal k-anonymity",
IEEE SocialCom/PASSAT 2012, section on the implementation: the classes of a node are
computed from a stored "snapshot" of a checked node below it, its history, instead of
from the records). NumPy; the compiled kernels are in :mod:`sdcflow.kernels.privacy.roll_up`.

A *table* at a node holds one row per distinct combination of the generalised key codes
and the codes of the *value* columns (the sensitive variables a target reads, never
generalised), with its number of records and one record it stands for. Its rows are in
lexicographic order (keys, then values), so each equivalence class (distinct keys) is a
run of rows, and the classes are numbered in the lexicographic order of their keys.

A node ``b`` at or above ``a`` (every level at least ``a``'s) has ``b``'s codes a
function of ``a``'s: its table is a group-by of ``a``'s table, whose rows are far fewer
than the records. The history keeps the tables of recently computed nodes (bounded by
their rows) and rolls a node up from the stored node at or below it with the fewest
rows; the table of the bottom node (level 0 everywhere) is always kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..risk.frequencies import key_ids, row_ids
from .roll_up import (
    _class_keys,
    _count_values,
    _fewest_rows_below,
    _fold_generalised,
    _key_runs,
    _roll_up,
)

MAX_STORED_ROWS = 1_000_000  # rows of the tables the history keeps (beside the bottom's)
MAX_STORED = 1024  # and their number
MAX_DENSE = 1 << 22  # classes x values of the dense counts of a roll-up by classes
ROWS_PER_CLASS = 1.2  # rows per class above which a table is rolled up by its classes
_EMPTY = int(np.iinfo(np.int64).max)  # the levels of an empty slot: above every node


@dataclass(frozen=True)
class Table:
    """A node's rows: generalised keys (R x m, :attr:`keys`), ``values`` (R x s), record
    ``counts``, one record index per row (``rows``), each row's class (``row_class``,
    classes in the lexicographic order of their keys) and the number of classes.
    ``row_keys``: the rows' keys, or None when the classes' keys are given instead
    (``class_keys``; the rows' found from them when first read)."""

    node: tuple
    row_keys: np.ndarray | None
    values: np.ndarray
    counts: np.ndarray
    rows: np.ndarray
    row_class: np.ndarray
    n_classes: int
    #: the class keys and counts once computed (a table is read many times)
    _classes: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def keys(self) -> np.ndarray:
        """The generalised keys of each row (R x m)."""
        if self.row_keys is not None:
            return self.row_keys
        if "row_keys" not in self._classes:
            self._classes["row_keys"] = self._classes["keys"][self.row_class]
        return self._classes["row_keys"]

    def class_counts(self) -> np.ndarray:
        """The records of each class."""
        if self.values.shape[1] == 0:
            return self.counts
        if "counts" not in self._classes:
            self._classes["counts"] = np.bincount(
                self.row_class, weights=self.counts, minlength=self.n_classes
            ).astype(np.int64)
        return self._classes["counts"]

    def class_keys(self) -> np.ndarray:
        """The generalised keys of each class (C x m)."""
        if self.values.shape[1] == 0:
            return self.keys
        if "keys" not in self._classes:
            self._classes["keys"] = _class_keys(np.ascontiguousarray(self.keys),
                                                self.row_class, self.n_classes)
        return self._classes["keys"]


class Generalisation:
    """A lattice's generalisation hierarchies as the roll-ups read them: ``maps[j]``, the
    (levels x d_j) map of variable j's level-0 codes to each level (each level a
    function of the one below), the radix of each variable's codes at each level, and
    every variable's map from each level to each level above, concatenated, with where
    each starts (``offsets[j, low, high]``; -1: none). Found once per search and shared
    by its histories."""

    def __init__(self, maps: Sequence[np.ndarray]) -> None:
        self.maps = [np.asarray(mp, dtype=np.int64) for mp in maps]
        self.radix = [[int(level.max(initial=0)) + 1 for level in mp] for mp in self.maps]
        self._jumps: dict[tuple[int, int, int], np.ndarray] = {}
        height = max((len(mp) for mp in self.maps), default=1)
        self.offsets = np.full((len(self.maps), height, height), -1, dtype=np.int64)
        parts, at = [], 0
        for j, mp in enumerate(self.maps):
            for lo in range(len(mp)):
                # (level lo's codes mapped to every level at once: levels x codes)
                every = np.zeros((len(mp), self.radix[j][lo]), dtype=np.int64)
                every[:, mp[lo]] = mp
                for hi in range(lo + 1, len(mp)):
                    self._jumps[(j, lo, hi)] = every[hi]
                    parts.append(self._jumps[(j, lo, hi)])
                    self.offsets[j, lo, hi] = at
                    at += len(parts[-1])
        self.all_jumps = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
        self.offset_lists = self.offsets.tolist()  # (read per roll-up: lists are quicker)
        self._starts: dict[tuple[tuple, tuple], np.ndarray] = {}  # (jump tables found)

    def jump(self, j: int, low: int, high: int) -> np.ndarray:
        """Variable j's level-``low`` codes mapped to level ``high`` (``low < high``; all
        found in ``__init__``)."""
        return self._jumps[(j, low, high)]

    def jump_table(self, low: tuple, high: tuple) -> tuple[np.ndarray, np.ndarray]:
        """Every variable's maps from each level to each level above, concatenated, and
        where variable j's map from ``low[j]`` to ``high[j]`` starts (-1: the variable
        keeps its level; found once per pair of nodes, and read only)."""
        low, high = tuple(low), tuple(high)
        starts = self._starts.get((low, high))
        if starts is None:
            offsets = self.offset_lists
            starts = np.array([offsets[j][lo][hi] for j, (lo, hi)
                               in enumerate(zip(low, high, strict=True))], dtype=np.int64)
            if len(self._starts) >= MAX_STORED * 64:  # (a bound on what is kept)
                self._starts.clear()
            self._starts[(low, high)] = starts
        return self.all_jumps, starts


    def unit_class(self, units: np.ndarray, node: Sequence[int]) -> np.ndarray:
        """Each unit's class at the node (``units``: level-0 key codes, u x m, codes of
        the maps), classes numbered in the lexicographic order of their generalised keys
        (as ``row_ids`` of the generalised codes numbers them): the keys folded while
        generalised, in one compiled pass, then ranked."""
        node = tuple(int(v) for v in node)
        radices = np.array([self.radix[j][lv] for j, lv in enumerate(node)], dtype=np.int64)
        span = 1
        for r in radices.tolist():
            span *= r
        units = np.ascontiguousarray(units, dtype=np.int64)
        if span >= 1 << 62:  # (too wide for one integer)
            generalised = np.empty_like(units)
            for j, level in enumerate(node):
                generalised[:, j] = self.maps[j][level][units[:, j]]
            return row_ids(generalised)[0]
        jumps, starts = self.jump_table((0,) * len(node), node)
        return key_ids(_fold_generalised(units, jumps, starts, radices), span)[0]


class History:
    """The class tables of a lattice's nodes. ``codes``: the records' level-0 key codes
    (n x m); ``values``: codes of value columns (n x s, or None); ``maps[j]``: the
    (levels x d_j) map of variable j's level-0 codes to each level (each level a
    function of the one below), or their :class:`Generalisation`; ``counts``: records
    each row of ``codes`` stands for (default 1)."""

    def __init__(self, codes: np.ndarray, maps: Sequence[np.ndarray] | Generalisation,
                 values: np.ndarray | None = None, counts: np.ndarray | None = None,
                 max_rows: int = MAX_STORED_ROWS,
                 grouped: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        codes = np.asarray(codes, dtype=np.int64)
        n, m = codes.shape
        values = (np.zeros((n, 0), dtype=np.int64) if values is None
                  else np.asarray(values, dtype=np.int64).reshape(n, -1))
        counts = np.ones(n, dtype=np.int64) if counts is None else np.asarray(counts)
        self.generalisation = (maps if isinstance(maps, Generalisation)
                               else Generalisation(maps))
        self.maps = self.generalisation.maps
        # the radix of each variable's codes at each level, and of each value column
        self._radix = self.generalisation.radix
        self._value_radix = [int(v.max(initial=-1)) + 2 for v in values.T]
        self._value_space = 1
        for r in self._value_radix:
            self._value_space *= r
        self.max_rows = max_rows
        # (grouped: the rows already found, as row_ids finds them -- see by_keys)
        ids, rep = row_ids(codes, values) if grouped is None else grouped
        #: each record's row of the bottom table
        self.record_row = ids
        self.bottom = self._table((0,) * m, np.take(codes, rep, axis=0),
                                  np.take(values, rep, axis=0),
                                  np.bincount(ids, weights=counts, minlength=len(rep)), rep)
        # the stored tables in slots reused oldest first: their nodes' levels and rows
        # (an empty slot: levels above every node)
        self._slots: list[Table | None] = [None] * MAX_STORED
        self._levels = np.full((MAX_STORED, m), _EMPTY, dtype=np.int64)
        self._sizes = np.zeros(MAX_STORED, dtype=np.int64)
        self._next = 0  # the slot to fill next
        self._oldest = 0  # the oldest slot filled
        self._stored_rows = 0
        self._arrays: tuple | None = None  # (the roll-ups' working arrays: made when needed)
        self._roll_ups = 0

    def _working(self) -> tuple[np.ndarray, np.ndarray, int]:
        """The roll-ups' hash table and per-row groups (:meth:`_arrays_made`) and the
        next mark."""
        slots, work, _, _ = self._arrays_made()
        self._roll_ups += 1
        return slots, work, self._roll_ups

    def _arrays_made(self) -> tuple[np.ndarray, ...]:
        """The roll-ups' working arrays, made at the first roll-up: a hash table of
        twice the bottom's rows (slots marked by the number of the roll-up that filled
        them, so never cleared), per-row groups, and no values and counts for each
        row (a roll-up of classes alone)."""
        if self._arrays is None:
            rows, slots = len(self.bottom.counts), 1
            while slots < 2 * rows:
                slots *= 2
            self._arrays = (np.zeros(2 * slots, dtype=np.int64),
                            np.zeros((4, max(rows, 1)), dtype=np.int64),
                            np.zeros((rows, 0), dtype=np.int64),
                            np.zeros(rows, dtype=np.int64))
        return self._arrays

    def by_keys(self, codes: np.ndarray) -> History:
        """The history of the same records' keys alone (no value columns), its rows found
        from this one's (a row per class of the bottom table) rather than again from the
        records."""
        bottom = self.bottom
        first = np.ones(len(bottom.row_class), dtype=bool)
        first[1:] = bottom.row_class[1:] != bottom.row_class[:-1]
        return History(codes, self.generalisation, max_rows=self.max_rows,
                       grouped=(bottom.row_class[self.record_row], bottom.rows[first]))

    def table(self, node: Sequence[int]) -> Table:
        """The node's table, rolled up from the stored table at or below it with the
        fewest rows (stored in turn)."""
        node = tuple(map(int, node))
        source = self.bottom
        slot = _fewest_rows_below(self._levels, self._sizes, np.array(node, dtype=np.int64))
        if slot >= 0:
            source = self._slots[slot]
        if source.node == node:
            return source
        radices = [self._radix[j][lv] for j, lv in enumerate(node)] + self._value_radix
        space = 1
        for r in radices:
            space *= r
        if space >= 1 << 62 or len(source.counts) == 0:
            table = self._roll_up_sorting(source, node)
        elif source.values.shape[1] and len(source.counts) > (
                ROWS_PER_CLASS * source.n_classes) and (
                self._value_space * source.n_classes < MAX_DENSE):
            table = self._roll_up_classes(source, node, radices)
        else:
            # one compiled pass: generalise, group by hashing, sort the distinct rows
            keys, rep, counts, row_class, _ = self._hash_roll_up(
                source.keys, source.values, source.counts, source.node, node, radices)
            n_classes = int(row_class[-1]) + 1 if len(row_class) else 0
            table = Table(node, keys, source.values[rep], counts, source.rows[rep],
                          row_class, n_classes)
        self._store(table)
        return table

    def _hash_roll_up(self, keys, values, counts, low: tuple, high: tuple, radices):
        maps, starts = self.generalisation.jump_table(low, high)
        slots, work, mark = self._working()
        return _roll_up(keys, values, counts, maps, starts,
                        np.asarray(radices, dtype=np.int64), slots, mark, work)

    def _roll_up_classes(self, source: Table, node: tuple, radices: list) -> Table:
        """The node's table from ``source``'s with value columns in two steps: the
        source's classes (far fewer than its rows) rolled up to the node's, then each
        row's values counted within its new class (dense over the values): the same
        table as one roll-up of the rows."""
        m = len(node)
        class_keys = source.class_keys()
        _, _, no_values, no_counts = self._arrays_made()
        keys, _, _, _, class_map = self._hash_roll_up(
            class_keys, no_values[:len(class_keys)], no_counts[:len(class_keys)],
            source.node, node, radices[:m])
        rep, counts, row_class = _count_values(
            source.row_class, source.values, source.counts, class_map, len(keys),
            np.asarray(radices[m:], dtype=np.int64))
        # (the rows' keys found from the classes' when read: seldom)
        table = Table(node, None, source.values[rep], counts, source.rows[rep], row_class,
                      len(keys))
        table._classes["keys"] = keys
        return table

    def _roll_up_sorting(self, source: Table, node: tuple) -> Table:
        """The node's table from ``source``'s, grouped by a sort (keys too wide for one
        integer)."""
        keys = source.keys.copy()
        for j, (low, high) in enumerate(zip(source.node, node, strict=True)):
            if low != high:
                keys[:, j] = self.generalisation.jump(j, low, high)[keys[:, j]]
        ids, rep = row_ids(keys, source.values)
        return self._table(node, keys[rep], source.values[rep],
                           np.bincount(ids, weights=source.counts, minlength=len(rep)),
                           source.rows[rep])

    def scalar(self, node: Sequence[int], keys: np.ndarray) -> np.ndarray | None:
        """Generalised keys at the node (C x m) as one integer each, in their
        lexicographic order (mixed radix); None when that overflows."""
        radices = [self._radix[j][lv] for j, lv in enumerate(node)]
        space = 1
        for r in radices:
            space *= r
        if space >= 1 << 62:
            return None
        key = np.zeros(len(keys), dtype=np.int64)
        for j, r in enumerate(radices):
            key *= r
            key += keys[:, j]
        return key

    def _table(self, node, keys, values, counts, rows) -> Table:
        counts = counts.astype(np.int64)
        if values.shape[1] == 0 or len(keys) == 0:
            row_class = np.arange(len(keys), dtype=np.int64)
        else:
            row_class = _key_runs(np.ascontiguousarray(keys, dtype=np.int64))
        size = int(row_class[-1]) + 1 if len(row_class) else 0
        return Table(node, keys, values, counts, rows, row_class, size)

    def _store(self, table: Table) -> None:
        """Keep the table, forgetting the oldest ones beyond ``max_rows`` rows or
        :data:`MAX_STORED` tables."""
        rows = len(table.counts)
        if rows > self.max_rows or rows >= len(self.bottom.counts):
            return
        while self._slots[self._next] is not None or (
                self._stored_rows + rows > self.max_rows and self._stored_rows):
            self._forget(self._oldest)
            self._oldest = (self._oldest + 1) % MAX_STORED
        slot = self._next
        self._slots[slot] = table
        self._levels[slot] = table.node
        self._sizes[slot] = rows
        self._stored_rows += rows
        self._next = (slot + 1) % MAX_STORED

    def _forget(self, slot: int) -> None:
        table = self._slots[slot]
        if table is not None:
            self._stored_rows -= len(table.counts)
            self._slots[slot] = None
            self._levels[slot] = _EMPTY
