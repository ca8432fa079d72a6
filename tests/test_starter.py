"""``sdcflow init DATAFILE`` (sdcflow.starter): a starter recipe that validates."""

import shutil
from pathlib import Path

import pandas as pd
import yaml
from helpers import validate_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sdcflow.cli import main
from sdcflow.data.io import builtin_path
from sdcflow.starter import guess_column


def _init(tmp_path, capsys, data, *extra: str) -> tuple[int, str]:
    code = main(["init", str(data), *extra])
    return code, capsys.readouterr()


def test_init_on_testdata_validates_and_guesses_conservatively(tmp_path, capsys, monkeypatch):
    data = tmp_path / "data" / "testdata.csv"
    data.parent.mkdir()
    shutil.copy(builtin_path("testdata"), data)
    monkeypatch.chdir(tmp_path)
    assert main(["init", str(data), "-o", "survey.yaml"]) == 0
    assert "wrote survey.yaml" in capsys.readouterr().out
    recipe = tmp_path / "survey.yaml"
    code, err = validate_cli(recipe, capsys)
    assert code == 0, err
    doc = yaml.safe_load(recipe.read_text())
    variables = doc["variables"]
    # testdata: urbrur has 2 values (1, 2); age is a number an intruder knows; income has
    # 1346 distinct values; ori_hid is the household id; sampling_weight the weight
    assert variables["urbrur"] == {"role": "key", "type": "categorical"}
    assert variables["age"] == {"role": "key", "type": "integer"}
    assert variables["income"] == {"role": "numeric", "type": "continuous"}
    assert variables["ori_hid"]["role"] == "identifier"
    assert variables["sampling_weight"] == {"role": "weight", "type": "continuous"}
    # one weight per recipe: the second weight column is declared numeric
    assert variables["household_weights"]["role"] == "numeric"
    assert doc["data"] == {"path": "data/testdata.csv"}  # relative to the recipe
    assert doc["steps"] == [{"id": "risk", "measure": "k_anonymity",
                             "params": {"k": [2, 3, 5]}}]
    assert doc["release"] == {"path": "testdata-protected.csv"}
    assert recipe.read_text().count("# check this:") == len(variables)
    # and it plans and would run
    assert main(["run", "--dry-run", str(recipe)]) == 0


def test_init_never_overwrites(tmp_path, capsys):
    data = tmp_path / "d.csv"
    data.write_text("sex,age\n1,30\n2,40\n")
    target = tmp_path / "recipe.yaml"
    target.write_text("mine\n")
    assert main(["init", str(data), "-o", str(target)]) == 1
    err = capsys.readouterr().err
    assert f"{target} exists; nothing was written" in err
    assert target.read_text() == "mine\n"


def test_init_parquet_and_names_that_need_quotes(tmp_path, capsys):
    frame = pd.DataFrame({"region": ["north", "south", "north", "east"] * 5,
                          "yes": ["a", "b"] * 10,
                          "weekly pay": [100.5 + 7 * i for i in range(20)],
                          "PersonName": [f"person {i}" for i in range(20)]})
    data = tmp_path / "d.parquet"
    frame.to_parquet(data)
    recipe = tmp_path / "r.yaml"
    assert main(["init", str(data), "-o", str(recipe)]) == 0
    capsys.readouterr()
    code, err = validate_cli(recipe, capsys)
    assert code == 0, err
    doc = yaml.safe_load(recipe.read_text())
    assert doc["data"] == {"path": "d.parquet", "format": "parquet"}
    assert doc["variables"]["yes"] == {"role": "key", "type": "categorical"}
    assert doc["variables"]["PersonName"]["role"] == "identifier"
    # 20 distinct numbers: not more than NUMERIC_MIN_DISTINCT (20), so a key, but with
    # decimals, so still continuous
    assert doc["variables"]["weekly pay"] == {"role": "key", "type": "continuous"}


def test_init_missing_data_file(tmp_path, capsys):
    assert main(["init", str(tmp_path / "nope.csv"), "-o", str(tmp_path / "r.yaml")]) == 1
    assert "nope.csv: no such data file" in capsys.readouterr().err
    assert not (tmp_path / "r.yaml").exists()


def test_guess_column():
    def guess(name, values):
        g = guess_column(name, pd.Series(values, dtype=object))
        return g.role, g.type

    # codes written with a leading zero stay categorical (08 is not the number 8)
    assert guess("region", ["01", "08", "10"]) == ("key", "categorical")
    assert guess("CustomerID", ["1", "2", "3"]) == ("identifier", "integer")
    assert guess("hh_id", ["1", "2", "3"])[0] == "identifier"
    assert guess("height", [str(150 + i / 2) for i in range(40)]) == ("numeric", "continuous")
    assert guess("birth_year", [str(1950 + i) for i in range(40)]) == ("key", "integer")
    # free text, a value per record: an identifier (dropped) rather than a key
    assert guess("comment", [f"text {i}" for i in range(60)]) == ("identifier", "categorical")
    # missing values are ignored when typing
    assert guess("sex", ["1", None, "2"]) == ("key", "categorical")


_NAMES = st.text(alphabet="abcxyz_ #:-Id0", min_size=1, max_size=8).filter(
    lambda n: n.strip() == n and not n.startswith("#"))
_COLUMN = st.one_of(
    st.lists(st.integers(-5, 5), min_size=8, max_size=8),
    st.lists(st.floats(-1e6, 1e6, allow_nan=False).map(lambda x: round(x, 2)),
             min_size=8, max_size=8),
    st.lists(st.sampled_from(["a", "b", "08", "x y", ""]), min_size=8, max_size=8),
)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(_NAMES, _COLUMN, min_size=1, max_size=4))
def test_every_starter_recipe_validates(tmp_path, capsys, columns):
    # invariant: whatever the columns, `sdcflow init` either writes a recipe that
    # validates, or says why it cannot (exit 1, no file)
    import tempfile

    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    data = folder / "d.csv"
    pd.DataFrame(columns).to_csv(data, index=False)
    recipe = folder / "r.yaml"
    code = main(["init", str(data), "-o", str(recipe)])
    err = capsys.readouterr().err
    if code == 1:
        assert "sdcflow: " in err and not recipe.exists()
        return
    assert code == 0
    code, problems = validate_cli(recipe, capsys)
    assert code == 0, "\n".join(problems) + "\n" + recipe.read_text()
