"""SPSS, Stata and SAS transport files (sdcflow.data.stat_files): value labels and
user-missing codes in, the release written back in the input's format with its labels.
The files are written here with pyreadstat; the expected values are those written."""

import time
from pathlib import Path

import pandas as pd
import pytest

from sdcflow import run
from sdcflow.cli import main
from sdcflow.data import Variable, read_data, stat_files, write_table

pyreadstat = pytest.importorskip("pyreadstat")

SEX = {1: "male", 2: "female", 9: "refused"}
REGION = {1: "North", 2: "South"}
VARIABLES = {"sex": Variable("sex", "key", "categorical"),
             "region": Variable("region", "key", "categorical"),
             "income": Variable("income", "numeric", "continuous"),
             "name": Variable("name", "identifier", "categorical")}


def people() -> pd.DataFrame:
    return pd.DataFrame({"sex": [1.0, 2, 1, 2, 1, 2, 9, 1],
                         "region": [1.0, 1, 2, 2, 1, 2, 1, 1],
                         "income": [1500.5, 2200, 1800, 99999, 2100, 1900.25, 2000, 2600],
                         "name": list("abcdefgh")})


def write_sav(path: Path) -> Path:
    # 9 ("refused") is a user-missing code of sex, 99999 one of income
    pyreadstat.write_sav(people(), str(path), column_labels={"sex": "Sex of respondent"},
                         variable_value_labels={"sex": SEX, "region": REGION},
                         missing_ranges={"sex": [9], "income": [99999]})
    return path


def test_sav_codes_labels_and_user_missing(tmp_path):
    write_sav(tmp_path / "p.sav")
    data, source, findings = read_data({"path": "p.sav"}, tmp_path, VARIABLES)
    assert findings == []
    frame = data.frame
    # codes stored as numbers read as codes ('1', not '1.0'); user-missing codes missing
    assert frame["sex"].tolist()[:6] == ["1", "2", "1", "2", "1", "2"]
    assert frame["sex"].isna().tolist() == [False] * 6 + [True, False]
    assert frame["income"].isna().tolist() == [False, False, False, True] + [False] * 4
    assert frame["income"][5] == 1900.25 and frame["name"][0] == "a"
    assert source["value_labels"] == {"sex": {"1": "male", "2": "female", "9": "refused"},
                                      "region": {"1": "North", "2": "South"}}
    assert source["variable_labels"] == {"sex": "Sex of respondent"}


@pytest.mark.parametrize("fmt", ["sav", "zsav", "dta", "xpt"])
def test_each_written_format_reads_back_the_same(tmp_path, fmt):
    write_sav(tmp_path / "p.sav")
    data, source, _ = read_data({"path": "p.sav"}, tmp_path, VARIABLES)
    write_table(data.frame, tmp_path / f"out.{fmt}", fmt, source)
    again, source2, findings = read_data({"path": f"out.{fmt}"}, tmp_path, VARIABLES)
    assert findings == []
    pd.testing.assert_frame_equal(again.frame, data.frame)
    assert source2["variable_labels"] == {"sex": "Sex of respondent"}
    # SAS transport files have no value labels; the others carry them
    assert source2.get("value_labels") == (None if fmt == "xpt" else source["value_labels"])


@pytest.mark.parametrize("fmt, stamp", [("sav", b"01 Jan 7000:00:00"),
                                         ("zsav", b"01 Jan 7000:00:00"),
                                         ("dta", b"01 Jan 1970 00:00"),
                                         ("xpt", b"01JAN70:00:00:00")])
def test_written_files_do_not_depend_on_the_time_of_writing(tmp_path, fmt, stamp):
    # ReadStat stamps the time of writing into the header; the release must be the same
    # bytes for the same recipe and input, so the stamp is 1 January 1970 (and no part of
    # the year of writing is left)
    write_sav(tmp_path / "p.sav")
    data, source, _ = read_data({"path": "p.sav"}, tmp_path, VARIABLES)
    write_table(data.frame, tmp_path / f"a.{fmt}", fmt, source)
    time.sleep(1.1)  # (the stamp counts seconds in SPSS and SAS files)
    write_table(data.frame, tmp_path / f"b.{fmt}", fmt, source)
    a, b = (tmp_path / f"a.{fmt}").read_bytes(), (tmp_path / f"b.{fmt}").read_bytes()
    assert a == b and stamp in a
    assert time.strftime("%Y").encode() not in a[:1000]


def test_a_recoded_column_is_written_as_text_without_the_old_labels(tmp_path):
    meta = {"value_labels": {"region": {"1": "North", "2": "South"}},
            "numeric_codes": ["region"]}
    frame = pd.DataFrame({"region": pd.Series(["1-2", "1-2", None], dtype=object)})
    stat_files.write_stat_file(frame, tmp_path / "r.sav", "sav", meta)
    back, m = pyreadstat.read_sav(str(tmp_path / "r.sav"))
    assert back["region"].tolist() == ["1-2", "1-2", ""] and not m.variable_value_labels


def test_dta_and_xpt_input(tmp_path):
    frame = pd.DataFrame({"sex": [1, 2, 2], "income": [10.5, 11.0, 12.25]})
    pyreadstat.write_dta(frame, str(tmp_path / "p.dta"),
                         variable_value_labels={"sex": {1: "male", 2: "female"}})
    pyreadstat.write_xport(frame, str(tmp_path / "p.xpt"))
    variables = {k: VARIABLES[k] for k in ("sex", "income")}
    for name in ("p.dta", "p.xpt"):
        data, source, findings = read_data({"path": name}, tmp_path, variables)
        assert findings == [] and data.frame["sex"].tolist() == ["1", "2", "2"]
        assert data.frame["income"].tolist() == [10.5, 11.0, 12.25]
    assert source.get("value_labels") is None  # (xpt: none)


def test_a_missing_column_and_an_unreadable_file(tmp_path):
    write_sav(tmp_path / "p.sav")
    _, _, findings = read_data({"path": "p.sav"}, tmp_path,
                               {"sexx": Variable("sexx", "key", "categorical")})
    assert [f.message for f in findings] == [
        "variable 'sexx' is not a column of the data (did you mean 'sex'?)"]
    (tmp_path / "bad.sav").write_bytes(b"not an SPSS file at all")
    _, _, [finding] = read_data({"path": "bad.sav"}, tmp_path, VARIABLES)
    assert finding.message.startswith("cannot read the sav file: ")


def test_without_pyreadstat_the_message_names_the_extra(tmp_path, monkeypatch):
    write_sav(tmp_path / "p.sav")
    monkeypatch.setattr(stat_files, "load_pyreadstat", lambda: None)
    _, _, [finding] = read_data({"path": "p.sav"}, tmp_path, VARIABLES)
    assert finding.path == ("data", "path")
    assert finding.message == (
        "reading or writing sav files needs the optional extra sdcflow[formats] (pip install"
        " 'sdcflow[formats]', which brings pyreadstat): pyreadstat is not installed")


RECIPE = """\
sdcflow: 1
name: spss
seed: 3
data: {path: p.sav}
variables:
  name: {role: identifier}
  sex: {role: key}
  region: {role: key}
  income: {role: numeric}
steps:
- {id: top, method: top_bottom_code, params: {variable: income, top: {value: 2500}}}
- {id: k, measure: k_anonymity, params: {k: 2}}
release: {path: RELEASE}
"""


def test_an_spss_file_round_trips_through_a_recipe_with_its_labels(tmp_path):
    write_sav(tmp_path / "p.sav")
    recipe = tmp_path / "r.yaml"
    recipe.write_text(RECIPE.replace("RELEASE", "people.sav"))
    run(recipe, tmp_path / "out")
    back, meta = pyreadstat.read_sav(str(tmp_path / "out" / "public" / "people.sav"))
    assert list(back.columns) == ["sex", "region", "income"]  # the identifier is dropped
    assert meta.variable_value_labels == {"sex": {1.0: "male", 2.0: "female", 9.0: "refused"},
                                          "region": {1.0: "North", 2.0: "South"}}
    assert meta.column_names_to_labels["sex"] == "Sex of respondent"
    assert back["sex"].tolist()[:6] == [1.0, 2.0, 1.0, 2.0, 1.0, 2.0]
    assert back["sex"].isna().tolist()[6]  # the user-missing 'refused' is missing
    # top coding at 2500: 2600 -> 2500 (by hand); the user-missing 99999 stays missing
    assert back["income"].tolist()[-1] == 2500.0 and pd.isna(back["income"][3])
    report = (tmp_path / "out" / "report.html").read_text()
    assert "<td>1 (male)</td>" in report and "<td>2 (South)</td>" in report


def test_a_sas_data_set_cannot_be_released(tmp_path, capsys):
    write_sav(tmp_path / "p.sav")
    recipe = tmp_path / "r.yaml"
    recipe.write_text(RECIPE.replace("RELEASE", "people.sas7bdat"))
    assert main(["validate", str(recipe)]) == 1
    err = capsys.readouterr().err
    assert "SAS data sets (.sas7bdat) cannot be written; release a SAS transport file" in err


def _csv_released_as_dta(tmp_path):
    """A CSV file whose recipe labels sex and releases the data as Stata's dta."""
    (tmp_path / "p.csv").write_text("sex,income\n1,10.5\n2,11\n1,12\n2,13\n")
    recipe = tmp_path / "r.yaml"
    recipe.write_text(
        "sdcflow: 1\nname: csvsav\nseed: 1\ndata: {path: p.csv}\n"
        "variables:\n  sex: {role: key, labels: {1: male, 2: female}}\n"
        "  income: {role: numeric}\n"
        "steps:\n- {id: k, measure: k_anonymity, params: {k: 2}}\n"
        "checks: ['k.violations[2] == 0']\n"  # safe as they are: two of each sex
        "release: {path: p.dta}\n")
    return recipe


def test_a_csv_input_released_as_sav_carries_the_recipe_labels(tmp_path):
    recipe = _csv_released_as_dta(tmp_path)
    run(recipe, tmp_path / "out")
    back, meta = pyreadstat.read_dta(str(tmp_path / "out" / "public" / "p.dta"))
    assert back["sex"].tolist() == [1, 2, 1, 2] and back["income"].tolist()[1] == 11.0
    assert meta.variable_value_labels == {"sex": {1: "male", 2: "female"}}


def test_a_dask_release_in_a_statistics_format_carries_the_labels(tmp_path):
    # the Dask engine writes one file per partition: each has the labels, as in memory
    recipe = _csv_released_as_dta(tmp_path)
    run(recipe, tmp_path / "out", engine="dask", workers=1)
    back, meta = pyreadstat.read_dta(str(tmp_path / "out" / "public" / "p.dta" /
                                         "part-00000.dta"))
    assert back["sex"].tolist() == [1, 2, 1, 2] and back["income"].tolist()[1] == 11.0
    assert meta.variable_value_labels == {"sex": {1: "male", 2: "female"}}


def test_labels_as_categories_and_back_to_codes_in_the_release(tmp_path):
    write_sav(tmp_path / "p.sav")
    data, source, findings = read_data({"path": "p.sav", "value_labels": "labels"}, tmp_path,
                                       VARIABLES)
    assert findings == [] and source["categories"] == "labels"
    # the labels written above; 'refused' (9) is user-missing, so missing
    assert data.frame["sex"].tolist()[:3] == ["male", "female", "male"]
    assert data.frame["region"].tolist()[:3] == ["North", "North", "South"]
    recipe = tmp_path / "r.yaml"
    recipe.write_text(RECIPE.replace("RELEASE", "people.sav").replace(
        "data: {path: p.sav}", "data: {path: p.sav, value_labels: labels}"))
    run(recipe, tmp_path / "out")
    back, meta = pyreadstat.read_sav(str(tmp_path / "out" / "public" / "people.sav"))
    assert back["sex"].tolist()[:3] == [1.0, 2.0, 1.0]  # codes again, with their labels
    assert back["region"].tolist()[:3] == [1.0, 1.0, 2.0]
    assert meta.variable_value_labels["region"] == {1.0: "North", 2.0: "South"}


def test_recipe_labels_as_categories_of_a_csv(tmp_path):
    (tmp_path / "p.csv").write_text("sex\n1\n2\n3\n")
    data, _, _ = read_data({"path": "p.csv", "value_labels": "labels"}, tmp_path,
                           {"sex": Variable("sex", "key", "categorical",
                                            labels={1: "male", 2: "female"})})
    assert data.frame["sex"].tolist() == ["male", "female", "3"]  # 3 has no label
