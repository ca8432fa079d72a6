"""Released numbers that look like the input: rounded to the digits a recipe asks for,
when the release is written (never before: every step and measure sees full precision).

* ``variables.X.digits: d`` rounds the numbers of ``X`` to ``d`` decimals;
* ``release.digits: d`` does so for every non-integer number column without its own;
* a variable declared ``type: integer`` that a method made fractional (noise,
  microaggregation of an integer count) is released as integers (``digits: 0``) unless
  its ``digits`` says otherwise.

Rounding is :func:`round_decimals` (half to even on the binary value, as NumPy's
``round``; the same bytes on every run and machine); with ``0`` decimals a column is written as integers (``3``, not
``3.0``), so a CSV holds ``56066667``, not ``56066666.666666664``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

EXACT = 2.0**53  # beyond this a double is not every integer: left as a float


def released_numbers(frame: pd.DataFrame, digits: Mapping[str, int], default: int | None,
                     integers: Iterable[str] = ()) -> pd.DataFrame:
    """``frame`` with its fractional number columns rounded: a column of ``digits`` to
    its decimals, a column of ``integers`` (declared integer) to 0, others to
    ``default`` (``None``: left as they are)."""
    integers = set(integers)
    out = {}
    for name in frame.columns:
        col = frame[name]
        d = digits.get(name, 0 if name in integers else default)
        if d is None or not _is_float(col):
            out[name] = col
            continue
        x = col.to_numpy(dtype=np.float64, na_value=np.nan)
        rounded = round_decimals(x, d)
        if d == 0 and bool(np.all(np.isnan(rounded) | (np.abs(rounded) < EXACT))):
            missing = np.isnan(rounded)
            values = np.where(missing, 0, rounded).astype(np.int64)
            out[name] = pd.Series(pd.arrays.IntegerArray(values, missing), index=col.index,
                                  name=name)
        else:
            out[name] = pd.Series(rounded, index=col.index, name=name)
    return pd.DataFrame(out, index=frame.index)


def round_decimals(x: np.ndarray, d: int) -> np.ndarray:
    """``x`` rounded to ``d`` decimals: ``rint(x * 10**d) / 10**d`` (half to even), the
    nearest double to the rounded decimal. A value whose scaled form is past 2**52 has no
    finer digits than ``d`` decimals in a double and is kept as it is (scaling it would
    only add rounding error); NaN stays NaN."""
    scale = 10.0**d
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = x * scale
        fine = np.abs(scaled) < 2.0**52
        return np.where(fine, np.rint(np.where(fine, scaled, 0.0)) / scale, x)


def _is_float(col: pd.Series) -> bool:
    return pd.api.types.is_float_dtype(col)


def release_rounding(recipe) -> tuple[dict[str, int], int | None, list[str]]:
    """What :func:`released_numbers` needs from a recipe: each variable's ``digits``
    (from its ``variables`` section as written), ``release.digits``, and the variables
    declared integer."""
    written = (recipe.doc.data or {}).get("variables") or {}
    per = {name: spec["digits"] for name, spec in written.items()
           if isinstance(spec, Mapping) and isinstance(spec.get("digits"), int)}
    integers = [n for n, v in recipe.variables.items() if v.type == "integer"]
    return per, recipe.release.get("digits"), integers
