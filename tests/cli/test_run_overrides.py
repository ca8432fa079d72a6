"""``--set PATH=VALUE``: a run of the recipe with some values changed, checked as any
recipe, said on the output and recorded in the manifest; the public manifest names the
recipe that ran by its public form, which holds no seed."""

import json

import pytest

from sdcflow.cli import main
from sdcflow.engine.public_recipe import public_sha256
from sdcflow.errors import RecipeError
from sdcflow.recipe import load_recipe
from sdcflow.recipe._overrides import parse_override

QUANTILE = "steps.top.params.top.quantile=0.9"


@pytest.mark.parametrize(("arg", "value"), [
    ("k=5", 5), ("k=[2, 3]", [2, 3]), ("x=0.5", 0.5), ("x=true", True),
    ("x=yes", "yes"),  # YAML 1.2: not a boolean
    ("x=08", "08"),  # a code with a leading zero stays text (YAML 1.1 would read 8)
    ("x=", None), ("x={quantile: 0.99, replace: mean}", {"quantile": 0.99, "replace": "mean"}),
    ("x=a=b", "a=b"),  # the first '=' ends the path
])
def test_the_value_is_read_as_the_recipe_reads_yaml(arg, value):
    override, problems = parse_override(arg)
    assert override.value == value
    assert all(p.severity == "warning" for p in problems)


@pytest.mark.parametrize(("arg", "message"), [
    ("nokey", "--set nokey: expected PATH=VALUE"),
    ("steps..k=1", "--set steps..k=1: 'steps..k' is not a path"),
    ("x=[1", "--set x=[1: the value: "),
    ("x=!!python/object:os.system ls", "--set x=!!python/object:os.system ls: the value: "),
])
def test_a_malformed_set_is_refused(arg, message):
    override, problems = parse_override(arg)
    assert override is None
    assert str(problems[0]).startswith(message)


def test_set_changes_the_run_says_so_and_is_recorded(small, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", str(small), "--out", str(out), "--set", QUANTILE]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"with --set {QUANTILE} (the recipe file is not changed)"
    assert lines[1] == f"released into {out}"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["recipe"]["overrides"] == [
        {"set": "steps.top.params.top.quantile", "value": 0.9}]
    top = next(s for s in manifest["steps"] if s["id"] == "top")
    assert top["params"]["top"]["quantile"] == 0.9
    # the file's hash is the file's; the public hash is of the recipe that ran
    import hashlib
    assert manifest["recipe"]["sha256"] == hashlib.sha256(small.read_bytes()).hexdigest()
    ran = public_sha256(load_recipe(small, overrides=[QUANTILE]))
    assert ran != public_sha256(load_recipe(small))
    assert manifest["recipe"]["public_sha256"] == ran
    public = json.loads((out / "public" / "manifest.json").read_text())
    assert public["recipe"]["public_sha256"] == ran
    # and `sdcflow public-recipe` checks it with the same --set only
    assert main(["public-recipe", str(small), "--set", QUANTILE, "--check", str(out)]) == 0
    assert main(["public-recipe", str(small), "--check", str(out)]) == 1
    assert "give the same --set arguments" in capsys.readouterr().err


def test_a_run_without_set_records_no_overrides(small, tmp_path):
    out = tmp_path / "out"
    assert main(["run", str(small), "--out", str(out), "-q"]) == 0
    assert "overrides" not in json.loads((out / "manifest.json").read_text())["recipe"]


def test_an_invalid_override_exits_1_at_its_argument_and_writes_nothing(small, tmp_path,
                                                                       capsys):
    out = tmp_path / "out"
    assert main(["run", str(small), "--out", str(out),
                 "--set", "steps.top.params.top.quantile=2",
                 "--set", "steps.tpo.params.k=3", "--set", "seed=abc"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert "--set steps.top.params.top.quantile=2: steps[2].params.top.quantile: 2 is " \
        "greater than or equal to the maximum of 1" in err
    assert any(line.startswith("--set steps.tpo.params.k=3: steps has no item with id "
                               "'tpo' (did you mean 'top'?)") for line in err)
    assert any(line.startswith("--set seed=abc: seed: ") for line in err)
    assert not out.exists()


def test_a_later_set_wins_and_its_problems_name_it(small):
    replaced = "steps.top.params.top={quantile: 3, replace: mean}"
    with pytest.raises(RecipeError) as exc:
        load_recipe(small, overrides=[QUANTILE, replaced])
    [problem] = exc.value.problems
    assert problem.file == f"--set {replaced}"
    assert problem.line is None
    # a problem elsewhere keeps the file's line
    recipe = load_recipe(small, overrides=["steps.top.params.top.quantile=0.5", QUANTILE])
    assert recipe.steps[2].params["top"]["quantile"] == 0.9
    assert [o.path for o in recipe.overrides] == ["steps.top.params.top.quantile"] * 2


def test_a_missing_key_is_added_and_checked(small):
    recipe = load_recipe(small, overrides=["steps.age10.params.include_lowest=false"])
    assert recipe.steps[1].params["include_lowest"] is False
    with pytest.raises(RecipeError) as exc:
        load_recipe(small, overrides=["steps.age10.params.nope=1"])
    assert str(exc.value.problems[0]).startswith("--set steps.age10.params.nope=1: ")


def test_a_seed_override_is_recorded_internally_and_never_published(small, tmp_path):
    plain, seeded = tmp_path / "plain", tmp_path / "seeded"
    assert main(["run", str(small), "--out", str(plain), "-q"]) == 0
    assert main(["run", str(small), "--out", str(seeded), "-q", "--set", "seed=987654"]) == 0
    internal = json.loads((seeded / "manifest.json").read_text())
    assert internal["seed"] == 987654
    assert internal["recipe"]["overrides"] == [{"set": "seed", "value": 987654}]
    # the public manifest is that of the recipe without the override: its public form
    # holds no seed, so nothing in public/ tells the seed or that it was changed
    assert (plain / "public" / "manifest.json").read_bytes() == \
        (seeded / "public" / "manifest.json").read_bytes()
    for path in (seeded / "public").rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            assert "987654" not in text and "overrides" not in text


def test_the_internal_report_names_the_overrides_and_the_external_does_not(small, tmp_path):
    out = tmp_path / "out"
    assert main(["run", str(small), "--out", str(out), "-q", "--set", QUANTILE,
                 "--set", "seed=987654"]) == 0
    internal = (out / "report.html").read_text()
    assert "steps.top.params.top.quantile=0.9" in internal and "seed=987654" in internal
    external = (out / "public" / "report.html").read_text()
    assert "--set" not in external and "987654" not in external


def test_a_dry_run_says_its_overrides(small, capsys):
    assert main(["run", str(small), "--dry-run", "--set", QUANTILE]) == 0
    assert capsys.readouterr().out.startswith(
        f"with --set {QUANTILE} (the recipe file is not changed)\ndry run of small")
    assert not (small.parent / "output").exists()


def test_a_failed_run_says_its_overrides_first(small, tmp_path, capsys):
    assert main(["run", str(small), "--out", str(tmp_path / "out"),
                 "--set", "checks.1=loss.pil < 0"]) == 3
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "with --set checks.1=loss.pil < 0 (the recipe file is not changed)"
    assert err[1].startswith("check failed: loss.pil < 0 (loss.pil = ")
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["recipe"]["overrides"] == [{"set": "checks.1", "value": "loss.pil < 0"}]


def test_validate_and_report_take_set_too(small, tmp_path, capsys):
    # validate checks the recipe with the values a run would use: a value the recipe
    # refuses is refused at its --set, a good one is said to be used
    assert main(["validate", str(small), "--set", QUANTILE]) == 0
    assert capsys.readouterr().out.strip() == f"{small}: valid (with --set {QUANTILE})"
    assert main(["validate", str(small), "--set", "steps.top.params.top.quantile=2"]) == 1
    err = capsys.readouterr().err
    assert "--set steps.top.params.top.quantile=2" in err and "Traceback" not in err
    assert main(["validate", str(small), "--set", "steps.nope.params.k=1"]) == 1
    assert "steps has no item with id 'nope'" in capsys.readouterr().err
    # the report of the run with the override, which names it
    target = tmp_path / "r.html"
    assert main(["report", str(small), "-o", str(target), "--set", QUANTILE]) == 0
    page = target.read_text()
    assert "steps.top.params.top.quantile=0.9" in page
