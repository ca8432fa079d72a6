"""What the engine checks in a method's output before later steps see it: the records
kept (unless the method declares it changes them), the columns it declares, finite
numbers, and no value newly missing unless the method suppresses values on purpose
(``Plugin.makes_missing``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import InternalError, PluginError
from ..plugins.registry import MethodResult

_SHOW = 5


def method_output(ps, data, result: MethodResult):
    """The columns a method wrote, after checking that it kept its declarations: the
    records (unless it declares it changes them), the columns it writes, and values
    that are finite and not newly missing (unless it declares ``makes_missing``)."""
    out = result.data
    name = ps.step.plugin_name
    if ps.writes is None:
        cols = list(data.frame.columns)
    else:
        cols = sorted(ps.writes)
        if len(out.frame) != len(data.frame) and not rebuilds_records(ps, data.frame.columns):
            raise InternalError(f"step '{ps.node}': {name} changed the number of records but "
                                "does not declare it (writes() must return None)")
    missing = [c for c in cols if c not in out.frame.columns]
    if missing:
        raise InternalError(f"step '{ps.node}': {name} dropped columns {missing}")
    frame = out.frame[cols].reset_index(drop=True)
    meta = {c: out.variables[c] for c in cols}
    paired = ps.writes is not None and len(out.frame) == len(data.frame)
    for c in cols:
        _check_values(ps, c, frame[c], data.frame[c] if paired and c in data.frame else None)
    return frame, meta, dict(result.info or {})


def rebuilds_records(ps, columns) -> bool:
    """Whether the step rebuilds the records from the columns it writes (a method that
    declares it changes the records and writes every column of its data, adding some:
    ``query_log_microaggregation`` and its group pseudonyms), so that their number may
    change although it names the columns it writes."""
    return ps.writes is not None and set(columns) <= set(ps.writes) and \
        ps.step.plugin.changes_records(ps.params, ps.meta)


def _check_values(ps, column: str, values: pd.Series,
                  before: pd.Series | None) -> None:
    """A method may not release infinite numbers, nor make values missing unless it
    declares that it does (``Plugin.makes_missing``)."""
    if pd.api.types.is_float_dtype(values.dtype):
        arr = values.to_numpy(dtype="float64", na_value=np.nan)
        bad = np.isinf(arr)
        if bad.any():
            raise PluginError(ps.node, f"{ps.step.plugin_name} made {_records(bad)} of "
                              f"'{column}' infinite: with these parameters the values leave "
                              "the range of floating-point numbers")
    if before is not None and not ps.step.plugin.makes_missing:
        new = (values.isna() & before.notna()).to_numpy()
        if new.any():
            raise PluginError(ps.node, f"{ps.step.plugin_name} made {_records(new)} of "
                              f"'{column}' missing (it does not suppress values: this "
                              "happens when the parameters push the values out of range)")


def _records(mask: np.ndarray) -> str:
    rows = np.flatnonzero(mask)
    shown = ", ".join(str(r + 1) for r in rows[:_SHOW])
    more = f" and {len(rows) - _SHOW} more" if len(rows) > _SHOW else ""
    return f"{len(rows)} value{'s' if len(rows) != 1 else ''} (records {shown}{more})"
