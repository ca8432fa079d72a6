"""Tables from microdata, in one pass or by map-reduce over partitions of the records.

A table build is three steps, and :func:`build_table` is just the three on one partition:

* map, :func:`build_partial` ``(tabulation, frame) -> PartialTable``: one partition's
  leaf cells (only those it has records in), each with its count, its exact sums and
  the few largest contributions that can matter;
* reduce, :func:`combine` ``(partials) -> PartialTable``: associative and commutative, so
  partials can be combined in any order and any tree (a Dask ``reduction``);
* finish, :func:`finish_table` ``(partial) -> Table``: the dimensions from the codes seen,
  every margin, the relations.

Whatever the split of the records into partitions, the result is *identical* to the
one-pass build (tested with random splits), because nothing in a partial depends on
the order or grouping of the records:

* counts are integers, and sums (values, weighted frequencies) are kept exactly
  (:class:`~sdcflow.tabular.exact.ExactSums`) and rounded once at the end;
* the leaf codes of a dimension without a hierarchy are the union of those seen,
  sorted as one-pass would sort them;
* cell keys (the cell key method, :mod:`sdcflow.kernels.tabular.cell_key`): record keys
  are whole numbers of ``10^-digits`` summed modulo ``10^digits``, exact in any order;
* top contributions (the dominance rule ``(n, k)`` needs the ``n`` largest of a cell,
  the p% and pq rules the two largest): without weights a partial keeps the ``top``
  largest values of each cell, and the ``top`` largest of a union are among the ``top``
  largest of its parts (any other value has ``top`` larger ones in its own part
  already). With weights (a record of weight ``w`` counts as ``w`` units of its value,
  Hundepool et al. 2012, *Statistical Disclosure Control*, Wiley, section 4.2.2) a partial
  keeps a cell's records, largest first, until their weight exceeds ``top - 1``, which
  again decides every one of the ``top`` largest units of any union
  (:func:`~sdcflow.tabular.exact.weighted_top`).

A partial holds arrays the size of the partition's non-empty leaf cells, never of its
records: cheap to send between workers. The codes of a dimension are the text of its
column (``str`` of each value, as in the one-pass build), so partitions must hold a
dimension in the same type (the engine loads categorical variables as text).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..data.codes import sorted_text_codes
from ..kernels.risk.frequencies import row_ids
from ..plugins.limits import MAX_TABLE_CELLS, over
from .exact import ExactSums, to_float, weighted_top
from .hierarchy import Dimension, aggregate, make_dimension, relations
from .table import Table, cells_frame, leaf_order

__all__ = ["PartialTable", "Tabulation", "build_partial", "build_table", "combine",
           "finish_table"]


@dataclass(frozen=True)
class Tabulation:
    """What to tabulate: the dimensions ``dims`` (with optional ``child -> parent``
    ``hierarchies``, see :func:`~sdcflow.tabular.hierarchy.make_dimension`), the summed
    ``response`` (None: a frequency table), the ``weight`` column, how many largest
    contributions per cell to keep (``top``) and the label of the totals; ``key``: a
    column of record keys in ``[0, 1]`` (the cell key method): each cell then gets its
    cell key, the fractional part of the sum of its records' keys taken to
    ``key_digits`` decimals (``cell_key`` in the cells frame; with a response also
    ``cell_key_nonzero``, of the records whose response is not 0, as cellKey keys
    magnitude cells)."""

    dims: tuple[str, ...]
    hierarchies: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    response: str | None = None
    weight: str | None = None
    top: int = 2
    total: str = "Total"
    key: str | None = None
    key_digits: int = 8

    def __post_init__(self):
        hierarchies = {str(d): {str(k): str(v) for k, v in h.items()}
                       for d, h in dict(self.hierarchies or {}).items()}
        object.__setattr__(self, "dims", tuple(self.dims))
        object.__setattr__(self, "hierarchies", hierarchies)
        unknown = set(hierarchies) - set(self.dims)
        if unknown:
            raise ValueError(f"hierarchies for unknown dimensions {sorted(unknown)}")
        if len(set(self.dims)) != len(self.dims):
            raise ValueError(f"a dimension is listed twice: {list(self.dims)}")
        if isinstance(self.top, bool) or not isinstance(self.top, int) or self.top < 0:
            raise ValueError("top must be >= 0")

    @property
    def columns(self) -> list[str]:
        """The columns a partition must hold."""
        return [*self.dims] + [c for c in (self.response, self.weight, self.key)
                               if c is not None]

    @property
    def ranks_by_weight(self) -> bool:
        """Whether the top contributions count units of weight (weighted magnitudes)."""
        return bool(self.top and self.response is not None and self.weight is not None)


@dataclass
class PartialTable:
    """The leaf cells of some records (:func:`build_partial`, :func:`combine`).

    ``codes[d]``: the sorted leaf codes of dimension ``d`` seen; ``keys``: one row per
    non-empty leaf cell (sorted, unique), its code positions in ``codes``; ``freq``: its
    number of records; ``wsum``/``vsum``: exact sums of the weights and of
    ``weight * response`` (None without a weight / a response); ``starts``, ``rec_y``,
    ``rec_w``: the records that can be among the cell's top contributions, cell ``g``'s
    at ``starts[g]:starts[g+1]``, by decreasing value (and weight; ``rec_w`` None without
    weights); ``records``/``dropped``: rows read and rows left out (a missing value);
    ``ksum``: each cell's record keys summed modulo ``10^key_digits``, a column for all
    its records and one for those with a non-zero response (None without record keys)."""

    tabulation: Tabulation
    codes: tuple[np.ndarray, ...]
    keys: np.ndarray
    freq: np.ndarray
    wsum: ExactSums | None
    vsum: ExactSums | None
    starts: np.ndarray
    rec_y: np.ndarray
    rec_w: np.ndarray | None
    records: int
    dropped: int
    ksum: np.ndarray | None = None
    #: the dimensions with a hierarchy made from ``codes`` when checking them (None
    #: for the others), so that finishing this very partial need not make them again
    dimensions: tuple[Dimension | None, ...] | None = field(default=None, compare=False,
                                                            repr=False)

    @property
    def n_cells(self) -> int:
        """Non-empty leaf cells."""
        return len(self.keys)


def _finite(name: str, values: np.ndarray, non_negative: bool = False) -> None:
    if not np.isfinite(values).all():
        raise ValueError(f"column {name!r}: infinite values cannot be tabulated")
    if non_negative and (values < 0).any():
        raise ValueError(f"column {name!r}: weights must be non-negative (a record of "
                         "weight w counts as w units)")


def _check_codes(name: str, codes: np.ndarray, hierarchy, total: str) -> Dimension | None:
    """The checks of :func:`make_dimension` on one partition's codes (which may be none),
    and the dimension made when there is a hierarchy."""
    if hierarchy is not None:
        return make_dimension(name, codes, hierarchy, total=total)
    if total in set(codes):
        raise ValueError(f"dimension {name!r}: the total label {total!r} is also a code")
    return None


def _cell_ids(codes: Sequence[np.ndarray], sizes: Sequence[int]) -> np.ndarray:
    """One integer per distinct code combination, ordered like the combinations
    (lexicographically, first dimension first)."""
    ids = np.zeros(len(codes[0]) if codes else 0, dtype=np.int64)
    span = 1
    for c, n in zip(codes, sizes, strict=True):
        if span * max(n, 1) >= 2**62:  # renumber densely (order kept) before overflowing
            uniq, ids = np.unique(ids, return_inverse=True)
            span = len(uniq)
        ids = ids * n + c
        span *= max(n, 1)
    return ids


def _group_starts(sorted_ids: np.ndarray) -> np.ndarray:
    return np.r_[0, np.flatnonzero(np.diff(sorted_ids)) + 1].astype(np.int64)


def _first_ranks(starts: np.ndarray, n: int, top: int) -> np.ndarray:
    """Mask of the first ``top`` rows of each group of rows ``starts[g]:starts[g+1]``."""
    sizes = np.diff(np.r_[starts, n])
    rank = np.arange(n) - np.repeat(starts, sizes)
    return rank < top


def _no_top(n_groups: int) -> tuple[np.ndarray, np.ndarray, None]:
    """The kept records ``(starts, y, w)`` of :func:`_kept_records` when no top
    contribution is asked for: none."""
    return np.zeros(n_groups + 1, dtype=np.int64), np.zeros(0), None


def _kept_records(tab: Tabulation, group: np.ndarray, starts: np.ndarray, y: np.ndarray,
                  w: np.ndarray | None, n_groups: int):
    """The records that can be among their cell's top contributions (rows sorted by
    group, then decreasing ``y`` and ``w``), as ``(starts, y, w)``."""
    if not tab.top or tab.response is None:
        return _no_top(n_groups)
    if w is None:
        keep = _first_ranks(starts, len(y), tab.top)
    else:
        _, keep = weighted_top(np.r_[starts, len(y)], y, w, tab.top)
    counts = np.bincount(group[keep], minlength=n_groups)
    return (np.r_[0, np.cumsum(counts)].astype(np.int64), y[keep],
            None if w is None else w[keep])


def _sort_records(group: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """Rows by group, then decreasing value, then decreasing weight (so that equal
    records sit in one canonical order)."""
    if w is None:
        return np.lexsort((-y, group))
    return np.lexsort((-w, -y, group))


def build_partial(tabulation: Tabulation, frame: pd.DataFrame) -> PartialTable:
    """The map step: the leaf cells of the records of ``frame`` (one partition).

    Records with a missing dimension code, response or weight are left out (counted in
    ``dropped``); infinite responses or weights, and negative weights, are refused.
    Codes are checked against the hierarchies here already, so that a bad partition
    fails where it is read."""
    tab = tabulation
    cols = tab.columns
    missing_cols = [c for c in cols if c not in frame.columns]
    if missing_cols:
        raise KeyError(f"columns not in the data: {missing_cols}")
    keep = np.logical_and.reduce([frame[c].notna().to_numpy() for c in cols])
    data = frame[cols] if keep.all() else frame.loc[keep, cols]
    n = len(data)
    w = None if tab.weight is None else data[tab.weight].to_numpy(dtype=float)
    y = None if tab.response is None else data[tab.response].to_numpy(dtype=float)
    if w is not None:
        _finite(tab.weight, w, non_negative=True)
    if y is not None:
        _finite(tab.response, y)
        # -0.0 + 0.0 is 0.0: a zero contribution is kept as one value whichever record
        # of a tie comes first in a partition
        y = y + 0.0
    codes, uniques, checked = [], [], []
    for d in tab.dims:
        c, u = sorted_text_codes(data[d])
        checked.append(_check_codes(d, u, tab.hierarchies.get(d), tab.total))
        codes.append(c)
        uniques.append(u)
    # the leaf cell of each record: dense ids in the cells' lexicographic order, from the
    # codes (a table over the cross-classification, no sort, unless it is far larger than
    # the records)
    group, rep = row_ids(np.stack(codes, axis=1) if codes
                         else np.zeros((n, 0), dtype=np.int64))
    m = len(rep)
    keys = (np.stack([c[rep] for c in codes], axis=1) if m
            else np.zeros((0, len(tab.dims)), dtype=np.int64))
    freq = np.bincount(group, minlength=m).astype(np.int64)
    # the sums are exact, so in any order of the records
    wsum = None if w is None else ExactSums.of(group, w, m)
    vsum = None
    if y is not None:
        with np.errstate(over="ignore"):
            x = y if w is None else w * y
        _finite(f"{tab.weight} * {tab.response}", x)  # (a product may overflow)
        vsum = ExactSums.of(group, x, m)
    if tab.top and y is not None:  # only the top contributions need the records sorted
        order = _sort_records(group, y, w)
        g_sorted = group[order]
        starts = _group_starts(g_sorted) if n else np.zeros(0, dtype=np.int64)
        rec_starts, rec_y, rec_w = _kept_records(
            tab, g_sorted, starts, y[order],
            w[order] if tab.ranks_by_weight else None, m)
    else:
        rec_starts, rec_y, rec_w = _no_top(m)
    ksum = None
    if tab.key is not None:
        from ..kernels.tabular.cell_key import cell_key_units, record_key_units

        try:
            units = record_key_units(data[tab.key].to_numpy(dtype=float), tab.key_digits)
        except ValueError as exc:
            raise ValueError(f"column {tab.key!r}: {exc}") from None
        every = cell_key_units(group, units, m, tab.key_digits)
        nonzero = (every if y is None
                   else cell_key_units(group, np.where(y != 0, units, 0), m, tab.key_digits))
        ksum = np.stack([every, nonzero], axis=1)
    return PartialTable(tab, tuple(uniques), keys, freq, wsum, vsum, rec_starts, rec_y,
                        rec_w, records=len(frame), dropped=int((~keep).sum()), ksum=ksum,
                        dimensions=tuple(checked))


def combine(partials: Iterable[PartialTable]) -> PartialTable:
    """The reduce step: one partial for the records of all ``partials`` (built with the
    same :class:`Tabulation`). Associative and commutative, exactly: the order and
    grouping of combinations do not change the final table."""
    parts = list(partials)
    if not parts:
        raise ValueError("combine needs at least one partial table")
    tab = parts[0].tabulation
    if any(p.tabulation != tab for p in parts[1:]):
        raise ValueError("partial tables of different tabulations cannot be combined")
    if len(parts) == 1:
        return parts[0]
    ndim = len(tab.dims)
    codes = tuple(np.unique(np.concatenate([p.codes[d] for p in parts]))
                  for d in range(ndim))
    keys = np.vstack([np.stack([np.searchsorted(codes[d], p.codes[d])[p.keys[:, d]]
                                for d in range(ndim)], axis=1).reshape(-1, ndim)
                      for p in parts]).astype(np.int64)
    ids = _cell_ids([keys[:, d] for d in range(ndim)], [len(c) for c in codes])
    cell_ids, group = np.unique(ids, return_inverse=True)
    m = len(cell_ids)
    order = np.argsort(group, kind="stable")
    starts = _group_starts(group[order]) if len(order) else np.zeros(0, dtype=np.int64)
    freq = np.add.reduceat(np.concatenate([p.freq for p in parts])[order], starts) \
        if m else np.zeros(0, dtype=np.int64)

    def sums(name: str) -> ExactSums | None:
        got = [getattr(p, name) for p in parts]
        if got[0] is None:
            return None
        joined = ExactSums.concat(got)
        return ExactSums(joined.digits[order], joined.base).reduce(starts)

    # every record of a partial's cell g goes to the combined cell of that row
    rec_group = np.concatenate([np.repeat(np.arange(p.n_cells), np.diff(p.starts))
                                + off for p, off in
                                zip(parts, np.cumsum([0] + [p.n_cells for p in parts])[:-1],
                                    strict=True)])
    rec_group = group[rec_group] if len(rec_group) else rec_group.astype(np.int64)
    rec_y = np.concatenate([p.rec_y for p in parts])
    rec_w = None if parts[0].rec_w is None else np.concatenate([p.rec_w for p in parts])
    rorder = _sort_records(rec_group, rec_y, rec_w)
    rg = rec_group[rorder]
    rstarts = _group_starts(rg) if len(rg) else np.zeros(0, dtype=np.int64)
    rec_starts, rec_y, rec_w = _kept_records(tab, rg, rstarts, rec_y[rorder],
                                             None if rec_w is None else rec_w[rorder], m)
    ksum = None
    if tab.key is not None:
        ksum = (np.add.reduceat(np.concatenate([p.ksum for p in parts])[order], starts)
                % 10 ** tab.key_digits) if m else np.zeros((0, 2), dtype=np.int64)
    return PartialTable(tab, codes, keys[order[starts]], freq, sums("wsum"), sums("vsum"),
                        rec_starts, rec_y, rec_w, records=sum(p.records for p in parts),
                        dropped=sum(p.dropped for p in parts), ksum=ksum)


def _dense_sums(sums: ExactSums, leaf: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    out = np.zeros((math.prod(shape), sums.digits.shape[1]), dtype=np.int64)
    out[leaf] = sums.digits
    return out.reshape(shape + (sums.digits.shape[1],))


def finish_table(partial: PartialTable) -> Table:
    """The finish step: the :class:`~sdcflow.tabular.table.Table` of a (combined)
    partial, every subtotal and total included. Dimensions without a hierarchy get the
    codes seen (numbers sorted as numbers) and the single total; every cell's value and
    weighted frequency is the exact sum of its records rounded once (``math.fsum``)."""
    tab = partial.tabulation
    dimensions: list[Dimension] = []
    made = partial.dimensions or (None,) * len(tab.dims)
    for d, codes, dim in zip(tab.dims, partial.codes, made, strict=True):
        h = tab.hierarchies.get(d)
        if h is not None and dim is not None:  # made from these codes by build_partial
            dimensions.append(dim)
            continue
        leaves = leaf_order(codes) if h is None else list(codes)
        dimensions.append(make_dimension(d, leaves, h, total=tab.total))
    shape = tuple(dim.size for dim in dimensions)
    n_cells = math.prod(shape)
    if n_cells > MAX_TABLE_CELLS:  # refused before allocating (validation says so earlier)
        raise ValueError(f"{' x '.join(tab.dims)} make "
                         f"{over(n_cells, 'cells', MAX_TABLE_CELLS)}")
    pos = [dim.positions(pd.Series(codes, dtype=object))[partial.keys[:, j]]
           for j, (dim, codes) in enumerate(zip(dimensions, partial.codes, strict=True))]
    leaf = (np.ravel_multi_index(pos, shape) if partial.n_cells
            else np.zeros(0, dtype=np.int64))
    freq = np.zeros(n_cells, dtype=np.int64)
    freq[leaf] = partial.freq
    freq = freq.reshape(shape)
    exact = {name: _dense_sums(s, leaf, shape) for name, s in
             (("wsum", partial.wsum), ("vsum", partial.vsum)) if s is not None}
    k = tab.top
    top = np.zeros((n_cells, k))
    if partial.rec_w is not None:
        top[leaf], _ = weighted_top(partial.starts, partial.rec_y, partial.rec_w, k)
    elif k and len(partial.rec_y):
        cell = np.repeat(leaf, np.diff(partial.starts))
        rank = np.arange(len(cell)) - np.repeat(partial.starts[:-1], np.diff(partial.starts))
        top[cell, rank] = partial.rec_y
    top = top.reshape(shape + (k,))
    ksum = None
    if partial.ksum is not None:  # leaf keys < 10^10, so margins add exactly in int64
        ksum = np.zeros((n_cells, 2), dtype=np.int64)
        ksum[leaf] = partial.ksum
        ksum = ksum.reshape(shape + (2,))
    aggregate(dimensions, [freq, *exact.values(), *([] if ksum is None else [ksum])], top)
    wfreq = (to_float(exact["wsum"], partial.wsum.base) if "wsum" in exact
             else freq.astype(float))
    value = to_float(exact["vsum"], partial.vsum.base) if "vsum" in exact else wfreq
    cells = cells_frame(dimensions, freq, wfreq, value, top)
    if ksum is not None:
        from ..kernels.tabular.cell_key import cell_keys

        flat = ksum.reshape(n_cells, 2)
        cells["cell_key"] = cell_keys(flat[:, 0], tab.key_digits)
        if tab.response is not None:
            cells["cell_key_nonzero"] = cell_keys(flat[:, 1], tab.key_digits)
    return Table(cells, relations(dimensions), tuple(dimensions), k, tab.response, tab.weight,
                 info={"records": partial.records, "dropped_records": partial.dropped})


def build_table(frame: pd.DataFrame, dims: list[str],
                hierarchies: Mapping[str, Mapping[str, str]] | None = None,
                response: str | None = None, weight: str | None = None, top: int = 2,
                *, total: str = "Total", key: str | None = None, key_digits: int = 8) -> Table:
    """Tabulate microdata: every cell of the cross-classification of ``dims`` with all its
    subtotals and totals (Torra 2013, "Protection for tabular data": the frequency table
    ``T_f`` and the magnitude table ``T_s`` of profession x town built from file A); the
    map-reduce build (:func:`build_partial`, :func:`combine`, :func:`finish_table`) on
    one partition.

    ``hierarchies`` maps a dimension to its ``child -> parent`` codes (see
    :func:`~sdcflow.tabular.hierarchy.make_dimension`); a dimension without one gets the
    single total ``total`` (codes then sorted numerically when they all are numbers, else
    as text). ``value`` is the sum of ``response`` (``sum(w * y)`` with a ``weight``), or
    the (weighted) count without a response, each exact and rounded once.

    Top contributions: without weights, the ``top`` largest response values of the
    cell's records. With weights, a record of weight ``w`` stands for ``w`` units of value
    ``y`` (Hundepool et al. 2012, section 4.2.2, sampling weights): the ``j``-th largest
    contribution is the ``y`` of the record covering unit position ``j`` once the
    records are sorted by decreasing ``y`` and laid end to end with length ``w`` (so a
    record of weight 3 gives three equal top contributions). The rules assume
    non-negative contributions.

    Missing values: records with a missing dimension code, response or weight are left
    out of the table; ``info["dropped_records"]`` counts them.

    Cell keys (the cell key method): with ``key``, a column of record keys in [0, 1],
    each cell gets ``cell_key``, the fractional part of the sum of its records' keys
    taken to ``key_digits`` decimals, exact (:mod:`sdcflow.kernels.tabular.cell_key`)."""
    tab = Tabulation(tuple(dims), hierarchies or {}, response, weight, top, total, key,
                     key_digits)
    return finish_table(build_partial(tab, frame))
