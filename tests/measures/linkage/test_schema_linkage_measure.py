"""schema_linkage measure: record linkage against an intruder's file with other variable
names, other codes and a coarser taxonomy level (Torra, ECAI 2000; Domingo-Ferrer & Torra
2003). The expected figures are counted by hand on the tiny files below."""

import json

import numpy as np
import pandas as pd
import pytest
from helpers import small_dataset, validate_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow import run
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("schema_linkage")

RELEASE = """id,sex,region,age
a,1,A1,30
b,1,A2,41
c,2,B1,25
d,2,B2,60
e,1,B1,33
"""
# the intruder holds a, c, e (and x, y, not released); gender M/F for sex 1/2, the
# province (A, B) for the municipality (A1, A2 under A; B1, B2 under B)
INTRUDER = """person,gender,province,years
a,M,A,30
c,F,B,25
e,M,B,33
x,F,A,50
y,M,A,44
"""
RECIPE = """
sdcflow: 1
name: schema
seed: 1
data: {path: release.csv}
variables:
  id: {role: identifier, type: categorical}
  sex: {role: key, type: categorical}
  region:
    role: key
    type: categorical
    taxonomy: {tree: {A: [A1, A2], B: [B1, B2]}}
  age: {role: numeric, type: integer}
steps:
  - id: link
    measure: schema_linkage
    params:
      intruder: {path: intruder.csv}
      intruder_match_on: person
      mapping:
        - {variable: sex, intruder: gender, codes: {M: "1", F: "2"}}
        - {variable: region, intruder: province, taxonomy: true}
"""


def files(tmp_path, intruder=INTRUDER):
    (tmp_path / "release.csv").write_text(RELEASE)
    (tmp_path / "intruder.csv").write_text(intruder)


def test_declared_mapping_with_codes_and_a_coarser_level(write_recipe, tmp_path):
    # both files at the province level (depth 1: the intruder's codes are there).
    # released (sex, province): a (1, A), b (1, A), c (2, B), d (2, B), e (1, B);
    # intruder: a (1, A), c (2, B), e (1, B), x (2, A), y (1, A).
    # a: 0 mismatches with a and y (tie: 1/2, correct); c: c alone (1); e: e alone (1);
    # b, d: not in the intruder's file. Correct 2.5 of the 3 individuals in both files.
    files(tmp_path)
    result = run(write_recipe(RECIPE), tmp_path / "out", use_cache=False)
    s = result.measures["link"]
    assert s["mapping"] == "declared"
    assert (s["records"], s["intruder_records"], s["common"], s["absent"]) == (5, 5, 3, 2)
    assert s["correct"] == 2.5 and s["percent"] == pytest.approx(250 / 3, abs=1e-6)
    assert s["correct_any"] == 3 and s["percent_of_release"] == 50.0
    sex, region = s["pairs"]
    assert (sex["variable"], sex["intruder"], sex["level"]) == ("sex", "gender", None)
    assert (region["variable"], region["intruder"], region["level"]) == ("region",
                                                                          "province", 1)
    # agreement among the true pairs a, c, e: all agree on both. By chance: sex, 3/5 * 3/5
    # + 2/5 * 2/5 = 0.52; province, released A 2/5, B 3/5, intruder A 3/5, B 2/5: 0.48
    assert sex["agreement"] == region["agreement"] == 1.0
    assert sex["chance_agreement"] == pytest.approx(0.52)
    assert region["chance_agreement"] == pytest.approx(0.48)
    assert s["variables"] == ["sex", "region"]
    assert s["intruder_variables"] == ["gender", "province"]


@pytest.mark.parametrize(("factor", "agree"), [
    # units unknown: each file standardised with its own moments (release ages 30, 41,
    # 25, 60, 33: mean 37.8, sd 13.7004; intruder 30, 25, 33, 50, 44: 36.4, 10.3102);
    # standardised, a differs by |-0.5693 + 0.6208| = 0.052, c by |-0.9343 + 1.1057| =
    # 0.171, e by |-0.3504 + 0.3298| = 0.021: 2 of 3 within 0.1
    ("", 2 / 3),
    # the same units declared: both with the release's moments, the equal ages agree
    (", factor: 1", 1.0)])
def test_adding_the_numeric_pair_breaks_the_tie(write_recipe, tmp_path, factor, agree):
    # age = years for a, c, e: a is now nearest its own record (y is 44, 14 years off)
    files(tmp_path)
    text = RECIPE.replace("taxonomy: true}", "taxonomy: true}\n"
                          f"        - {{variable: age, intruder: years{factor}}}")
    s = run(write_recipe(text), tmp_path / "out", use_cache=False).measures["link"]
    assert s["correct"] == 3 and s["percent"] == 100.0
    age = s["pairs"][2]
    assert age["kind"] == "numeric" and age["agreement"] == pytest.approx(agree)


# ten individuals in both files; the intruder renames every variable and code, and
# gives age in months
SEX = ["1"] * 6 + ["2"] * 4                    # profile (0.6, 0.4)
REGION = ["r1", "r1", "r1", "r2", "r2", "r3", "r1", "r1", "r2", "r3"]  # (0.5, 0.3, 0.2)
AGE = [21, 34, 45, 52, 60, 18, 27, 39, 71, 66]
GENDER = {"1": "W", "2": "M"}
AREA = {"r1": "north", "r2": "south", "r3": "east"}


def release(ids=None):
    ids = ids or [f"p{i}" for i in range(10)]
    return small_dataset(id=("identifier", "categorical", ids),
                         sex=("key", "categorical", SEX),
                         region=("key", "categorical", REGION),
                         age=("numeric", "integer", AGE))


def intruder_data(order=range(10)):
    order = list(order)
    return {"columns": {
        "who": [f"p{i}" for i in order],
        "months": [str(12 * AGE[i]) for i in order],
        "area": [AREA[REGION[i]] for i in order],
        "gender": [GENDER[SEX[i]] for i in order]}}


def evaluate(data, intruder, **params):
    params = registry.with_defaults(PLUGIN.params, {**params, "intruder_data": intruder})
    return PLUGIN.evaluate(data, params, np.random.default_rng(0), original=data)


def test_proposal_recovers_renamed_variables_and_codes():
    # every distance of the true pairs is 0 (same profiles; months a rescaling of
    # years); sex against area and region against gender are 0.2 apart: the assignment
    # pairs them as they are. The files in different orders: records match by id.
    s = evaluate(release(), intruder_data(reversed(range(10))), intruder_match_on="who").summary
    assert s["mapping"] == "proposed" and s["rejected"] == []
    pairs = {p["variable"]: p for p in s["pairs"]}
    assert {v: p["intruder"] for v, p in pairs.items()} == {
        "sex": "gender", "region": "area", "age": "months"}
    assert all(p["distance"] == 0 and p["source"] == "proposed" for p in pairs.values())
    assert pairs["sex"]["codes"] == [["M", "2"], ["W", "1"]]
    assert pairs["region"]["codes"] == [["east", "r3"], ["north", "r1"], ["south", "r2"]]
    assert pairs["age"]["codes"] is None and pairs["age"]["kind"] == "numeric"
    assert all(p["agreement"] == 1.0 for p in pairs.values())
    # the ten ages are distinct: every record links to its own alone
    assert s["correct"] == 10 and s["percent"] == 100.0


def test_proposal_on_categorical_variables_links_by_hand_count():
    # on sex and region alone the records fall in 6 combinations of sizes 3, 2, 1, 2, 1,
    # 1: each record ties with the others of its combination (credit 1/size), so the
    # correct links sum to the number of combinations, 6 of 10
    s = evaluate(release(), intruder_data(), intruder_match_on="who",
                 variables=["sex", "region"]).summary
    assert [p["intruder"] for p in s["pairs"]] == ["gender", "area"]
    assert s["correct"] == pytest.approx(6) and s["percent"] == pytest.approx(60)
    assert s["correct_any"] == 10


def test_a_pair_too_far_apart_is_rejected():
    # the intruder's gender profile (0.5, 0.5) is 0.1 from sex's (0.6, 0.4): kept at the
    # default 0.1, rejected at 0.05 (then listed with its distance)
    data = intruder_data()
    data["columns"]["gender"] = ["W"] * 5 + ["M"] * 5
    kept = evaluate(release(), data, intruder_match_on="who", variables=["sex"]).summary
    assert [p["intruder"] for p in kept["pairs"]] == ["gender"]
    assert kept["pairs"][0]["distance"] == pytest.approx(0.1)
    s = evaluate(release(), data, intruder_match_on="who", variables=["sex"],
                 max_distance=0.05).summary
    assert s["pairs"] == [] and s["rejected"] == [
        {"variable": "sex", "intruder": "gender", "distance": 0.1}]


def test_codes_of_equal_frequency_are_matched_by_the_individuals_in_both_files():
    # sex 1 x5, 2 x5 (the intruder's W for 1, M for 2): frequency ranks cannot tell the
    # codes apart and pair them by code order, M -> 1 and W -> 2, always wrong (agreement
    # 0 against 0.5 by chance); the individuals in both files pair W with 1 (agreement 1).
    # Matched, the records fall in 5 (sex, region) combinations: 5 correct of 10. By
    # frequency, a record links to the other sex's records of its region, wrongly, except
    # the two (2, r3): no (1, r3) exists, so they tie, one mismatch away, with the 5 of
    # sex 1 and the two (2, r3) themselves: 2 x 1/7 correct
    sex = ["1"] * 5 + ["2"] * 5
    data = small_dataset(id=("identifier", "categorical", [f"p{i}" for i in range(10)]),
                         sex=("key", "categorical", sex),
                         region=("key", "categorical", REGION))
    columns = {"who": [f"p{i}" for i in range(10)],
               "gender": [{"1": "W", "2": "M"}[v] for v in sex],
               "area": [AREA[v] for v in REGION]}
    matched = evaluate(data, {"columns": columns}, intruder_match_on="who").summary
    assert [p["code_map"] for p in matched["pairs"]] == ["matched", "matched"]
    assert matched["pairs"][0]["codes"] == [["M", "2"], ["W", "1"]]
    assert matched["pairs"][0]["agreement"] == 1.0 and matched["percent"] == 50.0
    freq = evaluate(data, {"columns": columns}, intruder_match_on="who",
                    proposal_codes="frequency").summary
    assert freq["pairs"][0]["codes"] == [["M", "1"], ["W", "2"]]
    assert freq["pairs"][0]["agreement"] == 0.0
    assert freq["pairs"][0]["chance_agreement"] == 0.5
    assert freq["correct"] == pytest.approx(2 / 7, abs=1e-6)


@settings(max_examples=10, deadline=None)
@given(st.permutations(["r1", "r2", "r3"]), st.permutations(range(10)))
def test_renamed_codes_with_their_map_link_as_the_same_codes(names, order):
    # the intruder's region codes renamed (and its rows shuffled), the renaming declared:
    # the same figures as the intruder holding the release's own codes
    rename = dict(zip(["r1", "r2", "r3"], names, strict=True))
    plain = intruder_data()
    plain["columns"]["area"] = list(REGION)
    renamed = {"columns": {k: [v[i] for i in order] for k, v in plain["columns"].items()}}
    renamed["columns"]["area"] = [rename[v] for v in renamed["columns"]["area"]]
    mapping = [{"variable": "region", "intruder": "area"},
               {"variable": "age", "intruder": "months", "factor": 1 / 12}]
    same = evaluate(release(), plain, intruder_match_on="who", mapping=mapping).summary
    mapping[0]["codes"] = {new: old for old, new in rename.items()}
    other = evaluate(release(), renamed, intruder_match_on="who", mapping=mapping).summary
    assert other["correct"] == same["correct"] == 10
    assert [p["agreement"] for p in other["pairs"]] == [p["agreement"] for p in same["pairs"]]


def test_conformance():
    check_method(PLUGIN, release(), {"intruder_data": intruder_data(),
                                     "intruder_match_on": "who"})


def test_read_files(tmp_path):
    files(tmp_path)
    params, found = PLUGIN.read_files({"intruder": {"path": "intruder.csv"}}, tmp_path)
    assert not found
    assert params["intruder_data"]["columns"]["gender"] == ["M", "F", "M", "F", "M"]
    params, found = PLUGIN.read_files({"intruder": {"path": "nowhere.csv"}}, tmp_path)
    assert found == [(("intruder", "path"), "the intruder file nowhere.csv: no such file")]
    params, found = PLUGIN.read_files({"intruder": {"builtin": "francdat"}}, tmp_path)
    assert not found and len(params["intruder_data"]["columns"]["Key1"]) == 8


@pytest.mark.parametrize(("edit", "where", "message"), [
    (("variable: sex,", "variable: sexx,"), "line 20",
     "'sexx' is not a declared variable (did you mean 'sex'?)"),
    (("intruder: gender,", "intruder: gendre,"), "line 20",
     "the intruder's file has no column 'gendre' (did you mean 'gender'?)"),
    (('codes: {M: "1", F: "2"}', 'codes: {M: "1"}'), "line 20",
     "the intruder's column 'gender' has codes with no map: 'F'"),
    (("taxonomy: true}", "level: 1}"), "line 21", "level goes with taxonomy: true"),
    (("taxonomy: true}", "taxonomy: true, factor: 2}"), "line 21",
     "'region' is categorical: factor is for numeric variables"),
    (("intruder_match_on: person", "intruder_match_on: persn"), "line 18",
     "the intruder's file has no column 'persn' (did you mean 'person'?)"),
])
def test_mapping_errors_are_positioned(write_recipe, tmp_path, capsys, edit, where, message):
    files(tmp_path)
    path = write_recipe(RECIPE.replace(*edit))
    code, lines = validate_cli(path, capsys)
    assert code == 1
    hits = [line for line in lines if message in line]
    assert hits, lines
    assert hits[0].startswith(f"{path}:{where.split()[1]}:")


def test_values_outside_the_taxonomy_are_an_error(write_recipe, tmp_path, capsys):
    files(tmp_path, INTRUDER.replace("x,F,A,50", "x,F,C,50"))
    code, lines = validate_cli(write_recipe(RECIPE), capsys)
    assert code == 1
    assert any("the intruder's file has values of 'region' outside its taxonomy (1): 'C'"
               in line for line in lines), lines


def test_text_in_a_numeric_pair_and_a_missing_taxonomy_are_errors(write_recipe, tmp_path,
                                                                  capsys):
    files(tmp_path, INTRUDER.replace("c,F,B,25", "c,F,B,zz"))
    text = RECIPE.replace("taxonomy: true}", "taxonomy: true}\n"
                          "        - {variable: age, intruder: years}").replace(
        "    taxonomy: {tree: {A: [A1, A2], B: [B1, B2]}}\n", "")
    path = write_recipe(text)
    code, lines = validate_cli(path, capsys)
    assert code == 1
    assert lines[:2] == [
        (f"{path}:20:60: steps[0].params.mapping[1].taxonomy: 'region' has no taxonomy: "
         "declare one (variables.region.taxonomy) or a hierarchy"),
        (f"{path}:21:37: steps[0].params.mapping[2].intruder: 'age' is integer but the "
         "intruder's column 'years' holds text (record 2)")]


def test_no_mapping_proposes_from_the_recipe(write_recipe, tmp_path):
    # the ten individuals above as files: without a mapping the proposal pairs the
    # renamed variables (see test_proposal_recovers_renamed_variables_and_codes) and
    # every record links to its own
    pd.DataFrame({"id": [f"p{i}" for i in range(10)], "sex": SEX, "region": REGION,
                  "age": AGE}).to_csv(tmp_path / "release.csv", index=False)
    pd.DataFrame(intruder_data()["columns"]).to_csv(tmp_path / "intruder.csv", index=False)
    text = RECIPE[:RECIPE.index("      mapping:")].replace("person", "who").replace(
        "taxonomy: {tree: {A: [A1, A2], B: [B1, B2]}}", "taxonomy: {tree: {r: [r1, r2, r3]}}")
    s = run(write_recipe(text), tmp_path / "out", use_cache=False).measures["link"]
    assert [(p["variable"], p["intruder"]) for p in s["pairs"]] == [
        ("sex", "gender"), ("region", "area"), ("age", "months")]
    assert s["percent"] == 100.0
    public = (tmp_path / "out" / "public" / "manifest.json").read_text()
    assert "intruder_data" not in public and "north" not in public
    assert json.loads(public)  # (a manifest)
