"""The engine (sdcflow.engine): reproducibility, caching, checks, atomic release."""

import json
import shutil

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import QUICKSTART

from sdcflow import run
from sdcflow.data import TEXT
from sdcflow.engine import step_rng
from sdcflow.errors import CheckFailed, PluginError


@pytest.fixture
def quickstart(tmp_path):
    """A copy of the quickstart recipe in a temporary directory (own cache)."""
    path = tmp_path / "quickstart.yaml"
    shutil.copy(QUICKSTART, path)
    return path


def stable(manifest):
    """The manifest without the fields that legitimately vary (time, cache hits)."""
    for step in manifest["steps"]:
        step.pop("seconds")
        step.pop("cached")
    return manifest


def test_quickstart_measures_match_seed_004(quickstart):
    result = run(quickstart, quickstart.parent / "out")
    m = result.measures
    assert m["risk_original"]["violations"] == {"2": 653, "3": 1087, "5": 1781}
    assert m["risk_age"]["violations"] == {"2": 113, "3": 188, "5": 362}
    assert m["risk"]["violations"] == {"2": 106, "3": 171, "5": 316}
    assert all(c["passed"] for c in result.checks)


def test_two_runs_are_byte_identical(quickstart):
    a = run(quickstart, quickstart.parent / "a", use_cache=False)
    b = run(quickstart, quickstart.parent / "b", use_cache=False)
    for name in ("testdata-protected.csv", "measures.json", "report.html"):
        assert (a.out_dir / name).read_bytes() == (b.out_dir / name).read_bytes()
    ma = json.loads((a.out_dir / "manifest.json").read_text())
    mb = json.loads((b.out_dir / "manifest.json").read_text())
    assert stable(ma) == stable(mb)
    assert ma["outputs"]["testdata-protected.csv"] == mb["outputs"]["testdata-protected.csv"]


def test_manifest_contents(quickstart):
    result = run(quickstart, quickstart.parent / "out")
    manifest = json.loads((result.out_dir / "manifest.json").read_text())
    assert manifest["seed"] == 2026
    assert manifest["recipe"]["file"] == "quickstart.yaml"
    assert len(manifest["recipe"]["sha256"]) == 64
    assert len(manifest["input"]["sha256"]) == 64
    assert set(manifest["environment"]) >= {"python", "numpy", "pandas"}
    step = next(s for s in manifest["steps"] if s["id"] == "age10")
    assert step["method"] == "global_recode" and step["info"]["outside_breaks"] == 98
    assert step["params"]["include_lowest"] is False
    assert set(manifest["outputs"]) == {"testdata-protected.csv", "measures.json", "report.html"}


# pandas 2.x reads the cached text columns back as Python objects, whose column hashes
# differ, so the steps after a cached method step miss the cache; the engine's cache load
# must restore the declared storage (sdcflow.data.as_declared). Strict: passes once it does.
@pytest.mark.xfail(int(pd.__version__.split(".")[0]) < 3, strict=True,
                   reason="engine cache load does not call sdcflow.data.as_declared yet")
def test_cached_rerun_and_partial_invalidation(quickstart):
    first = run(quickstart, quickstart.parent / "out")
    assert not any(s.cached for s in first.steps)
    second = run(quickstart, quickstart.parent / "out")
    assert all(s.cached for s in second.steps)
    assert second.manifest["outputs"] == first.manifest["outputs"]
    # Changing the income top-coding recomputes it and what reads income, nothing else.
    quickstart.write_text(quickstart.read_text().replace("quantile: 0.99", "quantile: 0.95"))
    third = run(quickstart, quickstart.parent / "out")
    recomputed = {s.node for s in third.steps if not s.cached}
    assert recomputed == {"income_top", "edits"}


def test_identifiers_never_reach_the_release(write_recipe, tmp_path):
    data = tmp_path / "people.csv"
    data.write_text("name,age,sex\nAnn,30,f\nBob,40,m\nCid,50,m\n")
    recipe = write_recipe("""
        sdcflow: 1
        name: ids
        seed: 1
        data: {path: people.csv}
        variables:
          name: {role: identifier}
          age: {role: key, type: integer}
          sex: {role: key}
        steps:
          - {id: risk, measure: k_anonymity, params: {k: 1}}
        release: {path: people.csv}
    """)
    result = run(recipe, tmp_path / "out")
    assert list(result.data.columns) == ["age", "sex"]
    assert (tmp_path / "out" / "people.csv").read_text() == "age,sex\n30,f\n40,m\n50,m\n"
    assert data.read_text().startswith("name,age,sex\nAnn")  # input untouched


def test_failed_check_releases_nothing(quickstart):
    out = quickstart.parent / "out"
    quickstart.write_text(quickstart.read_text().replace(
        "risk.violations[5] <= 400", "risk.violations[5] <= 10"))
    with pytest.raises(CheckFailed) as info:
        run(quickstart, out)
    assert info.value.failures == [
        "check failed: risk.violations[5] <= 10: too many records violate 5-anonymity"]
    assert not out.exists()
    assert list(quickstart.parent.glob(".out*")) == []


def test_failed_check_keeps_the_previous_release(quickstart):
    out = quickstart.parent / "out"
    run(quickstart, out)
    before = (out / "testdata-protected.csv").read_bytes()
    quickstart.write_text(quickstart.read_text().replace("edits.total == 0", "edits.total == 1"))
    with pytest.raises(CheckFailed):
        run(quickstart, out)
    assert (out / "testdata-protected.csv").read_bytes() == before


def test_release_from_a_step_and_parquet(quickstart, testdata):
    text = quickstart.read_text().replace(
        "release: {path: testdata-protected.csv}",
        "release: {path: data/early.parquet, from: age10}")
    quickstart.write_text(text)
    result = run(quickstart, quickstart.parent / "out")
    # text read back as sdcflow holds it (pandas 2's read_parquet would give objects)
    frame = pq.read_table(result.out_dir / "data" / "early.parquet").to_pandas(
        types_mapper={pa.large_string(): TEXT}.get)
    assert frame["age"].iloc[0] == "40-49"
    assert frame["water"].iloc[0] == "3"
    # released before income_top: the top 1% of incomes is not coded yet
    assert frame["income"].max() == testdata.frame["income"].max()
    assert frame.equals(result.data.reset_index(drop=True))


def test_grid_gives_measures_per_variant_and_releases_the_chosen_one(write_recipe, tmp_path):
    recipe = write_recipe("""
        sdcflow: 1
        name: sweep
        seed: 3
        data: {builtin: testdata}
        variables:
          urbrur: {role: key}
          water: {role: key}
          sex: {role: key}
          age: {role: key, type: integer}
          relat: {role: key}
        steps:
          - id: age10
            method: global_recode
            params: {variable: age, breaks: [0, 9, 19, 29, 39, 49, 59, 69, 79, 130]}
            grid: {include_lowest: [false, true]}
          - {id: risk, measure: k_anonymity, params: {k: [2], alpha: 0.7}}
        checks: ["risk.violations[2] < 200"]
        release: {path: out.csv, variant: {include_lowest: true}}
    """)
    result = run(recipe, tmp_path / "out")
    assert result.measures["risk[include_lowest=false]"]["violations"] == {"2": 113}
    assert result.measures["risk[include_lowest=true]"]["violations"] == {"2": 118}
    assert result.manifest["variant"] == "include_lowest=true"
    assert result.data["age"].isna().sum() == 0


def test_plugin_failure_names_the_step(write_recipe, tmp_path, monkeypatch):
    from sdcflow import registry

    plugin = registry.get("top_bottom_code")
    monkeypatch.setattr(type(plugin), "apply", lambda *a: 1 / 0)
    recipe = write_recipe("""
        sdcflow: 1
        name: boom
        seed: 1
        data: {builtin: testdata}
        variables: {income: {role: numeric}}
        steps: [{id: tb, method: top_bottom_code, params: {variable: income, top: {value: 5}}}]
    """)
    with pytest.raises(PluginError, match="step 'tb': top_bottom_code failed: ZeroDivisionError"):
        run(recipe, tmp_path / "out", use_cache=False)
    assert not (tmp_path / "out").exists()


def test_step_generators_depend_on_seed_and_step_only():
    a = step_rng(1, "noise").random(3)
    assert np.array_equal(a, step_rng(1, "noise").random(3))
    assert not np.array_equal(a, step_rng(2, "noise").random(3))
    assert not np.array_equal(a, step_rng(1, "noise2").random(3))


def test_a_cache_that_cannot_be_written_is_not_fatal(tmp_path):
    from sdcflow.engine import _cache_save

    blocked = tmp_path / "not-a-directory"
    blocked.write_text("")  # mkdtemp inside a file fails with an OSError
    _cache_save(blocked, "ab" * 32, {"x": 1}, {})
    assert blocked.read_text() == ""
