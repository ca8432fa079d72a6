"""``sdcflow init DATAFILE`` (sdcflow.cli.starter): a starter recipe that validates."""

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from helpers import validate_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sdcflow.cli import main
from sdcflow.cli.starter import guess_column
from sdcflow.data.io import builtin_path


def _init(tmp_path, capsys, data, *extra: str) -> tuple[int, str]:
    code = main(["init", str(data), *extra])
    return code, capsys.readouterr()


def test_init_draws_a_seed_too_large_to_be_found_by_trying(tmp_path, capsys):
    # a small seed (the 1 init wrote before) is found by trying seeds against a few values
    # an intruder knows; each starter gets its own 63-bit one
    data = tmp_path / "testdata.csv"
    shutil.copy(builtin_path("testdata"), data)
    seeds = []
    for name in ("a.yaml", "b.yaml"):
        assert main(["init", str(data), "-o", str(tmp_path / name)]) == 0
        seeds.append(yaml.safe_load((tmp_path / name).read_text())["seed"])
    capsys.readouterr()
    assert seeds[0] != seeds[1]
    assert all(isinstance(s, int) and 2**20 < s < 2**63 for s in seeds)


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
    # ori_hid numbers the 1000 households of the 4580 persons: the household id
    assert variables["ori_hid"]["role"] == "household"
    assert variables["sampling_weight"] == {"role": "weight", "type": "continuous"}
    # one weight per recipe: the second weight column is declared numeric
    assert variables["household_weights"]["role"] == "numeric"
    assert doc["data"] == {"path": "data/testdata.csv"}  # relative to the recipe
    # never the data unchanged: local suppression to 3-anonymity, MDAV of the numbers,
    # k-anonymity before and after, and a check that every released record is 3-anonymous
    assert [(s["id"], s.get("method") or s.get("measure")) for s in doc["steps"]] == [
        ("risk_original", "k_anonymity"), ("suppress", "local_suppression"),
        ("micro", "microaggregation"), ("risk", "k_anonymity")]
    assert doc["steps"][0]["input"] == "original"
    assert doc["checks"] == [{"expr": "risk.violations[3] == 0",
                              "message": "a released record is not 3-anonymous"}]
    assert doc["release"] == {"path": "testdata-protected.csv", "measures": ["risk"]}
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
    # names in capitals, run together, as survey files write them
    for name in ("CASEID", "PERSID", "SERIALNO", "RESPID", "RECORDNO", "PERSNR", "HHID",
                 "UUID", "caseNo", "Respondent_Number"):
        assert guess(name, [str(10 * i + 3) for i in range(30)])[0] == "identifier", name
    # not identifiers: words that merely end like one
    for name in ("region", "tenure", "Zone", "RATIO"):
        assert guess(name, ["1", "2"] * 15)[0] == "key", name
    # a household id (its values repeat over the members): the household role, whose
    # values the release replaces; the same name with one value per record: an identifier
    members = [str(h) for h in (1, 1, 2, 2, 2, 3, 4, 4, 5, 5, 5, 5)]
    for name in ("SERIALNO", "hhid", "HHNR", "household_id", "ori_hid"):
        assert guess(name, members)[0] == "household", name
    assert guess("PERSID", members)[0] == "identifier"
    # one whole number per record, in file order or dense (a shuffled 1..n): record
    # numbers, whatever the name; scattered distinct numbers are a measurement
    rng = np.random.default_rng(3)
    assert guess("q0", [str(v) for v in range(500, 530)])[0] == "identifier"
    assert guess("q0", [str(v) for v in rng.permutation(30) + 1])[0] == "identifier"
    scattered = [str(v) for v in rng.integers(0, 10**6, 40)]
    assert len(set(scattered)) == 40
    assert guess("q0", scattered) == ("numeric", "integer")
    # distinct text in every record (names, comments): an identifier even when few
    assert guess("nom", [f"person {i}" for i in range(12)])[0] == "identifier"
    # ages are known to intruders: a key even when each record has its own
    assert guess("age", [str(v) for v in range(20, 45)])[0] == "key"
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


def _survey(n: int = 120) -> pd.DataFrame:
    """A small survey as offices' files hold it: a case number, a household serial number
    repeated over the members, keys, and incomes (seeded)."""
    rng = np.random.default_rng(7)
    households = np.repeat(np.arange(1, n // 3 + 1), 3)[:n]
    return pd.DataFrame({
        "CASEID": np.arange(1001, 1001 + n),
        "SERIALNO": 2019000000 + households,
        "REGION": rng.choice(["north", "south", "east"], n),
        "SEX": rng.choice([1, 2], n),
        "AGEGRP": rng.choice([1, 2, 3, 4, 5, 6], n),
        "INCOME": np.round(rng.lognormal(10, 0.6, n), 2),
    })


@pytest.mark.parametrize("suffix", [".sav", ".dta", ".xpt", ".parquet"])
def test_init_reads_every_format_run_reads(tmp_path, capsys, suffix):
    # `sdcflow run` reads SPSS, Stata and SAS files (pyreadstat) and Parquet: so does
    # `sdcflow init`, and its recipe releases in the input's format
    pyreadstat = pytest.importorskip("pyreadstat")
    frame = _survey()
    data = tmp_path / f"survey{suffix}"
    if suffix == ".parquet":
        frame.to_parquet(data)
    else:
        writer = {".sav": pyreadstat.write_sav, ".dta": pyreadstat.write_dta,
                  ".xpt": pyreadstat.write_xport}[suffix]
        writer(frame, str(data))
    recipe = tmp_path / "r.yaml"
    assert main(["init", str(data), "-o", str(recipe)]) == 0, capsys.readouterr().err
    capsys.readouterr()
    doc = yaml.safe_load(recipe.read_text())
    roles = {name: v["role"] for name, v in doc["variables"].items()}
    assert roles == {"CASEID": "identifier", "SERIALNO": "household", "REGION": "key",
                     "SEX": "key", "AGEGRP": "key", "INCOME": "numeric"}
    assert doc["release"]["path"] == f"survey-protected{suffix}"
    code, err = validate_cli(recipe, capsys)
    assert code == 0, err


def test_init_then_run_never_publishes_the_raw_file(tmp_path, capsys):
    # a new user's first `init` + `run`: what lands in public/ is protected, never the
    # input: no identifier, new household numbers, every record 3-anonymous on the keys
    # (suppressed values match any), the incomes replaced by means of groups of 3
    frame = _survey()
    data = tmp_path / "survey.csv"
    frame.to_csv(data, index=False)
    recipe = tmp_path / "recipe.yaml"
    assert main(["init", str(data), "-o", str(recipe)]) == 0
    out = tmp_path / "out"
    assert main(["run", str(recipe), "--out", str(out)]) == 0, capsys.readouterr().err
    released = pd.read_csv(out / "public" / "survey-protected.csv")
    assert "CASEID" not in released.columns
    assert set(released["SERIALNO"]) == set(range(1, 41))  # 40 households, renumbered
    assert not released["INCOME"].isin(frame["INCOME"]).any()
    keys = released[["REGION", "SEX", "AGEGRP"]]
    for _, row in keys.iterrows():
        match = np.ones(len(keys), dtype=bool)
        for name, value in row.items():
            if pd.notna(value):
                match &= keys[name].isna().to_numpy() | (keys[name] == value).to_numpy()
        assert match.sum() >= 3
    # the original data's risk is measured too, and internal
    measures = json.loads((out / "measures.json").read_text())["measures"]
    assert measures["risk_original"]["violations"]["3"] > 0
    assert measures["risk"]["violations"]["3"] == 0
