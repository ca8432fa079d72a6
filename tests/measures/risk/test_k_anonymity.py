"""k_anonymity measure (seeds 003 and 004)."""

import numpy as np
import pandas as pd
from helpers import small_dataset

from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("k_anonymity")


def evaluate(data, **params):
    params = registry.with_defaults(PLUGIN.params, params)
    return PLUGIN.evaluate(data, params, np.random.default_rng(0), original=data)


def test_seed_004_original_counts(testdata):
    # seed 004: "in original data: 653 / 1087 / 1781" (no missing values, alpha irrelevant)
    result = evaluate(testdata, k=[2, 3, 5], alpha=0.7)
    assert result.summary["violations"] == {"2": 653, "3": 1087, "5": 1781}
    assert result.summary["percent"]["2"] == round(100 * 653 / 4580, 3)
    assert result.summary["variables"] == ["urbrur", "water", "sex", "age", "relat"]


def test_fk_per_record_and_weights():
    data = small_dataset(a=("key", "categorical", ["x", "x", "y", None]),
                         w=("weight", "continuous", [10.0, 20, 30, 40]))
    result = evaluate(data, k=2)
    # record 4 (missing) matches all three others; x records also match it
    assert result.per_record["fk"].tolist() == [3, 3, 2, 4]
    assert result.per_record["Fk"].tolist() == [70, 70, 70, 100]
    assert result.summary["violations"] == {"2": 0}


def test_k_larger_than_the_data_is_refused():
    data = small_dataset(a=("key", "categorical", ["x", "y"]))
    found = list(PLUGIN.check_data({"k": [2, 3]}, data))
    assert found == [(("k", 1), "k = 3 is larger than the number of records (2)")]


def test_explicit_variables_subset(testdata):
    result = evaluate(testdata, k=2, variables=["sex"])
    assert result.summary["violations"] == {"2": 0}


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {"k": [2, 3]})


def test_per_record_index_matches_the_data(testdata):
    result = evaluate(testdata, k=3)
    assert isinstance(result.per_record, pd.DataFrame)
    assert (result.per_record.index == testdata.frame.index).all()


def test_per_stratum_counts():
    data = small_dataset(region=("strata", "categorical", ["a", "a", "a", "b", "b"]),
                         sex=("key", "categorical", ["m", "m", "f", "m", "f"]))
    result = evaluate(data, k=2)
    # within strata: a has one 'f', b has one 'm' and one 'f'
    assert result.summary["violations"] == {"2": 3}
    assert result.summary["by_stratum"] == {"a": {"2": 1}, "b": {"2": 2}}
    overall = evaluate(data, k=2, strata=[])
    assert overall.summary["violations"] == {"2": 0} and "by_stratum" not in overall.summary


def test_reads_the_weight_and_strata_too(testdata):
    reads = PLUGIN.reads({"k": 2}, testdata.meta)
    assert reads == {"urbrur", "water", "sex", "age", "relat", "sampling_weight"}
