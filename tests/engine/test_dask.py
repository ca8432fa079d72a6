"""The Dask engine (sdcflow.engine.dask) on a LocalCluster of worker processes: the same
release bytes for any number of workers, measures equal to the in-memory engine's, and
clear messages for what cannot distribute."""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("distributed")

from sdcflow import run
from sdcflow.cli import main

RECIPE = """
sdcflow: 1
name: parts
seed: 7
data: {path: DATA}
variables:
  hid: {role: household}
  region: {role: key, level: household}
  weight: {role: weight, level: household}
  sex: {role: key}
  age: {role: key, type: integer}
  income: {role: numeric}
  expend: {role: numeric}
steps:
  - {id: risk_raw, measure: k_anonymity, params: {k: [2, 3], strata: [sex]}}
  - id: age10
    method: global_recode
    params: {variable: age, breaks: [0, 19, 39, 59, 79, 99]}
  - id: micro
    method: microaggregation
    params: {variables: [income, expend], k: 3, algorithm: mdav STRATA}
  - {id: risk, measure: k_anonymity, params: {k: [2, 3]}}
  - {id: risk_by_region, measure: k_anonymity, params: {k: 3, strata: [region]}}
  - {id: indiv, measure: individual_risk, params: {threshold: 0.0005}}
  - {id: loss, measure: information_loss, params: {variables: [income, expend]}}
  - {id: link, measure: record_linkage, params: {variables: [income, expend]}}
checks: ["risk.records == 3000"]
release: {path: protected.parquet}
"""


def census(n: int = 3000, seed: int = 1) -> pd.DataFrame:
    """Persons in households of 1 to 4 (whole households), household-level region and
    weight."""
    rng = np.random.default_rng(seed)
    size = rng.integers(1, 5, n)
    hid = np.repeat(np.arange(1, n + 1), size)[:n]
    h = hid - 1
    region = rng.integers(1, 5, n).astype(str)[h]
    return pd.DataFrame({
        "hid": hid.astype(str), "region": region,
        "weight": np.round(rng.uniform(10, 50, n), 1)[h],
        "sex": rng.choice(["1", "2"], n), "age": rng.integers(0, 99, n),
        "income": np.round(rng.lognormal(9, 1, n)), "expend": np.round(rng.lognormal(8, 1, n)),
    })


def write(tmp: Path, frame: pd.DataFrame, parts: int, strata: bool = False,
          recipe: str = RECIPE) -> tuple[Path, Path]:
    """The data as ``parts`` files of whole households and as one file, with a recipe
    for each."""
    data = tmp / "parts"
    data.mkdir()
    hid = frame["hid"].astype(int).to_numpy()
    cuts = np.searchsorted(hid, np.linspace(hid[0], hid[-1] + 1, parts + 1))
    for i in range(parts):
        frame.iloc[cuts[i]:cuts[i + 1]].to_parquet(data / f"part-{i}.parquet", index=False)
    frame.to_parquet(tmp / "whole.parquet", index=False)
    text = recipe.replace(" STRATA", ", strata: [region]" if strata else "")
    (tmp / "dask.yaml").write_text(text.replace("DATA", "parts"))
    (tmp / "memory.yaml").write_text(text.replace("DATA", "whole.parquet"))
    return tmp / "dask.yaml", tmp / "memory.yaml"


def digests(out: Path) -> dict:
    return {p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.rglob("*")) if p.is_file() and p.name != "run.json"}


def close(a, b) -> bool:
    if isinstance(a, dict):
        return set(a) == set(b) and all(close(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, (float, int)):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b


@pytest.fixture(scope="module")
def stratified(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("stratified")
    recipe, memory = write(tmp, census(), parts=4, strata=True)
    outs = {w: run(recipe, tmp / f"out{w}", engine="dask", workers=w) for w in (1, 2, 4)}
    return tmp, outs, run(memory, tmp / "memory")


def test_same_release_bytes_for_1_2_and_4_workers(stratified):
    tmp, _, _ = stratified
    first = digests(tmp / "out1")
    assert "public/protected.parquet/part-00003.parquet" in first
    assert digests(tmp / "out2") == first
    assert digests(tmp / "out4") == first
    manifest = json.loads((tmp / "out1" / "manifest.json").read_text())
    assert [p["records"] for p in manifest["input"]["partitions"]] == \
        [len(pd.read_parquet(tmp / "parts" / f"part-{i}.parquet")) for i in range(4)]


def test_key_measures_equal_the_in_memory_engine(stratified):
    _, outs, memory = stratified
    for step in ("risk_raw", "risk", "risk_by_region"):
        assert outs[2].measures[step] == memory.measures[step]
    assert close(outs[2].measures["indiv"], memory.measures["indiv"])
    assert outs[2].measures["indiv"]["above_threshold"] > 0
    # ages by the year: many combinations below k
    assert outs[2].measures["risk_raw"]["violations"]["3"] > 100


def test_stratified_microaggregation_runs_each_stratum_as_a_whole(stratified):
    """Each stratum is microaggregated as a data set of its own (scaled within it, as
    sdcMicro treats strata); equal to the in-memory engine run on that stratum alone."""
    tmp, _, _ = stratified
    released = pd.read_parquet(tmp / "out2" / "public" / "protected.parquet")
    original = census()
    one = original[original["region"] == "2"]
    (tmp / "r2").mkdir()
    one.to_parquet(tmp / "r2" / "whole.parquet", index=False)
    text = RECIPE.replace(" STRATA", "").replace("DATA", "whole.parquet").replace(
        "risk.records == 3000", f"risk.records == {len(one)}")
    (tmp / "r2" / "m.yaml").write_text(text)
    alone = run(tmp / "r2" / "m.yaml", tmp / "r2" / "out").data
    mine = released[released["region"] == "2"].reset_index(drop=True)
    np.testing.assert_array_equal(mine["income"].to_numpy(), alone["income"].to_numpy())
    np.testing.assert_array_equal(mine["expend"].to_numpy(), alone["expend"].to_numpy())


def test_unstratified_run_equals_the_in_memory_engine(tmp_path):
    """Without strata MDAV sees the whole data (collected): release values and every
    measure equal the in-memory engine's (to floating-point tolerance)."""
    recipe, memory = write(tmp_path, census(), parts=3)
    dask = run(recipe, tmp_path / "dask", engine="dask", workers=2)
    mem = run(memory, tmp_path / "memory")
    for step in ("risk_raw", "risk", "risk_by_region", "indiv", "loss", "link"):
        assert close(dask.measures[step], mem.measures[step]), step
    released = pd.read_parquet(tmp_path / "dask" / "public" / "protected.parquet")
    expected = pd.read_parquet(tmp_path / "memory" / "public" / "protected.parquet")
    pd.testing.assert_frame_equal(released, expected)  # household ids included
    # both name the recipe by one public hash: the two recipes differ only in where the
    # data are, which the public form leaves out
    public = [json.loads((tmp_path / out / "public" / "manifest.json").read_text())
              for out in ("dask", "memory")]
    assert public[0]["recipe"] == public[1]["recipe"]
    assert public[0]["household_ids"] == public[1]["household_ids"]


def test_a_recipe_named_relative_to_another_folder(tmp_path, monkeypatch):
    """The recipe given by a path relative to the working directory, from a folder
    above it: the partitions are found and read once (the recipe's folder is not joined
    to their paths twice), and the release equals a run from the recipe's own folder."""
    (tmp_path / "project").mkdir()
    recipe, _ = write(tmp_path / "project", census(), parts=2)
    monkeypatch.chdir(tmp_path)
    rel = Path("project") / recipe.name
    a = run(rel, Path("out-a"), engine="dask", workers=1)
    monkeypatch.chdir(tmp_path / "project")
    b = run(Path(recipe.name), tmp_path / "out-b", engine="dask", workers=1)
    assert a.out_dir is not None and b.out_dir is not None
    assert a.measures == b.measures
    assert digests(tmp_path / "out-a" / "public") == digests(tmp_path / "out-b" / "public")


def test_a_method_that_cannot_distribute_is_refused_at_validation(tmp_path, capsys):
    (tmp_path / "parts").mkdir()
    census().to_parquet(tmp_path / "parts" / "a.parquet", index=False)
    (tmp_path / "r.yaml").write_text("""
sdcflow: 1
name: sampled
seed: 1
data: {path: parts}
variables:
  sex: {role: key}
  region: {role: key}
steps:
  - {id: p, method: sampling, params: {fraction: 0.5}}
  - {id: risk, measure: k_anonymity}
release: {path: out.parquet}
""")
    assert main(["run", str(tmp_path / "r.yaml"), "--engine", "dask"]) == 1
    err = capsys.readouterr().err
    assert "r.yaml:" in err and "step 'p' (sampling) cannot run on the Dask engine" in err
    assert "changes the records" in err and "Traceback" not in err


def test_households_split_between_partitions_are_refused(tmp_path, capsys):
    frame = census()
    recipe, _ = write(tmp_path, frame, parts=2)
    # move one member of the first household into the second file
    a = pd.read_parquet(tmp_path / "parts" / "part-0.parquet")
    b = pd.read_parquet(tmp_path / "parts" / "part-1.parquet")
    hid = a["hid"].iloc[0]
    moved = a[a["hid"] == hid].iloc[:1]
    if (a["hid"] == hid).sum() < 2:
        moved = a.iloc[:1].assign(hid=b["hid"].iloc[0])
    a.drop(index=moved.index[:1]).to_parquet(tmp_path / "parts" / "part-0.parquet")
    pd.concat([moved, b]).to_parquet(tmp_path / "parts" / "part-1.parquet", index=False)
    assert main(["run", str(recipe), "--engine", "dask", "--workers", "1"]) == 1
    err = capsys.readouterr().err
    assert "has members in two partitions" in err and "Traceback" not in err


def test_collecting_beyond_the_limit_is_refused(tmp_path, capsys):
    recipe, _ = write(tmp_path, census(), parts=2)
    text = recipe.read_text() + "execution: {collect_limit: 0.00001}\n"
    recipe.write_text(text)
    assert main(["run", str(recipe), "--engine", "dask", "--workers", "1"]) == 1
    err = capsys.readouterr().err
    assert "over the limit of" in err and "execution.collect_limit" in err


NOISY = """
sdcflow: 1
name: noisy
seed: 3
data: {path: DATA}
variables:
  hid: {role: household}
  region: {role: pram, level: household}
  sex: {role: pram}
  income: {role: numeric}
  expend: {role: numeric}
steps:
  - {id: p, method: pram, params: {variables: [sex]}}
  - {id: p_region, method: pram, params: {variables: [region]}}
  - {id: n_add, method: noise, params: {variables: [income], k: 0.1}}
  - {id: n_cor, method: noise, params: {variables: [expend], method: correlated, k: 0.1}}
release: {path: noisy.parquet}
"""


def test_pram_and_noise_fitted_on_the_whole_data(tmp_path):
    """PRAM with the global category frequencies and noise with the global moments:
    the same bytes for 1 and 2 workers; PRAM's expected changes (a function of the
    frequencies of the whole data) equal the in-memory engine's."""
    recipe, memory = write(tmp_path, census(), parts=3, recipe=NOISY)
    run(recipe, tmp_path / "one", engine="dask", workers=1)
    two = run(recipe, tmp_path / "two", engine="dask", workers=2)
    mem = run(memory, tmp_path / "memory")
    assert digests(tmp_path / "one") == digests(tmp_path / "two")
    info = {s.node: s.info for s in two.steps}
    expected = {s.node: s.info for s in mem.steps}
    for node in ("p", "p_region"):
        assert info[node]["expected_changed"] == pytest.approx(expected[node]["expected_changed"])
        assert info[node]["transition_matrix"] == expected[node]["transition_matrix"]
    # region is household-level: PRAM acts once per household, members keep one value
    released = pd.read_parquet(tmp_path / "two" / "public" / "noisy.parquet")
    assert (released.groupby("hid")["region"].nunique() == 1).all()
    # noise with variance k Var(X) of the whole data: the differences' variance is close
    original = census()
    diff = released["income"].to_numpy() - original["income"].to_numpy()
    ratio = diff.var(ddof=1) / (0.1 * original["income"].var(ddof=1))
    assert 0.85 < ratio < 1.15  # 3000 draws: sd of the ratio about 0.026


SUPPRESSED = """
sdcflow: 1
name: suppressed
seed: 3
data: {path: DATA}
variables:
  hid: {role: household}
  region: {role: strata}
  sex: {role: key}
  age: {role: key, type: integer}
  income: {role: numeric}
steps:
  - {id: ls, method: local_suppression, params: {k: 12, variables: [sex, age], strata: []}}
  - {id: ls_region, method: local_suppression, params: {k: 6, variables: [sex, age]}}
  - {id: risk, measure: k_anonymity, params: {k: 3, variables: [sex, age]}}
release: {path: suppressed.parquet}
"""


def test_local_suppression_from_the_global_table_equals_the_in_memory_engine(tmp_path):
    """Decided on the global table of key combinations, applied per partition: the same
    suppressions as the in-memory engine (with and without strata)."""
    recipe, memory = write(tmp_path, census(), parts=3, recipe=SUPPRESSED)
    dask = run(recipe, tmp_path / "dask", engine="dask", workers=2)
    mem = run(memory, tmp_path / "memory")
    released = pd.read_parquet(tmp_path / "dask" / "public" / "suppressed.parquet")
    expected = pd.read_parquet(tmp_path / "memory" / "public" / "suppressed.parquet")
    pd.testing.assert_frame_equal(released, expected)
    info = {s.node: s.info for s in dask.steps}
    mem_info = {s.node: s.info for s in mem.steps}
    for node in ("ls", "ls_region"):
        assert info[node]["total"] == mem_info[node]["total"] > 0
        assert info[node]["suppressions"] == mem_info[node]["suppressions"]
        assert info[node]["unresolved_records"] == mem_info[node]["unresolved_records"]
    assert dask.measures["risk"] == mem.measures["risk"]


def test_an_existing_cluster_by_its_scheduler_address(stratified, tmp_path, capsys):
    """``--scheduler ADDRESS`` runs on a cluster started elsewhere: the same bytes."""
    from distributed import LocalCluster

    tmp, _, _ = stratified
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:
        code = main(["run", str(tmp / "dask.yaml"), "--scheduler", cluster.scheduler_address,
                     "--out", str(tmp_path / "out"), "--format", "json"])
    assert code == 0
    assert json.loads(capsys.readouterr().out)["released"] is True
    assert digests(tmp_path / "out") == digests(tmp / "out1")


def test_validate_reports_what_cannot_distribute_when_the_recipe_asks_for_dask(tmp_path, capsys):
    (tmp_path / "parts").mkdir()
    census().to_parquet(tmp_path / "parts" / "a.parquet", index=False)
    (tmp_path / "r.yaml").write_text("""
sdcflow: 1
name: sampled
seed: 1
data: {path: parts}
execution: {engine: dask}
variables:
  sex: {role: key}
steps:
  - {id: p, method: sampling, params: {fraction: 0.5}}
  - {id: risk, measure: k_anonymity}
""")
    assert main(["validate", str(tmp_path / "r.yaml")]) == 1
    err = capsys.readouterr().err
    assert "r.yaml:10:5: step 'p' (sampling) cannot run on the Dask engine" in err


def test_methods_lists_how_each_plugin_distributes(capsys):
    assert main(["methods", "--format", "json"]) == 0
    dask = {p["name"]: p["dask"] for p in json.loads(capsys.readouterr().out)}
    assert dask["k_anonymity"].startswith("map-reduce")
    assert dask["microaggregation"].startswith("group-local")
    assert dask["noise"].startswith("row-local with parameters fitted")
    assert dask["sampling"] == "not available"
    assert dask["record_linkage"].startswith("collected")
    assert dask["secondary_suppression"].startswith("on the table, built from the partitions")


TABLES = """
sdcflow: 1
name: tabled
seed: 3
data: {path: DATA}
variables:
  hid: {role: household}
  region: {role: key, hierarchy: {zone: {"1": "A", "2": "A", "3": "B", "4": "B"}}}
  age: {role: key, type: integer}
  sex: {role: key}
  income: {role: numeric}
tables:
  - {id: pay, dims: [region, age], response: income}
  - {id: count, dims: [sex]}
steps:
  - {id: primary, method: sensitivity_rules, table: pay, params: {rules: [{freq: 3}]}}
  - {id: secondary, method: secondary_suppression, table: pay, params: {algorithm: heuristic}}
  - {id: audit, measure: table_audit, table: pay}
  - {id: risk, measure: k_anonymity, params: {k: 3, variables: [sex]}}
# count (no step of its own, so counted from the released data) is safe as it is
checks: ["risk.violations[3] == 0"]
release: {tables: {pay: pay.csv, count: count.csv}, measures: [audit]}
"""


def test_tables_built_by_map_reduce_equal_the_in_memory_engine(tmp_path):
    """A table from partitioned records (leaf cells per partition, combined exactly),
    protected and audited: the released tables and the audit equal the in-memory run's."""
    recipe, memory = write(tmp_path, census(), parts=3, recipe=TABLES)
    dask = run(recipe, tmp_path / "dask", engine="dask", workers=2)
    mem = run(memory, tmp_path / "memory")
    for name in ("pay.csv", "count.csv"):
        assert (tmp_path / "dask" / "public" / name).read_bytes() == \
            (tmp_path / "memory" / "public" / name).read_bytes()
    assert dask.measures["audit"] == mem.measures["audit"]
    assert "suppressed" in (tmp_path / "dask" / "public" / "pay.csv").read_text()


LINKED = """
sdcflow: 1
name: linked
seed: 3
data: {path: DATA}
variables:
  hid: {role: household}
  region: {role: key, hierarchy: {zone: {"1": "A", "2": "A", "3": "B", "4": "B"}}}
  sex: {role: key}
  income: {role: numeric}
tables:
  - {id: by_region, dims: [region], response: income}
  - {id: by_sex, dims: [region, sex], response: income}
  - {id: both, linked: [by_region, by_sex]}
steps:
  - {id: primary, method: sensitivity_rules, table: both, params: {rules: [{freq: 100}]}}
  - {id: secondary, method: secondary_suppression, table: both}
  - {id: audit, measure: table_audit, table: both}
release: {tables: {by_region: by_region.csv, by_sex: by_sex.csv}, measures: [audit]}
"""


def test_linked_tables_on_dask_equal_the_in_memory_engine(tmp_path):
    """Linked tables: their cover table built from the partitions, protected as one; each
    released as the in-memory engine releases it."""
    recipe, memory = write(tmp_path, census(400), parts=2, recipe=LINKED)
    dask = run(recipe, tmp_path / "dask", engine="dask", workers=1)
    mem = run(memory, tmp_path / "memory")
    for name in ("by_region.csv", "by_sex.csv"):
        assert (tmp_path / "dask" / "public" / name).read_bytes() == \
            (tmp_path / "memory" / "public" / name).read_bytes()
    assert dask.measures["audit"] == mem.measures["audit"]
    assert mem.measures["audit"]["passed"] is True


CAMOUFLAGE = """
sdcflow: 1
name: camouflage
seed: 5
data: {path: DATA}
variables:
  hid: {role: household}
  region: {role: key, level: household}
  income: {role: numeric}
  expend: {role: numeric}
steps:
  - {id: cam, method: camouflage, params: {width: 0.1}}
  - id: widths
    measure: camouflage_widths
    params:
      camouflaged: [income, expend]
      total_known: true
      queries: [{variable: income, where: {region: "2"}}]
release: {path: protected.parquet}
"""


def test_camouflage_adds_variables_as_in_memory(tmp_path):
    """A method that adds variables (camouflage's bounds) and removes one, and a measure
    that reads the removed one from the original data (reference_reads): the same release
    and measures as the in-memory engine."""
    recipe, memory = write(tmp_path, census(600), parts=2, recipe=CAMOUFLAGE)
    dask = run(recipe, tmp_path / "dask", engine="dask", workers=1)
    mem = run(memory, tmp_path / "memory")
    assert close(dask.measures["widths"], mem.measures["widths"])
    assert dask.measures["widths"]["queries"][0]["contains_exact"]
    released = pd.read_parquet(tmp_path / "dask" / "public" / "protected.parquet")
    expected = pd.read_parquet(tmp_path / "memory" / "public" / "protected.parquet")
    pd.testing.assert_frame_equal(released, expected)
    assert "income" not in released and {"income_lo", "income_hi"} <= set(released)
