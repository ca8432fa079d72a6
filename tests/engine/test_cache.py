"""The step cache (sdcflow.engine.cache): entries verified on read, stale or tampered
entries recomputed and replaced, --no-cache refreshing, and the cache never changing a
result."""

import json
import shutil

import pandas as pd
import pytest
from helpers import ROOT, output_files

from sdcflow import run
from sdcflow.cli import main
from sdcflow.engine import CACHE_DIR
from sdcflow.engine.cache import Cache
from sdcflow.errors import CheckFailed


def entries(cache_root):
    return sorted(p for p in cache_root.glob("??/*") if p.is_dir())


def entry_of(result, node, cache_root):
    fp = next(s.fingerprint for s in result.steps if s.node == node)
    return cache_root / fp[:2] / fp


CONSTRAINED = """
sdcflow: 1
name: edits
seed: 1
data: {builtin: testdata}
variables:
  income: {role: numeric}
  expend: {role: numeric}
constraints:
  - {id: floor, expr: "income >= 0", enforce: warn}
steps:
  - {id: top, method: top_bottom_code,
     params: {variable: income, top: {quantile: 0.99, replace: mean}}}
  - {id: edits, measure: constraints}
checks: ["edits.total == 0"]
release: {path: out.csv}
"""


@pytest.mark.parametrize("old, new", [
    # the expression
    ('expr: "income >= 0"', 'expr: "income >= 100000000"'),
    # its tolerance
    ('expr: "income >= 0"', 'expr: "income >= 100000000", tolerance: 1000000000'),
])
def test_editing_a_constraint_is_never_answered_from_the_cache(write_recipe, tmp_path, old,
                                                               new):
    if "tolerance" in new:  # start from the tolerant version, then take the tolerance away
        old, new = new, new.replace(", tolerance: 1000000000", "")
    path = write_recipe(CONSTRAINED.replace('expr: "income >= 0"', old))
    first = run(path, tmp_path / "out")
    assert first.measures["edits"]["total"] == 0
    path.write_text(path.read_text().replace(old, new))
    # with the edited constraint the check fails, cached or not
    with pytest.raises(CheckFailed):
        run(path, tmp_path / "out2", use_cache=False)
    with pytest.raises(CheckFailed) as cached:
        run(path, tmp_path / "out2")
    assert cached.value.result.measures["edits"]["total"] > 0
    assert not (tmp_path / "out2" / "public").exists()


def test_a_conditional_constraint_and_its_enforcement_are_in_the_fingerprint(write_recipe,
                                                                          tmp_path):
    text = CONSTRAINED.replace('  - {id: floor, expr: "income >= 0", enforce: warn}',
                               '  - {id: floor, if: "expend > 0", then: "income >= 0", '
                               'enforce: warn}')
    path = write_recipe(text)
    base = {s.node: s.fingerprint for s in run(path, write=False).steps}
    for old, new in [('if: "expend > 0"', 'if: "expend > 1"'),
                     ('then: "income >= 0"', 'then: "income >= 1"'),
                     ("enforce: warn", "enforce: error")]:
        path.write_text(text.replace(old, new))
        try:
            changed = {s.node: s.fingerprint for s in run(path, write=False).steps}
        except CheckFailed as exc:
            changed = {s.node: s.fingerprint for s in exc.result.steps}
        assert changed["edits"] != base["edits"], old
        assert changed["top"] != base["top"], old  # methods see the constraints too


@pytest.mark.parametrize("tamper", ["shuffled", "100 rows", "garbage", "truncated",
                                    "result.json", "entry is a file", "extra file",
                                    "summary edited"])
def test_a_tampered_entry_is_recomputed_and_said(recipe, tmp_path, capsys, tamper):
    root = tmp_path / CACHE_DIR
    first = run(recipe, tmp_path / "a")
    expected = output_files(tmp_path / "a")
    method = entry_of(first, "age10", root)
    measure = entry_of(first, "risk", root)
    columns = method / "columns.parquet"
    frame = pd.read_parquet(columns)
    if tamper == "shuffled":
        frame.sample(frac=1.0, random_state=1).to_parquet(columns)
    elif tamper == "100 rows":
        frame.head(100).to_parquet(columns)
    elif tamper == "garbage":
        columns.write_bytes(b"PAR1 not really")
    elif tamper == "truncated":
        columns.write_bytes(columns.read_bytes()[:200])
    elif tamper == "result.json":
        (method / "result.json").write_text("{")
    elif tamper == "entry is a file":
        shutil.rmtree(method)
        method.write_text("x")
    elif tamper == "extra file":
        (method / "stray.parquet").write_bytes(b"")
    else:  # a measure's summary edited to pass a check
        doc = json.loads((measure / "result.json").read_text())
        doc["payload"]["summary"]["violations"]["5"] = 0
        (measure / "result.json").write_text(json.dumps(doc))
    assert main(["run", str(recipe), "--out", str(tmp_path / "b")]) == 0
    err = capsys.readouterr().err
    node = "risk" if tamper == "summary edited" else "age10"
    assert f"note: step '{node}': the cached result" in err and "recomputed" in err
    assert output_files(tmp_path / "b") == expected
    # the entry was replaced: the next run uses it without a note
    assert main(["run", str(recipe), "--out", str(tmp_path / "c")]) == 0
    assert "note:" not in capsys.readouterr().err
    assert json.loads((tmp_path / "c" / "run.json").read_text())["notes"] == []


def test_no_cache_recomputes_and_refreshes_the_entries(recipe, tmp_path):
    root = tmp_path / CACHE_DIR
    first = run(recipe, tmp_path / "a")
    columns = entry_of(first, "age10", root) / "columns.parquet"
    pd.read_parquet(columns).head(5).to_parquet(columns)  # damage it
    fresh = run(recipe, tmp_path / "b", use_cache=False)
    assert not any(s.cached for s in fresh.steps) and fresh.notes == []
    again = run(recipe, tmp_path / "c")
    assert all(s.cached for s in again.steps) and again.notes == []
    assert output_files(tmp_path / "a") == output_files(tmp_path / "b") == output_files(tmp_path / "c")


def test_an_entry_of_another_fingerprint_is_not_used(recipe, tmp_path):
    root = tmp_path / CACHE_DIR
    first = run(recipe, tmp_path / "a")
    a = entry_of(first, "age10", root)
    b = entry_of(first, "water_groups", root)
    shutil.rmtree(b)
    shutil.copytree(a, b)  # a valid entry, but of another step
    second = run(recipe, tmp_path / "b")
    assert any("step 'water_groups'" in n and "verification" in n for n in second.notes)
    assert output_files(tmp_path / "a") == output_files(tmp_path / "b")


def test_a_cache_that_cannot_be_used_is_not_fatal(recipe, tmp_path):
    (tmp_path / CACHE_DIR).write_text("a file where the cache would be")
    result = run(recipe, tmp_path / "out")
    assert not any(s.cached for s in result.steps)
    assert result.notes[0].startswith(f"the cache {tmp_path / CACHE_DIR} cannot be used")


def test_a_result_that_cannot_be_stored_is_noted(tmp_path):
    with Cache(tmp_path / "cache") as cache:
        (tmp_path / "cache").chmod(0o500)
        try:
            cache.save("ab" * 32, {"x": 1}, {"t.parquet": pd.DataFrame({"a": [1]})})
        finally:
            (tmp_path / "cache").chmod(0o700)
    # (root may write anyway: then the entry is simply stored)
    assert cache.notes == [] or cache.notes[0].startswith("a result could not be cached")


def test_leftovers_of_killed_runs_are_removed_from_the_cache(recipe, tmp_path):
    run(recipe, tmp_path / "a")
    root = tmp_path / CACHE_DIR
    (root / ".tmp-dead").mkdir()
    (root / ".tmp-dead" / "columns.parquet").write_bytes(b"half")
    (root / ".old-dead").mkdir()
    run(recipe, tmp_path / "b")
    assert not (root / ".tmp-dead").exists() and not (root / ".old-dead").exists()


def test_cached_uncached_and_tampered_runs_give_the_same_bytes_for_a_table_recipe(tmp_path):
    shutil.copytree(ROOT / "recipes" / "data", tmp_path / "data")
    recipe = tmp_path / "t.yaml"
    shutil.copy(ROOT / "recipes" / "tables_profession_town.yaml", recipe)
    run(recipe, tmp_path / "a")
    run(recipe, tmp_path / "b")
    run(recipe, tmp_path / "c", use_cache=False)
    assert output_files(tmp_path / "a") == output_files(tmp_path / "b") == output_files(tmp_path / "c")


def test_entries_record_their_content_hashes(recipe, tmp_path):
    first = run(recipe, tmp_path / "a")
    doc = json.loads((entry_of(first, "age10", tmp_path / CACHE_DIR) / "result.json")
                     .read_text())
    assert set(doc) == {"checksum", "format", "fingerprint", "files", "payload"}
    assert len(doc["files"]["columns.parquet"]) == 64


def test_a_step_that_writes_no_column_is_read_from_the_cache(write_recipe, tmp_path):
    # remove_variables writes no column: its cached frame came back from Parquet with 0
    # records, did not fit the step's 4,580 and was recomputed on every run
    path = write_recipe("""
        sdcflow: 1
        name: drop
        seed: 1
        data: {builtin: testdata}
        variables: {income: {role: numeric}, expend: {role: numeric}, sex: {role: key}}
        steps:
          - {id: m, method: microaggregation, params: {variables: [income, expend], k: 3}}
          - {id: drop, method: remove_variables, params: {variables: [expend]}}
    """)
    run(path, tmp_path / "out")
    again = run(path, tmp_path / "out")
    assert [s.cached for s in again.steps] == [True, True]
    assert list(again.data.columns) == ["income", "sex"] and len(again.data) == 4580
