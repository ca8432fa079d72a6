"""Shared test helpers (importable as ``helpers``: tests/ is on pytest's pythonpath)."""

from pathlib import Path

import pandas as pd

from sdcflow.data import Dataset, Variable
from sdcflow.data.text import TEXT

ROOT = Path(__file__).resolve().parents[1]
QUICKSTART = ROOT / "recipes" / "quickstart.yaml"

TESTDATA_KEYS = {
    "urbrur": "categorical", "water": "categorical", "sex": "categorical",
    "age": "integer", "relat": "categorical",
}
def output_files(root: Path, *, run_log: bool = False) -> dict[str, bytes]:
    """Every file of an output directory with its bytes (without the run log, the one
    file that differs between runs, unless ``run_log``)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and (run_log or p.name != "run.json")}


def validate_cli(path: Path, capsys) -> tuple[int, list[str]]:
    """``sdcflow validate PATH``: its exit code and the lines it printed on stderr (never
    a traceback)."""
    from sdcflow.cli import main

    code = main(["validate", str(path)])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err.splitlines()


def small_dataset(**columns) -> Dataset:
    """A Dataset from keyword columns: name=(role, type, values)."""
    frame = {}
    variables = {}
    for name, (role, typ, values) in columns.items():
        if typ in ("categorical", "ordinal"):
            frame[name] = pd.Series(values, dtype=TEXT)
        elif typ == "integer":
            frame[name] = pd.Series(values, dtype="Int64")
        else:
            frame[name] = pd.Series(values, dtype="float64")
        variables[name] = Variable(name, role, typ)
    return Dataset(pd.DataFrame(frame), variables)

# A sweep of local suppression (k = 2, 3, 5) with a score per variant: an R-U map.
SWEEP_RECIPE = """
sdcflow: 1
name: sweep
seed: 1
data: {builtin: testdata}
variables:
  urbrur: {role: key}
  water: {role: key}
  sex: {role: key}
  age: {role: key, type: integer}
  relat: {role: key}
steps:
  - {id: age10, method: global_recode,
     params: {variable: age, breaks: [0, 9, 19, 29, 39, 49, 59, 69, 79, 130]}}
  - {id: kanon, method: local_suppression, grid: {k: [2, 3, 5]}}
  - {id: risk, measure: k_anonymity, params: {k: 5}}
  - {id: supp, measure: suppressions, params: {reference: age10}}
  - {id: sc, measure: score, params: {il: "supp.total / 10", dr: "risk.percent[5]"}}
"""


# sdcMicro tests/testthat/test_suda2.R, "suda2 sdc guideline"
SUDA_GUIDELINE = {
    "Residence": ["Urban"] * 4 + ["Rural"] + ["Urban"] * 5,
    "Gender": ["Female", "Female", "Female", "Male", "Female", "Male", "Female", "Male",
               "Female", "Female"],
    "Education": ["Secondary incomplete", "Secondary incomplete", "Primary incomplete",
                  "Secondary complete", "Secondary complete", "Secondary complete",
                  "Primary complete", "Post-secondary", "Secondary incomplete",
                  "Secondary incomplete"],
    "Labor": ["Employed", "Employed", "Non-LF", "Employed", "Unemployed", "Employed",
              "Non-LF", "Unemployed", "Non-LF", "Non-LF"],
}


# eight records of two key variables with a record key each: the cell key table worked
# out by hand in tests/methods/tabular/test_cell_key_method.py
CELL_KEY_RECORDS = """g,h,rkey
A,x,0.6
A,y,0.3
A,y,0.4
B,x,0.9
B,x,0.8
B,x,0.7
B,x,0.05
B,y,0.95
"""
