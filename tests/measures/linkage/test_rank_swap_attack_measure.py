"""rank_swap_attack measure (RS-RL, the transparency attack of seed 003 and seed 000)."""

import numpy as np
import pytest
from helpers import small_dataset

from sdcflow import run
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("rank_swap_attack")

# seed 000, "Rank swapping: Example I": original and protected file (p = 2)
SEED_X = [[8, 9, 1, 3], [6, 7, 10, 2], [10, 3, 4, 1], [7, 1, 2, 6], [9, 4, 6, 4],
          [2, 2, 8, 8], [1, 10, 3, 9], [4, 8, 7, 10], [5, 5, 5, 5], [3, 6, 9, 7]]
SEED_Y = [[10, 10, 3, 5], [5, 5, 8, 1], [8, 4, 2, 2], [9, 2, 4, 4], [7, 3, 5, 6],
          [4, 1, 10, 10], [3, 9, 1, 7], [2, 6, 9, 8], [6, 7, 6, 3], [1, 8, 7, 9]]


def dataset(rows):
    cols = list(zip(*rows, strict=True))
    return small_dataset(**{f"V{j + 1}": ("numeric", "integer", list(col))
                            for j, col in enumerate(cols)})


def evaluate(data, original, **params):
    params = registry.with_defaults(PLUGIN.params, params)
    return PLUGIN.evaluate(data, params, np.random.default_rng(0), original=original)


def test_seed_example():
    # seed 000, Examples III-VI: p = 2 means a rank distance of 2 (i < l <= i + p), so
    # p_unit records; in percent of 10 records, p = 2 would allow no swap at all
    original, protected = dataset(SEED_X), dataset(SEED_Y)
    result = evaluate(protected, original, p=2, p_unit="records", scenarios="prefixes")
    s = result.summary
    assert s["rank_distance"] == {"V1": 2, "V2": 2, "V3": 2, "V4": 2}
    # x_2 = (6, 7, 10, 2): B sets of 5, 5, 3, 4 records whose intersection is the single
    # record (5, 5, 8, 1), its own: certain
    assert result.per_record.loc[1, "size"] == 1 and result.per_record.loc[1, "certain"]
    # per nested scenario (see tests/kernels/test_rank_swap_attack.py for the hand
    # count): certain 0, 1, 5, 7; with linkage inside the intersection 0, 2, 7, 7 (the
    # seed's RS-RL column: 0, 2, 7, 8; average 42.5 there, 40 here)
    assert [r["certain"] for r in s["by_scenario"]] == [0, 1, 5, 7]
    assert [r["linked"] for r in s["by_scenario"]] == [0, 2, 7, 7]
    # the headline percent is the linked share (the RS-RL the notes print), the certain
    # one apart
    assert s["certain"] == 3.25 and s["percent_certain"] == 32.5
    assert s["linked"] == 4.0 and s["percent"] == 40.0
    assert s["inconsistent"] == 0
    assert s["intersection_sizes"] == {"1": 7, "2": 3}
    # in percent, p = 2 of 10 records is no rank at all: only unchanged values fit, and
    # rank swapping changed them all
    pct = evaluate(protected, original, p=2).summary
    assert pct["rank_distance"]["V1"] == 0 and pct["inconsistent"] == 10


def test_refuses_different_records():
    with pytest.raises(ValueError, match="records differ"):
        evaluate(dataset(SEED_Y[:3]), dataset(SEED_X), p=2)


def test_checks():
    meta = dataset(SEED_X).meta
    found = list(PLUGIN.check({"p": 2.5, "p_unit": "records"}, meta))
    assert any("whole number" in m for _, m in found)


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {"p": 5})


RECIPE = """
sdcflow: 1
name: rsa
seed: 5
data: {builtin: testdata}
variables:
  urbrur: {role: strata}
  expend: {role: numeric}
  income: {role: numeric}
  savings: {role: numeric}
steps:
  - {id: swap, method: rank_swap, params: {p: 5}}
  - {id: attack, measure: rank_swap_attack, params: {p: 5}}
  - {id: nostrata, measure: rank_swap_attack, params: {p: 5, strata: []}}
  - {id: small, measure: rank_swap_attack, params: {p: 2}}
  - {id: prefix, measure: rank_swap_attack, params: {p: 5, scenarios: prefixes}}
"""


def test_recipe_after_rank_swapping(write_recipe, tmp_path):
    result = run(write_recipe(RECIPE), tmp_path / "out", use_cache=False)
    attack = result.measures["attack"]
    # the rank_swap method swapped within the two urbrur strata: the attack with the
    # same p and strata always finds the own record in the intersection
    assert attack["inconsistent"] == 0 and attack["wrong_certain"] == 0
    assert attack["strata"] == 2
    assert 0 < attack["certain"] <= attack["linked"] <= 4580
    assert sum(attack["intersection_sizes"].values()) == 4580
    per = result.per_record["attack"]
    assert per["contains"].all() and int(per["certain"].sum()) == attack["certain"]
    # ignoring the strata, or assuming a smaller p, contradicts the data for some records
    assert result.measures["nostrata"]["inconsistent"] > 0
    assert result.measures["small"]["inconsistent"] > 0
    # knowing fewer variables never makes the intersection smaller (seed 003)
    certain = [r["certain"] for r in result.measures["prefix"]["by_scenario"]]
    assert certain == sorted(certain) and certain[-1] == attack["certain"]
