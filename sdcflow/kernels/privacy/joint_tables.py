"""The classes of the data and of its population at a lattice node, rolled up together,
for targets that read class sizes alone: k-anonymity (Samarati & Sweeney 1998) and
delta-presence (Nergiz, Atzori & Clifton, "Hiding the presence of individuals from
shared databases", SIGMOD 2007); for k-anonymity alone, the data's classes, each its
own population. NumPy and numba only.

As ARX does for delta-presence (F. Prasser & F. Kohlmayer, "Putting statistical
disclosure control into practice: the ARX data anonymization tool", 2015: one table of
the population's classes, each with the records of the research subset it holds), a
*joint table* holds one row per class of the population at a node with its
population records ``P`` and data records ``s``; the data's classes are its rows with
``s > 0``. One roll-up from a stored table below (:class:`JointHistory`, as
:class:`sdcflow.kernels.privacy.class_tables.History`) gives both, where the data's and
the population's tables rolled up apart and merged cost two roll-ups, a sort each and a
merge. Rows are left in the order the roll-up finds them: the checks below only count.

:class:`JointChecks` checks a node against such targets from its joint table in one
compiled pass (:func:`_summary`): the classes meeting them, the data records suppressed,
delta-presence's excess over delta_max and the population classes without a data
record, with the same decisions as the targets' own checks in
:func:`sdcflow.kernels.privacy.lattice._check` (the lattice search uses it when every
target has a ``counts_rule``; its tests compare the two on random data).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..jit import njit
from ..risk.frequencies import row_ids
from .class_tables import Generalisation, History
from .roll_up import (
    _fewest_rows_below,
    hash_bits,
    hash_find,
    hash_group,
    hash_groups,
    sorted_positions,
)


@dataclass(frozen=True)
class JointTable:
    """A node's classes of the population: their generalised keys, packed into one
    integer each (``keys``, see :class:`JointHistory`), population records (``counts``)
    and data records (``sample``)."""

    node: tuple
    keys: np.ndarray
    counts: np.ndarray
    sample: np.ndarray
    levels: np.ndarray  # (the node as an array)


class JointHistory(History):
    """The joint tables of a lattice's nodes, each rolled up from the stored table at
    or below it with the fewest rows (:class:`History`'s store). ``keys``: the
    population's distinct level-0 key codes (G x m, in lexicographic order);
    ``population``, ``sample``: the population's and the data's records of each.

    A class's key codes are packed into one integer, variable j's code in a bit field of
    its own (wide enough for its codes at every level): generalising a variable rewrites
    its field alone, and a roll-up reads one integer per row rather than m codes.
    :func:`packing` says whether the fields fit."""

    def __init__(self, keys: np.ndarray, maps: Sequence[np.ndarray] | Generalisation,
                 population: np.ndarray, sample: np.ndarray) -> None:
        # (the keys distinct and in order already: each its own row)
        rows = np.arange(len(keys), dtype=np.int64)
        super().__init__(keys, maps, counts=population, grouped=(rows, rows))
        self.shifts, self.masks = packing(self.maps)
        packed = _pack(self.bottom.keys, self.shifts)
        self.joint_bottom = JointTable(self.bottom.node, packed, self.bottom.counts,
                                       np.asarray(sample, dtype=np.int64)[self.bottom.rows],
                                       np.array(self.bottom.node, dtype=np.int64))
        # each variable's radix at each level (levels beyond its height: 1)
        self._radices = np.ones(self.generalisation.offsets.shape[:2], dtype=np.int64)
        for j, radix in enumerate(self._radix):
            self._radices[j, :len(radix)] = radix

    def joint(self, node: tuple) -> JointTable:
        """The node's joint table (``node``: a tuple of levels; stored in turn)."""
        levels = np.array(node, dtype=np.int64)
        slot = _fewest_rows_below(self._levels, self._sizes, levels)
        source = self.joint_bottom if slot < 0 else self._slots[slot]
        if source.node == node:
            return source
        slots, work, mark = self._working()
        keys, counts, sample = _joint_roll_up(
            source.keys, source.counts, source.sample, source.levels, levels,
            self.generalisation.all_jumps, self.generalisation.offsets, self._radices,
            self.shifts, self.masks, slots, mark, work)
        table = JointTable(node, keys, counts, sample, levels)
        self._store(table)
        return table

    def unit_failing(self, table: JointTable, units: np.ndarray, ok: np.ndarray
                     ) -> np.ndarray:
        """Whether each unit (level-0 key codes of data records, u x m) falls in a class
        of ``table`` failing the targets (``ok``: per class of the data, in the table's
        order)."""
        jumps, starts = self.generalisation.jump_table((0,) * len(table.node), table.node)
        slots, _, mark = self._working()
        return _unit_failing(_pack(units, self.shifts), jumps, starts, self.shifts,
                             self.masks, table.keys, table.sample, ok, slots, mark)


class PopulationTables:
    """The classes of a population at a lattice's nodes, as joint tables without data
    (:class:`JointHistory`: packed keys rolled up by hashing), and the population
    records of given classes of the data there, found by their keys (delta-presence's
    shares on a search that reads records). ``population``: its level-0 key codes (P x
    m, codes of ``maps``); :func:`population_tables` says whether they pack."""

    def __init__(self, population: np.ndarray, maps: Sequence[np.ndarray] | Generalisation
                 ) -> None:
        ids, rep = row_ids(population)
        keys = np.take(population, rep, axis=0)
        counts = np.bincount(ids, minlength=len(rep)).astype(np.int64)
        self.history = JointHistory(keys, maps, counts, np.zeros(len(keys), dtype=np.int64))

    def records_of(self, node: tuple, keys: np.ndarray) -> tuple[np.ndarray, int]:
        """The population records of the class of each row of ``keys`` (generalised
        codes at ``node``, C x m; 0 for a class the population lacks) and the number of
        the population's classes at the node."""
        history = self.history
        table = history.joint(node)
        slots, _, mark = history._working()
        found = _records_of(table.keys, table.counts,
                            np.ascontiguousarray(keys, dtype=np.int64), history.shifts,
                            slots, mark)
        return found, len(table.keys)


def population_tables(population: np.ndarray, maps: Sequence[np.ndarray] | Generalisation
                      ) -> PopulationTables | None:
    """:class:`PopulationTables` of a population, or None when its codes do not pack
    into one integer (:func:`packing`) or some is missing (below 0)."""
    population = np.asarray(population, dtype=np.int64)
    maps = maps if isinstance(maps, Generalisation) else Generalisation(maps)
    if (population.ndim != 2 or population.shape[1] != len(maps.maps)
            or (population < 0).any() or packing(maps.maps) is None):
        return None
    return PopulationTables(population, maps)


def packing(maps: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray] | None:
    """The bit field of each variable's codes in a packed key (its shift and mask),
    wide enough for its codes at every level (``maps[j]``: levels x codes); None when
    they need more than 62 bits."""
    widths = [max(int(np.asarray(mp).max(initial=0)).bit_length(), 1) for mp in maps]
    if sum(widths) > 62:
        return None
    shifts = np.zeros(len(widths), dtype=np.int64)
    for j in range(len(widths) - 2, -1, -1):
        shifts[j] = shifts[j + 1] + widths[j + 1]
    return shifts, np.array([(1 << w) - 1 for w in widths], dtype=np.int64)


def _pack(codes: np.ndarray, shifts: np.ndarray) -> np.ndarray:
    """Each row of key codes (u x m) as one integer: code j shifted by ``shifts[j]``."""
    out = np.zeros(len(codes), dtype=np.int64)
    for j, shift in enumerate(shifts.tolist()):
        out |= np.asarray(codes[:, j], dtype=np.int64) << shift
    return out


def joint_history(codes: np.ndarray, population: np.ndarray,
                  maps: Sequence[np.ndarray] | Generalisation,
                  bottom: tuple[np.ndarray, np.ndarray] | None = None
                  ) -> JointHistory | None:
    """The joint tables of the data (level-0 key codes ``codes``, n x m) and its
    population (P x m); None when some record of the data has a key the population
    lacks or holds more often (the data is then not part of the population), or when
    the keys do not pack into one integer. ``bottom``: the data's distinct keys in
    lexicographic order and their records, when known (else grouped here); ``maps``:
    the hierarchies or their :class:`Generalisation` (shared)."""
    maps = maps if isinstance(maps, Generalisation) else Generalisation(maps)
    population = np.asarray(population, dtype=np.int64)
    codes = np.asarray(codes, dtype=np.int64)
    if population.ndim != 2 or population.shape[1] != codes.shape[1]:
        return None
    if (population < 0).any() or (codes < 0).any():  # (codes of the maps only)
        return None
    if packing(maps.maps) is None:
        return None
    pop_ids, pop_rep = row_ids(population)
    keys = population[pop_rep]
    units, unit_counts = _distinct(codes) if bottom is None else bottom
    at = sorted_positions(units, keys)
    if at is None:
        return None
    pop_counts = np.bincount(pop_ids, minlength=len(keys)).astype(np.int64)
    sample = np.zeros(len(keys), dtype=np.int64)
    sample[at] = unit_counts
    if (sample > pop_counts).any():
        return None
    return JointHistory(keys, maps, pop_counts, sample)


@dataclass(frozen=True)
class Rules:
    """What a list of targets asks of each class and of the node: at least ``k``
    records; a share of the population in ``[low, high]`` (``presence``); a node fails
    when a population class holds no data record (``every_present``) or when the excess
    over ``high`` exceeds the suppression limit (``excess``)."""

    k: int = 1
    presence: bool = False
    low: float = 0.0
    high: float = 1.0
    every_present: bool = False
    excess: bool = False


def rules_of(targets: Sequence) -> Rules | None:
    """The :class:`Rules` of targets that all have a ``counts_rule`` (None otherwise):
    ``("k", k)``; ``("delta", population, low, high, delta_min)`` (the classes' shares in
    ``[low, high]``, a node failing with an absent class when ``delta_min > 0``);
    ``("delta_bound", population, low, high, delta_min)`` (every class meets it; the
    node fails on an absent class or on the excess over ``high``)."""
    k, presence, low, high, present, excess = 1, False, 0.0, 1.0, False, False
    for t in targets:
        rule = getattr(t, "counts_rule", None)
        if rule is None or t.release:
            return None
        if rule[0] == "k":
            k = max(k, int(rule[1]))
        else:
            present = present or rule[4] > 0
            if rule[0] == "delta":
                presence, low, high = True, rule[2], rule[3]
            else:
                excess = excess or rule[3] < 1 - 1e-6
                high = rule[3] if not presence else high
    return Rules(k, presence, low, high, present, excess)


def population_of(targets: Sequence) -> np.ndarray | None:
    """The one population the targets' delta-presence rules read (None: none, or more
    than one)."""
    found = None
    for t in targets:
        for target in (t, getattr(t, "relaxed", None)):
            rule = getattr(target, "counts_rule", None)
            if rule is not None and rule[0] != "k":
                if found is not None and found is not rule[1]:
                    return None
                found = rule[1]
    return found


class JointNode:
    """A node's joint table and its checks, computed when asked for."""

    __slots__ = ("_checks", "_summaries", "_table", "node")

    def __init__(self, checks: JointChecks, node: tuple) -> None:
        self._checks, self.node = checks, node
        self._table: JointTable | None = None
        self._summaries: dict = {}

    @property
    def table(self) -> JointTable:
        if self._table is None:
            self._table = self._checks.history.joint(self.node)
        return self._table

    def rules(self, targets: Sequence) -> Rules:
        """The rules of a list of the search's targets."""
        return self._checks.rules(targets)

    def summary(self, rules: Rules) -> tuple:
        """(data class sizes, each class meeting ``rules``, records suppressed, excess
        over delta_max, population classes without a data record)."""
        # (by identity: the rules of a list of targets are made once, and a dataclass's
        # hash costs more than the lookup)
        found = self._summaries.get(id(rules))
        if found is None:
            t = self.table
            found = self._summaries[id(rules)] = _summary(t.counts, t.sample, rules.k,
                                                          rules.presence, rules.low,
                                                          rules.high)
        return found

    def check(self, rules: Rules, allowed: int, known: bool) -> tuple[np.ndarray, bool]:
        """(classes meeting the rules, whether the node meets them), as
        :func:`sdcflow.kernels.privacy.lattice._check` decides."""
        _, ok, suppressed, excess, absent = self.summary(rules)
        if not known and suppressed > allowed:
            return ok, False
        if known:
            return ok, True
        # (a margin far above the rounding of the bounds' sums of floats)
        if rules.excess and excess / (1.0 - rules.high) > allowed + 1e-6:
            return ok, False
        return ok, not (rules.every_present and absent > 0)

    @property
    def counts(self) -> np.ndarray:
        """The records of each class of the data (the same in every summary)."""
        for found in self._summaries.values():
            return found[0]
        return self.summary(NO_RULES)[0]

    def __call__(self, records: bool) -> JointNode:
        """The node's partition as the search asks for it (``records`` or not: its
        classes' sizes, :attr:`counts`)."""
        return self

    def suppressed_units(self, units: np.ndarray, ok: np.ndarray) -> np.ndarray:
        """Whether each unit (level-0 key codes of data records, u x m) falls in a class
        failing the targets (``ok``: per class, in :attr:`counts`' order)."""
        return self._checks.history.unit_failing(self.table, units, ok)


NO_RULES = Rules()


class JointChecks:
    """The checks of the nodes of a search whose targets read class sizes alone."""

    def __init__(self, history: JointHistory) -> None:
        self.history = history
        self._rules: dict[tuple, Rules | None] = {}

    def __call__(self, node: tuple) -> JointNode:
        return JointNode(self, node)

    def rules(self, targets: Sequence) -> Rules | None:
        """:func:`rules_of` the targets, found once per list of them."""
        key = tuple(map(id, targets))
        if key not in self._rules:
            self._rules[key] = rules_of(targets)
        return self._rules[key]


def joint_checks(targets: Sequence, codes: np.ndarray,
                 maps: Sequence[np.ndarray] | Generalisation,
                 bottom: tuple[np.ndarray, np.ndarray] | None = None) -> JointChecks | None:
    """The checks on joint tables of a search of ``targets`` on the data ``codes``,
    when every target and its relaxation reads class sizes alone and one population at
    most (None otherwise). Without delta-presence (k-anonymity alone) the tables are the
    data's, each class its own population: ``bottom``, the data's distinct level-0 keys
    in lexicographic order and their records, spares grouping the records again;
    ``maps``: the hierarchies or their :class:`Generalisation` (shared)."""
    every = [t for t in targets] + [t.relaxed for t in targets if t.relaxed is not None]
    if rules_of(every) is None:
        return None
    population = population_of(targets)
    if population is None:
        # (k-anonymity alone: the data's classes, each its own population)
        if any(getattr(t, "counts_rule", ("k",))[0] != "k" for t in every):
            return None
        keys, counts = _distinct(codes) if bottom is None else bottom
        maps = maps if isinstance(maps, Generalisation) else Generalisation(maps)
        if packing(maps.maps) is None or (keys < 0).any():
            return None
        return JointChecks(JointHistory(keys, maps, counts, counts))
    history = joint_history(codes, population, maps, bottom)
    return None if history is None else JointChecks(history)


def _distinct(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``codes`` in lexicographic order and the records of each."""
    codes = np.asarray(codes, dtype=np.int64)
    ids, rep = row_ids(codes)
    return codes[rep], np.bincount(ids, minlength=len(rep)).astype(np.int64)


@njit(cache=True)
def _joint_roll_up(keys, counts, sample, low, high, jumps, offsets, radices, shifts,
                   masks, slots, mark, work):  # pragma: no cover - numba
    """A joint table's rows at the node ``low`` (packed ``keys``, population ``counts``,
    data ``sample``) generalised to the node ``high`` (variable j's field mapped by
    ``jumps[offsets[j, low[j], high[j]]:]``) and grouped by hashing, the groups in the
    order found: their packed keys and summed counts. ``radices[j, l]``: variable j's
    radix at level l (the hash table's size: at most as many groups as their product);
    ``slots``, ``mark``: the hash table of
    :func:`sdcflow.kernels.privacy.roll_up._roll_up`; ``work``: 4 x R integers."""
    n = len(keys)
    space = 1
    for j in range(len(high)):
        space = min(space * radices[j, high[j]], n)
    bits = hash_bits(space)
    distinct, total, total_s, key_of = work[0], work[1], work[2], work[3]
    # each row's generalised key, one variable at a time (a loop of few operations per
    # row, which the compiler keeps tight; all variables in one loop cost 4 times more)
    key_of[:n] = keys
    for j in range(len(high)):
        if high[j] != low[j]:
            _map_field(key_of[:n], jumps, offsets[j, low[j], high[j]], shifts[j], masks[j])
    # (each row's group written over its key, once read)
    groups = hash_groups(key_of, n, slots, mark, bits, distinct, key_of)
    total[:groups] = 0
    total_s[:groups] = 0
    for i in range(n):
        g = key_of[i]
        total[g] += counts[i]
        total_s[g] += sample[i]
    return distinct[:groups].copy(), total[:groups].copy(), total_s[:groups].copy()


@njit(cache=True)
def _map_field(keys, jumps, start, shift, mask):  # pragma: no cover - numba
    """Rewrite in place the field (``shift``, ``mask``) of each packed key by its map
    ``jumps[start + code]``."""
    clear = ~(mask << shift)
    for i in range(len(keys)):
        key = keys[i]
        keys[i] = (key & clear) | (jumps[start + ((key >> shift) & mask)] << shift)


@njit(cache=True)
def _summary(counts, sample, k, presence, low, high):  # pragma: no cover - numba
    """The data's classes (rows with ``sample > 0``): their sizes, whether each has at
    least ``k`` records and (``presence``) a share ``sample / counts`` in ``[low,
    high]``, the records of those failing, the sum over classes of ``s * (1 - high /
    share)`` where the share exceeds ``high`` (the excess times ``1 - high``) and the
    population classes without a data record."""
    g = len(counts)
    size = 0
    for i in range(g):
        if sample[i] > 0:
            size += 1
    sizes = np.empty(size, dtype=np.int64)
    ok = np.empty(size, dtype=np.bool_)
    suppressed = 0
    excess = 0.0
    c = 0
    for i in range(g):
        s = sample[i]
        if s == 0:
            continue
        good = s >= k
        share = s / counts[i]
        if presence and not (share >= low and share <= high):
            good = False
        if share > high:
            excess += s * (1.0 - high / share)
        sizes[c] = s
        ok[c] = good
        if not good:
            suppressed += s
        c += 1
    return sizes, ok, suppressed, excess, g - size


@njit(cache=True)
def _unit_failing(units, jumps, starts, shifts, masks, keys, sample, ok, slots,
                  mark):  # pragma: no cover - numba
    """Whether each unit (packed level-0 keys, generalised as :func:`_joint_roll_up`
    does) falls in a data class (an entry of ``keys`` with ``sample > 0``, in order)
    whose ``ok`` is false; found by hashing the packed keys."""
    g = len(keys)
    bits = hash_bits(g)
    failing = np.zeros(g, dtype=np.bool_)
    c = 0
    for r in range(g):
        if sample[r] > 0:
            failing[r] = not ok[c]
            c += 1
        hash_group(slots, mark, bits, keys[r], r)  # (the keys are distinct)
    out = np.zeros(len(units), dtype=np.bool_)
    generalised = units.copy()
    for j in range(len(starts)):
        if starts[j] >= 0:
            _map_field(generalised, jumps, starts[j], shifts[j], masks[j])
    for i in range(len(units)):
        r = hash_find(slots, mark, bits, generalised[i])
        if r >= 0:
            out[i] = failing[r]
    return out


@njit(cache=True)
def _records_of(table_keys, table_counts, keys, shifts, slots,
                mark):  # pragma: no cover - numba
    """The ``table_counts`` of each row of ``keys`` (C x m codes, packed here by
    ``shifts`` as :func:`_pack` packs them) among ``table_keys`` (distinct packed keys; 0
    for a key absent), found by hashing them (the hash table of :func:`_joint_roll_up`,
    filled anew under ``mark``)."""
    g = len(table_keys)
    bits = hash_bits(g)
    for r in range(g):
        hash_group(slots, mark, bits, table_keys[r], r)  # (the keys are distinct)
    out = np.zeros(len(keys), dtype=np.int64)
    for i in range(len(keys)):
        key = 0
        for j in range(len(shifts)):
            key |= keys[i, j] << shifts[j]
        r = hash_find(slots, mark, bits, key)
        if r >= 0:
            out[i] = table_counts[r]
    return out
