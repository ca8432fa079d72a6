"""Every recipe shipped in recipes/ validates and runs on the shipped data as it is,
without a single warning (a warning would reach a command-line user's terminal with a
source line)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from helpers import ROOT, output_files

from sdcflow import load_recipe, run, validate
from sdcflow.plugins.results import conformance

RECIPES = sorted((ROOT / "recipes").glob("*.yaml"))


@pytest.mark.parametrize("path", RECIPES, ids=[p.name for p in RECIPES])
def test_shipped_recipe_runs(path: Path, shipped_run):
    # (the run of the shipped_run fixture: without the cache, every NumPy/SciPy/pandas
    # warning an error)
    result = shipped_run(path.stem).result
    assert all(c["passed"] for c in result.checks)
    assert (result.out_dir / "manifest.json").exists()
    # every measure's result has the shape its plugin declares (for the step's params
    # and the metadata the plan says the step sees): validation relies on it
    for ps in validate(path).plan.steps:
        if ps.kind == "measure":
            shape = ps.step.plugin.result_shape(ps.params, ps.meta)
            assert conformance(shape, result.measures[ps.node]) == [], ps.node


def test_perturbative_recipe_keeps_the_identity_and_reports_loss(tmp_path):
    result = run(ROOT / "recipes" / "casc_perturbative.yaml", tmp_path / "out", use_cache=False)
    data = result.data
    assert (abs(data["PEARNVAL"] + data["POTHVAL"] - data["PTOTVAL"]) < 0.01).all()
    assert 0 < result.measures["loss"]["pil"] < 50
    # rank swapping keeps every tax variable's values as a multiset
    original = pd.read_csv(ROOT / "sdcflow" / "data" / "datasets" / "CASCrefmicrodata.csv")
    assert sorted(data["FEDTAX"]) == sorted(original["FEDTAX"])


def test_command_line_run_prints_no_warning(tmp_path):
    # what a user sees: the CLI's stderr, with every warning shown (-W always)
    env = {**os.environ, "PYTHONWARNINGS": "always"}
    done = subprocess.run([sys.executable, "-W", "always", "-m", "sdcflow.cli", "run",
                           str(ROOT / "recipes" / "quickstart.yaml"), "--out",
                           str(tmp_path / "out"), "--no-cache"],
                          capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr and "warn(" not in done.stderr, done.stderr


@pytest.mark.parametrize("path", RECIPES, ids=[p.name for p in RECIPES])
def test_cached_uncached_and_tampered_runs_give_the_same_bytes(path: Path, tmp_path):
    """The cache never changes a result: a first run (filling the cache), a cached run, a
    --no-cache run and a run on a tampered cache (every stored file replaced by another
    valid file: rows shuffled) write the same bytes (the run log aside)."""
    shutil.copytree(ROOT / "recipes" / "data", tmp_path / "data")
    recipe = tmp_path / path.name
    shutil.copy(path, recipe)
    run(recipe, tmp_path / "a")
    cached = run(recipe, tmp_path / "b")
    tables = {s.id for s in load_recipe(recipe).steps if s.table is not None}  # not cached
    assert [s.node for s in cached.steps if not s.cached] == \
        [s.node for s in cached.steps if s.node in tables]
    run(recipe, tmp_path / "c", use_cache=False)
    tampered = 0
    for stored in (tmp_path / ".sdcflow-cache").rglob("*.parquet"):
        before = stored.read_bytes()
        frame = pd.read_parquet(stored)
        frame.sample(frac=1.0, random_state=1).to_parquet(stored)
        # (a step that writes no column, as remove_variables, stores an empty frame:
        # shuffled, it is the same file, and nothing was tampered with)
        tampered += stored.read_bytes() != before
    fourth = run(recipe, tmp_path / "d")
    expected = output_files(tmp_path / "a")
    assert output_files(tmp_path / "b") == output_files(tmp_path / "c") == output_files(tmp_path / "d") \
        == expected
    # every tampered entry was noticed and recomputed
    assert len([n for n in fourth.notes if "failed verification" in n]) == tampered
    assert tampered > 0 or not ({s.node for s in cached.steps} - tables)


def _manifests_in_a_process(tmp: Path, hash_seed: str) -> str:
    """Every shipped recipe run in a fresh process with this PYTHONHASHSEED; the files
    of each output directory and their sha256, as text."""
    code = ("import json, sys\nfrom pathlib import Path\nfrom sdcflow import run\n"
            "out = {}\n"
            "for i, p in enumerate(sys.argv[2:]):\n"
            "    r = run(p, Path(sys.argv[1]) / str(i), use_cache=False)\n"
            "    out[p] = r.manifest['files']\n"
            "print(json.dumps(out, sort_keys=True))\n")
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    done = subprocess.run([sys.executable, "-c", code, str(tmp), *map(str, RECIPES)],
                          env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_releases_do_not_depend_on_the_hash_seed(tmp_path):
    """Python randomises the order of sets of text from process to process; nothing
    released may follow it (a hierarchy's subtotals once did)."""
    assert _manifests_in_a_process(tmp_path / "a", "1") == \
        _manifests_in_a_process(tmp_path / "b", "2")


def test_census_recipe_releases_tables_and_a_sample_that_cannot_recount_them(tmp_path):
    """recipes/census_swap.yaml (issue 22, finding 4): the hypercubes are counted from
    the swapped records and perturbed by the cell key method; the records released
    beside them are a sample of the swapped households, protected for that release, so
    recounting them cannot read off the tables' noise. The figures are this run's own
    (measures.json, the steps' info), quoted in the table of recipes, docs/recipes.md."""
    result = run(ROOT / "recipes" / "census_swap.yaml", tmp_path / "out", use_cache=False)
    info = {s.node: s.info for s in result.steps}
    # the old recipe released the swapped records themselves: 2978 of 20000 (14.9 %)
    # violated 2-anonymity on municipality x age group x sex x citizenship
    assert result.measures["risk"]["violations"]["2"] == 2978
    assert info["swap"]["percent_swapped"] == pytest.approx(27.679)
    # 10 % of the 8324 households, whole
    assert info["sample"]["by_stratum"] == {"all": {"of": 8324, "sampled": 832}}
    assert info["sample"]["records"] == len(result.data) == 1944
    # importance lexicographic: household size and region are never suppressed
    assert info["kanon"]["total"] == 226
    assert info["kanon"]["suppressions"] == {"age_group": 68, "citizenship": 156, "hsize": 0,
                                             "nuts2": 0, "sex": 2}
    assert result.measures["risk_sample"]["violations"] == {"2": 0, "3": 0, "5": 204}
    # persons, no area below the region: the tables' county and municipality cells
    # cannot be recounted from the records, nor households put together
    assert list(result.data.columns) == ["nuts2", "hsize", "tenure", "age_group", "sex",
                                         "citizenship"]
    # the tables count every person (the internal copy keeps the original counts)
    internal = pd.read_csv(tmp_path / "out" / "tables" / "county_age_sex.csv", dtype=str)
    total = internal[(internal["county"] == "Total") & (internal["age_group"] == "Total")
                     & (internal["sex"] == "Total")]
    assert total["freq"].tolist() == ["20000"]
    policy = result.manifest["release_policy"]
    assert policy == {"acknowledged": [], "artefacts": {
        "records": {"protected_by": ["swap", "sample", "kanon"]},
        "table:county_age_sex": {"protected_by": ["swap", "ck_age"]},
        "table:municipality_citizenship": {"protected_by": ["swap", "ck_citizenship"]}}}
