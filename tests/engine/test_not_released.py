"""A run whose checks fail (sdcflow.engine.runner.not_released): it releases nothing,
withdraws an earlier release of its recipe from DIR (and nothing else), writes the
internal report of the failed run marked NOT RELEASED, and says so, with the figure and
the threshold of each failed check, on the command line and in JSON."""

import json

import pytest
from helpers import SWEEP_RECIPE, output_files

from sdcflow import run
from sdcflow.cli import main
from sdcflow.constraints.checks import figure_text
from sdcflow.engine.checks import failure_text
from sdcflow.errors import CheckFailed, OutputError
from sdcflow.plugins import registry
from sdcflow.plugins.registry import MethodResult

PUBLIC = ["public/manifest.json", "public/report.html", "public/testdata-protected.csv"]
FAILED_FILES = {"manifest.json", "measures.json", "report.html", "run.json"}
# quickstart: 316 records violate 5-anonymity after the steps (sdcMicro's testdata,
# Templ 2019), 6.9 % of the 4580 records (316 / 4580 = 6.8996..., which k_anonymity rounds
# to 3 decimals); the protection leaves no income negative (edits.total = 0)
TIGHT = ("risk.violations[5] <= 400", "risk.percent[5] < 5")
FAILURE = "check failed: risk.percent[5] < 5 (risk.percent[5] = 6.9)"


def tighten(recipe, old=TIGHT[0], new=TIGHT[1]):
    recipe.write_text(recipe.read_text().replace(old, new))


def test_a_failed_run_withdraws_the_earlier_release(recipe, tmp_path):
    out = tmp_path / "out"
    run(recipe, out)
    assert sorted(p.relative_to(out).as_posix() for p in (out / "public").rglob("*")) == \
        PUBLIC
    tighten(recipe)
    with pytest.raises(CheckFailed) as info:
        run(recipe, out)
    result = info.value.result
    # nothing in DIR that the failed recipe does not stand behind: no public/ at all
    assert not (out / "public").exists()
    assert set(output_files(out, run_log=True)) == FAILED_FILES
    assert result.out_dir == out and result.public_manifest is None
    assert result.withdrawn == PUBLIC
    assert json.loads((out / "run.json").read_text())["withdrawn"] == PUBLIC
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["released"] is False
    assert manifest["failed_checks"] == [FAILURE + ": too many records violate 5-anonymity"]
    assert set(manifest["files"]) == {"measures.json", "report.html"}
    measures = json.loads((out / "measures.json").read_text())
    failed = [c for c in measures["checks"] if not c["passed"]]
    assert failed == [{"check": "risk.percent[5] < 5", "passed": False,
                       "figures": {"risk.percent[5]": 6.9},
                       "message": "too many records violate 5-anonymity"}]
    html = (out / "report.html").read_text()
    top = html[:html.index("<h3>Checks</h3>")]
    assert "<title>sdcflow report: quickstart (NOT RELEASED)</title>" in top
    assert "NOT RELEASED: a check failed" in top
    # first of all, the failed check with its figure and its threshold (report/failed.py)
    first = html[html.index("<h1>"):html.index('<section id="summary">')]
    assert ("<td><code>risk.percent[5] &lt; 5</code></td>"
            "<td>risk.percent[5] = 6.9</td><td>&lt; 5</td>") in first
    assert "Released: every check passed" not in html
    assert "<th>protected data (not released)</th>" in html  # not "released data"


def test_the_failed_run_says_nothing_was_withdrawn_when_nothing_was_there(recipe, tmp_path):
    tighten(recipe)
    with pytest.raises(CheckFailed) as info:
        run(recipe, tmp_path / "out")
    assert info.value.result.withdrawn == []
    assert json.loads((tmp_path / "out" / "run.json").read_text())["withdrawn"] == []
    assert list(tmp_path.glob(".out*")) == []  # no temporary left beside it


def test_failed_run_outputs_are_byte_identical_cached_or_not(recipe, tmp_path):
    tighten(recipe)
    with pytest.raises(CheckFailed):
        run(recipe, tmp_path / "a", use_cache=False)  # computed
    with pytest.raises(CheckFailed) as cached:
        run(recipe, tmp_path / "b")  # every step from the cache
    assert all(s.cached for s in cached.value.result.steps)
    assert set(output_files(tmp_path / "a")) == FAILED_FILES - {"run.json"}
    assert output_files(tmp_path / "a") == output_files(tmp_path / "b")
    # and replacing a failed run's outputs gives the same bytes again
    with pytest.raises(CheckFailed):
        run(recipe, tmp_path / "a")
    assert output_files(tmp_path / "a") == output_files(tmp_path / "b")


def test_the_next_passing_run_releases_into_the_failed_runs_directory(recipe, tmp_path):
    out = tmp_path / "out"
    tighten(recipe)
    with pytest.raises(CheckFailed):
        run(recipe, out)
    tighten(recipe, TIGHT[1], TIGHT[0])
    result = run(recipe, out)
    assert result.public_dir == out / "public" and (out / PUBLIC[2]).is_file()
    assert json.loads((out / "manifest.json").read_text())["released"] is True
    assert "withdrawn" not in json.loads((out / "run.json").read_text())


def test_without_writing_nothing_is_written_or_withdrawn(recipe, tmp_path):
    out = tmp_path / "out"
    run(recipe, out)
    before = output_files(out, run_log=True)
    tighten(recipe)
    with pytest.raises(CheckFailed) as info:
        run(recipe, out, write=False)
    assert info.value.result.out_dir is None and info.value.result.withdrawn == []
    assert output_files(out, run_log=True) == before


def test_foreign_files_stay_and_the_run_is_refused_before_it_starts(recipe, tmp_path,
                                                                     capsys):
    out = tmp_path / "out"
    run(recipe, out)
    (out / "public" / "press-note.txt").write_text("mine")
    before = output_files(out, run_log=True)
    tighten(recipe)
    assert main(["run", str(recipe), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "public/press-note.txt (not in its manifest); nothing was touched" in err
    assert "still holds the release of an earlier run" in err
    assert output_files(out, run_log=True) == before


def test_foreign_files_arriving_during_the_run_stop_the_withdrawal_and_it_is_said(
        recipe, tmp_path, capsys, monkeypatch):
    """Someone adds a file to public/ while the steps run: DIR may no longer be replaced,
    so the earlier release stays; the run still exits 3 and says that the release left
    in DIR is not one its recipe stands behind."""
    from sdcflow.engine import runner

    out = tmp_path / "out"
    run(recipe, out)
    tighten(recipe)
    evaluate = runner.evaluate_checks

    def meanwhile(*args, **kwargs):
        (out / "public" / "press-note.txt").write_text("mine")
        return evaluate(*args, **kwargs)

    monkeypatch.setattr(runner, "evaluate_checks", meanwhile)
    with pytest.raises(CheckFailed) as info:
        run(recipe, out)
    assert "press-note.txt (not in its manifest); nothing was touched" in \
        info.value.write_error
    assert (out / "public" / "press-note.txt").read_text() == "mine"
    assert (out / PUBLIC[2]).is_file()  # not withdrawn: nothing was touched
    (out / "public" / "press-note.txt").unlink()
    monkeypatch.setattr(runner, "evaluate_checks", meanwhile)
    assert main(["run", str(recipe), "--out", str(out)]) == 3
    err = capsys.readouterr().err
    assert FAILURE in err and "nothing was released" in err
    assert "a release in it was NOT withdrawn, and this recipe does not stand behind it: " \
        "do not publish it" in err
    assert "withdrew" not in err


def test_the_command_line_names_figure_threshold_and_withdrawn_files(recipe, tmp_path,
                                                                    capsys):
    out = tmp_path / "out"
    assert main(["run", str(recipe), "--out", str(out)]) == 0
    # a passed check is said with its figures too: how far it is from its threshold
    assert "  check passed: risk.violations[5] <= 400 (risk.violations[5] = 316)\n" in \
        capsys.readouterr().out
    tighten(recipe)
    assert main(["run", str(recipe), "--out", str(out)]) == 3
    err = capsys.readouterr().err.splitlines()
    assert err == [
        FAILURE + ": too many records violate 5-anonymity",
        "nothing was released",
        (f"withdrew the earlier release from {out}: {', '.join(PUBLIC)} (this recipe does "
         "not stand behind it)"),
        f"the report of the failed run is {out / 'report.html'} (internal: do not publish)"]
    # again: nothing left to withdraw, and nothing said of it
    assert main(["run", str(recipe), "--out", str(out)]) == 3
    assert "withdrew" not in capsys.readouterr().err


def test_json_carries_the_figures_and_the_withdrawn_files(recipe, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", str(recipe), "--out", str(out)]) == 0
    tighten(recipe)
    capsys.readouterr()
    assert main(["run", "--format", "json", str(recipe), "--out", str(out)]) == 3
    doc = json.loads(capsys.readouterr().out)
    assert doc["released"] is False and doc["out"] == str(out)
    assert doc["withdrawn"] == PUBLIC and doc["write_error"] is None
    assert doc["failures"] == [FAILURE + ": too many records violate 5-anonymity"]
    failed = [c for c in doc["checks"] if not c["passed"]]
    assert failed[0]["figures"] == {"risk.percent[5]": 6.9}


def infinite(self, data, params, rng):
    out = data.frame[["income"]].copy()
    out.loc[out.index[:7], "income"] = float("inf")
    return MethodResult(data.with_columns({"income": out["income"]}), {})


@pytest.mark.parametrize("error", ["invalid recipe", "step failed"])
def test_an_error_after_a_release_leaves_it_and_says_so(recipe, tmp_path, capsys,
                                                        monkeypatch, error):
    """A run that stops with an error (exit 1: the recipe is invalid, or a step failed
    after the run started) reached no verdict on the release: DIR is left as it was,
    and the command line says that the release there is an earlier run's."""
    out = tmp_path / "out"
    run(recipe, out)
    before = output_files(out, run_log=True)
    tighten(recipe)
    if error == "invalid recipe":
        tighten(recipe, "edits.total == 0", "edits.totl == 0")
    else:  # top coding makes incomes infinite: refused after the first steps ran
        monkeypatch.setattr(type(registry.get("top_bottom_code")), "apply", infinite)
    assert main(["run", str(recipe), "--out", str(out), "--no-cache"]) == 1
    err = capsys.readouterr().err
    if error == "step failed":
        assert "step 'income_top': top_bottom_code made 7 values" in err
    assert err.splitlines()[-1] == (
        f"note: {out} still holds the release of an earlier run ({', '.join(PUBLIC)}): this "
        "run stopped before its checks and neither replaced nor withdrew it")
    assert output_files(out, run_log=True) == before


def test_each_failing_variant_of_a_grid_is_named_with_its_figure(write_recipe, tmp_path):
    path = write_recipe(SWEEP_RECIPE + 'checks: ["risk.violations[5] <= 0"]\n')
    with pytest.raises(CheckFailed) as info:
        run(path, tmp_path / "out")
    measures = info.value.result.measures
    expected = [f"check failed: risk.violations[5] <= 0 [variant k={k}] "
                f"(risk.violations[5] = {measures[f'risk[k={k}]']['violations']['5']})"
                for k in (2, 3, 5) if measures[f"risk[k={k}]"]["violations"]["5"] > 0]
    assert expected and info.value.failures == expected
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())[
        "failed_checks"] == expected


@pytest.mark.parametrize("value, compared, text", [
    (6.8996, [5], "6.9"),          # 4 significant digits
    (32.0754716981, [5], "32.08"),
    (123456.78, [], "123457"),     # the integer part always whole
    (5.0004, [5], "5.0004"),       # never rounded onto the threshold it is compared with
    (4.99999999, [5], "4.99999999"),
    (5.0, [5], "5"),               # equal: shown as it is
    (106, [653], "106"),
    (None, [], "missing"),
])
def test_figure_text(value, compared, text):
    assert figure_text(value, compared) == text


def test_failure_text_with_a_figure_on_the_threshold():
    # x <= 5 failed with x = 5.0004: "x = 5" would read as if it held
    check = {"check": "x.y <= 5", "passed": False, "figures": {"x.y": 5.0004}}
    assert failure_text(check) == "check failed: x.y <= 5 (x.y = 5.0004)"
    check = {"check": "a.n <= b.n / 10", "passed": False,
             "figures": {"a.n": 65.30001, "b.n / 10": 65.3}, "variant": "k=3"}
    assert failure_text(check) == \
        "check failed: a.n <= b.n / 10 [variant k=3] (a.n = 65.30001; b.n / 10 = 65.3)"
    check = {"check": "a.n < 1", "passed": False, "figures": {"a.n": None},
             "error": "a value in the check is missing (null): the measure could not "
                      "compute it"}
    assert failure_text(check) == (
        "check failed: a.n < 1 (a.n = missing) (a value in the check is missing (null): "
        "the measure could not compute it)")


def test_a_refused_directory_is_never_written_even_when_the_check_fails(recipe, tmp_path):
    other = tmp_path / "data"
    other.mkdir()
    (other / "people.csv").write_text("a\n1\n")
    tighten(recipe)
    with pytest.raises(OutputError, match="nothing was touched"):
        run(recipe, other)
    assert [p.name for p in other.iterdir()] == ["people.csv"]


def test_dry_run_says_what_a_failed_check_writes_and_withdraws(recipe, tmp_path, capsys):
    out = tmp_path / "out"
    run(recipe, out)
    assert main(["run", "--dry-run", "--format", "json", str(recipe), "--out", str(out)]) == 0
    planned = json.loads(capsys.readouterr().out)["if_not_released"]
    assert planned == {"files": ["manifest.json", "measures.json", "report.html", "run.json"],
                       "withdrawn": PUBLIC}
    tighten(recipe)
    with pytest.raises(CheckFailed):
        run(recipe, out)
    assert sorted(planned["files"]) == sorted(output_files(out, run_log=True))
    assert main(["run", "--dry-run", str(recipe), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "if a check fails (exit 3), would release nothing and write only:" in text
    assert "withdraw" not in text  # the failed run left no release to withdraw


def test_report_without_a_run_does_not_say_released(recipe, tmp_path, capsys):
    """`sdcflow report` runs without writing: its report may say that every check passed,
    not that anything was released (nor may the external one)."""
    for extra in ([], ["--external"]):
        target = tmp_path / f"r{len(extra)}.html"
        assert main(["report", str(recipe), "-o", str(target), *extra]) == 0
        html = target.read_text()
        assert "Released:" not in html
        assert "Every check passed: a run of this recipe releases the data below. Nothing " \
            "was released by making this report." in html


DASK_RECIPE = """
sdcflow: 1
name: parts
seed: 1
data: {path: DATA}
variables:
  urbrur: {role: key}
  water: {role: key}
  sex: {role: key}
  relat: {role: key}
  income: {role: numeric}
steps:
  - {id: water_groups, method: global_recode, params: {variable: water, groups: {"6-9": ["6", "7", "9"]}}}
  - {id: risk, measure: k_anonymity, params: {k: [2, 3]}}
checks: ["risk.violations[3] <= 4580"]
release: {path: out.csv}
"""


def test_the_dask_engine_withdraws_and_says_the_same(tmp_path, capsys):
    """The same contract on the Dask engine: pass, tighten, fail: exit 3 with the same
    failure line as the in-memory engine, the earlier release withdrawn, the internal
    outputs of the failed run written."""
    pytest.importorskip("distributed")
    import pandas as pd

    from sdcflow.data.io import builtin_path

    frame = pd.read_csv(builtin_path("testdata"))
    (tmp_path / "parts").mkdir()
    for i, part in enumerate((frame.iloc[:2000], frame.iloc[2000:])):
        part.to_parquet(tmp_path / "parts" / f"part-{i}.parquet", index=False)
    frame.to_parquet(tmp_path / "whole.parquet", index=False)
    recipes = {}
    for engine, data in (("dask", "parts"), ("memory", "whole.parquet")):
        recipes[engine] = tmp_path / f"{engine}.yaml"
        recipes[engine].write_text(DASK_RECIPE.replace("DATA", data))
    out = tmp_path / "out"
    dask = ["--engine", "dask", "--workers", "1"]
    assert main(["run", str(recipes["dask"]), "--out", str(out), *dask]) == 0
    released = sorted(p.relative_to(out).as_posix() for p in (out / "public").rglob("*")
                      if p.is_file())
    assert "public/out.csv/part-00001.csv" in released
    failures = {}
    for engine, recipe in recipes.items():
        tighten(recipe, "risk.violations[3] <= 4580", "risk.violations[3] <= 10")
        where = out if engine == "dask" else tmp_path / "memory"
        capsys.readouterr()
        assert main(["run", str(recipe), "--out", str(where),
                     *(dask if engine == "dask" else [])]) == 3
        err = capsys.readouterr().err.splitlines()
        # (a local Dask cluster may log to standard error first, e.g. that the dashboard's
        # port is taken by another cluster on the machine)
        err = err[next(i for i, line in enumerate(err) if line.startswith("check failed")):]
        failures[engine] = err[0]
        assert err[1] == "nothing was released"
        assert not (where / "public").exists()
        assert set(output_files(where, run_log=True)) == FAILED_FILES
        manifest = json.loads((where / "manifest.json").read_text())
        assert manifest["released"] is False and manifest["failed_checks"] == [err[0]]
        assert "NOT RELEASED" in (where / "report.html").read_text()
        if engine == "dask":
            assert err[2] == (f"withdrew the earlier release from {out}: "
                              f"{', '.join(released)} (this recipe does not stand behind it)")
            assert json.loads((out / "run.json").read_text())["withdrawn"] == released
    assert failures["dask"] == failures["memory"]
    assert failures["dask"].startswith("check failed: risk.violations[3] <= 10 "
                                       "(risk.violations[3] = ")
