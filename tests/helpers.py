"""Shared test helpers (importable as ``helpers``: tests/ is on pytest's pythonpath)."""

from pathlib import Path

import pandas as pd

from sdcflow.data import Dataset, Variable

ROOT = Path(__file__).resolve().parents[1]
QUICKSTART = ROOT / "recipes" / "quickstart.yaml"

TESTDATA_KEYS = {
    "urbrur": "categorical", "water": "categorical", "sex": "categorical",
    "age": "integer", "relat": "categorical",
}
def small_dataset(**columns) -> Dataset:
    """A Dataset from keyword columns: name=(role, type, values)."""
    frame = {}
    variables = {}
    for name, (role, typ, values) in columns.items():
        if typ in ("categorical", "ordinal"):
            frame[name] = pd.Series(values, dtype="str")
        elif typ == "integer":
            frame[name] = pd.Series(values, dtype="Int64")
        else:
            frame[name] = pd.Series(values, dtype="float64")
        variables[name] = Variable(name, role, typ)
    return Dataset(pd.DataFrame(frame), variables)
