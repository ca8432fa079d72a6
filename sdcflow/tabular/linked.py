"""Linked tables: several tables of the same records that share cells (the same
variables, different breakdowns: region x sex and region x age share the region
totals) protected together, so that no cell is suppressed in one and published in
another and no combination of the published tables recomputes a sensitive cell.

They are protected as one *cover table*, the cross-classification of all their
variables, whose faces (every other variable at its total) are the linked tables; the
cover's other cells are never published (status ``unpublished``: unknown to the
intruder, like suppressed cells, but neither sensitive nor costed). Its relations hold
every relation of every linked table, and the relations through the unpublished cells
that tie them together, which an intruder who knows the tables come from the same
records can use too. Rules, secondary suppression, adjustment and the audit then run on
the cover table as on any table, and each linked table is its face of the result. This
is the cover-table approach of tau-Argus for linked tables (P.-P. de Wolf and
S. Giessing, "Adjusting the tau-ARGUS modular approach to deal with linked tables",
*Data & Knowledge Engineering* 68(11), 1160-1174, 2009).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..data.text import text_column
from .hierarchy import relations
from .table import Table

__all__ = ["UNPUBLISHED", "face", "face_cells", "link"]

#: status of the cells of a cover table that no linked table publishes
UNPUBLISHED = "unpublished"


def face_cells(table: Table, dims: Sequence[str]) -> np.ndarray:
    """The cells of ``table`` with every dimension outside ``dims`` at its total, in the
    C-order of ``dims`` (as the table over ``dims`` alone holds them)."""
    names = table.dims
    missing = [d for d in dims if d not in names]
    if missing:
        raise ValueError(f"dimensions {missing} are not in the table ({names})")
    ids = np.arange(table.n_cells).reshape(table.shape)
    index = tuple(slice(None) if d in dims else -1 for d in names)  # totals come last
    kept = [d for d in names if d in dims]
    sub = ids[index]
    return np.transpose(sub, [kept.index(d) for d in dims]).reshape(-1)


def link(table: Table, faces: Sequence[Sequence[str]]) -> Table:
    """The cover ``table`` with the cells outside every face in ``faces`` (each a list
    of its dimensions, the linked tables) marked :data:`UNPUBLISHED`."""
    published = np.zeros(table.n_cells, dtype=bool)
    for dims in faces:
        published[face_cells(table, dims)] = True
    cells = table.cells.copy()
    status = np.where(published, cells["status"].to_numpy(dtype=object), UNPUBLISHED)
    cells["status"] = text_column(status, index=cells.index)
    return table.with_cells(cells)


def face(table: Table, dims: Sequence[str]) -> Table:
    """The linked table over ``dims`` as the cover ``table`` leaves it: its cells (with
    their status, values, levels and rules), its dimensions and its own relations."""
    ids = face_cells(table, dims)
    names = table.dims
    dimensions = tuple(table.dimensions[names.index(d)] for d in dims)
    drop = [d for d in names if d not in dims]
    cells = table.cells.iloc[ids].drop(columns=drop).reset_index(drop=True)
    return Table(cells, relations(dimensions), dimensions, table.top,
                 response=table.response, weight=table.weight, info=dict(table.info))
