"""record_swap plugin: whole households swapped, geography exchanged in pairs, the table of
areas x profile variables kept, high-risk households counted by hand, given risks, checks
and the shipped census recipe end to end (sdcMicro 5.8's recordSwap, R/recordSwap.R)."""

import numpy as np
import pandas as pd
import pytest
from helpers import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow import run, validate
from sdcflow.data import Dataset, Variable
from sdcflow.data.census import census
from sdcflow.data.text import TEXT
from sdcflow.errors import RecipeError
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("record_swap")
GEO = ["nuts2", "county", "municipality"]
HOUSEHOLD = {"nuts2", "county", "municipality", "hsize", "htype", "tenure", "hincome"}
PARAMS = {"hierarchy": GEO, "similar": [["hsize", "htype"], ["hsize"]],
          "risk_variables": ["age_group", "citizenship"], "k_anonymity": 2,
          "swaprate": 0.1, "carry_along": ["tenure"]}


def as_dataset(frame: pd.DataFrame) -> Dataset:
    """The census columns as sdcflow stores them: codes as text, numbers as Int64."""
    frame = frame.copy()
    households = "hid" in frame
    variables = {"hid": Variable("hid", "household", "integer")} if households else {}
    for name in frame.columns:
        if name == "hid":
            frame[name] = frame[name].astype("Int64")
            continue
        integer = name in ("age", "hsize")
        frame[name] = frame[name].astype("Int64" if integer else TEXT)
        variables[name] = Variable(name, "key", "integer" if integer else "categorical",
                                   level="household" if households and name in HOUSEHOLD
                                   else "record")
    return Dataset(frame, variables)


@pytest.fixture(scope="module")
def small_census():
    return as_dataset(census(3000, seed=4))


def apply(data, seed=0, **params):
    return PLUGIN.apply(data, registry.with_defaults(PLUGIN.params, params),
                        np.random.default_rng(seed))


def test_conformance(small_census):
    check_method(PLUGIN, small_census, PARAMS)
    check_method(PLUGIN, small_census, {"hierarchy": ["nuts2"], "similar": [["hsize"]],
                                        "risk": "age", "risk_threshold": 80})


def _households(frame, names):
    return frame.groupby("hid", sort=True)[names].first()


@settings(max_examples=12, deadline=None)
@given(st.integers(200, 2500), st.integers(0, 2**16), st.floats(0, 1),
       st.integers(0, 4))
def test_swap_invariants(persons, seed, rate, k):
    data = as_dataset(census(persons, seed=seed))
    params = {**PARAMS, "swaprate": rate, "k_anonymity": k, "similar": [["hsize", "htype"]]}
    result = apply(data, seed, **params)
    before, after = data.frame, result.data.frame
    # households stay whole: every member has the same new geography and tenure
    moved = GEO + ["tenure"]
    assert (after.groupby("hid")[moved].nunique() == 1).all().all()
    old, new = _households(before, moved + ["hsize", "htype"]), _households(after, moved)
    changed = (old[moved] != new[moved]).any(axis=1)
    # swapped pairs exchange their geography (with the carried-along tenure): each moved
    # household took the geography (and tenure) of a household that took its own
    donors = {tuple(r) for r in old.loc[changed, moved].itertuples(index=False)}
    assert {tuple(r) for r in new.loc[changed, moved].itertuples(index=False)} <= donors
    # with one profile every pair shares it, so the table of (areas at every level,
    # hsize, htype) is kept exactly, household by household and person by person
    cols = GEO + ["hsize", "htype"]
    keep = pd.concat([old[["hsize", "htype"]], new[GEO]], axis=1)
    assert old[cols].value_counts().sort_index().equals(keep[cols].value_counts().sort_index())
    assert before[cols].value_counts().sort_index().equals(
        after[cols].value_counts().sort_index())
    # the persons' own variables do not move
    for name in ("sex", "age", "age_group", "citizenship", "hid"):
        assert before[name].equals(after[name])
    info = result.info
    assert info["swapped_households"] == 2 * info["swaps"]
    assert info["swapped_households"] >= int(changed.sum())  # (a swap may keep a value)
    assert info["high_risk_not_swapped"] <= info["high_risk"]


def test_high_risk_households_counted_by_hand():
    # two regions x two municipalities; the risk variable is citizenship ("2" foreign):
    #   region A: a1 = households 1 (foreigner + national), 2 (2 nationals); a2 = 3 (1)
    #   region B: b1 = 4 (national), 5 (foreigner), 6 (2 nationals); b2 = 7 (foreigner +
    #   national), 8 (national)
    hid = [1, 1, 2, 2, 3, 4, 5, 6, 6, 7, 7, 8]
    region = ["A"] * 5 + ["B"] * 7
    muni = ["a1", "a1", "a1", "a1", "a2", "b1", "b1", "b1", "b1", "b2", "b2", "b2"]
    cit = ["2", "1", "1", "1", "1", "1", "2", "1", "1", "2", "1", "1"]
    frame = pd.DataFrame({"hid": hid, "region": region, "muni": muni, "cit": cit,
                          "size": [2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 1]})
    frame["region"] = frame["region"].astype(TEXT)
    frame["muni"] = frame["muni"].astype(TEXT)
    frame["cit"] = frame["cit"].astype(TEXT)
    frame["hid"] = frame["hid"].astype("Int64")
    frame["size"] = frame["size"].astype("Int64")
    data = Dataset(frame, {
        "hid": Variable("hid", "household", "integer"),
        "region": Variable("region", "key", "categorical", level="household"),
        "muni": Variable("muni", "key", "categorical", level="household"),
        "cit": Variable("cit", "key", "categorical"),
        "size": Variable("size", "key", "integer", level="household")})
    info = apply(data, 3, hierarchy=["region", "muni"], similar=[["size"]],
                 risk_variables=["cit"], k_anonymity=2, swaprate=0.0).info
    # level 0 (region), counts < 2: A's only foreigner (household 1); B has two.
    # level 1 (municipality): a2's only person (household 3), b1's foreigner (5), b2's
    # foreigner (7); a1's nationals are 3, b1's 3, b2's 2
    assert info["high_risk_by_level"] == {"region": 1, "muni": 3}
    assert info["high_risk"] == 4 and info["households"] == 8
    assert info["target_swaps"] == 0
    # swaprate 0: only the high-risk households start swaps. Household 1 (size 2) always
    # finds 6 or 7 (region B, size 2), 7 finds 1, 2 or 6; the size-1 households 3 (a2)
    # and 5 (b1) compete: 3 may take 4, 5 or 8, and 5 only 3 or 8, so when 3 takes 8
    # first, 5 has no donor left (and is reported), otherwise all four are swapped
    outcomes = set()
    for seed in range(40):
        result = apply(data, seed, hierarchy=["region", "muni"], similar=[["size"]],
                       risk_variables=["cit"], k_anonymity=2, swaprate=0.0)
        before = frame.groupby("hid")[["region", "muni"]].first()
        after = result.data.frame.groupby("hid")[["region", "muni"]].first()
        changed = set(before.index[(before != after).any(axis=1)])
        missed = {1, 3, 5, 7} - changed
        assert missed <= {5} and len(missed) == result.info["high_risk_not_swapped"]
        outcomes.add(len(missed))
    assert outcomes == {0, 1}
    # k_anonymity 0: nobody is high-risk, and with swaprate 0.5: 8 * 0.5 / 2 = 2 swaps
    info = apply(data, 3, hierarchy=["region", "muni"], similar=[["size"]],
                 risk_variables=["cit"], k_anonymity=0, swaprate=0.5).info
    assert info["high_risk"] == 0 and info["target_swaps"] == 2


def test_swap_rate_met_on_the_census(small_census):
    # no high-risk household (k = 0): H * 0.2 / 2 swaps, rounded at random
    result = apply(small_census, 1, **{**PARAMS, "k_anonymity": 0, "swaprate": 0.2})
    info = result.info
    hh = small_census.frame["hid"].nunique()
    assert info["households"] == hh
    assert info["target_swaps"] in (int(np.floor(hh * 0.1)), int(np.ceil(hh * 0.1)))
    assert info["swaps"] == info["target_swaps"]
    assert info["swapped_households"] == 2 * info["target_swaps"]


def test_every_high_risk_household_with_a_donor_is_swapped(small_census):
    info = apply(small_census, 2, **{**PARAMS, "swaprate": 0.0, "k_anonymity": 3}).info
    assert info["high_risk"] > 100
    assert info["high_risk_not_swapped"] == 0  # the census always has a donor of its size
    assert info["swapped_households"] >= info["high_risk"]
    assert sum(info["swaps_by_level"].values()) == info["swaps"]


def test_given_risk_and_threshold(small_census):
    frame = small_census.frame.copy()
    # risk 1 for persons aged 90+, else 0.01: households with one are high-risk at the
    # top level; a risk of 0 (children) would never be swapped
    frame["r"] = np.where(frame["age"].to_numpy() >= 90, 1.0, 0.01)
    data = Dataset(frame, {**small_census.variables, "r": Variable("r", "numeric",
                                                                   "continuous")})
    old = frame.groupby("hid").age.max() >= 90
    result = apply(data, 5, hierarchy=GEO, similar=[["hsize"]], risk="r",
                   risk_threshold=0.5, swaprate=0.0)
    assert result.info["high_risk"] == int(old.sum()) > 0
    assert result.info["high_risk_by_level"] == {"nuts2": int(old.sum()), "county": 0,
                                                 "municipality": 0}


def test_without_a_household_id_every_record_is_a_household():
    frame = census(600, seed=8).drop(columns="hid")
    data = as_dataset(frame)
    assert "hid" not in data.variables
    result = apply(data, 1, hierarchy=GEO, similar=[["sex"]], risk_variables=["age_group"],
                   k_anonymity=0, swaprate=0.5)
    # 600 * 0.5 / 2 = 150 swaps of two records each, between records of the same sex
    assert result.info["households"] == 600 and result.info["swaps"] == 150
    assert result.info["swapped_records"] == 300
    before, after = data.frame, result.data.frame
    assert before.groupby(GEO + ["sex"]).size().equals(after.groupby(GEO + ["sex"]).size())


def test_no_records(small_census):
    empty = Dataset(small_census.frame.iloc[:0], small_census.variables)
    result = apply(empty, 1, **PARAMS)
    assert len(result.data.frame) == 0
    assert result.info["households"] == 0 and result.info["swaps"] == 0


def test_reproducible_under_the_seed(small_census):
    a = apply(small_census, 9, **PARAMS).data.frame
    b = apply(small_census, 9, **PARAMS).data.frame
    c = apply(small_census, 10, **PARAMS).data.frame
    assert a.equals(b) and not a.equals(c)


def test_checks(small_census):
    meta = small_census.meta
    params = registry.with_defaults(PLUGIN.params, {
        "hierarchy": ["nuts2", "county"], "similar": [["hsize", "sex"]],
        "risk_variables": ["age_grp"], "carry_along": ["county", "age"]})
    assert list(PLUGIN.check(params, meta)) == [
        (("risk_variables", 0), "'age_grp' is not a declared variable"),
        (("carry_along", 0), "'county' is in the hierarchy: it is swapped already"),
        (("carry_along", 1), ("carried-along variables are swapped by household, so 'age' "
                             "must be the same for every member: declare it level: "
                             "household (under variables.age)")),
        (("similar", 0, 1), ("donors are matched by household, so 'sex' must be the same "
                            "for every member: declare it level: household (under "
                            "variables.sex)")),
    ]
    params = registry.with_defaults(PLUGIN.params, {
        "hierarchy": GEO, "similar": [["hsize"]], "risk": ["age", "sex"],
        "risk_threshold": 1})
    assert list(PLUGIN.check(params, meta)) == [
        (("risk", 1), ("the risk variable 'sex' is categorical: it must be a number (type "
                      "integer or continuous)")),
        (("risk",), ("give one risk variable per hierarchy level (3), not 2; or a single one "
                    "for every level")),
    ]


def test_check_data_refuses_missing_values_and_negative_risks(small_census):
    frame = small_census.frame.copy()
    frame.loc[[3, 4], "citizenship"] = None
    frame["r"] = -1.0
    data = Dataset(frame, {**small_census.variables,
                           "r": Variable("r", "numeric", "continuous")})
    found = list(PLUGIN.check_data(registry.with_defaults(PLUGIN.params, PARAMS), data))
    assert found == [(("risk_variables", 1), ("'citizenship' has 2 missing values (records "
                                             "4, 5); record swapping needs a value for "
                                             "every record"))]
    params = registry.with_defaults(PLUGIN.params, {
        "hierarchy": GEO, "similar": [["hsize"]], "risk": "r", "risk_threshold": 0.5})
    (finding,) = PLUGIN.check_data(params, data)
    assert finding[0] == ("risk",) and "must be a finite number >= 0" in finding[1]


def test_risk_rules_are_exclusive(write_recipe):
    path = write_recipe("""
        sdcflow: 1
        name: swap
        seed: 1
        data: {builtin: synthetic_census}
        variables:
          hid: {role: household}
          nuts2: {role: key, level: household}
          hsize: {role: key, type: integer, level: household}
          age: {role: numeric, type: integer}
          sex: {role: key}
        steps:
          - id: swap
            method: record_swap
            params: {hierarchy: [nuts2], similar: [[hsize]], risk_variables: [sex],
                     risk: age, risk_threshold: 0.5}
          - id: swap2
            method: record_swap
            params: {hierarchy: [nuts2, sex], similar: [[hsize]], risk_variables: [sex]}
        """)
    with pytest.raises(RecipeError) as err:
        validate(path)
    text = str(err.value)
    assert ("give risk_variables (with k_anonymity), or risk with risk_threshold, not both"
            in text)
    assert "so 'sex' must be the same for every member" in text


def test_shipped_census_recipe_swap(tmp_path):
    # the shipped recipe's swap step alone, its output released (the shipped recipe
    # releases a sample of it, and tables counted from it)
    import yaml

    shipped = yaml.safe_load((ROOT / "recipes" / "census_swap.yaml").read_text())
    steps = shipped["steps"]
    shipped["steps"] = steps[:[s["id"] for s in steps].index("swap") + 1]
    for section in ("tables", "checks"):
        shipped.pop(section)
    shipped["release"] = {"path": "swapped.csv"}
    (tmp_path / "swap.yaml").write_text(yaml.safe_dump(shipped, sort_keys=False))
    result = run(tmp_path / "swap.yaml", tmp_path / "out", use_cache=False)
    info = next(s.info for s in result.steps if s.node == "swap")
    # 20000 persons in 8324 households; 1559 households have a person whose age group
    # and citizenship are unique in their region (2), county (300) or municipality (1257)
    assert info["households"] == 8324 and info["records"] == 20000
    assert info["high_risk_by_level"] == {"nuts2": 2, "county": 300, "municipality": 1257}
    assert info["high_risk_not_swapped"] == 0
    assert info["target_swaps"] in (208, 209)  # 8324 * 0.05 / 2 = 208.1
    # the table of municipality x household size (persons) is kept: pairs share hsize
    original = census(20000, seed=2021)
    released = result.data
    assert original.groupby(["municipality", "hsize"]).size().sort_index().tolist() == \
        released.groupby(["municipality", "hsize"]).size().sort_index().tolist()