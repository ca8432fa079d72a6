"""``sdcflow init DATAFILE``: a starter recipe guessed from a data file.

Each column gets a type read from its values (integer, continuous, categorical) and a
role guessed conservatively, erring towards dropping a column rather than publishing it:
names that look like identifiers (``id``, ``name``, ``email``, ``CASEID``, ``PERSID``,
``SERIALNO``, ...), text with nearly one value per record and whole numbers with one value
per record become identifiers (dropped from every release); an identifier-like name of
households (``hhid``, ``SERIALNO``) whose values repeat becomes the household id (replaced
in the release); weights by name; numbers with many distinct values become numeric;
columns with few distinct values become key variables. Every guess is marked "check
this" in a comment.

A starter recipe never releases the data unchanged: it protects them as a first release
of microdata usually is (Hundepool et al., "Statistical Disclosure Control", 2012, ch. 3;
Templ, "Statistical Disclosure Control for Microdata", 2017): local suppression to
3-anonymity of the key variables and, where there are numeric variables, MDAV
microaggregation of them in groups of 3, with k-anonymity measured before and after and a
check that every released record is 3-anonymous. It reads every format ``sdcflow run``
reads (CSV, Parquet, SPSS, Stata, SAS)."""

from __future__ import annotations

import json
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..data import Variable
from ..data.text import text_column
from ..errors import SdcflowError

KEY_MAX_CATEGORIES = 50  # at most this many distinct values: a key variable
NUMERIC_MIN_DISTINCT = 20  # numbers with more distinct values: a numeric variable
_IDENTIFIER_WORDS = {"id", "ident", "identifier", "name", "firstname", "lastname",
                     "surname", "email", "mail", "phone", "telephone", "ssn", "passport",
                     "address", "street", "uuid", "guid", "serial", "serialno", "seqn",
                     "nino", "iban"}
# what an identifier numbers, written before id/no/nr/num without a separator
# (CASEID, PERSID, RESPID, SERIALNO, HHNR, recordnum)
_NUMBERED = {"case", "pers", "person", "resp", "respondent", "rec", "record", "row", "subj",
             "subject", "patient", "member", "ind", "indiv", "individual", "emp", "employee",
             "cust", "customer", "client", "user", "acct", "account", "student", "interview",
             "obs", "unit", "serial", "seq", "sample", "hh", "household", "house", "dwelling",
             "dw", "fam", "family", "h", "p", "r"}
_ID_SUFFIXES = ("id", "no", "nr", "num", "number")
# an identifier of households (its values repeat over the members): role household
# (hhid, HID, SERIALNO, household_number, famnr)
_HOUSEHOLD_WORDS = {"hh", "household", "house", "dwelling", "dw", "family", "fam", "serial",
                    "h"}
UNIQUE_MIN_RECORDS = 10  # a column with one value per record, in at least this many
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
    return any(_identifier_word(w) for w in _words(name))


def _identifier_word(word: str) -> bool:
    """``id``, ``hhid``, ``persid``, ``serialno``, ``caseno``: a word naming an identifier."""
    if word in _IDENTIFIER_WORDS or (word.endswith("id") and len(word) <= 5):
        return True
    return any(word.endswith(suffix) and word[:-len(suffix)] in _NUMBERED
               for suffix in _ID_SUFFIXES)


def _looks_like_household(name: str) -> bool:
    return any(w in _HOUSEHOLD_WORDS or any(w.endswith(s) and w[:-len(s)] in _HOUSEHOLD_WORDS
                                            for s in _ID_SUFFIXES) for w in _words(name))


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
    unique = len(present) >= UNIQUE_MIN_RECORDS and distinct == len(values)
    if _looks_like_identifier(name):
        if _looks_like_household(name) and distinct < len(present):
            return Guess(name, "household", kind, f"its name looks like a household id and "
                         f"{len(present)} records have {distinct} values: the household id "
                         "(replaced by new numbers in the release)")
        return Guess(name, "identifier", kind, "its name looks like an identifier: "
                     "dropped from every release (a household id: role household)")
    if unique and not set(_words(name)) & _KNOWN_WORDS and (
            kind == "categorical" or (kind == "integer" and _numbers_records(present))):
        what = ("a distinct value" if kind == "categorical"
                else "a distinct whole number, numbered in order or densely,")
        return Guess(name, "identifier", kind, f"{what} per record: an identifier, dropped "
                     "from every release (a measurement: role numeric)")
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


def _numbers_records(values: pd.Series) -> bool:
    """Whether distinct whole numbers look like record numbers rather than a measurement:
    increasing in file order (1, 2, 3, ...; 2019000123, 2019000150, ...) or dense (at
    most twice as many numbers in their range as records: a shuffled 1..n)."""
    numbers = pd.to_numeric(values.str.strip(), errors="coerce").to_numpy()
    if len(numbers) < 2 or pd.isna(numbers).any():
        return False
    steps = numbers[1:] - numbers[:-1]
    return bool((steps > 0).all() or (steps < 0).all()
                or numbers.max() - numbers.min() + 1 <= 2 * len(numbers))


def read_columns(path: Path) -> tuple[pd.DataFrame, str]:
    """The columns of a data file as text, read as ``sdcflow run`` reads data (CSV,
    Parquet, SPSS, Stata or SAS, by the file's suffix), and its format."""
    from ..data.csv_input import read_csv_text
    from ..data.io import table_format
    from ..data.parquet_input import read_parquet_text
    from ..data.recipe_files import RecipeFileError, command_line_file
    from ..data.stat_files import STAT_FORMATS, read_stat_text

    fmt = table_format({}, path)
    try:
        file = command_line_file(path)
    except RecipeFileError as exc:
        raise InitError(exc.message) from None
    if fmt == "csv":
        header, findings = read_csv_text(file, {}, [])
        raw, more = (read_csv_text(file, {}, header.names) if header else (None, []))
    else:
        def read(variables):
            if fmt in STAT_FORMATS:
                table, _, found = read_stat_text(file, fmt, variables)
                return table, found
            return read_parquet_text(file, variables)

        header, findings = read({})
        wanted = {n: Variable(n, "key", "categorical") for n in header.names} if header else {}
        raw, more = read(wanted) if header else (None, [])
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
    households = [g for g in guesses if g.role == "household"]
    for g in households[1:]:  # and at most one household id
        g.role, g.why = "identifier", (f"a household id too, but the household id is "
                                       f"{households[0].name}: dropped")
    keys = [g for g in guesses if g.role == "key"]
    if not keys:
        raise InitError(f"{data_file}: no column looks like a key variable (few distinct "
                        "values), so there is no k-anonymity to measure; write the recipe "
                        "by hand (see the recipe guide, docs/recipe-guide.md)")
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
        # a key drawn at random, too large to be found by trying seeds (a small seed can
        # be, from a few values an intruder knows: see docs/outputs.md)
        (f"seed: {secrets.randbits(63)}  # the key of every random draw: keep it internal "
         "and unchanged"),
        *([(f"# the data lie outside this recipe's folder: give --allow-path "
            f"{json.dumps(str(data_file.resolve().parent))} to validate and run it (or move "
            "the recipe next to the data)")] if relative.parts[:1] == ("..",) else []),
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
        "  - id: risk_original  # the disclosure risk of the data as they are",
        "    measure: k_anonymity",
        "    input: original",
        "    params: {k: [2, 3, 5]}",
        "  # Protection. Recoding first loses less than suppressing alone, e.g. (see",
        "  # 'sdcflow methods global_recode'):",
        "  # - {id: recode, method: global_recode, params: {variable: NAME, width: 10}}",
        "  - id: suppress  # every record shares its key values with at least 2 others",
        "    method: local_suppression",
        "    params: {k: 3}",
    ]
    if any(g.role == "numeric" for g in guesses):
        lines += [
            "  - id: micro  # numeric values replaced by means of groups of 3 similar records",
            "    method: microaggregation",
            "    params: {k: 3, algorithm: mdav}",
        ]
    suffix = data_file.suffix.lower() if fmt != "csv" else ".csv"
    lines += [
        "  - id: risk  # the disclosure risk of what is released",
        "    measure: k_anonymity",
        "    params: {k: [2, 3, 5]}",
        "checks:  # nothing is released unless every check holds",
        "  - {expr: \"risk.violations[3] == 0\", message: \"a released record is not 3-anonymous\"}",
        f"release: {{path: {json.dumps(stem + '-protected' + suffix)}, measures: [risk]}}",
    ]
    return "\n".join(lines) + "\n"


def write_starter(data_file: str | Path, recipe_file: str | Path) -> Path:
    """Write the starter recipe; never replaces an existing file (:class:`InitError`)."""
    data_file, recipe_file = Path(data_file), Path(recipe_file)
    if not data_file.exists():  # (a folder, a pipe: refused, unread, as recipe_files says)
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
