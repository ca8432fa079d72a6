"""What the files of statistical packages can hold, so that a release in one of them is
refused when the recipe is validated (names, labels) or before anything is written
(values), with the reason and the format's limit, instead of failing inside ReadStat or,
worse, writing something else than the data (a label cut short, a number turned into
infinity). Names are never changed silently: a recipe releases its variables under
their own names, or not at all.

The rules are the formats' documented ones, as ReadStat (through pyreadstat) enforces
or silently applies them:

* SPSS (``.sav``, ``.zsav``; IBM SPSS Statistics, "Variable names", and the PSPP manual,
  "Identifiers"): a name of at most 64 bytes (UTF-8) that starts with a letter, goes on
  with letters, digits and ``. _ $ # @``, does not end with ``.`` and is not a reserved
  word (``ALL AND BY EQ GE GT LE LT NE NOT OR TO WITH``); names are compared without
  case; a variable label holds at most 256 bytes and a value label 120 (ReadStat cuts
  longer ones); a text value at most 32,767 bytes.
* Stata (``.dta``, format 118; StataCorp, "[U] 11.3 Naming conventions" and
  "[D] label"): a name of 1 to 32 characters, letters, digits and ``_``, not starting
  with a digit, not a reserved word (``_all _b byte _coef _cons double float if in int
  long _n _N _pi _pred _rc _se _skip strL using with`` and ``str1`` ... ``str2045``);
  names are compared with case; a variable label holds at most 80 characters; value
  labels belong to whole numbers (from -2,147,483,647 to 2,147,483,620) and hold at
  most 32,000 bytes; numbers are at most 8.988e307 in magnitude (Stata's largest
  double).
* SAS transport (``.xpt``, version 8 as ReadStat writes it; SAS Institute, "The record
  layout of a data set in SAS transport (XPORT) format", TS-140 and its version 8
  update): a name of at most 32 ASCII letters, digits and ``_``, not starting with a
  digit, compared without case; a variable label of at most 256 characters; no value
  labels; text values of at most 32,767 bytes; numbers are IBM mainframe doubles, from
  5.4e-79 (16^-65) in magnitude to below 9.05e74 (2^249, where ReadStat's conversion
  stops: the format itself reaches 7.2e75); a larger one would be written as infinity,
  a smaller non-zero one as 0.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class FormatLimits:
    """What one file format can hold (see the module's description)."""

    title: str  # "SPSS (.sav)"
    max_name: int
    name_in_bytes: bool  # max_name counts UTF-8 bytes (else characters)
    name: re.Pattern  # the whole name, characters allowed and their order
    name_rule: str  # the same in words, for messages
    reserved: frozenset[str]  # reserved words, compared as ``case_blind`` says
    case_blind: bool  # names are compared without case (reserved words too)
    max_label: int  # a variable label, in characters
    max_label_bytes: int | None
    max_value_label_bytes: int | None  # None: no value labels in the format
    integer_codes: tuple[int, int] | None  # value labels only on whole numbers in range
    max_number: float
    min_number: float  # the smallest non-zero magnitude written as itself
    max_text_bytes: int | None


_SPSS_RESERVED = frozenset(["ALL", "AND", "BY", "EQ", "GE", "GT", "LE", "LT", "NE", "NOT", "OR", "TO", "WITH"])
_STATA_RESERVED = frozenset(
    ["_all", "_b", "byte", "_coef", "_cons", "double", "float", "if", "in", "int", "long", "_n", "_N", "_pi", "_pred", "_rc", "_se", "_skip", "strL", "using", "with"]) | frozenset(f"str{i}" for i in range(1, 2046))

SPSS = FormatLimits(
    title="SPSS", max_name=64, name_in_bytes=True,
    name=re.compile(r"[^\W\d_][\w.$#@]*(?<!\.)"),
    name_rule="start with a letter, hold only letters, digits and . _ $ # @, and not end "
              "with '.'",
    reserved=_SPSS_RESERVED, case_blind=True, max_label=256, max_label_bytes=256,
    max_value_label_bytes=120, integer_codes=None,
    max_number=float(np.finfo(np.float64).max), min_number=0.0, max_text_bytes=32767)
STATA = FormatLimits(
    title="Stata", max_name=32, name_in_bytes=False,
    name=re.compile(r"[^\W\d]\w*"),
    name_rule="start with a letter or '_' and hold only letters, digits and '_'",
    reserved=_STATA_RESERVED, case_blind=False, max_label=80, max_label_bytes=320,
    max_value_label_bytes=32000, integer_codes=(-2147483647, 2147483620),
    max_number=8.98846567431158e307, min_number=0.0, max_text_bytes=None)
SAS_TRANSPORT = FormatLimits(
    title="SAS transport", max_name=32, name_in_bytes=False,
    name=re.compile(r"[A-Za-z_][A-Za-z0-9_]*"),
    name_rule="start with an ASCII letter or '_' and hold only ASCII letters, digits and "
              "'_'",
    reserved=frozenset(), case_blind=True, max_label=256, max_label_bytes=None,
    max_value_label_bytes=None, integer_codes=None,
    # IBM mainframe doubles as ReadStat converts them: below 2^249 (it writes 2^249 as
    # infinity), and from 16^-65 (smaller ones become 0)
    max_number=9.046256971665327e74, min_number=5.397605346934028e-79,
    max_text_bytes=32767)

LIMITS = {"sav": SPSS, "zsav": SPSS, "dta": STATA, "xpt": SAS_TRANSPORT}
SUFFIX = {"sav": ".sav", "zsav": ".zsav", "dta": ".dta", "xpt": ".xpt"}


def _title(fmt: str) -> str:
    return f"{LIMITS[fmt].title} ({SUFFIX[fmt]})"


def name_problems(names: Iterable[str], fmt: str) -> Iterator[tuple[str, str]]:
    """``(name, why)`` for every released variable name a file of format ``fmt`` cannot
    hold: too long, characters the format does not allow, a reserved word, the same
    name as another in a format that ignores case."""
    limits = LIMITS[fmt]
    seen: dict[str, str] = {}
    for name in names:
        size = len(name.encode("utf-8")) if limits.name_in_bytes else len(name)
        unit = "bytes" if limits.name_in_bytes else "characters"
        key = name.upper() if limits.case_blind else name
        if size > limits.max_name:
            yield name, (f"the name is {size} {unit} long; {_title(fmt)} names hold at most "
                         f"{limits.max_name}")
        elif not limits.name.fullmatch(name):
            yield name, f"{_title(fmt)} names must {limits.name_rule}"
        elif (name.upper() if limits.case_blind else name) in limits.reserved:
            yield name, f"'{name}' is a reserved word of {limits.title}"
        elif key in seen:
            yield name, (f"{limits.title} does not tell '{name}' from '{seen[key]}' (names are "
                         "compared without case)")
        seen.setdefault(key, name)


def label_problems(variable_labels: Mapping[str, str], value_labels: Mapping[str, Mapping],
                   numeric: set[str], fmt: str) -> Iterator[tuple[str, str]]:
    """``(name, why)`` for every label of a released variable a file of format ``fmt``
    cannot hold whole: a variable label or a value label too long, a value label on a
    code that is not a whole number in range (Stata). ``numeric``: the variables whose
    codes go out as numbers (only they carry value labels)."""
    limits = LIMITS[fmt]
    for name, label in variable_labels.items():
        label = str(label)
        if len(label) > limits.max_label or (
                limits.max_label_bytes is not None
                and len(label.encode("utf-8")) > limits.max_label_bytes):
            bytes_ = f" and {limits.max_label_bytes} bytes" if limits.max_label_bytes else ""
            yield name, (f"its variable label is {len(label)} characters long "
                         f"('{label[:20]}...'); {_title(fmt)} variable labels hold at most "
                         f"{limits.max_label} characters{bytes_}")
    if limits.max_value_label_bytes is None:
        return  # (the format has no value labels: none is written)
    for name, labels in value_labels.items():
        if name not in numeric:
            continue
        for code, label in labels.items():
            size = len(str(label).encode("utf-8"))
            if size > limits.max_value_label_bytes:
                yield name, (f"the label of code {code} is {size} bytes long; {_title(fmt)} "
                             f"value labels hold at most {limits.max_value_label_bytes}")
                break
            if limits.integer_codes is not None and not _whole_in(code, limits.integer_codes):
                low, high = limits.integer_codes
                yield name, (f"it has a value label on the code {code}; {_title(fmt)} "
                             f"labels only whole numbers from {low:,} to {high:,}")
                break


def _whole_in(code, bounds: tuple[int, int]) -> bool:
    try:
        x = float(code)
    except (TypeError, ValueError):
        return True  # (a text code: its column goes out as text, without labels)
    return x.is_integer() and bounds[0] <= x <= bounds[1]


def value_problems(frame: pd.DataFrame, fmt: str) -> Iterator[tuple[str, str]]:
    """``(name, why)`` for every column of ``frame`` whose values a file of format ``fmt``
    cannot hold as they are: numbers beyond its range (or, in SAS transport files,
    non-zero numbers below it), text longer than it allows."""
    limits = LIMITS[fmt]
    for name in frame.columns:
        col = frame[name]
        if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
            x = np.abs(col.to_numpy(dtype=float, na_value=np.nan))
            x = x[np.isfinite(x)]
            big = x[x > limits.max_number]
            if big.size:
                yield name, (f"it holds {big.max():.4g}; {_title(fmt)} numbers are at most "
                             f"{limits.max_number:.4g} in magnitude (top-code or rescale "
                             "them)")
                continue
            tiny = x[(x > 0) & (x < limits.min_number)]
            if tiny.size:
                yield name, (f"it holds {tiny.min():.4g}; {_title(fmt)} cannot write a "
                             f"non-zero number below {limits.min_number:.4g} in magnitude "
                             "(it would become 0: round or rescale them)")
        elif limits.max_text_bytes is not None:
            text = col.dropna()
            if len(text):
                size = int(text.map(str).str.encode("utf-8").str.len().max())
                if size > limits.max_text_bytes:
                    yield name, (f"a value is {size:,} bytes long; {_title(fmt)} text "
                                 f"values hold at most {limits.max_text_bytes:,} bytes")
