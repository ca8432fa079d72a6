"""Every recipe shipped in recipes/ validates and runs on the shipped data as it is,
without a single warning (a warning would reach a command-line user's terminal with a
source line)."""

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest
from helpers import ROOT

from sdcflow import run, validate
from sdcflow.results import conformance

RECIPES = sorted((ROOT / "recipes").glob("*.yaml"))


@pytest.mark.parametrize("path", RECIPES, ids=[p.name for p in RECIPES])
def test_shipped_recipe_runs(path: Path, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy/SciPy/pandas warnings fail the run
        result = run(path, tmp_path / "out", use_cache=False)
    assert all(c["passed"] for c in result.checks)
    assert (tmp_path / "out" / "manifest.json").exists()
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
