"""The engine's side of tables: build a recipe's table from the data (or read it already
aggregated), fingerprint it, and turn it into the released CSV (suppressed cells kept
as rows marked suppressed, their value and frequency left empty) and the internal one."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd

from ..data import Dataset
from ..data.text import text_column
from ..plugins.limits import MAX_TABLE_CELLS, over
from ._model import TableSpec


def hierarchy_of(data: Dataset, name: str, total: str) -> dict[str, str] | None:
    """A variable's declared hierarchy (levels finest first, each mapping a value of the
    level below to its parent) as one child -> parent mapping ending in ``total``."""
    var = data.variables.get(name)
    if var is None or not var.hierarchy:
        return None
    parents: dict[str, str] = {}
    levels = list(var.hierarchy.values())
    for level in levels:
        for child, parent in level.items():
            parents[str(child)] = str(parent)
    # in the order the recipe lists them (a set's order changes from process to process)
    for parent in dict.fromkeys(str(p) for p in levels[-1].values()):
        parents[parent] = total
    return parents


def cell_count(spec: TableSpec, data: Dataset) -> int:
    """The number of cells of the table ``spec`` built from ``data``: the product, over
    its dimensions, of their categories with their subtotals and total."""
    n = 1
    for d in spec.dims:
        if d not in data.frame:
            continue
        h = hierarchy_of(data, d, spec.total)
        n *= int(data.frame[d].nunique()) + (len(set(h.values())) if h else 1)
    return n


def size_problems(spec: TableSpec, data: Dataset) -> list[str]:
    """A table that cannot be built: a dimension without any value, or too many cells
    (each cell is a row of several columns, and secondary suppression solves a program
    over the cells)."""
    if spec.source:
        return []
    # (a table of linked tables: its linked tables say so)
    problem = None if spec.linked is not None else (empty_problem(spec, data)
                                                     or hierarchy_problem(spec, data))
    if problem:
        return [f"tables[{spec.index}].dims: {problem}"]
    cells = cell_count(spec, data)
    if cells <= MAX_TABLE_CELLS:
        return []
    return [(f"tables[{spec.index}].dims: {' x '.join(spec.dims)} make "
             f"{over(cells, 'cells', MAX_TABLE_CELLS)}: recode the dimensions with many "
             "categories first")]


def empty_problem(spec: TableSpec, data: Dataset) -> str | None:
    """Why the table ``spec`` has no categories to build from ``data``, if it has none: a
    table counts the records with a value for every dimension, and a dimension without a
    declared hierarchy takes its categories from them."""
    dims = [d for d in spec.dims if d in data.frame]
    if spec.source or all(hierarchy_of(data, d, spec.total) for d in dims):
        return None
    frame = data.frame[dims]
    if frame.notna().all(axis=1).any():
        return None
    empty = [d for d in dims if frame[d].isna().all()]
    if empty:
        return (f"{', '.join(repr(d) for d in empty)} {'has' if len(empty) == 1 else 'have'}"
                " no value in the data (every record misses it): a dimension needs at "
                "least one category")
    return (f"no record has a value for every dimension ({', '.join(dims)}): the table "
            "would have no categories")


def hierarchy_problem(spec: TableSpec, data: Dataset) -> str | None:
    """Why a dimension's declared hierarchy cannot order its cells (several roots, a
    value outside it, ...), if it cannot: the check :func:`build` would make."""
    from ..tabular.hierarchy import make_dimension

    for d in spec.dims:
        h = hierarchy_of(data, d, spec.total) if d in data.frame else None
        if h is None:
            continue
        leaves = [str(v) for v in pd.unique(data.frame[d].dropna())]
        try:
            make_dimension(d, leaves, h, spec.total)
        except ValueError as exc:
            return f"{exc} (variables.{d}.hierarchy)"
    return None


def tabulation(spec: TableSpec, data, key: str | None = None, key_digits: int = 8,
               top: int = 2):
    """What to tabulate for ``spec`` built from microdata: its dimensions with the
    hierarchies declared for them (``data``: a Dataset, or the Metadata of partitioned
    data: only its variables are read), and with ``key`` a column of record keys whose
    sums make the cells' cell keys (the cell key method), keeping the ``top`` largest
    contributions of each cell. Partition by partition, the table is
    ``finish_table(combine(build_partial(tabulation, part) for part in parts))``
    (:mod:`sdcflow.tabular.build`), identical to :func:`build` on all the records."""
    from ..tabular import Tabulation

    hierarchies = {d: h for d in spec.dims if (h := hierarchy_of(data, d, spec.total))}
    return Tabulation(tuple(spec.dims), hierarchies, spec.response, spec.weight,
                      top=max(top, 2), total=spec.total, key=key, key_digits=key_digits)


def linked(spec: TableSpec, table):
    """``table`` as built for ``spec``: for a table of linked tables, their cover table
    with the cells none of them holds marked unpublished (:mod:`sdcflow.tabular.linked`)."""
    from ..tabular import link

    return link(table, spec.faces) if spec.faces else table


def release_source(recipe, tid: str) -> str:
    """The table whose last step gives the released table ``tid``: the table of linked
    tables it belongs to, when steps protect them, else ``tid`` itself."""
    return recipe.table_source(tid)


def released_table(recipe, tid: str, source: str, table):
    """The table ``tid`` to release from the table its ``source`` left: its face of
    the cover table when it is a linked table."""
    from ..tabular import face

    return table if source == tid else face(table, recipe.tables[tid].dims)


def build(spec: TableSpec, data: Dataset, key: str | None = None,
          key_digits: int = 8, top: int = 2):
    """The table ``spec`` from ``data`` (or from the cells of its ``from`` file, read and
    checked when the recipe was read: :mod:`sdcflow.tabular.cells_file`); with ``key``
    (a column of record keys) each cell gets its cell key (``cell_key``)."""
    from ..tabular import build_partial, finish_table, table_from_cells

    hierarchies = {d: h for d in spec.dims if (h := hierarchy_of(data, d, spec.total))}
    if spec.source:
        src = spec.source
        if spec.cells is None:
            raise ValueError(f"table {spec.id!r}: its file was not read with the recipe")
        frame = spec.cells
        return table_from_cells(frame, spec.dims, hierarchies or None,
                                freq=src.get("freq", "freq"), value=src.get("value", "value"),
                                contributions=src.get("top", ["top1", "top2"]),
                                total=spec.total)
    if key is not None and spec.source:
        raise ValueError(f"table {spec.id!r} is read as aggregated cells from a file: "
                         "cell keys need the records")
    problem = empty_problem(spec, data)
    if problem:
        raise ValueError(problem)
    return linked(spec, finish_table(build_partial(tabulation(spec, data, key, key_digits, top),
                                                   data.frame)))


def table_hash(table) -> str:
    """sha256 of a table's cells (values, frequencies, contributions, status)."""
    h = hashlib.sha256()
    h.update(pd.util.hash_pandas_object(table.cells, index=False).to_numpy().tobytes())
    return h.hexdigest()


def release_frame(table) -> pd.DataFrame:
    """The published table: every cell with its dimensions, the hierarchy level of its
    code in each dimension (``level_<dim>``: 0 the total, 1 the first subtotals below it,
    and so on down to the categories), its frequency, its weighted frequency (``wfreq``,
    when the table has a weight) and value, and its status ``published`` or
    ``suppressed``. Suppressed cells have no frequency, weighted frequency or value, and
    whether a cell was suppressed as sensitive (primary) or to protect another one
    (secondary), and by which rule, is not said: that would tell an intruder which cells
    are small or dominated (see :func:`internal_frame`). A rounded or adjusted table
publishes its new values (a frequency table: as its frequencies too). A magnitude table
whose values were perturbed (cell key, rounding, adjustment) publishes no frequencies:
they were not."""
    cells = table.cells
    out = cells[list(table.dims)].copy()
    codes = table.codes
    for d, dim in enumerate(table.dimensions):
        out[f"level_{dim.name}"] = dim.depth[codes[:, d]].astype(np.int64)
    hidden = table.suppressed
    freq, wfreq = cells["freq"], cells["wfreq"]
    if "original_value" in cells and table.response is None:
        # a rounded or adjusted frequency table: its value is the (weighted) frequency,
        # which must not go out unchanged beside it
        wfreq = cells["value"]
        if table.weight is None:
            freq = np.rint(cells["value"])
    exact = hidden
    counts_perturbed = "original_freq" in cells and not np.array_equal(
        cells["freq"].to_numpy(), cells["original_freq"].to_numpy())
    if "original_value" in cells and table.response is not None and not counts_perturbed:
        # a magnitude table whose values were perturbed (cell key, rounding, adjustment)
        # and its numbers of contributors not (DP perturbs both): published exactly they
        # would mark
        # the cells of one or two contributors (and give away a frequency table the
        # recipe protects apart): a count is published from a frequency table of its own
        exact = pd.Series(True, index=cells.index)
    out["freq"] = freq.astype("Int64").mask(exact)
    if table.weight is not None:
        out["wfreq"] = wfreq.astype("float64").mask(exact)
    out["value"] = cells["value"].astype("float64").mask(hidden)
    out["status"] = pd.Series(np.where(np.asarray(hidden), "suppressed", "published"),
                              index=cells.index)
    return out


def internal_frame(table) -> pd.DataFrame:
    """The protected table for the office: every cell with its original frequency and
    value, its status (safe, primary, secondary, adjusted...) and, for sensitive cells, the rules
    that fired; for a rounded or adjusted table (controlled rounding, controlled tabular
    adjustment) also the value published (``published_value``)."""
    cells = table.cells
    out = cells[list(table.dims)].copy()
    out["freq"] = cells["freq"].astype("Int64")
    if "original_value" in cells:
        out["value"] = cells["original_value"].astype("float64")
        out["published_value"] = cells["value"].astype("float64")
    else:
        out["value"] = cells["value"].astype("float64")
    if "original_freq" in cells:  # perturbed counts (the cell key method)
        out["original_freq"] = cells["original_freq"].astype("Int64")
    out["status"] = text_column(cells["status"])
    if "rule" in cells:
        sensitive = cells["status"].isin(["primary", "adjusted"])
        out["rule"] = text_column(cells["rule"]).where(sensitive, "")
    return out
