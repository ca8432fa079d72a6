"""Released numbers rounded to the recipe's digits when the release is written
(sdcflow.data.release_numbers)."""

import numpy as np
import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from sdcflow import run
from sdcflow.cli import main
from sdcflow.data.release_numbers import released_numbers


def test_digits_per_variable_release_default_and_integers():
    frame = pd.DataFrame({"a": [56066666.666666664, 1.25, np.nan], "b": [0.123456, 2.0, 3.5],
                          "n": [2.5, 3.5, 40.4], "code": ["1.234", "x", None]})
    out = released_numbers(frame, {"a": 0}, 2, integers=["n"])
    # by hand: a to 0 decimals -> integers (1.25 -> 1, NaN stays missing); b to the
    # release's 2 decimals; n declared integer -> half to even: 2.5 -> 2, 3.5 -> 4
    assert str(out["a"].dtype) == "Int64" and out["a"].tolist()[:2] == [56066667, 1]
    assert out["a"].isna().tolist() == [False, False, True]
    assert out["b"].tolist() == [0.12, 2.0, 3.5]
    assert out["n"].tolist() == [2, 4, 40] and str(out["n"].dtype) == "Int64"
    assert out["code"].equals(frame["code"])  # text is never touched
    assert released_numbers(frame, {}, None).equals(frame)  # nothing asked: unchanged
    # written: no 56066666.666666664
    assert out.to_csv(index=False).splitlines()[1] == "56066667,0.12,2,1.234"


@given(st.lists(st.floats(-1e12, 1e12), min_size=1, max_size=30), st.integers(0, 6))
def test_rounding_is_within_half_a_unit_and_idempotent(values, d):
    frame = pd.DataFrame({"x": values})
    once = released_numbers(frame, {"x": d}, None)
    x, v = once["x"].to_numpy(dtype=float), np.array(values)
    # half a unit of the d-th decimal, plus the spacing of doubles there (the rounded
    # decimal is stored as the nearest double)
    assert np.all(np.abs(x - v) <= 0.5 * 10.0**-d + 2 * np.spacing(np.abs(v)))
    assert released_numbers(once.astype({"x": float}), {"x": d}, None)["x"].tolist() == \
        once["x"].tolist()


RECIPE = """\
sdcflow: 1
name: digits
seed: 1
data: {builtin: testdata}
variables:
  sex: {role: key}
  age: {role: numeric, type: integer}
  income: {role: numeric, digits: 0}
  expend: {role: numeric}
steps:
- {id: m, method: microaggregation, params: {variables: [income, expend], k: 3}}
- {id: n, method: noise, params: {variables: [age], k: 0.1}}
release: {path: out.csv, digits: 1}
"""


def test_a_recipe_releases_rounded_numbers(tmp_path):
    recipe = tmp_path / "r.yaml"
    recipe.write_text(RECIPE)
    result = run(recipe, tmp_path / "out")
    released = pd.read_csv(tmp_path / "out" / "public" / "out.csv")
    text = (tmp_path / "out" / "public" / "out.csv").read_text()
    data = result.data
    # income to 0 decimals (its digits), expend to 1 (release.digits), age (declared
    # integer, made fractional by noise) to whole numbers; the run's own data unrounded
    assert released["income"].tolist() == np.round(data["income"].to_numpy()).tolist()
    assert released["expend"].tolist() == np.round(data["expend"].to_numpy(), 1).tolist()
    assert released["age"].tolist() == np.round(data["age"].to_numpy()).tolist()
    assert str(released["age"].dtype) == "int64" and str(released["income"].dtype) == "int64"
    assert ".666666" not in text and ".333333" not in text
    assert (data["income"] % 1 != 0).any()  # microaggregation made fractional means
    again = tmp_path / "again"
    run(recipe, again, use_cache=False)
    assert (again / "public" / "out.csv").read_bytes() == text.encode()


def test_digits_on_text_is_refused(tmp_path, capsys):
    recipe = tmp_path / "r.yaml"
    recipe.write_text(RECIPE.replace("sex: {role: key}", "sex: {role: key, digits: 1}"))
    assert main(["validate", str(recipe)]) == 1
    assert "variables.sex.digits: 'sex' is categorical; digits round numbers" in \
        capsys.readouterr().err
