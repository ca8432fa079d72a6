"""Tables with margins: every cell of a cross-classification, its subtotals and totals, and
the linear relations that tie them (seed 000_1eece6b9d3791e64.txt, "Protection for tabular
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
post-order (children before their parent, so the total comes last, as in the seed's
tables); ``Table.codes`` gives each cell's code position in every dimension.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..data.text import text_column
from ..limits import MAX_TABLE_CELLS, over

__all__ = ["Dimension", "Table", "build_table", "make_dimension", "table_from_cells"]


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
        s = self.status
        return (s == "primary") | (s == "secondary")

    def published(self, columns: Sequence[str] = ("freq", "value")) -> pd.DataFrame:
        """The table to release: the dimensions, ``columns`` with the suppressed cells'
        entries missing (NaN), and ``status``. Frequencies of suppressed cells are hidden
        too by default: published next to the magnitudes they give the seed's external
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

    def pivot(self, column: str = "value", rows: str | None = None, cols: str | None = None,
              mark_suppressed: bool = False) -> pd.DataFrame:
        """A 2-D view (for two-dimensional tables, or the named pair) in code order, e.g. the
        seed's layout ``pivot("value", rows="M", cols="P")``; with ``mark_suppressed`` the
        suppressed cells show their status instead of their value."""
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


def _relations(dimensions: Sequence[Dimension]) -> sp.csr_matrix:
    """The "parent = sum of children" relations of the full cross-classification."""
    shape = tuple(d.size for d in dimensions)
    n = int(np.prod(shape))
    ids = np.arange(n).reshape(shape)
    rows_parts, cols_parts, vals_parts = [], [], []
    nrow = 0
    for axis, dim in enumerate(dimensions):
        moved = np.moveaxis(ids, axis, 0).reshape(dim.size, -1)
        m = moved.shape[1]
        for p in np.flatnonzero(~dim.is_leaf):
            kids = dim.children(int(p))
            r = np.arange(nrow, nrow + m)
            rows_parts.append(r)
            cols_parts.append(moved[p])
            vals_parts.append(np.full(m, -1.0))
            for k in kids:
                rows_parts.append(r)
                cols_parts.append(moved[k])
                vals_parts.append(np.ones(m))
            nrow += m
    if not rows_parts:
        return sp.csr_matrix((0, n))
    mat = sp.coo_matrix((np.concatenate(vals_parts),
                         (np.concatenate(rows_parts), np.concatenate(cols_parts))),
                        shape=(nrow, n))
    return mat.tocsr()


def _aggregate(dimensions: Sequence[Dimension], freq: np.ndarray, wfreq: np.ndarray,
               value: np.ndarray, top: np.ndarray) -> None:
    """Fill every subtotal/total cell of the dense arrays from the leaf cells, in place:
    sums for the counts and values, the ``k`` largest of the children's ``k`` largest for
    the top contributions (exact: the top ``k`` of a union are among the top ``k`` of its
    parts)."""
    k = top.shape[-1]
    for axis, dim in enumerate(dimensions):
        inner = np.flatnonzero(~dim.is_leaf)
        for p in inner[np.argsort(dim.height[inner], kind="stable")]:
            kids = dim.children(int(p))
            for arr in (freq, wfreq, value):
                sub = np.take(arr, kids, axis=axis).sum(axis=axis)
                idx = [slice(None)] * arr.ndim
                idx[axis] = p
                arr[tuple(idx)] = sub
            if k:
                parts = np.take(top, kids, axis=axis)  # (..., len(kids), ..., k)
                parts = np.moveaxis(parts, axis, -2)
                merged = parts.reshape(parts.shape[:-2] + (-1,))
                best = -np.sort(-merged, axis=-1)[..., :k]
                idx = [slice(None)] * top.ndim
                idx[axis] = p
                top[tuple(idx)] = best


def _frame(dimensions: Sequence[Dimension], freq, wfreq, value, top) -> pd.DataFrame:
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


def _leaf_order(values: pd.Series) -> list[str]:
    uniq = pd.unique(text_column(values.dropna()))
    try:
        return sorted(uniq, key=lambda s: (float(s), s))
    except ValueError:
        return sorted(uniq)


def build_table(frame: pd.DataFrame, dims: list[str],
                hierarchies: Mapping[str, Mapping[str, str]] | None = None,
                response: str | None = None, weight: str | None = None, top: int = 2,
                *, total: str = "Total") -> Table:
    """Tabulate microdata: every cell of the cross-classification of ``dims`` with all its
    subtotals and totals (seed 000, "Protection for tabular data": the frequency table
    ``T_f`` and the magnitude table ``T_s`` of profession x town built from file A).

    ``hierarchies`` maps a dimension to its ``child -> parent`` codes (see
    :func:`make_dimension`); a dimension without one gets the single total ``total``
    (codes then sorted numerically when they all are numbers, else as text). ``value``
    is the sum of ``response`` (``sum(w * y)`` with a ``weight``), or the (weighted)
    count without a response.

    Top contributions: without weights, the ``top`` largest response values of the
    cell's records. With weights, a record of weight ``w`` stands for ``w`` units of value
    ``y`` (Hundepool et al. 2012, section 4.2.2, sampling weights): the ``j``-th largest
    contribution is the ``y`` of the record covering unit position ``j`` once the
    records are sorted by decreasing ``y`` and laid end to end with length ``w`` (so a
    record of weight 3 gives three equal top contributions). The rules assume
    non-negative contributions.

    Missing values: records with a missing dimension code, response or weight are left
    out of the table; ``info["dropped_records"]`` counts them."""
    hierarchies = dict(hierarchies or {})
    unknown = set(hierarchies) - set(dims)
    if unknown:
        raise ValueError(f"hierarchies for unknown dimensions {sorted(unknown)}")
    if top < 0:
        raise ValueError("top must be >= 0")
    cols = list(dims) + [c for c in (response, weight) if c is not None]
    missing_cols = [c for c in cols if c not in frame.columns]
    if missing_cols:
        raise KeyError(f"columns not in the data: {missing_cols}")
    keep = frame[cols].notna().all(axis=1).to_numpy()
    data = frame.loc[keep, cols]
    text = {d: text_column(data[d]) for d in dims}
    dimensions = []
    for d in dims:
        h = hierarchies.get(d)
        leaves = _leaf_order(text[d]) if h is None else pd.unique(text[d]).tolist()
        dimensions.append(make_dimension(d, leaves, h, total=total))
    shape = tuple(dim.size for dim in dimensions)
    n_cells = math.prod(shape)
    if n_cells > MAX_TABLE_CELLS:  # refused before allocating (validation says so earlier)
        raise ValueError(f"{' x '.join(dims)} make {over(n_cells, 'cells', MAX_TABLE_CELLS)}")
    pos = [dim.positions(text[d]) for dim, d in zip(dimensions, dims, strict=True)]
    cell = np.ravel_multi_index(pos, shape) if len(data) else np.zeros(0, dtype=np.int64)
    w = (data[weight].to_numpy(dtype=float) if weight is not None else np.ones(len(data)))
    y = data[response].to_numpy(dtype=float) if response is not None else np.ones(len(data))
    freq = np.bincount(cell, minlength=n_cells).astype(np.int64)
    wfreq = np.bincount(cell, weights=w, minlength=n_cells)
    value = np.bincount(cell, weights=w * y, minlength=n_cells) if response else wfreq.copy()
    topk = np.zeros((n_cells, top))
    if top and len(data) and response is not None:
        order = np.lexsort((-y, cell))
        c_sorted, y_sorted, w_sorted = cell[order], y[order], w[order]
        starts = np.r_[0, np.flatnonzero(np.diff(c_sorted)) + 1]
        group_cells = c_sorted[starts]
        if weight is None:
            rank = np.arange(len(c_sorted)) - np.repeat(starts, np.diff(np.r_[starts,
                                                                             len(c_sorted)]))
            sel = rank < top
            topk[c_sorted[sel], rank[sel]] = y_sorted[sel]
        else:
            cum = np.cumsum(w_sorted)
            before = np.r_[0.0, cum][starts]  # cumulative weight before each group
            ends = np.r_[starts[1:], len(c_sorted)]
            for j in range(top):
                at = np.searchsorted(cum, before + j, side="right")
                ok = at < ends
                topk[group_cells[ok], j] = y_sorted[at[ok]]
    freq_a = freq.reshape(shape)
    wfreq_a = wfreq.reshape(shape)
    value_a = value.reshape(shape)
    top_a = topk.reshape(shape + (top,))
    _aggregate(dimensions, freq_a, wfreq_a, value_a, top_a)
    cells = _frame(dimensions, freq_a, wfreq_a, value_a, top_a)
    return Table(cells, _relations(dimensions), tuple(dimensions), top, response, weight,
                 info={"records": len(frame), "dropped_records": int((~keep).sum())})


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
            leaves = _leaf_order(text[d][text[d] != total])
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
    _aggregate(dimensions, arrays["freq"], arrays["wfreq"], arrays["value"], top_arr)

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
    cells = _frame(dimensions, np.rint(arrays["freq"]), arrays["wfreq"], arrays["value"],
                   top_arr)
    return Table(cells, _relations(dimensions), tuple(dimensions), k,
                 response=value, weight=wfreq, issues=issues_frame,
                 info={"cells_given": len(frame),
                       "margins_given": len(margin_rows)})
