"""``sdcflow diff RUN_A RUN_B`` (sdcflow.cli.run_diff and sdcflow.cli.diff_command): two runs'
manifests, measures, checks and files compared."""

import json
import shutil

import pytest

from sdcflow import run
from sdcflow.cli import main
from sdcflow.cli.run_diff import diff_runs

RECIPE = """\
sdcflow: 1
name: t
seed: {seed}
data: {{builtin: testdata}}
variables:
  age: {{role: key, type: integer}}
  sex: {{role: key}}
steps:
  - {{id: rec, method: global_recode, params: {{variable: age, breaks: [0, {cut}, 200]}}}}
  - {{id: risk, measure: k_anonymity, params: {{k: 2}}}}
checks:
  - risk.violations[2] >= 0
release:
  path: t.csv
"""


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Three runs of a small recipe: ``a``; ``same``, the same recipe again; ``cut``, with
    another break of the recode and another seed."""
    root = tmp_path_factory.mktemp("runs")
    out = {}
    for name, seed, cut in (("a", 8301947265, 50), ("same", 8301947265, 50), ("cut", 5172093846, 40)):
        recipe = root / f"{name}.yaml"
        recipe.write_text(RECIPE.format(seed=seed, cut=cut))
        run(recipe, root / name)
        out[name] = root / name
    return out


def _edited_copy(src, dst, edit):
    shutil.copytree(src, dst)
    path = dst / "measures.json"
    doc = json.loads(path.read_text())
    edit(doc)
    path.write_text(json.dumps(doc))
    return dst


def test_the_same_recipe_twice_is_the_same(runs, capsys):
    d = diff_runs(runs["a"], runs["same"])
    assert d.same and not d.public
    assert d.files["differ"] == [] and "public/t.csv" in d.files["same"]
    assert main(["diff", str(runs["a"]), str(runs["same"])]) == 0
    assert capsys.readouterr().out.rstrip().endswith("the runs are the same")


def test_a_changed_parameter_shows_both_values_and_the_files_that_changed(runs, capsys):
    d = diff_runs(runs["a"], runs["cut"])
    assert not d.same
    [step] = d.steps["changed"]
    # the recipes differ in the recode's second break, 50 and 40
    assert step["id"] == "rec" and step["params"] == [{"path": "breaks[1]", "a": 50, "b": 40}]
    assert step["output"] == "differs"
    assert "public/t.csv" in d.files["differ"]
    assert {r["what"] for r in d.run} >= {"recipe sha256", "seed"}
    assert main(["diff", str(runs["a"]), str(runs["cut"])]) == 1
    out = capsys.readouterr().out
    assert "step rec:\n  params.breaks[1]: 50 -> 40\n  output: sha256 differs" in out
    assert "file public/t.csv: sha256 differs" in out
    # the seed is said to differ, never printed (it regenerates the random draws); the
    # seeds are long so that no temporary folder's name holds one (pytest-777 did)
    assert "seed: " in out and "8301947265" not in out and "5172093846" not in out
    assert out.rstrip().endswith("the runs differ")


def test_measures_and_checks_that_differ_show_both_values(runs, tmp_path, capsys):
    def edit(doc):
        doc["measures"]["risk"]["records"] = 4579
        doc["checks"][0]["passed"] = False

    b = _edited_copy(runs["a"], tmp_path / "b", edit)
    d = diff_runs(runs["a"], b)
    records = json.loads((runs["a"] / "measures.json").read_text())["measures"]["risk"][
        "records"]
    assert d.measures["changed"] == {"risk": [{"path": "records", "a": records, "b": 4579}]}
    assert d.checks == [{"check": "risk.violations[2] >= 0", "a": True, "b": False}]
    # (files are compared by the sha256 their manifests record: the edit is not the run's)
    assert d.files["differ"] == []
    assert main(["diff", "--format", "json", str(runs["a"]), str(b)]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["same"] is False and data["measures"]["changed"]["risk"][0]["b"] == 4579
    assert main(["diff", str(runs["a"]), str(b)]) == 1
    out = capsys.readouterr().out
    assert f"measure risk: 1 value differ\n  records: {records} -> 4579" in out
    assert "check risk.violations[2] >= 0: passed -> failed" in out


def test_a_public_part_is_compared_by_the_public_manifests(runs, capsys):
    d = diff_runs(runs["a"] / "public", runs["cut"])
    assert d.public
    # the public manifest lists the released files only, by their names in public/
    assert d.files["differ"] == ["t.csv"]
    assert all(r["what"] != "seed" for r in d.run)
    assert diff_runs(runs["a"] / "public", runs["same"] / "public" / "manifest.json").same
    assert main(["diff", str(runs["a"] / "public"), str(runs["same"])]) == 0
    assert "(compared by their public manifests)" in capsys.readouterr().out


def test_what_is_not_a_run_exits_2(runs, tmp_path, capsys):
    assert main(["diff", str(runs["a"]), str(tmp_path)]) == 2
    assert "not a run's output directory (no manifest.json" in capsys.readouterr().err
    (tmp_path / "manifest.json").write_text("[1, 2]")
    assert main(["diff", str(tmp_path), str(runs["a"])]) == 2
    assert "not a manifest (not a JSON object)" in capsys.readouterr().err
    (tmp_path / "manifest.json").write_text("{broken")
    assert main(["diff", str(tmp_path), str(runs["a"])]) == 2
    err = capsys.readouterr().err
    assert "not a readable manifest (JSONDecodeError" in err and "Traceback" not in err


def test_a_manifest_of_odd_shapes_is_compared_without_a_crash(runs, tmp_path, capsys):
    odd = tmp_path / "odd"
    odd.mkdir()
    (odd / "manifest.json").write_text(json.dumps({
        "layout": 2, "recipe": {}, "steps": {"not": "a list"}, "files": ["x"],
        "environment": "text"}))
    (odd / "measures.json").write_text(json.dumps({"measures": [1, 2], "checks": "no"}))
    assert main(["diff", str(runs["a"]), str(odd)]) == 1
    out = capsys.readouterr().out
    assert "step only in a: rec" in out and "file only in a: public/t.csv" in out
