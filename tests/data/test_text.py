"""Text columns (sdcflow.data.text), the storage conventions, and the pandas versions
sdcflow declares and tests."""

import ast
import re
import tomllib

import numpy as np
import pandas as pd
from helpers import ROOT
from packaging.requirements import Requirement
from packaging.version import Version

from sdcflow.data import TEXT, Dataset, Variable, as_declared, storage_problems, text_column
from sdcflow.data.text import is_text

PACKAGE = ROOT / "sdcflow"


def test_text_column_keeps_missing_values_missing():
    # None, NaN and pd.NA are all a missing value; pandas 2's astype("str") would have
    # written the first two as 'None' and 'nan'
    out = text_column(["a", None, np.nan, pd.NA, 7])
    assert out.dtype == TEXT and is_text(out)
    assert out.isna().tolist() == [False, True, True, True, False]
    assert out.dropna().tolist() == ["a", "7"]
    series = pd.Series(["x", None], index=[5, 9], dtype=object)
    again = text_column(series)
    assert again.index.tolist() == [5, 9] and again.isna().tolist() == [False, True]


def test_text_dtype_is_pandas_3_str():
    # the one text dtype is exactly what pandas 3 calls "str" (on pandas 2.3 "str" is
    # still numpy's object dtype, which is why TEXT is spelt out)
    if Version(pd.__version__).major >= 3:
        assert pd.Series(["a"], dtype="str").dtype == TEXT
    assert np.isnan(TEXT.na_value)


def test_dataset_holds_categorical_columns_as_text():
    # an object column (what pandas 2 reads back from Parquet) becomes text; numbers stay
    frame = pd.DataFrame({"c": pd.Series(["a", None], dtype=object), "n": [1.5, 2.0]})
    variables = {"c": Variable("c", "key", "categorical"),
                 "n": Variable("n", "numeric", "continuous")}
    data = Dataset(frame, variables)
    assert data.frame["c"].dtype == TEXT and data.frame["c"].isna().tolist() == [False, True]
    assert frame["c"].dtype == object  # the caller's frame is left as it was
    assert as_declared(data.frame, variables) is data.frame  # nothing left to convert
    assert storage_problems(data.frame, variables) == []
    assert storage_problems(frame, {"n": Variable("n", "numeric", "integer")}) == [
        "column 'n' (integer) is held as float64, not Int64"]


def _means_str(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "str") or (
        isinstance(node, ast.Constant) and node.value == "str")


def test_no_module_converts_to_text_with_str():
    # astype("str"), astype(str) and dtype="str" mean Python objects on pandas 2 and turn
    # a missing value into 'nan': every conversion goes through text_column / TEXT
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            astype = (isinstance(node.func, ast.Attribute) and node.func.attr == "astype"
                      and node.args and _means_str(node.args[0]))
            dtype = any(k.arg == "dtype" and _means_str(k.value) for k in node.keywords)
            if astype or dtype:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []


def _pandas_requirement() -> Requirement:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    [dep] = [d for d in project["dependencies"] if Requirement(d).name == "pandas"]
    return Requirement(dep)


def test_installed_pandas_is_inside_the_declared_range():
    # the suite proves sdcflow correct on the pandas it runs with: that must be one the
    # package allows
    assert Version(pd.__version__) in _pandas_requirement().specifier


def test_ci_tests_the_oldest_pandas_allowed():
    # a changed floor without a CI job on it is caught here: .ci/run's second job pins
    # the floor's release series (pandas==X.Y.*)
    floors = [s.version for s in _pandas_requirement().specifier if s.operator == ">="]
    assert len(floors) == 1
    floor = Version(floors[0])
    pins = re.findall(r"pandas==(\d+\.\d+)\.\*", (ROOT / ".ci" / "run").read_text())
    assert pins == [f"{floor.major}.{floor.minor}"] and floor.micro == 0


def test_the_docs_state_the_supported_pandas_range():
    # docs/development.md, "Supported versions" (the README's until issue 25)
    spec = str(_pandas_requirement().specifier)
    page = (ROOT / "docs" / "development.md").read_text()
    assert all(part in page for part in spec.split(","))
