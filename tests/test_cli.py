"""The command line (sdcflow.cli): the contract of DESIGN.md."""

import json
import shutil

import jsonschema
from helpers import QUICKSTART

from sdcflow.cli import main


def test_validate_valid_recipe(capsys):
    assert main(["validate", str(QUICKSTART)]) == 0
    assert capsys.readouterr().out.strip().endswith("quickstart.yaml: valid")


def test_validate_reports_every_problem_with_positions(write_recipe, capsys):
    path = write_recipe("""
        sdcflow: 1
        name: t
        seed: 1
        data: {builtin: testdata}
        variables:
          age: {role: key, type: integer}
        steps:
          - {id: a, method: global_recod, params: {variable: age}}
          - {id: b, measure: k_anonymity, params: {k: 0}}
          - {id: b, measure: k_anonymity}
    """)
    assert main(["validate", str(path)]) == 1
    err = capsys.readouterr().err.splitlines()
    name = str(path)
    assert f"{name}:8:21: steps[0]: unknown method 'global_recod' (did you mean " \
           "'global_recode'?) (see 'sdcflow methods')" in err
    assert f"{name}:9:47: steps[1].params.k: 0 is less than the minimum of 1" in err
    assert f"{name}:10:10: steps[2].id: 'b' is already the id of steps[1]" in err
    assert err[-1] == f"{name}: 3 problems"


def test_validate_json_format(write_recipe, capsys):
    path = write_recipe("sdcflow: 1\n")
    assert main(["validate", "--format", "json", str(path)]) == 1
    [report] = json.loads(capsys.readouterr().out)
    assert report["valid"] is False
    assert {p["message"] for p in report["problems"]} >= {
        "recipe: missing required key 'name'", "recipe: missing required key 'steps'"}


def test_missing_recipe_file(tmp_path, capsys):
    assert main(["validate", str(tmp_path / "nope.yaml")]) == 1
    assert "cannot read recipe: No such file or directory" in capsys.readouterr().err


def test_plan_text_and_json(capsys):
    assert main(["plan", str(QUICKSTART)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[7].split()[:4] == ["8.", "risk", "measure", "k_anonymity"]
    assert lines[7].endswith("<- age10, relat_groups, water_groups")
    assert main(["plan", "--format", "json", str(QUICKSTART)]) == 0
    steps = json.loads(capsys.readouterr().out)["steps"]
    assert steps[1]["node"] == "age10" and steps[1]["writes"] == ["age"]


def test_run_writes_release_and_exit_code_3_on_failed_check(tmp_path, capsys):
    recipe = tmp_path / "q.yaml"
    shutil.copy(QUICKSTART, recipe)
    assert main(["run", str(recipe), "--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "public" / "testdata-protected.csv").exists()
    capsys.readouterr()
    recipe.write_text(recipe.read_text().replace("edits.total == 0", "edits.total > 0"))
    assert main(["run", str(recipe), "--out", str(tmp_path / "out2")]) == 3
    err = capsys.readouterr().err
    assert "check failed: edits.total > 0 (edits.total = 0)" in err
    assert "nothing was released" in err
    assert not (tmp_path / "out2" / "public").exists()  # the failed run's report only


def test_run_without_a_data_file_says_that_nothing_was_released(tmp_path, capsys):
    recipe = tmp_path / "q.yaml"
    text = QUICKSTART.read_text()
    start = text.index("\nrelease:")
    end = text.index("\n", text.index("path:", start))
    recipe.write_text(text[:start] + text[end:])
    assert main(["run", str(recipe), "--out", str(tmp_path / "out")]) == 0
    assert "measures written into" in capsys.readouterr().out
    assert "Measures only: every check passed; this recipe releases no data." in (
        tmp_path / "out" / "report.html").read_text()
    assert not (tmp_path / "out" / "public" / "testdata-protected.csv").exists()


def test_run_default_output_directory(tmp_path, capsys):
    recipe = tmp_path / "q.yaml"
    shutil.copy(QUICKSTART, recipe)
    assert main(["run", str(recipe), "--progress"]) == 0
    captured = capsys.readouterr()
    # steps are counted as they finish (independent steps run at the same time)
    assert "/9] edits (constraints)" in captured.err and "[9/9] " in captured.err
    assert (tmp_path / "output" / "quickstart" / "manifest.json").exists()


def test_methods_lists_parameters(capsys):
    assert main(["methods"]) == 0
    out = capsys.readouterr().out
    assert "global_recode (method): Recode a variable" in out
    assert "    include_lowest (default true)" in out
    assert main(["methods", "--format", "json"]) == 0
    assert {p["name"] for p in json.loads(capsys.readouterr().out)} >= {
        "global_recode", "top_bottom_code", "k_anonymity", "constraints"}


def test_schema_prints_the_json_schema(capsys):
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["properties"]["sdcflow"] == {
        "description": "Recipe format version; this schema describes version 1.", "const": 1}


def test_a_warning_that_escapes_is_one_line_without_source(tmp_path, capsys, monkeypatch):
    import warnings

    from sdcflow.plugins import registry

    plugin = type(registry.get("k_anonymity"))
    real = plugin.evaluate

    def noisy(self, *args, **kwargs):
        warnings.warn("invalid value encountered in divide", RuntimeWarning, stacklevel=1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(plugin, "evaluate", noisy)
    recipe = tmp_path / "q.yaml"
    shutil.copy(QUICKSTART, recipe)
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        assert main(["run", str(recipe), "--out", str(tmp_path / "out"), "--no-cache"]) == 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "RuntimeWarning" in line]
    assert lines and all(line == "sdcflow: warning: RuntimeWarning: invalid value "
                         "encountered in divide (please report it)" for line in lines)
    assert "warnings.warn" not in err  # no source line


def test_run_dry_run_lists_steps_and_files_and_writes_nothing(tmp_path, capsys):
    recipe = tmp_path / "quickstart.yaml"
    shutil.copy(QUICKSTART, recipe)
    out = tmp_path / "out"
    assert main(["run", "--dry-run", str(recipe), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert not out.exists()  # nothing written: no output directory ...
    assert [p.name for p in tmp_path.iterdir()] == ["quickstart.yaml"]  # ... no cache
    # the steps in the order of `sdcflow plan` (test_plan_text_and_json)
    assert "  8. risk                     measure k_anonymity <- age10, relat_groups, " \
           "water_groups" in text
    assert main(["run", "--dry-run", "--format", "json", str(recipe), "--out", str(out)]) == 0
    planned = json.loads(capsys.readouterr().out)
    # the files listed are exactly those a real run writes
    assert main(["run", str(recipe), "--out", str(out)]) == 0
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert sorted(planned["files"]) == written
    assert [s["node"] for s in planned["steps"]][:2] == ["risk_original", "age10"]


def test_run_dry_run_lists_grid_variants(capsys):
    # casc_ru_map sweeps rank swapping over p = 2, 5, 10, 15, 20 (its grid)
    from helpers import ROOT

    assert main(["run", "--dry-run", str(ROOT / "recipes" / "casc_ru_map.yaml")]) == 0
    text = capsys.readouterr().out
    assert "method rank_swap [variant swap.p=15] <- original data" in text
    assert "5 grid variants; the release would hold" in text and "p=15" in text


def test_run_dry_run_reports_invalid_data_with_exit_1(write_recipe, capsys):
    # a data check (k larger than the number of records) is found without running
    path = write_recipe("""
        sdcflow: 1
        name: t
        seed: 1
        data: {builtin: testdata}
        variables:
          income: {role: numeric, type: continuous}
        steps:
          - {id: micro, method: microaggregation, params: {variables: [income], k: 100000}}
    """)
    assert main(["run", "--dry-run", str(path)]) == 1
    assert capsys.readouterr().err.strip() == f"{path}:8:76: steps[0].params.k: k = 100000 " \
        "is larger than the number of records (4580)"
    assert not (path.parent / "output").exists()
