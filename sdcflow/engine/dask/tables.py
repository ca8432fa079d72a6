"""Table steps on the Dask engine: the table is built from the partitions by
map-reduce (each partition's leaf cells, combined exactly: :mod:`sdcflow.tabular.build`),
then protected and audited on the client as the in-memory engine does (a table is small
next to its records)."""

from __future__ import annotations

import hashlib

import numpy as np

from ..canonical import canonical_json, jsonable
from . import tasks


class TableSteps:
    """The table part of a Dask run (mixed into its runner: ``client``, ``meta``,
    ``recipe``, ``tables``, ``measures``, ``_data``, ``_wait`` and ``_record``)."""

    def table(self, spec, view: dict, key: str | None = None, key_digits: int = 8,
              top: int = 2, drawn: bool = False):
        """The table ``spec`` built from the columns of ``view`` by map-reduce: each
        partition's leaf cells, combined exactly (:mod:`sdcflow.tabular.build`); with
        ``key`` (a column of record keys) each cell gets its cell key; ``drawn``: the
        keys are drawn for each record from its position among all the records (the keys
        of the in-memory engine)."""
        from ...data import Dataset
        from ...data.dataset import Metadata
        from ...recipe.tables import build, linked, tabulation
        from ...tabular import combine, finish_table

        meta = {c: self.meta[n][c] for c, n in view.items()}
        if spec.source:  # a table given as cells in a file: read on the client

            return build(spec, Dataset(_empty_frame(meta), meta), key)
        tab = tabulation(spec, Metadata(meta), key, key_digits, top)
        data = self._data({c: n for c, n in view.items() if c in tab.columns})
        if drawn:
            sizes = self.client.gather([self.client.submit(len, d, pure=False) for d in data])
            starts = np.r_[0, np.cumsum(sizes)[:-1]].astype(int)
            parts = [self.client.submit(drawn_partial, tab, d, self.recipe.seed, int(start),
                                        pure=False) for d, start in zip(data, starts, strict=True)]
        else:
            parts = [self.client.submit(tasks.table_partial, tab, d, pure=False) for d in data]
        self._wait(parts)
        return linked(spec, finish_table(combine(self.client.gather(parts))))

    def _table_step(self, ps, start: float) -> None:
        """A step on a table, as the in-memory engine runs it (the table is small)."""
        from ...errors import PluginError
        from ...recipe.tables import table_hash
        from ..execution import (
            DRAWN_KEYS,
            _call,
            record_keys_of,
            step_rng,
            visible,
            with_cell_keys,
        )

        keys = record_keys_of(ps)
        keyed = None
        if keys is not None:
            column, digits, top = keys
            try:
                keyed = self.table(self.recipe.tables[ps.table], visible(ps),
                                   column or DRAWN_KEYS, digits, top, drawn=column is None)
            except (KeyError, ValueError) as exc:
                raise PluginError(ps.node, f"cell keys of table {ps.table!r}: {exc}") from None
        if ps.table_input is not None:
            table = self.tables[ps.table_input]
            if keyed is not None:
                table = with_cell_keys(table, keyed)
        elif keyed is not None:
            table = keyed
        else:
            table = self.table(self.recipe.tables[ps.table], visible(ps))
        result = _call(ps, table, step_rng(self.recipe.seed, ps.node), None, {})
        info: dict = {}
        if ps.kind == "method":
            self.tables[ps.node] = result.data
            info = jsonable(result.info or {})
            digest = table_hash(result.data)
        else:
            self.tables[ps.node] = table
            self.measures[ps.node] = jsonable(result.summary)
            digest = hashlib.sha256(canonical_json(self.measures[ps.node]).encode()).hexdigest()
        self._record(ps, start, digest, info, {"table": table_hash(table)})


def drawn_partial(tabulation, data, seed: int, start: int):
    """The map step of a table build on one partition whose records (at positions
    ``start ..`` among all the records) get the record keys the engine draws."""
    from ...kernels.tabular.cell_key import counter_record_keys
    from ...tabular import build_partial
    from ..execution import RECORD_KEYS_STREAM

    digits = tabulation.key_digits
    units = counter_record_keys(seed, start, len(data.frame), digits, RECORD_KEYS_STREAM)
    frame = data.frame.assign(**{tabulation.key: units / 10 ** digits})
    return build_partial(tabulation, frame)


def _empty_frame(meta: dict):
    import pandas as pd

    return pd.DataFrame({c: pd.Series([], dtype=object) for c in meta})
