"""Tables in recipes: built or read, protected by table steps, audited and released."""

import pandas as pd
import pytest
from helpers import ROOT

from sdcflow import run, validate
from sdcflow.errors import RecipeError

RECIPE = ROOT / "recipes" / "tables_profession_town.yaml"


def test_seed_example_primary_secondary_and_audit(tmp_path):
    # seed 000: (P3, M2) has frequency 1; (P5, M3) fails the (1, 50)-dominance rule with
    # contributions 350, 4, 3, 3, 3 (350/363 > 50%); (P1, M1) has 2 contributors
    result = run(RECIPE, tmp_path / "out", use_cache=False)
    # the office's table (internal): status and the rules that fired
    table = pd.read_csv(tmp_path / "out" / "tables" / "salaries.csv", dtype=str)
    status = {(r.profession, r.town): r.status for r in table.itertuples()}
    assert status[("P3", "M2")] == status[("P5", "M3")] == status[("P1", "M1")] == "primary"
    assert list(table.columns) == ["profession", "town", "freq", "value", "status", "rule"]
    rules = {(r.profession, r.town): r.rule for r in table.itertuples()}
    assert rules[("P5", "M3")] == "dominance(1,50)"
    assert rules[("P3", "M2")] == "freq(3),dominance(1,50)"
    hidden = table[table["status"] != "safe"]
    # internally the suppressed cells keep their values (the seed's 360, 22, 363 ...)
    assert hidden["value"].notna().all()
    info = next(s.info for s in result.steps if s.node == "primary")
    # (P1, M1): 200 of 360 is also dominant; (P3, M2): one contributor holds everything
    assert info["primary"] == 3 and info["by_rule"] == {"dominance(1,50)": 3, "freq(3)": 2}
    secondary = next(s.info for s in result.steps if s.node == "secondary")
    assert secondary["optimal"] is True and secondary["cost"] == 4.0
    assert not any("seconds" in key for key in secondary)
    audit = result.measures["audit"]
    assert audit["passed"] is True and audit["unprotected"] == 0
    assert audit["suppressed"] == len(hidden)
    # the totals are published and consistent with the seed's table
    assert status[("Total", "Total")] == "safe"
    total = table[(table.profession == "Total") & (table.town == "Total")]["value"].iloc[0]
    assert float(total) == 8620
    # the published table says only published or suppressed, and hides the same cells
    public = pd.read_csv(tmp_path / "out" / "public" / "salaries-protected.csv", dtype=str)
    assert list(public.columns) == ["profession", "town", "level_profession", "level_town",
                                    "freq", "value", "status"]  # (no weight: no wfreq)
    assert set(public["status"]) == {"published", "suppressed"}
    assert (public["status"] == "suppressed").tolist() == (table["status"] != "safe").tolist()
    assert public[public["status"] == "suppressed"][["freq", "value"]].isna().all().all()
    assert public[public["status"] == "published"][["freq", "value"]].equals(
        table[table["status"] == "safe"][["freq", "value"]])


def test_same_pattern_on_every_run(tmp_path):
    a = run(RECIPE, tmp_path / "a", use_cache=False)
    b = run(RECIPE, tmp_path / "b", use_cache=False)
    assert (tmp_path / "a" / "public" / "salaries-protected.csv").read_bytes() == \
        (tmp_path / "b" / "public" / "salaries-protected.csv").read_bytes()
    assert a.manifest["files"] == b.manifest["files"]


def test_table_from_microdata(write_recipe, tmp_path):
    path = write_recipe("""
        sdcflow: 1
        name: t
        seed: 1
        data: {builtin: testdata}
        variables:
          urbrur: {role: key}
          water: {role: key}
          income: {role: numeric}
        tables:
          - {id: inc, dims: [urbrur, water], response: income}
        steps:
          - {id: primary, method: sensitivity_rules, table: inc, params: {rules: [{freq: 30}]}}
          - {id: secondary, method: secondary_suppression, table: inc,
             params: {algorithm: heuristic}}
          - {id: audit, measure: table_audit, table: inc}
        checks: ["audit.unprotected == 0"]
        release: {tables: {inc: inc.csv}}
    """)
    result = run(path, tmp_path / "out", use_cache=False)
    table = pd.read_csv(tmp_path / "out" / "public" / "inc.csv", dtype=str)
    # 2 x 8 inner cells, totals included: (2 + 1) x (8 + 1)
    assert len(table) == 27
    assert result.measures["audit"]["passed"] is True
    assert (table["status"] == "suppressed").sum() >= 1


@pytest.mark.parametrize("step, message", [
    ("{id: p, method: sensitivity_rules, params: {rules: [{freq: 3}]}}",
     "sensitivity_rules works on a table: add 'table: <id>'"),
    ("{id: p, method: sensitivity_rules, table: salary, params: {rules: [{freq: 3}]}}",
     "no table 'salary' (did you mean 'salaries'?)"),
    ("{id: p, method: top_bottom_code, table: salaries, params: {variable: x, top: {value: 1}}}",
     "top_bottom_code works on records, not on a table"),
])
def test_table_steps_are_checked(write_recipe, step, message):
    text = RECIPE.read_text()
    start = text.index("steps:")
    text = text[:start] + f"steps:\n  - {step}\n"
    path = write_recipe(text)
    (path.parent / "data").mkdir(exist_ok=True)
    (path.parent / "data" / "profession_town.csv").write_text(
        (ROOT / "recipes" / "data" / "profession_town.csv").read_text())
    with pytest.raises(RecipeError) as info:
        validate(path)
    assert any(message in p.message for p in info.value.problems), info.value.problems


def test_table_by_partitions_equals_the_engine_build(tmp_path):
    # the Dask engine's path: the recipe's table from the variables' declared hierarchy
    # (sdcflow.recipe.tables.tabulation), partition by partition, equals the in-memory build
    from sdcflow.data.dataset import Dataset, Variable
    from sdcflow.recipe import TableSpec
    from sdcflow.recipe.tables import build, tabulation
    from sdcflow.tabular import build_partial, combine, finish_table

    frame = pd.DataFrame({"town": ["t1", "t2", "t3", "t1", "t3", "t2", "t1"],
                          "job": ["a", "b", "a", "a", "b", "b", "b"],
                          "pay": [10.5, 20.25, 3.0, 7.0, 1e6, 0.1, 0.2]})
    region = Variable("town", "key", "categorical",
                      hierarchy={"region": {"t1": "north", "t2": "north", "t3": "south"}})
    data = Dataset(frame, {"town": region, "job": Variable("job", "key", "categorical")})
    spec = TableSpec("pay", 0, ["town", "job"], response="pay")
    whole = build(spec, data)
    assert whole.dimensions[0].codes == ("t1", "t2", "north", "t3", "south", "Total")
    tab = tabulation(spec, data.meta)
    parts = [build_partial(tab, data.frame.iloc[k::3]) for k in range(3)]
    pd.testing.assert_frame_equal(finish_table(combine(parts)).cells, whole.cells,
                                  check_exact=True)


def test_subtotals_keep_the_declared_order_in_every_process():
    """The subtotals of a declared hierarchy come in the order the recipe lists them,
    whatever Python's hash seed (it once followed the order of a set of text)."""
    import os
    import subprocess
    import sys

    code = ("from sdcflow.data.dataset import Variable\n"
            "from sdcflow.recipe.tables import hierarchy_of\n"
            "class D: variables = {'town': Variable('town', 'key', 'categorical', hierarchy="
            "{'region': {'t1': 'north', 't2': 'north', 't3': 'south', 't4': 'east'}})}\n"
            "print(list(hierarchy_of(D, 'town', 'Total')))\n")
    seen = set()
    for seed in ("1", "2", "3", "4", "5"):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env={**os.environ, "PYTHONHASHSEED": seed}, check=True)
        seen.add(done.stdout)
    assert seen == {"['t1', 't2', 't3', 't4', 'north', 'south', 'east']\n"}


def test_the_released_table_marks_levels_and_weighted_frequencies():
    # region R -> {N, S}, N -> {n1, n2}, S -> {s1}; sex without hierarchy. Expected by
    # hand: levels are the depth below the total (R 0, N and S 1, n1 n2 s1 2); wfreq sums
    # the weights of a cell's records; a suppressed cell hides freq, wfreq and value.
    from sdcflow.recipe.tables import release_frame
    from sdcflow.tabular import build_table

    frame = pd.DataFrame({"region": ["n1", "n1", "n2", "s1", "s1"],
                          "sex": ["f", "m", "f", "f", "m"],
                          "w": [10.0, 20.0, 5.5, 2.0, 3.0]})
    hier = {"region": {"n1": "N", "n2": "N", "s1": "S", "N": "R", "S": "R"}}
    table = build_table(frame, ["region", "sex"], hier, None, "w", total="R")
    cells = table.cells.copy()
    hide = (cells["region"] == "n2") & (cells["sex"] == "f")
    cells["status"] = cells["status"].where(~hide, "primary")
    out = release_frame(table.with_cells(cells)).set_index(["region", "sex"])
    assert list(out.columns) == ["level_region", "level_sex", "freq", "wfreq", "value",
                                 "status"]
    assert out.loc[("R", "R"), ["level_region", "level_sex"]].tolist() == [0, 0]
    assert out.loc[("N", "f"), ["level_region", "level_sex"]].tolist() == [1, 1]
    assert out.loc[("n1", "R"), ["level_region", "level_sex"]].tolist() == [2, 0]
    assert out.loc[("N", "R"), "wfreq"] == 35.5 and out.loc[("R", "m"), "wfreq"] == 23.0
    assert out.loc[("R", "R"), "freq"] == 5 and out.loc[("R", "R"), "wfreq"] == 40.5
    hidden = out.loc[("n2", "f")]
    assert hidden["status"] == "suppressed" and hidden[["freq", "wfreq", "value"]].isna().all()
