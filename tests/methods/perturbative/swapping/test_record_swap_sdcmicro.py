"""record_swap against the expectations of sdcMicro 5.8's own tests of recordSwap
(tests/testthat/test_recordSwap_outputs.R), on data of the kind its ``createDat`` makes
(R/createDat.R: 10,000 households, uniform codes, nested geography nuts1 > nuts2 >
nuts3). R's random numbers are not NumPy's, so the data (and the swapped households)
differ from sdcMicro's; the figures its tests assert hold for any draw and are asserted
here the same way."""

import numpy as np
import pandas as pd
import pytest

from sdcflow.data import Dataset, Variable
from sdcflow.data.text import TEXT
from sdcflow.plugins import registry

PLUGIN = registry.get("record_swap")
NHID = 10_000
HOUSEHOLD = ("nuts1", "nuts2", "nuts3", "lau2", "hsize", "htype", "hincome")


def create_dat(n: int, seed: int) -> Dataset:
    """sdcMicro's createDat(n): per household nuts1 1..3, nuts2 1..5, nuts3 1..15, lau2
    1..5, hsize 1..6, htype 1..10, hincome 1..10 (uniform); per person gender 1..2,
    ageGroup 1..7, national 1..5; codes nested (nuts2 = nuts1 nuts2, nuts3 = nuts2
    and two digits, lau2 = nuts3 and four digits, as integers)."""
    rng = np.random.default_rng(seed)
    draw = {name: rng.integers(1, top + 1, n) for name, top in (
        ("nuts1", 3), ("nuts2", 5), ("nuts3", 15), ("lau2", 5), ("hsize", 6),
        ("htype", 10), ("hincome", 10))}
    size = draw["hsize"]
    units = np.repeat(np.arange(n), size)
    persons = units.size
    nuts2 = draw["nuts1"] * 10 + draw["nuts2"]
    nuts3 = nuts2 * 100 + draw["nuts3"]
    lau2 = nuts3 * 10000 + draw["lau2"]
    columns = {"hid": units + 1, "nuts1": draw["nuts1"][units], "nuts2": nuts2[units],
               "nuts3": nuts3[units], "lau2": lau2[units], "hsize": size[units],
               "ageGroup": rng.integers(1, 8, persons),
               "gender": rng.integers(1, 3, persons),
               "national": rng.integers(1, 6, persons),
               "htype": draw["htype"][units], "hincome": draw["hincome"][units]}
    frame = pd.DataFrame({k: pd.Series(v, dtype="Int64") for k, v in columns.items()})
    variables = {"hid": Variable("hid", "household", "integer")}
    for name in columns:
        if name != "hid":
            frame[name] = frame[name].astype(str).astype(TEXT)
            variables[name] = Variable(name, "key", "categorical",
                                       level="household" if name in HOUSEHOLD else "record")
    return Dataset(frame, variables)


@pytest.fixture(scope="module")
def dat():
    return create_dat(NHID, 2021)


def swap(data, seed=2021, **params):
    result = PLUGIN.apply(data, registry.with_defaults(PLUGIN.params, params),
                          np.random.default_rng(seed))
    return result.data.frame, result.info


def _per_household(frame, names):
    return frame.groupby("hid", sort=True)[names].first()


def _swapped(before, after, names):
    """The households whose values of ``names`` changed."""
    old, new = _per_household(before, names), _per_household(after, names)
    return (old != new).any(axis=1)


HIER = ["nuts1", "nuts2", "nuts3"]


@pytest.mark.parametrize("rate", [0.05, 0.1, 0.25])
def test_number_of_swapped_households(dat, rate):
    # "test households correctly swapped", "test number of swapped households":
    # k_anonymity 1 (no household is high-risk: no count is below 1), so exactly
    # swaprate * nhid households are swapped (500, 1000, 2500)
    after, info = swap(dat, hierarchy=HIER, similar=[["hsize"]], swaprate=rate,
                       k_anonymity=1, risk_variables=["ageGroup", "national"])
    assert info["high_risk"] == 0
    assert info["swapped_households"] == round(rate * NHID)
    # households whose geography changed (a swap inside one nuts3 area of two lau2 areas
    # changes nothing of the hierarchy: the level of the swap is nuts3)
    assert _swapped(dat.frame, after, HIER).sum() == round(rate * NHID)
    # the geography is the same for every member; nothing else changed
    assert (after.groupby("hid")[HIER].nunique() == 1).all().all()
    others = [c for c in dat.frame.columns if c not in HIER]
    assert after[others].equals(dat.frame[others])


def test_carry_along(dat):
    # "test carry along output": lau2 moves with the hierarchy
    after, _ = swap(dat, hierarchy=HIER, similar=[["hsize"]], swaprate=0.05,
                    k_anonymity=1, risk_variables=["ageGroup", "national"],
                    carry_along=["lau2"])
    moved = _swapped(dat.frame, after, HIER)
    assert (after.groupby("hid")["lau2"].nunique() == 1).all()
    old = _per_household(dat.frame, HIER + ["lau2"])
    new = _per_household(after, HIER + ["lau2"])
    # each household's lau2 is still inside its (new) nuts3 area
    assert (new["lau2"].str[:-4] == new["nuts3"]).all()
    assert (new.loc[moved, "lau2"] != old.loc[moved, "lau2"]).all()


def test_k_anonymity_levels(dat):
    # "test k anonymity levels": hierarchy nuts1 > nuts2, risk variables ageGroup,
    # national, hsize; with k = 2 and k = 3 at least swaprate * nhid households are
    # swapped, every high-risk household is, and those high-risk at nuts1 leave it
    hier = ["nuts1", "nuts2"]
    common = {"hierarchy": hier, "similar": [["hsize"]], "swaprate": 0.05,
              "risk_variables": ["ageGroup", "national", "hsize"]}
    _, info2 = swap(dat, k_anonymity=2, **common)
    _, info3 = swap(dat, k_anonymity=3, **common)
    for info in (info2, info3):
        assert info["swapped_households"] >= 0.05 * NHID
        assert info["high_risk"] > 0 and info["high_risk_not_swapped"] == 0
    assert info3["high_risk"] >= info2["high_risk"]
    assert info3["swapped_households"] >= info2["swapped_households"]
    # households high-risk at nuts1 leave it (createDat's data have none at nuts1 with
    # these risk variables, about 167 persons per combination in a nuts1 area: with htype
    # too, about 5.6, some households are)
    keys = ["ageGroup", "national", "hsize", "htype"]
    after, info = swap(dat, k_anonymity=3, **{**common, "risk_variables": keys})
    frame = dat.frame
    counts = frame.groupby([*keys, "nuts1"])["hid"].transform("size")
    top = frame.loc[counts < 3, "hid"].unique()
    assert info["high_risk_by_level"]["nuts1"] == len(top) > 0
    old, new = _per_household(frame, ["nuts1"]), _per_household(after, ["nuts1"])
    assert (old.loc[top, "nuts1"] != new.loc[top, "nuts1"]).all()


def test_similarity_profiles(dat):
    # "test similarity profiles": profiles [hsize] then [hsize, htype], k = 0; every
    # swapped pair shares hsize (the first profile always finds a donor here)
    after, info = swap(dat, hierarchy=["nuts1", "nuts2"], similar=[["hsize"], ["hsize",
                       "htype"]], swaprate=0.05, k_anonymity=0,
                       risk_variables=["ageGroup", "national"])
    assert info["swapped_households"] >= 0.05 * NHID
    # the persons by (nuts2, hsize) are as before: pairs share hsize
    assert dat.frame.groupby(["nuts2", "hsize"]).size().equals(
        after.groupby(["nuts2", "hsize"]).size())


def test_risk_parameter(dat):
    # "test risk parameter - number of hd swaps": a risk of 0.0001 everywhere, 99 at
    # 500 random (record, level) cells, threshold 0.9, swaprate 0: exactly the
    # households with a member at 99 are high-risk, and every one of them is swapped
    rng = np.random.default_rng(2021)
    frame = dat.frame.copy()
    risk = np.full((len(frame), 3), 0.0001)
    risk.flat[rng.choice(risk.size, 500, replace=False)] = 99.0
    names = ["r1", "r2", "r3"]
    variables = dict(dat.variables)
    for j, name in enumerate(names):
        frame[name] = risk[:, j]
        variables[name] = Variable(name, "numeric", "continuous")
    data = Dataset(frame, variables)
    after, info = swap(data, hierarchy=HIER, similar=[["hsize"]], risk=names,
                       risk_threshold=0.9, swaprate=0.0)
    high = frame.assign(h=risk.max(axis=1) > 0.9).groupby("hid")["h"].any()
    assert info["high_risk"] == int(high.sum())
    assert info["high_risk_not_swapped"] == 0
    moved = _swapped(frame, after, HIER)
    assert moved[high].all()
    # swaprate 0: only the high-risk households and their donors move
    assert info["swaps"] <= info["high_risk"]
