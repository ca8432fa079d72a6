"""Steps written with ``enabled: false``: kept in the recipe, checked against the schema
only, never planned or run; whatever uses their results is an error at its own line and
column; recipes without ``enabled`` (or with ``enabled: true``) run exactly as before."""

from __future__ import annotations

import json
import textwrap

import pytest
from helpers import ROOT

from sdcflow.errors import RecipeError
from sdcflow.recipe import recipe_from_text, validate
from sdcflow.recipe.plan import source_of

HEAD = """\
sdcflow: 1
name: t
seed: 1
data: {builtin: testdata}
variables:
  sex: {role: key, type: categorical}
  age: {role: key, type: integer}
  income: {role: numeric, type: continuous}
steps:
"""


def recipe(steps: str, tail: str = ""):
    return recipe_from_text(HEAD + textwrap.dedent(steps) + textwrap.dedent(tail), "r.yaml",
                            ROOT / "r.yaml")


def problems(steps: str, tail: str = "") -> list[str]:
    with pytest.raises(RecipeError) as caught:
        recipe(steps, tail)
    return [str(p) for p in caught.value.problems]


def test_a_disabled_step_is_recorded_and_left_out_of_the_steps():
    r = recipe("""\
      - {id: risk0, measure: k_anonymity, input: original}
      - {id: recode, method: global_recode, params: {variable: age, width: 10}, enabled: false}
      - {id: risk, measure: k_anonymity}
    """)
    assert [s.id for s in r.steps] == ["risk0", "risk"]
    assert [s.index for s in r.steps] == [0, 2]  # (their places in the file)
    assert r.disabled == {"recode": 1}


def test_enabled_true_is_the_default():
    r = recipe("""\
      - {id: recode, method: global_recode, params: {variable: age, width: 10}, enabled: true}
      - {id: risk, measure: k_anonymity}
    """)
    assert [s.id for s in r.steps] == ["recode", "risk"] and r.disabled == {}


def test_a_disabled_step_is_checked_against_the_schema_only():
    # its parameters are not checked against its plugin (k must be an integer >= 2), nor
    # its method's existence
    r = recipe("""\
      - {id: bad, method: no_such_method, params: {k: "three"}, enabled: false}
      - {id: worse, method: local_suppression, params: {k: 0, nope: 1}, enabled: false}
      - {id: risk, measure: k_anonymity}
    """)
    assert r.disabled == {"bad": 0, "worse": 1}
    # the recipe's own schema still holds for it
    found = problems("""\
      - {id: risk0, measure: k_anonymity, enabled: "no"}
      - {id: bad, method: pram, paramz: {}, enabled: false}
      - {id: risk, measure: k_anonymity}
    """)
    assert any("r.yaml:10:" in p and "steps[0].enabled: expected true or false" in p
               for p in found), found
    assert any("r.yaml:11:" in p and "unknown key 'paramz'" in p for p in found), found


@pytest.mark.parametrize("steps, tail, where, label", [
    ("""\
      - {id: recode, method: global_recode, params: {variable: age, width: 10}, enabled: false}
      - {id: risk, measure: k_anonymity, input: recode}
    """, "", "11:43", "steps[1].input"),
    ("""\
      - {id: recode, method: global_recode, params: {variable: age, width: 10}, enabled: false}
      - {id: risk, measure: k_anonymity, after: [recode]}
    """, "", "11:44", "steps[1].after[0]"),
    ("""\
      - {id: risk0, measure: k_anonymity, enabled: false}
      - {id: risk, measure: k_anonymity}
    """, """\
    checks:
      - "risk.violations[3] <= risk0.violations[3]"
    """, "13:5", "checks[0]"),
    ("""\
      - {id: risk0, measure: k_anonymity, enabled: false}
      - {id: risk, measure: k_anonymity}
    """, """\
    release: {path: out.csv, measures: [risk0], from: risk}
    checks: ["risk.violations[3] == 0"]
    """, "12:37", "release.measures"),
    ("""\
      - {id: sup, method: local_suppression, params: {k: 3}, enabled: false}
      - {id: sup2, method: local_suppression, params: {k: 3}}
      - {id: risk, measure: k_anonymity}
    """, """\
    release: {path: out.csv, from: sup}
    checks: ["risk.violations[3] == 0"]
    """, "13:32", "release.from"),
    ("""\
      - {id: loss, measure: information_loss, enabled: false}
      - {id: link, measure: record_linkage}
      - {id: score, measure: score, params: {il: "loss.pil", dr: "link.percent"}}
    """, "", "12:39", "steps[2].params"),
    ("""\
      - {id: sup, method: local_suppression, params: {k: 3}, enabled: false}
      - {id: risk, measure: k_anonymity}
      - {id: cil, measure: categorical_information_loss, params: {reference: sup}}
    """, "", "12:72", "steps[2].params.reference"),
    ("""\
      - {id: sup, method: local_suppression, grid: {k: [2, 3]}, enabled: false}
      - {id: sup2, method: local_suppression, params: {k: 3}}
      - {id: risk, measure: k_anonymity}
    """, """\
    release: {path: out.csv, variant: {k: 3}}
    checks: ["risk.violations[3] == 0"]
    """, "13:39", "release.variant"),
    ("""\
      - {id: sup, method: local_suppression, grid: {k: [2, 3]}, enabled: false}
      - {id: sup2, method: local_suppression, grid: {k: [2, 3]}}
      - {id: risk, measure: k_anonymity}
    """, """\
    release: {path: out.csv, variant: {sup2.k: 3, sup.k: 2}}
    checks: ["risk.violations[3] == 0"]
    """, "13:54", "release.variant"),
])
def test_using_a_disabled_step_is_an_error_at_the_use(steps, tail, where, label):
    found = problems(steps, tail)
    wanted = [p for p in found if "is disabled" in p]
    assert len(wanted) == 1, found
    assert wanted[0].startswith(f"r.yaml:{where}: {label}: step '")
    assert "has enabled: false); enable it or remove this use of it" in wanted[0]


def test_a_disabled_step_keeps_its_id_taken():
    found = problems("""\
      - {id: risk, measure: k_anonymity, enabled: false}
      - {id: risk, measure: k_anonymity}
    """)
    assert any("r.yaml:11:" in p and "'risk' is already the id of steps[0]" in p
               for p in found), found


def test_every_step_disabled_is_an_error():
    found = problems("""\
      - {id: risk, measure: k_anonymity, enabled: false}
    """)
    assert found == [("r.yaml:10:1: steps: every step is disabled (enabled: false); "
                      "enable at least one")]


def test_the_plan_leaves_a_disabled_step_out(tmp_path):
    path = tmp_path / "r.yaml"
    path.write_text(HEAD + textwrap.dedent("""\
      - {id: risk0, measure: k_anonymity, input: original}
      - {id: recode, method: global_recode, params: {variable: age, width: 10}, enabled: false}
      - {id: sup, method: local_suppression, params: {k: 3}}
      - {id: risk, measure: k_anonymity}
    """))
    validated = validate(path)
    assert [ps.node for ps in validated.plan.steps] == ["risk0", "sup", "risk"]
    # the step after a disabled one reads what the step before that one left
    sup = next(s for s in validated.recipe.steps if s.id == "sup")
    assert source_of(validated.recipe, sup) == "risk0"
    first = recipe("""\
      - {id: recode, method: global_recode, params: {variable: age, width: 10}, enabled: false}
      - {id: sup, method: local_suppression, params: {k: 3}}
      - {id: risk, measure: k_anonymity}
    """)
    assert source_of(first, first.steps[0]) == "original"


def test_sdcflow_plan_shows_a_disabled_step_as_skipped(tmp_path, capsys):
    from sdcflow.cli import main

    path = tmp_path / "r.yaml"
    path.write_text(HEAD + textwrap.dedent("""\
      - {id: recode, method: global_recode, params: {variable: age, width: 10}, enabled: false}
      - {id: risk, measure: k_anonymity}
    """))
    assert main(["plan", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("  1. risk ")
    assert out[1].split() == ["-", "recode", "method", "global_recode", "skipped",
                              "(enabled:", "false)"]
    assert main(["plan", str(path), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["skipped"] == [{"id": "recode", "kind": "method", "plugin": "global_recode"}]
    assert [s["step"] for s in data["steps"]] == ["risk"]


def test_a_dry_run_shows_a_disabled_step_as_skipped(tmp_path, capsys):
    from sdcflow.cli import main

    path = tmp_path / "r.yaml"
    path.write_text(HEAD + textwrap.dedent("""\
      - {id: risk, measure: k_anonymity}
      - {id: recode, method: global_recode, params: {variable: age, width: 10}, enabled: false}
    """))
    assert main(["run", str(path), "--dry-run"]) == 0
    out = capsys.readouterr().out.splitlines()
    at = out.index("would run 1 step in this order:")
    assert out[at + 1].split()[:2] == ["1.", "risk"]
    assert out[at + 2].split() == ["-", "recode", "method", "global_recode", "skipped",
                                   "(enabled:", "false)"]
    assert main(["run", str(path), "--dry-run", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["skipped"] == [
        {"id": "recode", "kind": "method", "plugin": "global_recode"}]


def _run(tmp_path, name: str, steps: str) -> dict:
    from sdcflow import run

    path = tmp_path / f"{name}.yaml"
    path.write_text(HEAD + textwrap.dedent(steps) + textwrap.dedent("""\
    checks: ["risk.violations[3] == 0"]
    release: {path: out.csv, measures: [risk]}
    """))
    result = run(path, tmp_path / name, use_cache=False)
    manifest = json.loads((tmp_path / name / "manifest.json").read_text())
    return {"steps": manifest["steps"],
            "release": (tmp_path / name / "public" / "out.csv").read_bytes(), "result": result}


def test_enabled_true_and_disabled_steps_leave_the_others_fingerprints_as_they_were(tmp_path):
    plain = _run(tmp_path, "plain", """\
      - {id: sup, method: local_suppression, params: {k: 3}}
      - {id: risk, measure: k_anonymity}
    """)
    marked = _run(tmp_path, "marked", """\
      - {id: sup, method: local_suppression, params: {k: 3}, enabled: true}
      - {id: recode, method: global_recode, params: {variable: age, width: 10}, enabled: false}
      - {id: risk, measure: k_anonymity}
    """)
    assert plain["release"] == marked["release"]
    assert [s["id"] for s in marked["steps"]] == ["sup", "risk"]
    assert [s["fingerprint"] for s in plain["steps"]] == \
        [s["fingerprint"] for s in marked["steps"]]
