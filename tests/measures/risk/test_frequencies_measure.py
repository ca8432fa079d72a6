"""frequencies measure: fk and Fk per record, and their summary."""

import numpy as np
from helpers import small_dataset

from sdcflow.data import Metadata, Variable
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("frequencies")


def evaluate(data, **params):
    params = registry.with_defaults(PLUGIN.params, params)
    return PLUGIN.evaluate(data, params, np.random.default_rng(0), original=data)


def weighted_data():
    return small_dataset(
        a=("key", "categorical", ["x", "x", "x", "y", "y", None]),
        b=("key", "categorical", ["1", "1", "2", "1", "1", "2"]),
        w=("weight", "continuous", [10.0, 20, 30, 40, 50, 60]),
    )


def test_fk_and_Fk_by_hand():
    # Key combinations: (x,1) x2, (x,2), (y,1) x2, (NA,2). The missing a of the last record
    # matches x and y, so (NA,2) matches (x,2) and vice versa (alpha = 1):
    #   (x,1): fk 2, Fk 10+20 = 30;  (x,2): fk 1+1 = 2, Fk 30+60 = 90;
    #   (y,1): fk 2, Fk 40+50 = 90;  (NA,2): fk 2, Fk 90
    result = evaluate(weighted_data())
    assert result.per_record["fk"].tolist() == [2, 2, 2, 2, 2, 2]
    assert result.per_record["Fk"].tolist() == [30, 30, 90, 90, 90, 90]
    s = result.summary
    assert s["combinations"] == 4  # the missing value as a category of its own
    assert s["sample_uniques"] == 0
    assert s["records_with_missing_keys"] == 1
    assert s["weight"] == "w"
    assert s["fk"] == {"min": 2.0, "median": 2.0, "mean": 2.0, "max": 2.0}
    # Fk: 30, 30, 90, 90, 90, 90: median 90, mean 420/6 = 70
    assert s["Fk"] == {"min": 30.0, "median": 90.0, "mean": 70.0, "max": 90.0}


def test_alpha_weights_matches_through_missing_values():
    # alpha = 0.5: (x,2) counts the (NA,2) record as 0.5: fk 1.5, Fk 30 + 0.5 * 60 = 60;
    # (NA,2) still counts the complete (x,2) fully: fk 2, Fk 90. With alpha = 0, (x,2)
    # ignores (NA,2) and is a sample unique (fk 1).
    result = evaluate(weighted_data(), alpha=0.5)
    assert result.per_record["fk"].tolist() == [2, 2, 1.5, 2, 2, 2]
    assert result.per_record["Fk"].tolist() == [30, 30, 60, 90, 90, 90]
    assert evaluate(weighted_data(), alpha=0).summary["sample_uniques"] == 1


def test_without_weights():
    # a: x, x, y -> fk 2, 2, 1; Fk = fk; one sample unique
    data = small_dataset(a=("key", "categorical", ["x", "x", "y"]))
    result = evaluate(data)
    assert result.per_record["fk"].tolist() == [2, 2, 1]
    assert result.per_record["Fk"].tolist() == [2, 2, 1]
    assert result.summary["weight"] is None
    assert result.summary["Fk"] is None
    assert result.summary["sample_uniques"] == 1
    # median of 2, 2, 1 is 2; mean 5/3
    assert result.summary["fk"]["median"] == 2.0
    assert result.summary["fk"]["mean"] == 5 / 3


def test_reads_the_weight_variable():
    meta = weighted_data().meta
    assert PLUGIN.reads(registry.with_defaults(PLUGIN.params, {}), meta) == {"a", "b", "w"}
    assert PLUGIN.reads({"variables": ["a"], "alpha": 1}, meta) == {"a", "w"}


def test_checks():
    meta = Metadata({"w": Variable("w", "weight", "continuous")})
    assert list(PLUGIN.check({"alpha": 1}, meta)) == [
        (("variables",), "no key variables: declare variables with role 'key'")]


def test_missing_or_negative_weights_are_refused():
    data = small_dataset(a=("key", "categorical", ["x", "y", "z"]),
                         w=("weight", "continuous", [1.0, None, -2]))
    assert list(PLUGIN.check_data({"alpha": 1}, data)) == [
        ((), ("the weight variable 'w' has 1 missing value(s): the estimated population "
             "frequencies Fk need every weight")),
        ((), "the weight variable 'w' has 1 negative value(s)"),
    ]


def test_seed_004_sample_uniques(testdata):
    # seed 004: 653 records violate 2-anonymity on the five keys (no missing values)
    result = evaluate(testdata)
    assert result.summary["sample_uniques"] == 653
    assert result.summary["records"] == 4580
    assert (result.per_record.index == testdata.frame.index).all()


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {})
    check_method(PLUGIN, weighted_data(), {"alpha": 0.3})
