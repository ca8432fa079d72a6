"""The release policy (sdcflow.recipe._policy): a release no protection step acts on is
written only on a passing risk check of it, and artefacts released together must not
undo each other's protection (recount, original_table, linked_apart, published_counts)
unless the recipe acknowledges it with a reason."""

import json

import pytest
from helpers import ROOT, validate_cli

from sdcflow import load_recipe, run
from sdcflow.cli import main
from sdcflow.errors import CheckFailed, RecipeError
from sdcflow.recipe._policy import ATTACKS
from sdcflow.recipe._schema import recipe_schema

HEAD = """
sdcflow: 1
name: policy
seed: 1
data: {builtin: testdata}
variables:
  urbrur: {role: key}
  water: {role: key}
  roof: {role: key}
  sex: {role: key}
  age: {role: key, type: integer}
  walls: {role: key}
  income: {role: numeric}
"""
TABLES = """
tables:
  - {id: by_water, dims: [urbrur, water]}
  - {id: by_roof, dims: [urbrur, roof]}
  - {id: by_area, dims: [urbrur]}
"""
AGE10 = "  - {id: age10, method: global_recode, params: {variable: age, breaks: [0, 19, 39, 59, 130]}}\n"
SUPPRESS_WATER = (
    "  - {id: primary, method: sensitivity_rules, table: by_water, params: {rules: [{freq: 3}]}}\n"
    "  - {id: secondary, method: secondary_suppression, table: by_water, params: {cost: unit}}\n")
SUPPRESS_ROOF = (
    "  - {id: primary_roof, method: sensitivity_rules, table: by_roof, params: {rules: [{freq: 3}]}}\n"
    "  - {id: secondary_roof, method: secondary_suppression, table: by_roof}\n")


def recipe(write_recipe, steps: str, release: str, *, tables: str = "", checks: str = "",
           extra: str = ""):
    return write_recipe(HEAD + tables + "steps:\n" + steps + checks + "release:\n" + release
                        + extra)


def refused(path, capsys) -> list[str]:
    """The problems ``sdcflow validate`` prints (exit 1), each ``file:line:col: message``."""
    code, lines = validate_cli(path, capsys)
    assert code == 1, lines
    return [line for line in lines if ": " in line and not line.endswith(" problem")
            and not line.endswith(" problems")]


def at_line(path, line: str) -> str:
    """The recipe line a message points at."""
    number = int(line.split(":")[1])
    return path.read_text().splitlines()[number - 1].strip()


# --- 1. defaults protect ----------------------------------------------------------------

def test_records_released_as_loaded_are_refused(write_recipe, capsys):
    path = recipe(write_recipe, "  - {id: risk, measure: k_anonymity, params: {k: 3}}\n",
                  "  path: out.csv\n")
    [line] = refused(path, capsys)
    assert "release.path: nothing protects the released records: they are the data as " \
        "loaded, no protection step changed the values released, and no check reads a " \
        "risk measure of them" in line
    assert "a check on a risk measure of the released data" in line
    assert at_line(path, line) == "path: out.csv"


def test_removing_variables_is_not_protection(write_recipe, capsys):
    path = recipe(write_recipe, "  - {id: drop, method: remove_variables, "
                  "params: {variables: [income]}}\n", "  path: out.csv\n")
    [line] = refused(path, capsys)
    assert "nothing protects the released records" in line


def test_a_release_after_a_measure_of_the_original_is_the_original(write_recipe, capsys):
    # the data after the step listed last: a measure with input: original sees the
    # data as loaded, so the release would be them, with the top coding left behind
    path = recipe(write_recipe,
                  "  - {id: top, method: top_bottom_code, params: {variable: income, "
                  "top: {quantile: 0.99, replace: mean}}}\n"
                  "  - {id: risk0, measure: k_anonymity, input: original}\n",
                  "  path: out.csv\n")
    [line] = refused(path, capsys)
    assert "they are the data as loaded (the step listed last, 'risk0', reads input: " \
        "original)" in line
    assert "step 'top' (top_bottom_code) protects other data than those released: release " \
        "the data after it with release.from: top" in line


@pytest.mark.parametrize("release", ["  path: out.csv\n  from: original\n",
                                     "  path: out.csv\n  from: drop\n"])
def test_a_release_from_before_the_protection_is_refused(write_recipe, capsys, release):
    path = recipe(write_recipe, "  - {id: drop, method: remove_variables, "
                  "params: {variables: [walls]}}\n" + AGE10, release)
    [line] = refused(path, capsys)
    assert line.split(": ", 1)[1].startswith("release.from: nothing protects")
    assert at_line(path, line).startswith("from:")


def test_protection_of_a_variable_that_is_not_released_does_not_count(write_recipe, capsys):
    path = recipe(write_recipe,
                  "  - {id: top, method: top_bottom_code, params: {variable: income, "
                  "top: {quantile: 0.99, replace: mean}}}\n"
                  "  - {id: drop, method: remove_variables, params: {variables: [income]}}\n",
                  "  path: out.csv\n")
    [line] = refused(path, capsys)
    assert "nothing protects the released records: they are the data as loaded, no " \
        "protection step changed the values released (step 'top' (top_bottom_code) " \
        "protects other data than those released)" in line


def test_a_protection_step_on_the_released_values_passes(write_recipe, tmp_path):
    path = recipe(write_recipe, AGE10, "  path: out.csv\n")
    assert load_recipe(path).policy.as_dict() == {
        "artefacts": {"records": {"protected_by": ["age10"]}}, "acknowledged": []}
    run(path, tmp_path / "out", use_cache=False)
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["release_policy"]["artefacts"] == {"records": {"protected_by": ["age10"]}}
    # internal only: the public manifest does not say how the release is protected
    public = json.loads((tmp_path / "out" / "public" / "manifest.json").read_text())
    assert "release_policy" not in public


def test_a_passing_risk_check_on_the_released_data_vouches_for_them(write_recipe, tmp_path):
    # urbrur x sex: four combinations of hundreds of persons each (testdata)
    path = recipe(write_recipe,
                  "  - {id: risk, measure: k_anonymity, params: {k: 3, variables: [urbrur, "
                  "sex]}}\n  - {id: drop, method: remove_variables, params: {variables: "
                  "[water, roof, age, walls, income]}}\n", "  path: out.csv\n",
                  checks="checks: ['risk.violations[3] == 0']\n")
    policy = load_recipe(path).policy
    assert policy.artefacts == {"records": {"label": "the released records",
                                            "vouched_by": ["risk.violations[3] == 0"]}}
    result = run(path, tmp_path / "out", use_cache=False)
    assert result.measures["risk"]["violations"]["3"] == 0
    assert (tmp_path / "out" / "public" / "out.csv").is_file()


def test_a_failing_risk_check_releases_nothing_and_says_the_risk(write_recipe, tmp_path,
                                                                  capsys):
    path = recipe(write_recipe, "  - {id: risk, measure: k_anonymity, params: {k: 3}}\n",
                  "  path: out.csv\n", checks="checks: ['risk.violations[3] == 0']\n")
    with pytest.raises(CheckFailed) as failed:
        run(path, tmp_path / "out", use_cache=False)
    # testdata, urbrur x water x roof x sex x age x walls: 2985 of 4580 records violate
    # 3-anonymity (the measure's own figure, in measures.json)
    violations = failed.value.result.measures["risk"]["violations"]["3"]
    assert violations > 0
    assert failed.value.failures[-1] == (
        "nothing protects the released records (no protection step acts on them): their "
        "release rests on the risk check 'risk.violations[3] == 0', which failed "
        f"(risk.violations[3] = {violations})")
    # (the failed run's internal outputs only: nothing to publish)
    assert not (tmp_path / "out" / "public").exists()
    assert main(["run", str(path), "--out", str(tmp_path / "cli")]) == 3
    err = capsys.readouterr().err
    assert f"which failed (risk.violations[3] = {violations})" in err
    assert not (tmp_path / "cli" / "public").exists()


@pytest.mark.parametrize("check", [
    "'loss.pil < 100'",  # a utility measure says nothing of the risk
    "'risk0.violations[3] == 0'",  # a risk measure of other data (before the recoding)
])
def test_a_check_that_does_not_measure_the_risk_of_the_release_does_not_vouch(
        write_recipe, capsys, check):
    path = recipe(write_recipe,
                  "  - {id: risk0, measure: k_anonymity, params: {k: 3, variables: "
                  "[urbrur]}}\n"
                  "  - {id: drop, method: remove_variables, params: {variables: [urbrur]}}\n"
                  "  - {id: loss, measure: information_loss, input: original}\n",
                  "  path: out.csv\n  from: drop\n", checks=f"checks: [{check}]\n")
    [line] = refused(path, capsys)
    assert "nothing protects the released records" in line


def test_the_released_variant_of_a_grid_is_judged(write_recipe, capsys):
    # the variant released (top coding above the 99th percentile) is protected; without
    # the top coding the same recipe is refused, naming the variant
    top = ("  - {id: top, method: top_bottom_code, grid: {top: [{quantile: 0.99}, "
           "{quantile: 0.95}]}, params: {variable: income}}\n")
    risk = "  - {id: risk, measure: k_anonymity, grid: {k: [2, 3]}}\n"
    path = recipe(write_recipe, top + risk, "  path: out.csv\n  variant: {k: 3, top: "
                  "{quantile: 0.99}}\n")
    assert load_recipe(path).policy.artefacts["records"] == {
        "label": "the released records", "protected_by": ["top"]}
    path = recipe(write_recipe, risk, "  path: out.csv\n  variant: {k: 3}\n")
    [line] = refused(path, capsys)
    assert "nothing protects the released records (variant k=3)" in line


def test_tables_need_a_protection_step_too(write_recipe, capsys):
    path = recipe(write_recipe, "  - {id: risk, measure: k_anonymity}\n",
                  "  tables: {by_water: water.csv}\n", tables=TABLES)
    [line] = refused(path, capsys)
    assert "release.tables.by_water: nothing protects table 'by_water': no protection step " \
        "works on it (cell_key, controlled_adjustment, controlled_rounding, dp_table, " \
        "secondary_suppression, sensitivity_rules), none changed the records it is " \
        "counted from" in line
    assert "{id: primary, method: sensitivity_rules, table: by_water" in line
    assert at_line(path, line).startswith("tables: {by_water")


def test_a_table_counted_from_protected_records_is_protected(write_recipe):
    # pre-tabular protection (as record swapping protects census tables): the water
    # categories merged, then the table counted from the released data
    path = recipe(write_recipe, "  - {id: water_groups, method: global_recode, params: "
                  "{variable: water, groups: {'6-9': ['6', '7', '9']}}}\n",
                  "  tables: {by_water: water.csv}\n", tables=TABLES)
    assert load_recipe(path).policy.as_dict()["artefacts"] == {
        "table:by_water": {"protected_by": ["water_groups"]}}


def test_a_table_read_from_a_file_needs_a_step_of_its_own(write_recipe, tmp_path, capsys):
    (tmp_path / "cells.csv").write_text("urbrur,freq,value,top1,top2\n1,5,5,1,1\n2,4,4,1,1\n")
    path = recipe(write_recipe, "  - {id: risk, measure: k_anonymity, params: {k: 3, "
                  "variables: [urbrur]}}\n", "  tables: {cells: cells-out.csv}\n",
                  tables="tables:\n  - {id: cells, dims: [urbrur], from: {path: cells.csv}}\n",
                  checks="checks: ['risk.violations[3] == 0']\n")
    [line] = refused(path, capsys)
    assert "nothing protects table 'cells'" in line and "it is read from a file" in line


# --- 2. artefacts released together ------------------------------------------------------

def test_a_suppressed_table_beside_its_records_is_refused_as_recount(write_recipe, capsys):
    path = recipe(write_recipe, AGE10 + SUPPRESS_WATER,
                  "  path: out.csv\n  tables: {by_water: water.csv}\n", tables=TABLES)
    [line] = refused(path, capsys)
    assert "release.tables.by_water: table 'by_water' is protected by steps 'primary' " \
        "(sensitivity_rules), 'secondary' (secondary_suppression), but it is released " \
        "beside the records it is counted from, which hold urbrur, water: recounting the " \
        "released records gives the table's cells over urbrur, water exactly" in line
    assert line.endswith("release.acknowledge: [{attack: recount, tables: [by_water], "
                         "reason: ...}]")
    assert at_line(path, line).startswith("tables: {by_water")


def test_records_protected_further_still_recount_where_nothing_changed(write_recipe, capsys):
    path = recipe(write_recipe, AGE10 + SUPPRESS_WATER +
                  "  - {id: pram_water, method: pram, params: {variables: [water]}}\n",
                  "  path: out.csv\n  tables: {by_water: water.csv}\n", tables=TABLES)
    [line] = refused(path, capsys)
    assert "which hold urbrur, water (changed since by step 'pram_water')" in line
    assert "over urbrur, water exactly where nothing changed them" in line


def test_a_sample_of_the_records_is_not_the_records_a_table_counts(write_recipe):
    path = recipe(write_recipe, SUPPRESS_WATER +
                  "  - {id: sample, method: sampling, params: {fraction: 0.1}}\n",
                  "  path: out.csv\n  tables: {by_water: water.csv}\n", tables=TABLES)
    policy = load_recipe(path).policy
    assert policy.acknowledged == []
    assert policy.artefacts["records"]["protected_by"] == ["sample"]


def test_an_acknowledged_recount_is_released_and_recorded(write_recipe, tmp_path):
    reason = "the tables are published a year after the records for other users"
    path = recipe(write_recipe, AGE10 + SUPPRESS_WATER,
                  "  path: out.csv\n  tables: {by_water: water.csv}\n  acknowledge:\n"
                  f"    - {{attack: recount, tables: [by_water], reason: {reason}}}\n",
                  tables=TABLES)
    run(path, tmp_path / "out", use_cache=False)
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    [entry] = manifest["release_policy"]["acknowledged"]
    assert entry["attack"] == "recount" and entry["tables"] == ["by_water"]
    assert entry["reason"] == reason
    assert entry["finding"].startswith("table 'by_water' is protected by steps 'primary'")
    assert "acknowledge" not in (tmp_path / "out" / "public" / "manifest.json").read_text()


@pytest.mark.parametrize("entry, message", [
    ("{attack: linked_apart, reason: the tables are not linked at all}",
     "release.acknowledge[0]: the release is open to no 'linked_apart' attack"),
    ("{attack: recount, tables: [by_roof], reason: the tables are fine here}",
     "release.acknowledge[0].tables: 'by_roof' is not a released table"),
    ("{attack: recount, reason: fine}",
     "release.acknowledge[0].reason: 'fine' is not a reason in words (at least three)"),
    ("{attack: recounting, reason: the tables are fine}",
     "release.acknowledge[0].attack: 'recounting' is not one of recount"),
])
def test_acknowledgements_name_a_finding_and_give_a_reason(write_recipe, capsys, entry,
                                                           message):
    path = recipe(write_recipe, AGE10, "  path: out.csv\n  acknowledge:\n"
                  f"    - {entry}\n", tables=TABLES)
    lines = refused(path, capsys)
    assert any(message in line for line in lines), lines


def test_a_table_counted_before_the_records_protection_is_refused(write_recipe, capsys):
    # the table is counted where its first step (an audit) sees the data: before the
    # PRAM of water that the released records carry
    path = recipe(write_recipe,
                  "  - {id: water_groups, method: global_recode, params: {variable: water, "
                  "groups: {'6-9': ['6', '7', '9']}}}\n"
                  "  - {id: look, measure: table_audit, table: by_water}\n"
                  "  - {id: pram_water, method: pram, params: {variables: [water]}}\n",
                  "  path: out.csv\n  tables: {by_water: water.csv}\n", tables=TABLES)
    [line] = refused(path, capsys)
    assert "release.tables.by_water: table 'by_water' publishes exact counts of water as " \
        "they were before step 'pram_water' (pram) protected them in the released records" \
        in line
    assert "attack: original_table" in line


def test_tables_sharing_cells_protected_apart_are_refused(write_recipe, capsys):
    path = recipe(write_recipe, SUPPRESS_WATER + SUPPRESS_ROOF,
                  "  tables: {by_water: water.csv, by_roof: roof.csv}\n", tables=TABLES)
    [line] = refused(path, capsys)
    assert "release.tables.by_roof: tables 'by_water' and 'by_roof' share the cells of " \
        "urbrur (counted from the same records) but are protected apart ('by_water' by " \
        "steps 'primary' (sensitivity_rules), 'secondary' (secondary_suppression); " \
        "'by_roof' by steps 'primary_roof' (sensitivity_rules), 'secondary_roof' " \
        "(secondary_suppression))" in line
    assert "{id: by_water_by_roof, linked: [by_water, by_roof]}" in line


def test_a_table_beside_its_own_margin_is_refused(write_recipe, capsys):
    path = recipe(write_recipe, "  - {id: risk, measure: k_anonymity, params: {k: 3, "
                  "variables: [urbrur]}}\n" + SUPPRESS_WATER,
                  "  tables: {by_water: water.csv, by_area: area.csv}\n", tables=TABLES,
                  checks="checks: ['risk.violations[3] == 0']\n")
    [line] = refused(path, capsys)
    assert "tables 'by_water' and 'by_area' share the cells of urbrur" in line
    assert "'by_area' by none" in line


def test_linked_tables_are_protected_together(write_recipe):
    path = recipe(write_recipe,
                  "  - {id: primary, method: sensitivity_rules, table: both, params: "
                  "{rules: [{freq: 3}]}}\n"
                  "  - {id: secondary, method: secondary_suppression, table: both}\n",
                  "  tables: {by_water: water.csv, by_roof: roof.csv}\n",
                  tables=TABLES + "  - {id: both, linked: [by_water, by_roof]}\n")
    policy = load_recipe(path).policy
    assert policy.acknowledged == []
    assert policy.artefacts["table:by_roof"]["protected_by"] == ["primary", "secondary"]


@pytest.mark.parametrize("roof_params, refused_with", [
    ("{D: 5, V: 3, js: 2}", None),  # the same parameters: the same noise for a cell
    ("{D: 5, V: 3, js: 1}", "give their steps the same parameters"),
])
def test_cell_key_tables_apart_are_consistent_with_the_same_parameters(
        write_recipe, capsys, roof_params, refused_with):
    path = recipe(write_recipe,
                  "  - {id: ck_water, method: cell_key, table: by_water, params: "
                  "{D: 5, V: 3, js: 2}}\n"
                  f"  - {{id: ck_roof, method: cell_key, table: by_roof, params: {roof_params}}}\n",
                  "  tables: {by_water: water.csv, by_roof: roof.csv}\n", tables=TABLES)
    if refused_with is None:
        assert load_recipe(path).policy.acknowledged == []
        return
    [line] = refused(path, capsys)
    assert "are protected apart" in line and refused_with in line


def test_a_published_count_of_a_protected_tables_variables_is_refused(write_recipe, capsys):
    measure = "  - {id: risk0, measure: k_anonymity, input: original, params: {k: 3, " \
              "variables: [urbrur, water]}}\n"
    release = "  tables: {by_water: water.csv}\n"
    path = recipe(write_recipe, measure + SUPPRESS_WATER, release + "  measures: [risk0]\n",
                  tables=TABLES)
    [line] = refused(path, capsys)
    assert "release.measures: 'risk0' (k_anonymity) counts the records by urbrur, water as " \
        "table 'by_water' counted them: its published figures (e.g. the records in " \
        "combinations of fewer than k) are sums of the table's original cells" in line
    assert at_line(path, line) == "measures: [risk0]"
    # kept internal, the measure gives nothing away
    path = recipe(write_recipe, measure + SUPPRESS_WATER, release, tables=TABLES)
    assert load_recipe(path).policy.acknowledged == []


def test_the_old_census_recipe_is_refused(write_recipe, tmp_path):
    """Finding 4 of issue 22: the shipped census recipe released the cell-key-perturbed
    hypercubes beside the swapped records they are counted from."""
    text = (ROOT / "recipes" / "census_swap.yaml").read_text()
    text = text[:text.index("  # the sample of anonymised records")]
    text += ("release:\n  path: census-swap.csv\n  tables:\n"
             "    county_age_sex: census-county-age-sex.csv\n"
             "    municipality_citizenship: census-municipality-citizenship.csv\n")
    path = tmp_path / "census.yaml"
    path.write_text(text)
    with pytest.raises(RecipeError) as err:
        load_recipe(path)
    messages = [p.message for p in err.value.problems]
    assert len(messages) == 2 and all("attack: recount" in m for m in messages)
    assert "which hold county, age_group, sex: recounting" in messages[0]


def test_every_attack_is_in_the_schema():
    acknowledge = recipe_schema()["$defs"]["release"]["properties"]["acknowledge"]
    assert acknowledge["items"]["properties"]["attack"]["enum"] == list(ATTACKS)


def test_no_shipped_recipe_can_be_undone_by_its_own_release():
    for path in sorted((ROOT / "recipes").glob("*.yaml")):
        policy = load_recipe(path).policy
        assert policy is not None, path.name
        assert policy.acknowledged == [], path.name
        assert all(a.get("protected_by") for a in policy.artefacts.values()), path.name


@pytest.mark.parametrize("engine", ["memory", "dask"])
def test_both_engines_release_on_a_risk_check_only_when_it_passes(tmp_path, engine):
    if engine == "dask":
        pytest.importorskip("distributed")
    import pandas as pd

    # 12 persons: 6 of each sex, every age unique
    frame = pd.DataFrame({"sex": ["1", "2"] * 6, "age": list(range(30, 42))})
    (tmp_path / "parts").mkdir()
    frame.iloc[:6].to_parquet(tmp_path / "parts" / "part-0.parquet", index=False)
    frame.iloc[6:].to_parquet(tmp_path / "parts" / "part-1.parquet", index=False)
    frame.to_parquet(tmp_path / "whole.parquet", index=False)
    data = "parts" if engine == "dask" else "whole.parquet"
    text = f"""
sdcflow: 1
name: raw
seed: 1
data: {{path: {data}}}
variables:
  sex: {{role: key}}
  age: {{role: key, type: integer}}
steps:
  - {{id: risk, measure: k_anonymity, params: {{k: 2, variables: VARIABLES}}}}
checks: ["risk.violations[2] == 0"]
release: {{path: out.parquet}}
"""
    path = tmp_path / "raw.yaml"
    path.write_text(text.replace("VARIABLES", "[sex, age]"))
    with pytest.raises(CheckFailed) as failed:
        run(path, tmp_path / "refused", engine=engine, workers=1)
    assert failed.value.failures[-1].endswith(
        "release rests on the risk check 'risk.violations[2] == 0', which failed "
        "(risk.violations[2] = 12)")
    assert not (tmp_path / "refused" / "public").exists()
    # sex alone: 6 of each, 2-anonymous as they are
    path.write_text(text.replace("VARIABLES", "[sex]"))
    result = run(path, tmp_path / "out", engine=engine, workers=1)
    assert result.manifest["release_policy"]["artefacts"] == {
        "records": {"vouched_by": ["risk.violations[2] == 0"]}}
