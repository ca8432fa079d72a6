"""microaggregation_attack measure (the group-interval transparency attack of Winkler
2004, intersected as in Nin, Herranz & Torra 2008)."""

import numpy as np
import pandas as pd
import pytest
from helpers import ROOT, small_dataset

from sdcflow import run
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("microaggregation_attack")

# hand example (tests/kernels/linkage/test_microaggregation_attack.py): a = 1..6 and
# b = 6,1,2,3,4,5 individually ranked with k = 3
X = [[1, 6], [2, 1], [3, 2], [4, 3], [5, 4], [6, 5]]
Y = [[2, 5], [2, 2], [2, 2], [5, 2], [5, 5], [5, 5]]


def dataset(rows):
    cols = list(zip(*rows, strict=True))
    return small_dataset(**{f"V{j + 1}": ("numeric", "continuous", [float(v) for v in col])
                            for j, col in enumerate(cols)})


def evaluate(data, original, **params):
    params = registry.with_defaults(PLUGIN.params, params)
    return PLUGIN.evaluate(data, params, np.random.default_rng(0), original=original)


def test_the_default_is_the_strongest_attack_on_multivariate_microaggregation():
    # the first six CASC Census variables microaggregated by MDAV (k = 3) in two blocks
    # of three: the group intervals of each variable (the old default) find nothing
    # (every record inconsistent: the file was not individually ranked), the nearest
    # published group of each block re-identifies 73.9 %; the default reports that
    from sdcflow.data import Dataset, Variable

    frame = pd.read_csv(ROOT / "sdcflow" / "data" / "datasets" / "CASCrefmicrodata.csv")
    frame = frame.iloc[:, :6].astype(float)
    cols = list(frame.columns)
    original = Dataset(frame, {c: Variable(c, "numeric", "continuous") for c in cols})
    method = registry.get("microaggregation")
    groups = [cols[:3], cols[3:]]
    params = registry.with_defaults(method.params, {"k": 3, "groups": groups})
    protected = method.apply(original, params, np.random.default_rng(1)).data
    intervals = evaluate(protected, original, attack="intervals").summary
    assert intervals["percent"] == 0.0 and intervals["inconsistent"] == 1080
    default = evaluate(protected, original, groups=groups).summary
    assert default["by_attack"] == {"intervals": 0.0,
                                    "nearest": pytest.approx(73.935185, abs=1e-6)}
    assert default["strongest"] == "nearest" and default["percent"] == pytest.approx(73.935185)
    # with nested scenarios the blocks are not known: the group intervals alone
    nested = evaluate(protected, original, scenarios="prefixes").summary
    assert nested["by_attack"] == {"intervals": 0.0, "nearest": None}


def test_hand_example():
    s = evaluate(dataset(Y), dataset(X), scenarios="prefixes").summary
    # one variable: every intersection is the record's group of 3 -> nothing certain,
    # linkage credit 1/3 for each of the 6 records = 2; both variables: records 0 and 3
    # alone (certain), the others in pairs of tied protected records (credit 1/2)
    assert [r["certain"] for r in s["by_scenario"]] == [0, 2]
    assert [r["linked"] for r in s["by_scenario"]] == pytest.approx([2, 4])
    assert s["intersection_sizes"] == {"1": 2, "2": 4}
    assert s["inconsistent"] == 0 and s["wrong_certain"] == 0


def test_refuses_different_records():
    with pytest.raises(ValueError, match="records differ"):
        evaluate(dataset(Y[:3]), dataset(X))


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {})


RECIPE = """
sdcflow: 1
name: maa
seed: 5
data: {builtin: casc_census}
variables:
  FEDTAX: {role: numeric}
  STATETAX: {role: numeric}
  FICA: {role: numeric}
  INTVAL: {role: numeric}
steps:
  - {id: ranked, method: microaggregation, params: {k: 3, algorithm: individual_ranking,
     constraints: false}}
  - {id: attack, measure: microaggregation_attack}
  - {id: prefix, measure: microaggregation_attack, params: {scenarios: prefixes}}
"""


def test_recipe_after_individual_ranking(write_recipe, tmp_path):
    result = run(write_recipe(RECIPE), tmp_path / "out", use_cache=False)
    attack = result.measures["attack"]
    # exact for individual ranking: the own record is always in the intersection
    assert attack["inconsistent"] == 0 and attack["wrong_certain"] == 0
    assert 0 < attack["certain"] <= attack["linked"] <= 1080
    assert sum(attack["intersection_sizes"].values()) == 1080
    # knowing more variables never enlarges an intersection
    certain = [r["certain"] for r in result.measures["prefix"]["by_scenario"]]
    assert certain == sorted(certain) and certain[-1] == attack["certain"]
    # one variable: k-anonymous groups, nothing certain; with all four (360 groups each)
    # every record is alone in its intersection (Winkler: individual ranking offers
    # little protection to an intruder who knows the method)
    assert certain[0] == 0 and attack["certain"] == 1080


def test_rerun_attack_one_block_is_k_anonymous():
    # MDAV with all variables together: the intruder rebuilds the groups, but each holds
    # k = 3 identical protected records: nothing certain, credit 1/3 each (6 records = 2)
    original = dataset(X)
    micro = registry.get("microaggregation")
    protected = micro.apply(original, registry.with_defaults(micro.params, {"k": 3}),
                            np.random.default_rng(0)).data
    s = evaluate(protected, original, attack="rerun").summary
    assert s["certain"] == 0 and s["linked"] == 2 and s["inconsistent"] == 0
    assert s["intersection_sizes"] == {"3": 6}


def test_rerun_attack_two_blocks_by_hand():
    # V1 and V2 microaggregated separately (blocks [V1], [V2], k = 3): MDAV on one
    # variable groups {1,2,3} / {4,5,6} of V1 and {1,2,3} / {4,5,6} of V2's sorted values,
    # i.e. the same groups as individual ranking: the hand example's 2 certain records
    original = dataset(X)
    micro = registry.get("microaggregation")
    protected = micro.apply(original, registry.with_defaults(
        micro.params, {"k": 3, "groups": [["V1"], ["V2"]]}), np.random.default_rng(0)).data
    assert protected.frame["V2"].tolist() == [5, 2, 2, 2, 5, 5]
    s = evaluate(protected, original, attack="rerun", groups=[["V1"], ["V2"]]).summary
    assert s["certain"] == 2 and s["inconsistent"] == 0


def test_rerun_checks():
    meta = dataset(X).meta
    params = registry.with_defaults(PLUGIN.params, {"attack": "rerun",
                                                    "scenarios": "prefixes"})
    assert any("scenarios: all" in m for _, m in PLUGIN.check(params, meta))
    params = registry.with_defaults(PLUGIN.params, {"attack": "rerun", "groups": [["W"]]})
    assert any("unknown variable 'W'" in m for _, m in PLUGIN.check(params, meta))


def test_rerun_attack_with_missing_values():
    # MDAV with missing values (sdcMicro's rule) reproduced by the intruder: the own
    # record is always among the candidates; a missing value stays missing, so the two
    # records with one are alone in their group to show it: re-identified with certainty
    # (the risk of keeping missing values that the method reports as groups resting on
    # fewer than k observed values), the other seven are not
    rows = [[1, 6], [2, None], [3, 2], [4, 3], [None, 4], [6, 5], [7, 1], [8, 9], [9, 8]]
    original = small_dataset(**{f"V{j + 1}": ("numeric", "continuous",
                                              [np.nan if r[j] is None else float(r[j])
                                               for r in rows]) for j in range(2)})
    micro = registry.get("microaggregation")
    protected = micro.apply(original, registry.with_defaults(micro.params, {"k": 3}),
                            np.random.default_rng(0)).data
    result = evaluate(protected, original, attack="rerun")
    assert result.summary["inconsistent"] == 0 and result.summary["certain"] == 2
    assert np.flatnonzero(result.per_record["certain"]).tolist() == [1, 4]


def test_nearest_group_attack_by_hand():
    # blocks [V1], [V2] of the hand example: the nearest published value of each block
    # (2 or 5) is the group the value came from here, so the intersections are those of
    # the interval attack: records 0 and 3 alone
    result = evaluate(dataset(Y), dataset(X), attack="nearest", groups=[["V1"], ["V2"]])
    assert result.per_record["size"].tolist() == [1, 2, 2, 1, 2, 2]
    assert result.summary["certain"] == 2 and result.summary["inconsistent"] == 0
    # one block of both variables: the nearest group of (1, 6) is (2, 5), held by record 0
    # alone; the intruder can be wrong: inconsistent counts it
    both = evaluate(dataset(Y), dataset(X), attack="nearest").summary
    assert both["certain"] + both["inconsistent"] <= 6
