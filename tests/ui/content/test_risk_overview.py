"""The Risk page's figures (sdcflow.ui.content.risk_overview): computed by the measure plugins a
recipe runs, on the draft's key variables, equal to what a run of the recipe reports and
to sdcMicro's published figures for its testdata."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest

from sdcflow.engine import run
from sdcflow.recipe import recipe_from_text, validate
from sdcflow.ui.content import risk_overview
from sdcflow.ui.editing.recipe_edit import RecipeDocument

ROOT = Path(__file__).resolve().parents[3]
QUICKSTART = (ROOT / "recipes" / "quickstart.yaml").read_text(encoding="utf-8")
KEYS = ["urbrur", "water", "sex", "age", "relat"]
# sdcMicro's testdata with the quick start's five keys: "in original data: 653 / 1087 /
# 1781" records violate 2-, 3- and 5-anonymity (the figures tests/engine/test_run.py and
# tests/measures/risk/test_k_anonymity.py assert)
SDCMICRO = {"2": 653, "3": 1087, "5": 1781}


@pytest.fixture(scope="module")
def quickstart_overview(tmp_path_factory):
    path = tmp_path_factory.mktemp("risk") / "quickstart.yaml"
    path.write_text(QUICKSTART, encoding="utf-8")
    return risk_overview.compute(QUICKSTART, path)


def test_k_anonymity_equals_the_run_and_sdcmicro(quickstart_overview, tmp_path):
    path = tmp_path / "quickstart.yaml"
    path.write_text(QUICKSTART, encoding="utf-8")
    result = run(path, write=False, use_cache=False)
    assert quickstart_overview.measures["k_anonymity"]["violations"] == \
        result.measures["risk_original"]["violations"] == SDCMICRO
    # the recipe's own settings (alpha 0.7 as sdcMicro's createSdcObj) were used
    assert quickstart_overview.params["k_anonymity"] == {"k": [2, 3, 5], "alpha": 0.7}


def test_violating_key_combinations_counted_by_hand(quickstart_overview):
    # testdata's keys have no missing values: the classes are plain groups of equal keys
    frame = pd.read_csv(ROOT / "sdcflow" / "data" / "datasets" / "testdata.csv")
    sizes = frame.groupby(KEYS).size()
    for k in ("2", "3", "5"):
        assert quickstart_overview.classes[k] == int((sizes < int(k)).sum())
        assert int(sizes[sizes < int(k)].sum()) == SDCMICRO[k]
    assert quickstart_overview.classes == {"2": 653, "3": 870, "5": 1070}
    rarest = quickstart_overview.rarest[0]
    assert rarest["fk"] == 1.0 and rarest["records"] == 1
    assert sizes[tuple(int(rarest["values"][k]) for k in KEYS)] == 1


def test_households_and_suda_shown(quickstart_overview):
    measures = quickstart_overview.measures
    assert measures["household_risk"]["households"] == 1000  # testdata's ori_hid
    assert measures["suda"]["records_with_msu"] == 653  # the sample uniques (fk = 1)
    assert set(quickstart_overview.pictures) == {"individual_risk", "household_risk", "dis"}
    assert all(svg.startswith("<svg") for svg in quickstart_overview.pictures.values())


def test_records_above_thresholds_from_one_over_fk(tmp_path):
    # without a weight variable the data are the population: the individual risk is 1/fk
    doc = RecipeDocument.parse(QUICKSTART)
    doc.remove_variable("sampling_weight")
    overview = risk_overview.compute(doc.text(), tmp_path / "unweighted.yaml")
    # 1/fk > 0.5 iff fk < 2; 1/fk > 0.2 iff fk < 5: sdcMicro's 653 and 1781
    assert overview.above[0.5]["above_threshold"] == SDCMICRO["2"]
    assert overview.above[0.2]["above_threshold"] == SDCMICRO["5"]
    assert overview.above[0.1]["above_threshold"] == _fk_below(10)


def test_household_risk_only_with_households():
    doc = RecipeDocument.parse(QUICKSTART)
    assert [s["measure"] for s in risk_overview.risk_steps(doc)] == list(
        risk_overview.MEASURES)
    for name in ("ori_hid", "urbrur", "water", "walls"):  # (household-level ones too)
        doc.remove_variable(name)
    assert "household_risk" not in [s["measure"] for s in risk_overview.risk_steps(doc)]


def _fk_below(k: int) -> int:
    frame = pd.read_csv(ROOT / "sdcflow" / "data" / "datasets" / "testdata.csv")
    sizes = frame.groupby(KEYS).size()
    return int(sizes[sizes < k].sum())


def test_a_measure_the_data_refuse_is_left_out_with_the_reason(tmp_path):
    draft = QUICKSTART.replace(
        "steps:\n", "steps:\n  - {id: uniques, measure: suda, params: {max_size: 9}}\n", 1)
    path = tmp_path / "q.yaml"
    overview = risk_overview.compute(draft, path)
    assert "suda" not in overview.measures
    assert "max_size = 9 is larger than the number of variables (5)" in \
        overview.left_out["suda"]
    assert overview.measures["k_anonymity"]["violations"] == SDCMICRO


def test_add_to_recipe_adds_the_measure_before_the_methods(tmp_path):
    doc = RecipeDocument.parse(QUICKSTART)
    assert risk_overview.recipe_step(doc, "k_anonymity") == "risk_original"
    assert risk_overview.recipe_step(doc, "suda") is None
    sid = risk_overview.add_risk_step(doc, "suda")
    steps = doc.steps()
    assert sid == "suda_original"
    assert steps[1] == {"id": "suda_original", "measure": "suda", "input": "original"}
    assert steps[2]["id"] == "age10"  # the first method comes after it
    assert risk_overview.recipe_step(doc, "suda") == "suda_original"
    path = tmp_path / "quickstart.yaml"
    path.write_text(doc.text(), encoding="utf-8")
    validate(recipe_from_text(doc.text(), path.name, path))  # raises when it does not
    assert "# Quick start" in doc.text()  # the user's comments stay
    with pytest.raises(ValueError):
        risk_overview.add_risk_step(doc, "pram")


def test_the_cache_key_follows_the_data_not_the_steps(tmp_path):
    data = tmp_path / "testdata.csv"
    data.write_bytes((ROOT / "sdcflow" / "data" / "datasets" / "testdata.csv").read_bytes())
    path = tmp_path / "q.yaml"
    draft = QUICKSTART.replace("data: {builtin: testdata}", "data: {path: testdata.csv}")
    key = risk_overview.cache_key(draft, path)
    # a check or a method changes nothing the page computes
    assert risk_overview.cache_key(draft.replace("<= 400", "<= 300"), path) == key
    # a role does, and so does a newer data file
    assert risk_overview.cache_key(draft.replace("relat: {role: key", "relat: {role: numeric"),
                                   path) != key
    stat = data.stat()
    os.utime(data, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert risk_overview.cache_key(draft, path) != key


def test_strata_are_part_of_the_classes(tmp_path):
    # the recipe's k-anonymity counts within strata of walls: its settings are the page's
    draft = QUICKSTART.replace("params: {k: [2, 3, 5], alpha: 0.7}",
                               "params: {k: [2, 3, 5], alpha: 0.7, strata: [walls]}", 1)
    overview = risk_overview.compute(draft, tmp_path / "strata.yaml")
    frame = pd.read_csv(ROOT / "sdcflow" / "data" / "datasets" / "testdata.csv")
    sizes = frame.groupby([*KEYS, "walls"]).size()
    assert overview.keys == [*KEYS, "walls"]
    for k in ("2", "3", "5"):
        assert overview.classes[k] == int((sizes < int(k)).sum())
        assert overview.measures["k_anonymity"]["violations"][k] == \
            int(sizes[sizes < int(k)].sum())
