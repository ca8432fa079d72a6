"""Running a recipe (sdcflow.engine.runner): measures, manifests, releases, checks."""

import hashlib
import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import output_files

from sdcflow import run
from sdcflow.data import TEXT
from sdcflow.engine import step_rng
from sdcflow.errors import CheckFailed, InternalError


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
    assert (a.out_dir / "run.json").is_file()
    # every file but the run log (timings, cache hits) is the same, bytes for bytes
    fa, fb = output_files(a.out_dir), output_files(b.out_dir)
    assert set(fa) == {"public/testdata-protected.csv", "public/manifest.json",
                       "public/report.html", "manifest.json", "measures.json", "report.html",
                       "household-ids.csv"}
    assert fa == fb


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
    assert "seconds" not in step and "cached" not in step  # in run.json
    assert set(manifest["files"]) == {"public/testdata-protected.csv", "public/manifest.json",
                                      "public/report.html", "measures.json", "report.html",
                                      "household-ids.csv"}
    assert manifest["household_ids"] == {"variable": "ori_hid", "replaced": True,
                                         "households": 1000}
    for rel, digest in manifest["files"].items():
        assert hashlib.sha256((result.out_dir / rel).read_bytes()).hexdigest() == digest
    log = json.loads((result.out_dir / "run.json").read_text())
    assert [s["id"] for s in log["steps"]] == [s["id"] for s in manifest["steps"]]
    assert all(isinstance(s["seconds"], float) for s in log["steps"])


# (under pandas 2.x cached text columns come back from Parquet as Python objects: the
# cache load restores the declared storage, or every later step would miss the cache)
def test_cached_rerun_and_partial_invalidation(quickstart):
    first = run(quickstart, quickstart.parent / "out")
    assert not any(s.cached for s in first.steps)
    second = run(quickstart, quickstart.parent / "out")
    assert all(s.cached for s in second.steps)
    assert second.manifest["files"] == first.manifest["files"]
    # Changing the income top-coding recomputes it and what reads income, nothing else.
    quickstart.write_text(quickstart.read_text().replace("quantile: 0.99", "quantile: 0.95"))
    third = run(quickstart, quickstart.parent / "out")
    recomputed = {s.node for s in third.steps if not s.cached}
    assert recomputed == {"income_top", "edits"}


def test_identifiers_never_reach_the_release(write_recipe, tmp_path):
    data = tmp_path / "people.csv"
    data.write_text("name,age,sex\nAnn,30,f\nBob,40,m\nCid,30,f\nDan,40,m\n")
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
          - {id: risk, measure: k_anonymity, params: {k: 2}}
        checks: ["risk.violations[2] == 0"]   # safe as they are, the names dropped
        release: {path: people.csv}
    """)
    result = run(recipe, tmp_path / "out")
    assert list(result.data.columns) == ["age", "sex"]
    assert (tmp_path / "out" / "public" / "people.csv").read_text() == \
        "age,sex\n30,f\n40,m\n30,f\n40,m\n"
    assert data.read_text().startswith("name,age,sex\nAnn")  # input untouched


def test_failed_check_releases_nothing(quickstart):
    # (what a failed run writes and withdraws: tests/engine/test_not_released.py)
    out = quickstart.parent / "out"
    quickstart.write_text(quickstart.read_text().replace(
        "risk.violations[5] <= 400", "risk.violations[5] <= 10"))
    with pytest.raises(CheckFailed) as info:
        run(quickstart, out)
    assert info.value.failures == [
        ("check failed: risk.violations[5] <= 10 (risk.violations[5] = 316): too many "
         "records violate 5-anonymity")]
    assert not (out / "public").exists()
    assert set(output_files(out)) == {"manifest.json", "measures.json", "report.html"}
    assert list(quickstart.parent.glob(".out*")) == []


def test_release_from_a_step_and_parquet(quickstart, testdata):
    text = quickstart.read_text().replace(
        "release: {path: testdata-protected.csv, measures: [risk, edits]}",
        "release: {path: data/early.parquet, from: age10}")
    quickstart.write_text(text)
    result = run(quickstart, quickstart.parent / "out")
    # text read back as sdcflow holds it (pandas 2's read_parquet would give objects)
    frame = pq.read_table(result.public_dir / "data" / "early.parquet").to_pandas(
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
    from sdcflow.plugins import registry

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
    # an unexpected exception inside a plugin is a bug (exit 4), reported with the step
    with pytest.raises(InternalError, match="step 'tb': top_bottom_code failed unexpectedly: "
                       "ZeroDivisionError"):
        run(recipe, tmp_path / "out", use_cache=False)
    assert not (tmp_path / "out").exists()


def test_step_generators_depend_on_seed_and_step_only():
    a = step_rng(1, "noise").random(3)
    assert np.array_equal(a, step_rng(1, "noise").random(3))
    assert not np.array_equal(a, step_rng(2, "noise").random(3))
    assert not np.array_equal(a, step_rng(1, "noise2").random(3))
