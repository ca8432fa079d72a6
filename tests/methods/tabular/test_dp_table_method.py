"""``dp_table`` from a recipe: the release is consistent (every margin the sum of its
cells), non-negative whole numbers; the noise has the scale worked out by hand from the
sensitivity; the manifests state each step's spend and the total as OpenDP composes
them; a recipe that overspends, or spends without a budget, is refused at the step's
parameter; the release is the same bytes run after run and on the Dask engine."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from helpers import output_files, validate_cli

from sdcflow import run

RECIPE = """\
sdcflow: 1
name: dp-tables
seed: 2021
privacy_budget: BUDGET
data: DATA
variables:
  urbrur: {role: key, type: categorical}
  water: {role: key, type: categorical}
  roof: {role: key, type: categorical}
tables:
  - {id: uw, dims: [urbrur, water]}
  - {id: ur, dims: [urbrur, roof]}
steps:
  - {id: dp_uw, method: dp_table, table: uw, params: {@SPEND1}}
  - {id: dp_ur, method: dp_table, table: ur, params: {@SPEND2}}
release:
  tables: {uw: uw.csv, ur: ur.csv}
"""


def recipe(tmp_path, budget="{epsilon: 1.0}", spend1="epsilon: 0.5", spend2="epsilon: 0.5",
           data="{builtin: testdata}", name="dp.yaml"):
    text = RECIPE.replace("@SPEND1", spend1).replace("@SPEND2", spend2) \
        .replace("DATA", data)
    text = text.replace("privacy_budget: BUDGET\n",
                        "" if budget is None else f"privacy_budget: {budget}\n")
    path = tmp_path / name
    path.write_text(text)
    return path


def _check_consistent(frame: pd.DataFrame, a: str, b: str):
    v = frame.assign(value=frame["freq"])
    assert (v["freq"] >= 0).all()
    assert np.array_equal(v["value"], np.rint(v["value"]))
    leaves = v[(v[a] != "Total") & (v[b] != "Total")]
    for dim, other in ((a, b), (b, a)):
        sums = leaves.groupby(dim)["freq"].sum()
        margins = v[(v[other] == "Total") & (v[dim] != "Total")].set_index(dim)["freq"]
        assert sums.sort_index().tolist() == margins.sort_index().tolist()
    total = v[(v[a] == "Total") & (v[b] == "Total")]["freq"].item()
    assert total == leaves["freq"].sum()


def test_released_tables_are_consistent_and_the_spends_are_stated(tmp_path):
    out = tmp_path / "out"
    run(recipe(tmp_path), out)
    for name, other in (("uw.csv", "water"), ("ur.csv", "roof")):
        frame = pd.read_csv(out / "public" / name, dtype={"urbrur": str, other: str})
        _check_consistent(frame, "urbrur", other)
    manifest = json.loads((out / "manifest.json").read_text())
    public = json.loads((out / "public" / "manifest.json").read_text())
    assert public["privacy"] == manifest["privacy"]
    privacy = public["privacy"]
    assert privacy["budget"] == {"epsilon": 1.0, "unit": "person"}
    assert privacy["steps"]["dp_uw"] == {"epsilon": 0.5, "mechanism": "discrete laplace"}
    assert privacy["total"] == {"epsilon": 1.0}
    assert "seed" not in public and "2021" not in json.dumps(public)
    # 2-way table with margins: a person counts in 4 cells; 4 / 0.5 = scale 8
    info = manifest["steps"][0]["info"]
    assert info["scales"] == [8.0] and info["slices"] == 4
    # OpenDP's map with the table's real categories (at run time) is the spend that
    # validation composed (without the data)
    assert info["epsilon"] == privacy["steps"]["dp_uw"]["epsilon"]
    # the noise was added: the released cells are not the counts
    internal = pd.read_csv(out / "tables" / "uw.csv")
    assert (internal["freq"] != internal["original_freq"]).any()


def test_the_same_bytes_run_after_run(tmp_path):
    path = recipe(tmp_path)
    run(path, tmp_path / "a")
    run(path, tmp_path / "b")
    assert output_files(tmp_path / "a") == output_files(tmp_path / "b")


def test_a_rho_budget_with_gaussian_noise(tmp_path):
    out = tmp_path / "out"
    run(recipe(tmp_path, budget="{rho: 0.5, delta: 1.0e-6}", spend1="rho: 0.25",
               spend2="epsilon: 0.5"), out)
    privacy = json.loads((out / "public" / "manifest.json").read_text())["privacy"]
    # epsilon 0.5 is rho 0.125 in zCDP: 0.25 + 0.125
    assert privacy["total"]["rho"] == pytest.approx(0.375)
    assert privacy["steps"]["dp_uw"]["mechanism"] == "discrete gaussian"
    assert privacy["total"]["delta"] == 1e-6 and privacy["total"]["epsilon"] > 0.375


def _problems(path, capsys):
    code, lines = validate_cli(path, capsys)
    return code, [line for line in lines if re.match(r".*:\d+:\d+: ", line)]


def test_overspending_is_refused_at_the_step_that_overspends(tmp_path, capsys):
    path = recipe(tmp_path, spend2="epsilon: 0.7")
    code, lines = _problems(path, capsys)
    assert code == 1
    assert len(lines) == 1
    line = lines[0]
    # line 15 (the second step), at its epsilon
    assert line.startswith(f"{path}:15:")
    col = int(line.split(":")[2])
    assert path.read_text().splitlines()[14][col - 1:].startswith("epsilon: 0.7") or \
        path.read_text().splitlines()[14][col - 1:].startswith("0.7")
    assert "epsilon 1.2 in all (dp_uw epsilon 0.5, dp_ur epsilon 0.7)" in line
    assert "privacy budget (epsilon 1)" in line


def test_a_dp_step_needs_a_budget(tmp_path, capsys):
    code, lines = _problems(recipe(tmp_path, budget=None), capsys)
    assert code == 1
    assert len(lines) == 2
    assert all("declare it, e.g. privacy_budget: {epsilon: 1.0}" in ln for ln in lines)


def test_rho_under_a_pure_budget_is_refused(tmp_path, capsys):
    code, lines = _problems(recipe(tmp_path, spend1="rho: 0.1"), capsys)
    assert code == 1
    assert any("the privacy budget is pure DP (epsilon 1)" in ln for ln in lines)


def test_privacy_unit_records_cannot_be_given(tmp_path, capsys):
    code, lines = _problems(recipe(tmp_path, spend1="epsilon: 0.5, privacy_unit_records: 1"),
                            capsys)
    assert code == 1
    assert any("set by sdcflow from privacy_budget" in ln for ln in lines)


SUMS = """\
sdcflow: 1
name: dp-sums
seed: 7
privacy_budget: {epsilon: 2.0}
data: {path: data.csv}
variables:
  region: {role: key, type: categorical}
  income: {role: numeric, type: integer}
tables:
  - {id: pay, dims: [region], response: income}
steps:
  - {id: dp_pay, method: dp_table, table: pay, params: {epsilon: 2.0, upper: UPPER}}
release:
  tables: {pay: pay.csv}
"""


def _sums(tmp_path, upper):
    rng = np.random.default_rng(1)
    pd.DataFrame({"region": rng.choice(["a", "b", "c"], 300),
                  "income": rng.integers(0, 1000, 300)}).to_csv(tmp_path / "data.csv",
                                                                index=False)
    path = tmp_path / "sums.yaml"
    path.write_text(SUMS.replace("UPPER", str(upper)))
    return path


def test_a_table_of_sums_gets_counts_and_clamped_sums(tmp_path):
    out = tmp_path / "out"
    run(_sums(tmp_path, 1000), out)
    info = json.loads((out / "manifest.json").read_text())["steps"][0]["info"]
    # one dimension: 2 slices; half of epsilon 2 each: counts 2 / 1 = 2, sums
    # 2 x 1000 / 1 = 2000
    assert info["scales"] == [2.0, 2000.0]
    frame = pd.read_csv(out / "public" / "pay.csv", dtype={"region": str})
    leaves = frame[frame["region"] != "Total"]
    total = frame[frame["region"] == "Total"]
    assert leaves["value"].sum() == total["value"].item()
    assert leaves["freq"].sum() == total["freq"].item()
    assert (frame["value"] >= 0).all()


def test_a_record_above_the_clamping_bound_is_refused(tmp_path):
    from sdcflow.cli import main

    assert main(["run", str(_sums(tmp_path, 500)), "--out", str(tmp_path / "o")]) == 1
    assert not (tmp_path / "o" / "public" / "pay.csv").exists()


def test_the_dask_engine_releases_the_same_bytes(tmp_path):
    pytest.importorskip("distributed")
    from pathlib import Path

    import sdcflow.data

    shipped = Path(sdcflow.data.__file__).parent / "datasets" / "testdata.csv"
    frame = pd.read_csv(shipped, dtype=str)[["urbrur", "water", "roof"]]
    parts = tmp_path / "parts"
    parts.mkdir()
    for i, cut in enumerate(np.array_split(np.arange(len(frame)), 3)):
        frame.iloc[cut].to_parquet(parts / f"p{i}.parquet", index=False)
    frame.to_parquet(tmp_path / "whole.parquet", index=False)
    dask = recipe(tmp_path, data="{path: parts}", name="d.yaml")
    memory = recipe(tmp_path, data="{path: whole.parquet}", name="m.yaml")
    run(dask, tmp_path / "d", engine="dask", workers=2)
    run(memory, tmp_path / "m")
    for name in ("uw.csv", "ur.csv"):
        assert (tmp_path / "d" / "public" / name).read_bytes() == \
            (tmp_path / "m" / "public" / name).read_bytes()


def test_a_continuous_response_is_refused(tmp_path, capsys):
    path = _sums(tmp_path, 1000)
    path.write_text(path.read_text().replace("type: integer", "type: continuous"))
    code, lines = _problems(path, capsys)
    assert code == 1
    assert any("must be an integer variable" in line for line in lines)


def test_a_grid_counts_its_most_expensive_variant(tmp_path, capsys):
    path = recipe(tmp_path, spend1="")
    text = path.read_text().replace("params: {}}", "params: {}, grid: {epsilon: [0.2, 0.6]}}")
    path.write_text(text.replace("release:\n", "release:\n  variant: {epsilon: 0.2}\n"))
    code, lines = _problems(path, capsys)
    assert code == 1
    assert any("epsilon 1.1 in all (dp_uw epsilon 0.6, dp_ur epsilon 0.5)" in ln
               for ln in lines)


@pytest.mark.parametrize("budget, message", [
    ("{epsilon: abc}", "privacy_budget.epsilon: expected a number, got 'abc'"),
    ("{epsilon: -1}", "privacy_budget.epsilon: -1 is less than or equal to the minimum"),
    ("{rho: 1, epsilon: 1}", "give epsilon (pure or, with delta, approximate DP) or rho"),
    ("{epsilon: 1, unit: household, max_records: 3}", "household needs a variable with role"),
    ("{epsilon: 1, max_records: 3}", "max_records: only with unit household"),
    ("[1]", "privacy_budget: expected a mapping, got a list"),
    ("{}", "privacy_budget: give epsilon or rho"),
])
def test_a_malformed_budget_is_a_positioned_error(tmp_path, capsys, budget, message):
    code, lines = _problems(recipe(tmp_path, budget=budget), capsys)
    assert code == 1
    assert any(":4:" in ln and message in ln for ln in lines), lines
