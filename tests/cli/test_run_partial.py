"""Partial runs: ``--select STEP``, ``--select STEP+``, ``--until STEP`` run part of the
plan's DAG, evaluate only the checks whose measures ran, and never release."""

import json

import pytest

from sdcflow.cli import main
from sdcflow.engine.partial import Selection, selected_nodes
from sdcflow.recipe import validate

# the small recipe's DAG (conftest): before (original data); age10; top; after <- age10;
# loss <- top. Plan order: the recipe's list order.


@pytest.mark.parametrize(("selection", "nodes"), [
    (Selection(("after",)), ["age10", "after"]),  # it and what it needs
    (Selection(("top",)), ["top"]),
    (Selection(("top+",)), ["top", "loss"]),  # and what follows from it
    (Selection(("age10+",)), ["age10", "after"]),
    (Selection(("after", "loss")), ["age10", "top", "after", "loss"]),  # the union
    (Selection(until="top"), ["before", "age10", "top"]),  # a prefix of the plan's order
    (Selection(until="loss"), ["before", "age10", "top", "after", "loss"]),
])
def test_the_selected_steps(small, selection, nodes):
    validated = validate(small, data=False)
    assert selected_nodes(validated.recipe, validated.plan, selection) == nodes


def test_an_unknown_step_is_refused_at_its_argument(small, capsys):
    assert main(["run", str(small), "--select", "aftr"]) == 1
    assert capsys.readouterr().err.startswith(
        "--select aftr: the recipe has no step 'aftr' (did you mean 'after'?); its steps: "
        "before, age10, top, after, loss")
    assert main(["plan", str(small), "--until", "nope"]) == 1
    assert "--until nope: the recipe has no step 'nope'" in capsys.readouterr().err
    assert not (small.parent / "output").exists()


def test_a_partial_run_never_releases(small, capsys):
    assert main(["run", str(small), "--select", "after"]) == 0
    lines = capsys.readouterr().out.splitlines()
    out = small.parent / "output" / "small.partial"  # never the release's directory
    assert lines[0] == "partial run (--select after): 2 of 5 steps ran; nothing was released"
    assert lines[1:3] == [
        ("  not evaluated (its measures did not run): after.violations[3] <= "
        "before.violations[3]"),
        "  not evaluated (its measures did not run): loss.pil < 50"]
    assert lines[-1] == f"measures and report written into {out} (internal: do not publish)"
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json", "measures.json",
                                                     "report.html", "run.json"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["released"] is False
    assert manifest["partial"] == {"select": ["after"], "steps": ["age10", "after"],
                                   "not_evaluated": [("after.violations[3] <= "
                                                     "before.violations[3]"),
                                                     "loss.pil < 50"]}
    assert [s["id"] for s in manifest["steps"]] == ["age10", "after"]
    measures = json.loads((out / "measures.json").read_text())
    assert list(measures["measures"]) == ["after"] and measures["checks"] == []
    assert "PARTIAL RUN, NOT RELEASED" in (out / "report.html").read_text()
    assert not (small.parent / "output" / "small").exists()


def test_a_partial_run_evaluates_the_checks_whose_measures_ran(small, capsys):
    assert main(["run", str(small), "--until", "after", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["released"] is False
    assert [c["check"] for c in data["checks"]] == [("after.violations[3] <= "
                                                    "before.violations[3]")]
    assert data["checks"][0]["passed"] is True
    assert data["partial"]["not_evaluated"] == ["loss.pil < 50"]
    assert [s["id"] for s in data["steps"]] == ["before", "age10", "top", "after"]
    # the headline: the risk measured before and after ran, the utility measure did not
    assert [r["figure"] for r in data["risk"]] == ["records violating 2-anonymity",
                                                   "records violating 3-anonymity"]
    assert data["utility"] == []


def test_a_failed_check_of_a_partial_run_exits_3(small, capsys):
    assert main(["run", str(small), "--select", "top+", "-q",
                 "--set", "checks.1=loss.pil < 0"]) == 3
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("check failed: loss.pil < 0 (loss.pil = ")
    assert not (small.parent / "output" / "small.partial" / "public").exists()


def test_a_partial_run_leaves_a_release_alone(small, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", str(small), "--out", str(out), "-q"]) == 0
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert main(["run", str(small), "--out", str(out), "--select", "top"]) == 1
    assert "a partial run (--select, --until) neither replaces nor withdraws it" in \
        capsys.readouterr().err
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_plan_shows_what_a_partial_run_runs(small, capsys):
    assert main(["plan", str(small), "--select", "top+"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[1] for line in lines] == ["top", "loss"]
    assert main(["run", str(small), "--dry-run", "--select", "top"]) == 1
    assert "sdcflow plan RECIPE --select" in capsys.readouterr().err


def test_a_partial_run_is_refused_on_dask(small, capsys):
    assert main(["run", str(small), "--select", "top", "--engine", "dask"]) == 1
    assert "a partial run (--select, --until) runs in memory" in capsys.readouterr().err


def test_the_full_run_after_a_partial_run_takes_its_steps_from_the_cache(small, tmp_path,
                                                                         capsys):
    assert main(["run", str(small), "--select", "after", "-q"]) == 0
    assert main(["run", str(small), "--out", str(tmp_path / "out"), "--format",
                 "json"]) == 0
    steps = {s["id"]: s["cached"] for s in json.loads(capsys.readouterr().out)["steps"]}
    assert steps == {"before": False, "age10": True, "top": False, "after": True,
                     "loss": False}
