"""The recipe's public form (sdcflow.engine.public_recipe), the hash the public manifest
carries, the released variant's public label and ``sdcflow public-recipe``: nothing in
public/ is a function of the seed or of a parameter that is not published."""

import hashlib
import json

import numpy as np
import pandas as pd
import pytest
from helpers import output_files

from sdcflow import load_recipe, run
from sdcflow.cli import main
from sdcflow.engine.public_recipe import public_form, public_form_text, public_sha256

RECIPE = """\
sdcflow: 1
name: pub
description: notes of the office, published nowhere
seed: SEED
data: {path: DATA}
variables:
  hid: {role: household}
  region: {role: key, level: household}
  sex: {role: key}
  age: {role: key, type: integer}
  income: {role: numeric, type: continuous}
constraints:
  - {id: positive, expr: "income >= 0"}
steps:
  - {id: age20, method: global_recode, params: {variable: age, breaks: [0, 20, 40, 60, 130]}}
  - {id: kanon, method: local_suppression, params: {k: K}}
SWAP
  - {id: risk, measure: k_anonymity, params: {k: [2, 3]}}
  - {id: before, measure: k_anonymity, input: original, params: {k: [2, 5]}}
checks:
  - "risk.violations[2] == 0"
  - "before.violations[5] >= 0"
release: {path: people.csv, measures: [risk]}
"""
SWAP = "  - {id: swap, method: rank_swap, params: {variables: [income], p: P}}"


def recipe_text(seed=2026, k=2, p=5, data="people.csv", swap=True) -> str:
    return (RECIPE.replace("SEED", str(seed)).replace("DATA", data)
            .replace("K", str(k)).replace("SWAP\n", SWAP.replace("P", str(p)) + "\n"
                                          if swap else ""))


@pytest.fixture
def folder(tmp_path):
    """A folder with the data: 60 households of 1 to 4 persons."""
    rng = np.random.default_rng(4)
    sizes = rng.integers(1, 5, 60)
    n = int(sizes.sum())
    frame = pd.DataFrame({"hid": np.repeat(np.arange(101, 161), sizes),
                          "region": np.repeat(rng.choice(["N", "S"], 60), sizes),
                          "sex": rng.choice(["1", "2"], n), "age": rng.integers(0, 90, n),
                          "income": rng.lognormal(7, 1, n).round(2)})
    frame.to_csv(tmp_path / "people.csv", index=False)
    return tmp_path


def write(folder, name="r.yaml", **kw):
    path = folder / name
    path.write_text(recipe_text(**kw), encoding="utf-8")
    return path


def test_the_public_form_holds_no_seed_and_nothing_internal(folder):
    recipe = load_recipe(write(folder, seed=987654321, p=7))
    form = public_form(recipe)
    text = public_form_text(recipe)
    assert "987654321" not in text and "seed" not in text
    # rank swapping's p is internal; the measure 'before' and its check are not published
    assert [s["id"] for s in form["steps"]] == ["age20", "kanon", "swap", "risk"]
    assert form["steps"][2] == {"id": "swap", "method": "rank_swap",
                                "params": {"variables": ["income"]}}
    assert form["checks"] == ["risk.violations[2] == 0"]
    # no data location, no edit rules, no free text
    assert set(form) == {"public_form", "sdcflow", "name", "variables", "steps", "checks",
                         "release"}
    assert "description" not in text and "positive" not in text
    # the text hashed is the one printed: keys sorted, indented, a final newline
    assert text == json.dumps(form, indent=2, sort_keys=True) + "\n"
    assert public_sha256(recipe) == hashlib.sha256(text.encode()).hexdigest()


def test_the_public_hash_is_the_same_whatever_is_not_published(folder):
    base = public_sha256(load_recipe(write(folder)))
    (folder / "other.csv").write_bytes((folder / "people.csv").read_bytes())
    same = [write(folder, "seed.yaml", seed=1), write(folder, "p.yaml", p=15),
            write(folder, "data.yaml", data="other.csv")]
    commented = folder / "comments.yaml"
    commented.write_text("# the seed is 2026\n" + recipe_text().replace(
        "description: notes of the office, published nowhere",
        "description: other notes").replace('"income >= 0"', '"income >= -1"'))
    for path in [*same, commented]:
        assert public_sha256(load_recipe(path)) == base, path.name
    # a published parameter is part of it
    assert public_sha256(load_recipe(write(folder, "k.yaml", k=3))) != base


def test_public_is_the_same_bytes_whatever_the_seed(folder):
    # a recipe without random draws: every byte of public/ (release, manifest, external
    # report) is the same for two seeds, so no search can find the seed from it (the
    # household ids and the recipe file's hash were draws and functions of the seed)
    outs = []
    for seed in (2026, 31337):
        path = write(folder, f"s{seed}.yaml", seed=seed, swap=False)
        result = run(path, folder / f"out{seed}")
        outs.append(output_files(result.public_dir))
        hid = pd.read_csv(result.public_dir / "people.csv")["hid"]
        assert sorted(hid.unique()) == list(range(1, hid.nunique() + 1))
    assert outs[0] == outs[1]


def test_the_public_manifest_is_the_same_whatever_the_seed_and_p(folder):
    # with random draws (rank swapping) the release differs, the manifest does not: it
    # holds neither the seed nor p, nor anything computed from them
    manifests = []
    for seed, p in ((2026, 5), (7, 15)):
        result = run(write(folder, f"s{seed}.yaml", seed=seed, p=p), folder / f"out{seed}")
        manifest = json.loads((result.public_dir / "manifest.json").read_text())
        manifest.pop("released")
        manifests.append(manifest)
        swap = next(s for s in manifest["steps"] if s["id"] == "swap")
        assert swap["params"] == {"variables": ["income"], "variant": "standard"}
    assert manifests[0] == manifests[1]


def test_a_grid_over_an_internal_parameter_publishes_no_value_of_it(folder):
    text = recipe_text().replace(SWAP.replace("P", "5"), (
        "  - {id: swap, method: rank_swap, params: {variables: [income]}, "
        "grid: {p: [5, 17]}}")).replace("release: {path: people.csv,",
                                        "release: {path: people.csv, variant: {p: 17},")
    path = folder / "grid.yaml"
    path.write_text(text)
    result = run(path, folder / "out")
    assert result.manifest["variant"] == "p=17"  # internal
    public = (result.public_dir / "manifest.json").read_text()
    assert json.loads(public)["variant"] is None
    external = (result.public_dir / "report.html").read_text()
    assert "p=17" not in public + external and "17" not in public
    form = public_form(load_recipe(path))
    assert "grid" not in form["steps"][2] and "variant" not in form["release"]


def test_public_recipe_prints_what_the_manifest_hashes(folder, capsys):
    path = write(folder)
    result = run(path, folder / "out")
    digest = json.loads((result.public_dir / "manifest.json").read_text())["recipe"][
        "public_sha256"]
    assert main(["public-recipe", str(path)]) == 0
    assert hashlib.sha256(capsys.readouterr().out.encode()).hexdigest() == digest
    assert main(["public-recipe", str(path), "--sha256"]) == 0
    assert capsys.readouterr().out == digest + "\n"
    for where in (folder / "out", result.public_dir, result.public_dir / "manifest.json"):
        assert main(["public-recipe", str(path), "--check", str(where)]) == 0
        assert f"matches {result.public_dir / 'manifest.json'}" in capsys.readouterr().out
    # another recipe (a published parameter changed) does not match
    assert main(["public-recipe", str(write(folder, "k3.yaml", k=3)), "--check",
                 str(folder / "out")]) == 1
    assert "does not match" in capsys.readouterr().err
    assert main(["public-recipe", str(path), "--check", str(folder / "people.csv")]) == 1
    assert "not a public manifest" in capsys.readouterr().err


def test_the_internal_manifest_keeps_both_hashes(folder):
    path = write(folder)
    result = run(path, folder / "out")
    recipe = load_recipe(path)
    assert result.manifest["recipe"]["sha256"] == hashlib.sha256(
        path.read_bytes()).hexdigest()
    assert result.manifest["recipe"]["public_sha256"] == public_sha256(recipe)
