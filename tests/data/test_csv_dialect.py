"""CSV files written the way many European offices write them: ';' between fields, ','
as the decimal mark, '.' grouping thousands, their own missing-value codes."""

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdcflow import run
from sdcflow.data import Variable, read_data
from sdcflow.data.convert import convert_column
from sdcflow.data.text import text_column
from sdcflow.errors import RecipeError

EUROPEAN = "region;income;persons\nN;1.234,5;3\nS;-0,25;.\nN;12.000.000;1\nS;7;-9\n"


def read(tmp_path: Path, text: str, variables, **spec):
    (tmp_path / "d.csv").write_text(text)
    return read_data({"path": "d.csv", **spec}, tmp_path, {v.name: v for v in variables})


VARS = [Variable("region", "key", "categorical"), Variable("income", "numeric", "continuous"),
        Variable("persons", "numeric", "integer")]


def test_decimal_comma_thousands_dot_and_missing_codes(tmp_path):
    data, _, findings = read(tmp_path, EUROPEAN, VARS, sep=";", decimal=",", thousands=".",
                             na_values=[".", -9])
    assert findings == []
    # by hand: '1.234,5' is 1234.5, '-0,25' is -0.25, '12.000.000' is twelve million
    assert data.frame["income"].tolist() == [1234.5, -0.25, 12_000_000.0, 7.0]
    assert data.frame["persons"].tolist()[0] == 3 and data.frame["persons"].isna().tolist() == [
        False, True, False, True]  # '.' and '-9' are missing in every column
    assert data.frame["region"].tolist() == ["N", "S", "N", "S"]  # text is left as written


def test_a_number_not_in_the_declared_form_is_reported_as_written(tmp_path):
    # '1.5' with ',' the decimal mark and '.' the thousands separator is not a number of
    # that form (a group of one digit); '2,5' is. The value is named as the file writes it.
    _, _, [finding] = read(tmp_path, "income\n2,5\n1.5\n", [VARS[1]], sep=";",
                           decimal=",", thousands=".")
    assert finding.path == ("variables", "income")
    assert finding.message == (
        "column 'income' is declared continuous but has non-numeric values such as '1.5'"
        " (numbers are read with decimal mark ',', thousands '.') (1 record: 2 (line 3))")


def test_a_point_is_not_a_number_when_comma_is_the_decimal_mark(tmp_path):
    _, _, [finding] = read(tmp_path, "income\n2,5\n3.75\n", [VARS[1]], sep=";", decimal=",")
    assert "'3.75'" in finding.message and "(1 record: 2 (line 3))" in finding.message


def test_thousands_in_integers_and_default_dialect_unchanged(tmp_path):
    data, _, findings = read(tmp_path, 'n\n"1,000"\n25\n',
                             [Variable("n", "numeric", "integer")], thousands=",")
    assert findings == [] and data.frame["n"].tolist() == [1000, 25]
    # without a thousands separator '1,000' is not a number (as before)
    _, _, [finding] = read(tmp_path, 'n\n"1,000"\n', [Variable("n", "numeric", "integer")])
    assert "non-numeric values such as '1,000'" in finding.message


@pytest.mark.parametrize("spec, where, words", [
    ({"decimal": ",", "thousands": ","}, ("data", "thousands"), "also the decimal mark"),
    ({"sep": ";", "delimiter": ","}, ("data", "sep"), "two names of the same setting"),
])
def test_contradictory_conventions_are_refused(tmp_path, spec, where, words):
    _, _, findings = read(tmp_path, "income\n1\n", [VARS[1]], **spec)
    assert [f.path for f in findings] == [where] and words in findings[0].message


def test_a_recipe_reads_a_decimal_comma_csv(tmp_path):
    (tmp_path / "people.csv").write_text(EUROPEAN, encoding="utf-8")
    recipe = tmp_path / "r.yaml"
    recipe.write_text(
        "sdcflow: 1\nname: eu\nseed: 1\n"
        "data: {path: people.csv, sep: ';', decimal: ',', thousands: '.',"
        " na_values: ['.', -9]}\n"
        "variables:\n  region: {role: key}\n  income: {role: numeric}\n"
        "  persons: {role: numeric, type: integer}\n"
        "steps:\n- {id: k, measure: k_anonymity, params: {k: 2}}\n"
        # the data are safe as they are: two people in each region
        "checks: ['k.violations[2] == 0']\n"
        "release: {path: people.csv}\n")
    result = run(recipe, tmp_path / "out")
    released = (tmp_path / "out" / "public" / "people.csv").read_text()
    assert released.splitlines()[1] == "N,1234.5,3"  # released in sdcflow's CSV
    assert result.data["income"].tolist()[2] == 12_000_000.0


def test_the_schema_refuses_an_unknown_decimal_mark(tmp_path):
    (tmp_path / "p.csv").write_text("income\n1\n")
    recipe = tmp_path / "r.yaml"
    recipe.write_text("sdcflow: 1\nname: eu\nseed: 1\ndata: {path: p.csv, decimal: ';'}\n"
                      "variables:\n  income: {role: numeric}\n"
                      "steps:\n- {id: k, measure: k_anonymity, params: {k: 2}}\n")
    with pytest.raises(RecipeError, match="decimal"):
        run(recipe, tmp_path / "out")


@given(st.lists(st.floats(-1e12, 1e12, allow_nan=False), min_size=1, max_size=20),
       st.integers(0, 4))
def test_european_text_reads_as_the_same_number(values, places):
    # 1234567.891 written '1.234.567,891' (Python's ',' grouping with the marks swapped)
    # reads as the number Python reads from '1234567.891'
    written = [f"{v:,.{places}f}".translate(str.maketrans(",.", ".,")) for v in values]
    plain = [float(f"{v:.{places}f}") for v in values]
    out, problems = convert_column(text_column(written), VARS[1], is_csv=True,
                                   dialect={"decimal": ",", "thousands": "."})
    assert problems == [] and out.tolist() == plain
