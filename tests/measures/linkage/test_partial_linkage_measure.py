"""partial_linkage measure: record linkage between files holding different individuals."""

import numpy as np
import pandas as pd
import pytest
from helpers import small_dataset

from sdcflow import run
from sdcflow.data.io import builtin_path
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("partial_linkage")
RECORD_LINKAGE = registry.get("record_linkage")


def evaluate(data, original, plugin=PLUGIN, **params):
    params = registry.with_defaults(plugin.params, params)
    return plugin.evaluate(data, params, np.random.default_rng(0), original=original)


def dataset(ids, rows):
    x = np.asarray(rows, dtype=float)
    return small_dataset(id=("identifier", "categorical", list(ids)),
                         **{f"v{j}": ("numeric", "continuous", x[:, j])
                            for j in range(x.shape[1])})


def test_hand_computed_sample_with_an_outsider():
    # the intruder holds a, b, c, d; the release holds d, b and e (e not in the
    # intruder's file). d and b are nearest their own records; e is linked to someone,
    # necessarily wrongly. Rate over the 2 individuals in both files: 100 %; over the
    # release: 2 of 3.
    reference = dataset("abcd", [[0, 0], [10, 0], [0, 10], [10, 10]])
    release = dataset("dbe", [[9, 9], [10, 1], [1, 9]])
    s = evaluate(release, reference, standardize="each").summary
    assert s["match_on"] == "id"
    assert (s["records"], s["reference_records"], s["common"], s["absent"]) == (3, 4, 2, 1)
    assert s["correct"] == 2 and s["percent"] == 100.0
    assert s["percent_of_release"] == pytest.approx(200 / 3, abs=1e-5)
    table = evaluate(release, reference, standardize="each").per_record
    assert table["linked"].tolist() == [3, 1, 2]
    assert table["in_reference"].tolist() == [True, True, False]
    assert table["correct"].tolist() == [True, True, False]


def test_same_records_in_another_order_give_record_linkage():
    # the same individuals, the release shuffled: matching by identifier must give what
    # record_linkage gives on the files in the same order
    rng = np.random.default_rng(4)
    x = rng.normal(size=(40, 3))
    y = x + rng.normal(scale=0.6, size=(40, 3))
    ids = [f"r{i}" for i in range(40)]
    original, protected = dataset(ids, x), dataset(ids, y)
    order = rng.permutation(40)
    shuffled = dataset([ids[i] for i in order], y[order])
    for method, extra in (("strongest", {}), ("distance", {}), ("mahalanobis", {}),
                          ("mahalanobis", {"covariance": "cov0"}), ("kernel", {})):
        expected = evaluate(protected, original, RECORD_LINKAGE, method=method,
                            variables=["v0", "v1", "v2"], **extra).summary
        s = evaluate(shuffled, original, method=method, **extra).summary
        assert s["common"] == 40 and s["absent"] == 0
        assert s["correct"] == pytest.approx(expected["correct"]), method
        if method == "strongest":
            assert s["by_method"] == expected["by_method"]
            assert s["strongest"] == expected["strongest"]


def test_checks():
    data = small_dataset(v=("numeric", "continuous", [1.0, 2.0]))
    params = registry.with_defaults(PLUGIN.params, {})
    found = list(PLUGIN.check(params, data.meta))
    assert found and found[0][0] == ("match_on",) and "identifier" in found[0][1]
    params = registry.with_defaults(PLUGIN.params, {"match_on": "nope"})
    assert any("not a variable" in m for _, m in PLUGIN.check(params, data.meta))
    twice = dataset("aab", [[1, 2], [3, 4], [5, 6]])
    params = registry.with_defaults(PLUGIN.params, {})
    found = list(PLUGIN.check_data(params, twice))
    assert found and "repeats 1 values" in found[0][1]
    with pytest.raises(ValueError, match="does not identify"):
        evaluate(twice, dataset("abc", [[1, 2], [3, 4], [5, 6]]))


def test_conformance():
    rng = np.random.default_rng(0)
    data = dataset([f"r{i}" for i in range(20)], rng.normal(size=(20, 2)))
    check_method(PLUGIN, data, {})


RECIPE = """
sdcflow: 1
name: partial
seed: 5
data: {path: casc_ids.csv}
variables:
  ID: {role: identifier, type: categorical}
  AGI: {role: numeric, type: integer}
  FEDTAX: {role: numeric, type: integer}
  PTOTVAL: {role: numeric, type: integer}
  STATETAX: {role: numeric, type: integer}
steps:
  - {id: sample, method: sampling, params: {size: 540}}
  - {id: exact, measure: partial_linkage}
  - {id: noise, method: noise, params: {k: 0.5}}
  - {id: noisy, measure: partial_linkage}
  - {id: kernel, measure: partial_linkage, params: {method: kernel}}
"""


def test_recipe_sampled_release(write_recipe, tmp_path):
    # the release a 540-record sample of CASC's 1080: today's record_linkage refuses
    # ("540 protected and 1080 reference records"); partial_linkage matches by ID
    df = pd.read_csv(builtin_path("casc_census"))
    df.insert(0, "ID", [f"p{i:04d}" for i in range(len(df))])
    df.to_csv(tmp_path / "casc_ids.csv", index=False)
    result = run(write_recipe(RECIPE), tmp_path / "out", use_cache=False)
    exact, noisy = result.measures["exact"], result.measures["noisy"]
    assert (exact["records"], exact["reference_records"], exact["common"]) == (540, 1080, 540)
    # sampled but not masked: every released record is its original (no two CASC
    # records agree on these four variables), 100 %
    assert exact["percent"] == 100.0
    assert 0 < noisy["percent"] < 100.0 and noisy["common"] == 540
    assert 0 < result.measures["kernel"]["percent"] < 100.0
