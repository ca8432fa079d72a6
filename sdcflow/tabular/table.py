"""Tables with margins: every cell of a cross-classification, its subtotals and totals, and
the linear relations that tie them (Torra, "Masking methods", 2013, "Protection for tabular
data": the profession x town frequency and magnitude tables "have subtotals, and totals").

A :class:`Table` holds one row per cell of the full cross-classification of its
dimensions, every hierarchy level included (structural and empty cells too), with

* ``freq``: the number of contributors (records) of the cell,
* ``wfreq``: the weighted frequency (the sum of the weights; ``freq`` when unweighted),
* ``value``: the published quantity, the (weighted) sum of the response, or ``wfreq``
  for a frequency table (no response),
* ``top1`` .. ``top<k>``: the ``k`` largest contributions (0 where the cell has fewer
  contributors), which the dominance and p% rules need (Hundepool et al. 2012,
  *Statistical Disclosure Control*, Wiley, section 4.2),
* ``status``: ``"safe"``, ``"primary"`` or ``"secondary"``,

and the relations ``M @ values == 0`` as a sparse matrix: one row per relation
"parent = sum of its children", along every dimension and hierarchy level, coefficient
``-1`` on the parent cell and ``+1`` on each child.

Cells are ordered as a C-ordered array over the dimensions, each dimension's codes in
post-order (children before their parent, so the total comes last, as in Torra's (2013)
tables); ``Table.codes`` gives each cell's code position in every dimension. Tables come
from microdata (:func:`~sdcflow.tabular.build.build_table`, or partition by partition:
:mod:`sdcflow.tabular.build`) or from aggregated cells (:func:`table_from_cells`); the
dimensions and relations are in :mod:`sdcflow.tabular.hierarchy`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..data.text import text_column
from ..plugins.limits import MAX_TABLE_CELLS, over
from .hierarchy import Dimension, aggregate, make_dimension, relations

__all__ = ["Dimension", "Table", "make_dimension", "table_from_cells"]


@dataclass(eq=False)
class Table:
    """A table with all its margins (see the module docstring for the columns).

    ``relations`` is a ``scipy.sparse.csr_matrix`` (relations x cells) with
    ``relations @ cells["value"] == 0`` (and likewise for ``freq`` and ``wfreq``);
    ``issues`` lists the inconsistencies found by :func:`table_from_cells`; ``info``
    records what was dropped while building."""

    cells: pd.DataFrame
    relations: sp.csr_matrix
    dimensions: tuple[Dimension, ...]
    top: int
    response: str | None = None
    weight: str | None = None
    issues: pd.DataFrame = field(default_factory=pd.DataFrame)
    info: dict = field(default_factory=dict)

    @property
    def dims(self) -> list[str]:
        return [d.name for d in self.dimensions]

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(d.size for d in self.dimensions)

    @property
    def n_cells(self) -> int:
        return len(self.cells)

    @property
    def codes(self) -> np.ndarray:
        """Cell x dimension matrix of code positions."""
        return np.stack(np.unravel_index(np.arange(self.n_cells), self.shape), axis=1)

    @property
    def top_columns(self) -> list[str]:
        return [f"top{i + 1}" for i in range(self.top)]

    @property
    def values(self) -> np.ndarray:
        return self.cells["value"].to_numpy(dtype=float)

    @property
    def margin_dims(self) -> np.ndarray:
        """Per cell, in how many dimensions it is at a subtotal or total level."""
        codes = self.codes
        out = np.zeros(self.n_cells, dtype=np.int64)
        for d, dim in enumerate(self.dimensions):
            out += ~dim.is_leaf[codes[:, d]]
        return out

    def index(self, *codes: str, **by_name: str) -> int:
        """Position of the cell with the given codes (positional in dimension order, or by
        dimension name)."""
        if by_name:
            codes = tuple(by_name[d] for d in self.dims)
        pos = [dim.position()[str(c)] for dim, c in zip(self.dimensions, codes, strict=True)]
        return int(np.ravel_multi_index(pos, self.shape))

    def mask(self, cells: Sequence[tuple[str, ...]]) -> np.ndarray:
        """Boolean cell mask of the listed cells (tuples of codes in dimension order)."""
        out = np.zeros(self.n_cells, dtype=bool)
        for c in cells:
            out[self.index(*c)] = True
        return out

    @property
    def status(self) -> np.ndarray:
        return self.cells["status"].to_numpy(dtype=object)

    @property
    def suppressed(self) -> np.ndarray:
        """The cells not published: suppressed (primary, secondary) and, in the cover
        table of linked tables, the cells no linked table holds (``unpublished``)."""
        s = self.status
        return (s == "primary") | (s == "secondary") | (s == "unpublished")

    def published(self, columns: Sequence[str] = ("freq", "value")) -> pd.DataFrame:
        """The table to release: the dimensions, ``columns`` with the suppressed cells'
        entries missing (NaN), and ``status``. Frequencies of suppressed cells are hidden
        too by default: published next to the magnitudes they give Torra's (2013) external
        attack back (one P3 in M2 earning 22)."""
        out = self.cells[self.dims].copy()
        hide = self.suppressed
        for c in columns:
            out[c] = self.cells[c].astype(float).where(~hide)
        out["status"] = self.cells["status"]
        return out

    def with_cells(self, cells: pd.DataFrame) -> Table:
        """A copy with another cells frame (same cells, same order)."""
        if len(cells) != self.n_cells:
            raise ValueError("the cells frame must keep every cell")
        return replace(self, cells=cells)

    def with_values(self, values: np.ndarray) -> Table:
        """A copy whose cells publish ``values`` instead of their own (a controlled
        rounding or adjustment); ``original_value`` keeps the values of the table before
        its first such change, for the office's own copy (:func:`sdcflow.recipe.tables.
        internal_frame`)."""
        values = np.asarray(values, dtype=float)
        if values.shape != (self.n_cells,):
            raise ValueError("one value per cell")
        cells = self.cells.copy()
        if "original_value" not in cells:
            cells["original_value"] = cells["value"].astype(float)
        cells["value"] = values
        return self.with_cells(cells)

    def pivot(self, column: str = "value", rows: str | None = None, cols: str | None = None,
              mark_suppressed: bool = False) -> pd.DataFrame:
        """A 2-D view (for two-dimensional tables, or the named pair) in code order, e.g.
        the layout of Torra's (2013) example ``pivot("value", rows="M", cols="P")``; with
        ``mark_suppressed`` the suppressed cells show their status instead of their
        value."""
        dims = self.dims
        rows = rows or dims[0]
        cols = cols or dims[1]
        frame = self.cells
        others = [d for d in dims if d not in (rows, cols)]
        for d in others:
            frame = frame[frame[d] == self.dimensions[dims.index(d)].total]
        vals = frame[column].astype(object) if mark_suppressed else frame[column]
        if mark_suppressed:
            status = frame["status"]
            vals = vals.where(status == "safe", status.map({"primary": "PS",
                                                            "secondary": "SS"}))
        out = pd.DataFrame({rows: frame[rows], cols: frame[cols], column: vals})
        table = out.pivot(index=rows, columns=cols, values=column)
        rdim = self.dimensions[dims.index(rows)]
        cdim = self.dimensions[dims.index(cols)]
        return table.loc[list(rdim.codes), list(cdim.codes)]



def cells_frame(dimensions: Sequence[Dimension], freq, wfreq, value, top) -> pd.DataFrame:
    """The cells frame of a table from its dense arrays (the table's shape; ``top`` with
    one more axis), every cell ``safe``."""
    shape = tuple(d.size for d in dimensions)
    n = int(np.prod(shape))
    pos = np.unravel_index(np.arange(n), shape)
    data: dict[str, object] = {}
    for d, p in zip(dimensions, pos, strict=True):
        data[d.name] = text_column(np.asarray(d.codes, dtype=object)[p])
    data["freq"] = freq.reshape(-1).astype(np.int64)
    data["wfreq"] = wfreq.reshape(-1).astype(float)
    data["value"] = value.reshape(-1).astype(float)
    flat_top = top.reshape(n, -1)
    for j in range(flat_top.shape[1]):
        data[f"top{j + 1}"] = flat_top[:, j].astype(float)
    data["status"] = text_column(np.full(n, "safe", dtype=object))
    return pd.DataFrame(data)


def leaf_order(codes: Iterable[str]) -> list[str]:
    """The distinct ``codes`` of a dimension without hierarchy in table order: as numbers
    when they all are numbers (ties, e.g. "1" and "1.0", as text), else as text. A total
    order, so that any split of the records gives the same order."""
    uniq = list(pd.unique(np.asarray(list(codes), dtype=object)))
    try:
        numbers = [float(s) for s in uniq]
    except ValueError:
        return sorted(uniq)
    # NaN ("nan" as a code) compares false with everything: put it last, not anywhere
    key = {s: (math.isnan(x), 0.0 if math.isnan(x) else x, s) for s, x in
           zip(uniq, numbers, strict=True)}
    return sorted(uniq, key=key.__getitem__)


def table_from_cells(frame: pd.DataFrame, dims: list[str],
                     hierarchies: Mapping[str, Mapping[str, str]] | None = None,
                     freq: str = "freq", value: str | None = "value",
                     contributions: str | Sequence[str] | None = None,
                     wfreq: str | None = None, top: int | None = None, *,
                     total: str = "Total", rtol: float = 1e-9,
                     on_inconsistency: str = "report") -> Table:
    """A :class:`Table` from an already aggregated table, one row per cell.

    Rows at the leaf level of every dimension define the table (absent leaf cells are
    empty). Rows with a subtotal or total code are checked against the totals computed
    from the leaves (frequencies, weighted frequencies, values, and the top contributions
    when given): the table keeps the computed totals, ``table.issues`` lists every cell
    and column where the given total differs (relative tolerance ``rtol``), and
    ``on_inconsistency="raise"`` raises instead.

    ``contributions`` are either the names of columns holding the largest contributions
    in decreasing order (``["top1", "top2"]``), or one column holding, per cell, a
    sequence of contributions (any length, any order; the ``top`` largest are kept). Without
    them the magnitude rules cannot be applied. ``value=None`` makes a frequency table
    (value = weighted frequency). Rows with a missing code or a code outside the
    hierarchy raise an error; duplicated cells raise an error."""
    if on_inconsistency not in ("report", "raise"):
        raise ValueError("on_inconsistency must be 'report' or 'raise'")
    hierarchies = dict(hierarchies or {})
    if frame[dims].isna().any().any():
        raise ValueError("aggregated cells with a missing code")
    text = {d: text_column(frame[d]) for d in dims}
    dimensions = []
    for d in dims:
        h = hierarchies.get(d)
        if h is None:
            leaves = leaf_order(text[d][text[d] != total])
        else:
            parents = set(map(str, h.values()))
            leaves = [c for c in pd.unique(text[d]) if c not in parents]
        dimensions.append(make_dimension(d, leaves, h, total=total))
    shape = tuple(dim.size for dim in dimensions)
    n_cells = math.prod(shape)
    if n_cells > MAX_TABLE_CELLS:  # refused before allocating (validation says so earlier)
        raise ValueError(f"{' x '.join(dims)} make {over(n_cells, 'cells', MAX_TABLE_CELLS)}")
    pos = np.stack([dim.positions(text[d]) for d, dim in zip(dims, dimensions, strict=True)],
                   axis=1)
    cell = np.ravel_multi_index(tuple(pos.T), shape)
    if len(np.unique(cell)) != len(cell):
        raise ValueError("duplicated cells in the aggregated table")
    is_leaf_row = np.ones(len(frame), dtype=bool)
    for j, dim in enumerate(dimensions):
        is_leaf_row &= dim.is_leaf[pos[:, j]]

    if contributions is None:
        k = 0 if top is None else top
        given_top = np.full((len(frame), k), np.nan)
    elif isinstance(contributions, str):
        k = 2 if top is None else top
        given_top = np.zeros((len(frame), k))
        for r, seq in enumerate(frame[contributions]):
            vals = -np.sort(-np.asarray(list(seq) if seq is not None else [], dtype=float))
            vals = vals[:k]
            given_top[r, :len(vals)] = vals
    else:
        names = list(contributions)
        k = len(names) if top is None else top
        given_top = np.zeros((len(frame), k))
        raw = frame[names].to_numpy(dtype=float)
        raw = np.where(np.isnan(raw), 0.0, raw)
        raw = -np.sort(-raw, axis=1)[:, :k]
        given_top[:, :raw.shape[1]] = raw
    f_given = frame[freq].to_numpy(dtype=float)
    wf_given = frame[wfreq].to_numpy(dtype=float) if wfreq else f_given
    v_given = frame[value].to_numpy(dtype=float) if value else wf_given

    arrays = {}
    for name, given in (("freq", f_given), ("wfreq", wf_given), ("value", v_given)):
        arr = np.zeros(n_cells)
        arr[cell[is_leaf_row]] = given[is_leaf_row]
        arrays[name] = arr.reshape(shape)
    top_arr = np.zeros((n_cells, k))
    if contributions is None:
        top_arr[:] = np.nan
    top_arr[cell[is_leaf_row]] = given_top[is_leaf_row]
    top_arr = top_arr.reshape(shape + (k,))
    aggregate(dimensions, [arrays["freq"], arrays["wfreq"], arrays["value"]], top_arr)

    issues = []
    margin_rows = np.flatnonzero(~is_leaf_row)
    checks = [("freq", f_given, arrays["freq"].reshape(-1)),
              ("value", v_given, arrays["value"].reshape(-1))]
    if wfreq:
        checks.append(("wfreq", wf_given, arrays["wfreq"].reshape(-1)))
    if contributions is not None:
        flat_top = top_arr.reshape(n_cells, k)
        for j in range(k):
            checks.append((f"top{j + 1}", given_top[:, j], flat_top[:, j]))
    for column, given, computed in checks:
        g = given[margin_rows]
        c = computed[cell[margin_rows]]
        bad = ~np.isclose(g, c, rtol=rtol, atol=0.0) & ~np.isnan(g)
        for r, gv, cv in zip(margin_rows[bad], g[bad], c[bad], strict=True):
            issues.append({**{d: text[d].iloc[r] for d in dims}, "column": column,
                           "given": float(gv), "computed": float(cv)})
    issues_frame = pd.DataFrame(issues, columns=list(dims) + ["column", "given", "computed"])
    if len(issues_frame) and on_inconsistency == "raise":
        raise ValueError(f"{len(issues_frame)} inconsistent totals, e.g. "
                         f"{issues_frame.iloc[0].to_dict()}")
    cells = cells_frame(dimensions, np.rint(arrays["freq"]), arrays["wfreq"], arrays["value"],
                   top_arr)
    return Table(cells, relations(dimensions), tuple(dimensions), k,
                 response=value, weight=wfreq, issues=issues_frame,
                 info={"cells_given": len(frame),
                       "margins_given": len(margin_rows)})
