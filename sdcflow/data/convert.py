"""Converting a column read as text to its declared type, exactly or not at all.

* categorical and ordinal: the text itself (surrounding blanks removed);
* integer: ``Int64`` holding exactly the number written. A value that is not a whole
  number, or lies outside the 64-bit range (-9223372036854775808 to
  9223372036854775807, e.g. ``1e19`` or a 20-digit code), is refused with its records:
  no integer is rounded on the way in;
* continuous: ``float64``, each value the double nearest to the number written (as any
  decimal fraction is read); infinite values and numbers beyond the double range are
  refused.

A blank field, a value the variable's ``missing`` list names and a value the data's
``na_values`` names, is a missing value. A CSV file may write numbers the way many
European offices do (``data.decimal: ","``, ``data.thousands: "."``: ``1.234,5``); numbers
are read in that form, and a value that does not fit it is reported as written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation

import numpy as np
import pandas as pd

from .dataset import Variable
from .findings import SHOW, records_text

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
# A number as a data file may write it (ASCII digits; 'inf' and 'infinity' in any case,
# refused later; 'nan' is not a number but a missing-value code to declare)
_NUMBER = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?|[+-]?inf(?:inity)?"
_SHORT_INTEGER = r"[+-]?[0-9]{1,18}"  # below 10**18 in magnitude: always an int64


def convert_column(text: pd.Series, var: Variable, is_csv: bool,
                   dialect: Mapping | None = None) -> tuple[pd.Series, list[str]]:
    """``text`` (a text column, missing values NaN) as the type ``var`` declares, and the
    problems found (each naming the column and its records). ``dialect``: the data's
    ``decimal``, ``thousands`` and ``na_values`` (a CSV file's conventions)."""
    dialect = dialect or {}
    text = text.str.strip()
    text = text.mask(text.eq("").fillna(False))
    codes = [str(m) for m in [*(var.missing or ()), *dialect.get("na_values", ())]]
    if codes:
        text = text.mask(text.isin(codes))
    if var.type in ("categorical", "ordinal"):
        return text, _ordinal_problems(text, var, is_csv)
    written = text
    text = _plain_numbers(text, dialect.get("decimal", "."), dialect.get("thousands"))
    present = text.notna().to_numpy()
    numeric = _matches(text, _NUMBER)
    bad = present & ~numeric
    if bad.any():
        example = written[bad].iloc[0]
        return text, [
            (f"column '{var.name}' is declared {var.type} but has non-numeric values such as"
            f" {example!r}{_form(dialect)} ({records_text(bad, is_csv)})")]
    floats = pd.Series(_cast(text, numeric, "float64", np.nan), index=text.index,
                       name=text.name)
    problems = _weight_problems(floats, var, is_csv) if var.role == "weight" else []
    if var.type == "integer":
        column, more = _integers(text, present, var, is_csv)
        return column, problems + more
    inf = np.isinf(floats.to_numpy())
    if inf.any():
        problems.append(
            f"column '{var.name}' has infinite values, or numbers beyond the range of a"
            f" 64-bit float, such as {text[inf].iloc[0]!r} ({records_text(inf, is_csv)})")
    return floats, problems


def _form(dialect: Mapping) -> str:
    """How numbers are written, when the data say so (for messages)."""
    if dialect.get("decimal", ".") == "." and not dialect.get("thousands"):
        return ""
    group = f", thousands {dialect['thousands']!r}" if dialect.get("thousands") else ""
    return f" (numbers are read with decimal mark {dialect.get('decimal', '.')!r}{group})"


def _plain_numbers(text: pd.Series, decimal: str, thousands: str | None) -> pd.Series:
    """Numbers written with a ``decimal`` mark other than '.' and digits grouped by
    ``thousands`` as plain numbers (``1.234,5`` -> ``1234.5``). A value whose groups are
    not of three digits (``1.23,4``) or that holds a '.' where ',' is the decimal mark is
    left as written, to be reported as not a number."""
    if decimal == "." and not thousands:
        return text
    d, t = re.escape(decimal), re.escape(thousands) if thousands else None
    digits = rf"[0-9]{{1,3}}(?:{t}[0-9]{{3}})+|[0-9]+" if t else r"[0-9]+"
    form = rf"[+-]?(?:(?:{digits})(?:{d}[0-9]*)?|{d}[0-9]+)(?:[eE][+-]?[0-9]+)?"
    fits = text.str.fullmatch(form).fillna(False).to_numpy(dtype=bool)
    plain = text.copy()
    if fits.any():
        part = text[fits]
        if t:
            part = part.str.replace(thousands, "", regex=False)
        plain[fits] = part.str.replace(decimal, ".", regex=False)
    mixed = ~fits & text.notna().to_numpy()
    if mixed.any():  # not in the declared form ('1.5' with ',' the decimal mark): refused
        plain[mixed] = text[mixed].where(~_matches(text[mixed], _NUMBER),
                                         "not " + text[mixed])
    return plain


def _matches(text: pd.Series, pattern: str) -> np.ndarray:
    return text.str.fullmatch(pattern, case=False).fillna(False).to_numpy(dtype=bool)


def _cast(text: pd.Series, mask: np.ndarray, dtype: str, fill) -> np.ndarray:
    """The values of ``text`` at ``mask`` parsed by pyarrow, correctly rounded (pandas
    2.3's ``pd.to_numeric`` is not: numbers with many digits or large exponents come out
    units in the last place off); ``fill`` elsewhere."""
    import pyarrow as pa
    import pyarrow.compute as pc

    out = np.full(len(text), fill, dtype=dtype)
    if mask.any():
        parsed = pc.cast(pa.array(text[mask]), pa.from_numpy_dtype(np.dtype(dtype)))
        out[mask] = parsed.to_numpy(zero_copy_only=False)
    return out


def _ordinal_problems(text: pd.Series, var: Variable, is_csv: bool) -> list[str]:
    if var.type != "ordinal":
        return []
    bad = text.notna() & ~text.isin(var.order)
    if not bad.any():
        return []
    values = sorted(set(text[bad]))[:SHOW]
    return [(f"column '{var.name}': values {values} are not in the declared order"
            f" ({records_text(bad.to_numpy(), is_csv)})")]


def _weight_problems(number: pd.Series, var: Variable, is_csv: bool) -> list[str]:
    out = []
    missing = number.isna().to_numpy()
    if missing.any():
        out.append(f"column '{var.name}' is the weight and has missing values"
                   f" ({records_text(missing, is_csv)})")
    negative = (number < 0).fillna(False).to_numpy()
    if negative.any():
        out.append(f"column '{var.name}' is the weight and has negative values"
                   f" ({records_text(negative, is_csv)})")
    return out


def _integers(text: pd.Series, present: np.ndarray, var: Variable,
              is_csv: bool) -> tuple[pd.Series, list[str]]:
    """The column as ``Int64`` holding exactly the integers written, or the problems.

    Plain integers of up to 18 digits are always int64 and are parsed at once; every
    other value (more digits, a decimal point, an exponent) is read exactly with
    :class:`decimal.Decimal`, once per distinct text."""
    n = len(text)
    short = present & _matches(text, _SHORT_INTEGER)
    values = _cast(text, short, "int64", 0)
    fraction = np.zeros(n, dtype=bool)
    beyond = np.zeros(n, dtype=bool)
    rest = present & ~short
    if rest.any():
        rows = np.flatnonzero(rest)
        codes, uniques = pd.factorize(text[rest])
        exact = [_exact_integer(u) for u in uniques]
        fraction[rows] = np.array([e is None for e in exact])[codes]
        beyond[rows] = np.array([e is _BEYOND for e in exact])[codes]
        fits = np.array([0 if e is None or e is _BEYOND else e for e in exact], dtype=np.int64)
        values[rows] = fits[codes]
    problems = []
    if fraction.any():
        problems.append(
            f"column '{var.name}' is declared integer but has non-integer values such as"
            f" {text[fraction].iloc[0]!r} ({records_text(fraction, is_csv)})")
    if beyond.any():
        problems.append(
            f"column '{var.name}' is declared integer but has values beyond the 64-bit"
            f" integer range ({INT64_MIN} to {INT64_MAX}; declare it continuous for the"
            " nearest 64-bit float, or categorical to keep the digits as codes) such as"
            f" {text[beyond].iloc[0]!r} ({records_text(beyond, is_csv)})")
    array = pd.arrays.IntegerArray(values, ~present | fraction | beyond)
    return pd.Series(array, index=text.index, name=text.name), problems


_BEYOND = object()


def _exact_integer(text: str):
    """The integer ``text`` writes exactly, ``None`` if it is not a whole number (or not
    a finite number at all), ``_BEYOND`` if it lies outside int64."""
    try:
        d = Decimal(text)
    except InvalidOperation:
        return None
    if not d.is_finite() or d != d.to_integral_value():
        return None
    if d.adjusted() > 19:  # more than 20 digits: out of range (and not worth expanding)
        return _BEYOND
    value = int(d)
    return value if INT64_MIN <= value <= INT64_MAX else _BEYOND
