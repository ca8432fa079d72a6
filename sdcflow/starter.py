"""``sdcflow init DATAFILE``: a starter recipe guessed from a data file.

Each column gets a type read from its values (integer, continuous, categorical) and a
role guessed conservatively: names that look like identifiers (``id``, ``name``, ``email``,
...) and text columns with nearly one value per record become identifiers (dropped from
every release); weights by name; numbers with many distinct values become numeric;
columns with few distinct values become key variables. Every guess is marked "check
this" in a comment. The recipe measures k-anonymity on the key variables and releases
the data unchanged, so that it validates and runs as written: the masking steps are the
user's to add (``sdcflow methods``)."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .data import Variable
from .data.text import text_column
from .errors import SdcflowError

KEY_MAX_CATEGORIES = 50  # at most this many distinct values: a key variable
NUMERIC_MIN_DISTINCT = 20  # numbers with more distinct values: a numeric variable
_IDENTIFIER_WORDS = {"id", "ident", "identifier", "name", "firstname", "lastname",
                     "surname", "email", "mail", "phone", "telephone", "ssn", "passport",
                     "address", "street"}
_WEIGHT_WORDS = {"weight", "weights", "wgt", "wt", "pweight", "sampling_weight"}
# numbers an intruder is likely to know: key variables, not numeric ones
_KNOWN_WORDS = {"age", "year", "birth", "born", "yob", "dob", "zip", "postcode", "postal"}
_INTEGER = re.compile(r"^[+-]?\d+$")
_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class InitError(SdcflowError):
    """``sdcflow init`` cannot write a starter recipe (exit code 1)."""

    exit_code = 1


@dataclass
class Guess:
    """A column's guessed declaration and why."""

    name: str
    role: str
    type: str
    why: str


def _words(name: str) -> list[str]:
    """``HouseholdID`` -> ``['household', 'id']``; ``ori_hid`` -> ``['ori', 'hid']``."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w]


def _looks_like_identifier(name: str) -> bool:
    words = _words(name)
    return any(w in _IDENTIFIER_WORDS or (w.endswith("id") and len(w) <= 5) for w in words)


def _value_type(values: pd.Series) -> str:
    """integer, continuous or categorical, from the text of the non-missing values (codes
    written with a leading zero, such as ``08``, stay categorical)."""
    text = text_column(values, values.index).str.strip()
    if text.empty:
        return "categorical"
    if text.str.match(_INTEGER).all():
        if text.str.lstrip("+-").str.match(r"^0\d").any():
            return "categorical"
        return "integer"
    numbers = pd.to_numeric(text, errors="coerce")
    if numbers.notna().all():
        return "continuous"
    return "categorical"


def guess_column(name: str, values: pd.Series) -> Guess:
    """The role and type of one column (its values as text, missing values NaN)."""
    present = values.dropna()
    kind = _value_type(present)
    distinct = present.nunique()
    if _looks_like_identifier(name):
        return Guess(name, "identifier", kind, "its name looks like an identifier: "
                     "dropped from every release (a household id: role household)")
    if kind != "categorical" and (set(_words(name)) & _WEIGHT_WORDS
                                  or name.lower() in _WEIGHT_WORDS):
        return Guess(name, "weight", "continuous", "its name looks like a sampling weight")
    if kind in ("integer", "continuous") and distinct > NUMERIC_MIN_DISTINCT:
        if set(_words(name)) & _KNOWN_WORDS:
            return Guess(name, "key", kind, "a number an intruder may know: a key variable "
                         "(recode it, e.g. global_recode with width)")
        return Guess(name, "numeric", kind, f"{distinct} distinct numbers (a key variable "
                     "if an intruder may know it)")
    if kind == "continuous":  # few numbers with decimals: still numbers
        return Guess(name, "key", kind, f"only {distinct} distinct numbers: a key variable? "
                     "(else numeric)")
    if distinct <= KEY_MAX_CATEGORIES:
        return Guess(name, "key", "categorical", f"{distinct} categories: a key variable? "
                     "(else sensitive or pram; ordered: type ordinal with an order)")
    if kind == "categorical" and distinct > 0.5 * len(present):
        return Guess(name, "identifier", kind, f"text with {distinct} distinct values in "
                     f"{len(present)} records: an identifier or free text (dropped)")
    return Guess(name, "key", "categorical", f"{distinct} distinct categories: a key "
                 "variable? Consider recoding it (global_recode)")


def read_columns(path: Path) -> tuple[pd.DataFrame, str]:
    """The columns of a CSV or Parquet file as text, read as ``sdcflow`` reads data, and
    its format."""
    from .data.csv_input import read_csv_text
    from .data.io import table_format
    from .data.parquet_input import read_parquet_text

    fmt = table_format({}, path)
    if fmt == "csv":
        header, findings = read_csv_text(path, {}, [])
        raw, more = (read_csv_text(path, {}, header.names) if header else (None, []))
    else:
        header, findings = read_parquet_text(path, {})
        wanted = {n: Variable(n, "key", "categorical") for n in header.names} if header else {}
        raw, more = read_parquet_text(path, wanted) if header else (None, [])
    problems = [f.message for f in findings + more]
    if raw is None or problems:
        raise InitError(f"cannot read {path}: {'; '.join(problems) or 'no table'}")
    if raw.records == 0 or not raw.names:
        raise InitError(f"{path} holds no records: nothing to guess from")
    return pd.DataFrame({n: raw.columns[n] for n in raw.names}), fmt


def _yaml_name(name: str) -> str:
    return name if _PLAIN.match(name) and name.lower() not in (
        "yes", "no", "on", "off", "true", "false", "null", "y", "n") else json.dumps(name)


def starter_recipe(data_file: Path, recipe_file: Path) -> str:
    """The text of a starter recipe for ``data_file``, to be written at ``recipe_file``."""
    frame, fmt = read_columns(data_file)
    guesses = [guess_column(str(name), frame[name]) for name in frame.columns]
    weights = [g for g in guesses if g.role == "weight"]
    for g in weights[1:]:  # a recipe has at most one weight variable
        g.role, g.why = "numeric", f"a weight too, but the weight variable is {weights[0].name}"
    keys = [g for g in guesses if g.role == "key"]
    if not keys:
        raise InitError(f"{data_file}: no column looks like a key variable (few distinct "
                        "values), so there is no k-anonymity to measure; write the recipe "
                        "by hand (see the README, The recipe format)")
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", data_file.stem).strip("-") or "data"
    relative = Path(os.path.relpath(data_file.resolve(), recipe_file.resolve().parent))
    width = max(len(_yaml_name(g.name)) for g in guesses)
    lines = [
        f"# A starter recipe written by `sdcflow init` from {data_file.name}.",
        "# The roles and types below are guesses: check each line marked 'check this'.",
        "# Roles: identifier (dropped), key (quasi-identifier), numeric, sensitive, weight,",
        "# household, strata, pram. Add masking steps before the measure ('sdcflow methods'",
        "# lists them) and checks that must hold before release.",
        "sdcflow: 1",
        f"name: {stem}",
        "seed: 1  # fixes every random draw: change it once, then keep it",
        f"data: {{path: {json.dumps(relative.as_posix())}"
        + (", format: parquet" if fmt == "parquet" else "") + "}",
        "variables:",
    ]
    for g in guesses:
        name = _yaml_name(g.name)
        lines.append(f"  {name}:{' ' * (width - len(name))} {{role: {g.role}, type: {g.type}}}"
                     f"  # check this: {g.why}")
    lines += [
        "steps:",
        "  # add masking steps here, e.g. (see 'sdcflow methods global_recode'):",
        "  # - {id: recode, method: global_recode, params: {variable: NAME, width: 10}}",
        "  - id: risk",
        "    measure: k_anonymity",
        "    params: {k: [2, 3, 5]}",
        "# checks:",
        "#   - \"risk.violations[3] == 0\"   # release only if every record is 3-anonymous",
        f"release: {{path: {stem}-protected.csv}}",
    ]
    return "\n".join(lines) + "\n"


def write_starter(data_file: str | Path, recipe_file: str | Path) -> Path:
    """Write the starter recipe; never replaces an existing file (:class:`InitError`)."""
    data_file, recipe_file = Path(data_file), Path(recipe_file)
    if not data_file.is_file():
        raise InitError(f"{data_file}: no such data file")
    if recipe_file.exists() or recipe_file.is_symlink():
        raise InitError(f"{recipe_file} exists; nothing was written (sdcflow init never "
                        "replaces a file: give another -o)")
    text = starter_recipe(data_file, recipe_file)
    try:
        with open(recipe_file, "x", encoding="utf-8") as out:
            out.write(text)
    except FileExistsError:
        raise InitError(f"{recipe_file} exists; nothing was written") from None
    except OSError as exc:
        raise InitError(f"cannot write {recipe_file}: {exc.strerror or exc}") from None
    return recipe_file
