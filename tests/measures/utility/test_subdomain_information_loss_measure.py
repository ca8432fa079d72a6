"""subdomain_information_loss measure."""

import numpy as np
import pytest
from helpers import small_dataset

from sdcflow.data import Metadata, Variable
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("subdomain_information_loss")


def evaluate(data, original, **params):
    params = registry.with_defaults(PLUGIN.params, params)
    return PLUGIN.evaluate(data, params, np.random.default_rng(0), original=original)


def dataset(region, x):
    return small_dataset(region=("key", "categorical", region),
                         x=("numeric", "continuous", x))


def test_by_hand_with_a_missing_region_and_a_small_one():
    # north: 1, 2, 3 -> 1, 2, 6 (means mv 1/2, V mv 6); south: unchanged; east: 2 records,
    # left out with min_records 3; a record without region belongs to none
    original = dataset(["n", "n", "n", "s", "s", "s", "e", "e", None],
                       [1.0, 2, 3, 4, 5, 9, 1, 2, 100])
    protected = dataset(["n", "n", "n", "s", "s", "s", "e", "e", None],
                        [1.0, 2, 6, 4, 5, 9, 1, 2, -100])
    s = evaluate(protected, original, subdomains=["region"], min_records=3).summary
    assert s["variables"] == ["x"] and s["compared"] == 2 and s["left_out"] == ["e"]
    assert s["subdomains"]["n"]["means"]["mv"] == 0.5
    assert s["subdomains"]["n"]["V"]["mv"] == 6.0
    assert s["subdomains"]["s"]["means"]["mse"] == 0.0
    assert s["worst"]["V"]["mv"] == 6.0 and s["mean"]["means"]["mv"] == 0.25
    public = PLUGIN.public_summary(s, registry.with_defaults(
        PLUGIN.params, {"subdomains": ["region"]}))
    assert "records_original" not in public["subdomains"]["n"]
    assert public["subdomains"]["n"]["records_protected"] == 3


def test_each_file_reads_its_own_subdomains():
    # the protected file moved a record from north to south (e.g. by swapping): its
    # north has 2 records; the statistics follow each file's own membership
    original = dataset(["n", "n", "n", "s", "s"], [1.0, 2, 3, 10, 20])
    protected = dataset(["n", "n", "s", "s", "s"], [1.0, 2, 3, 10, 20])
    s = evaluate(protected, original, subdomains=["region"], min_records=2).summary
    # north: mean 2 -> 1.5 (mv 1/4); south: mean 15 -> 11 (mv 4/15)
    assert s["subdomains"]["n"]["means"]["mv"] == pytest.approx(0.25)
    assert s["subdomains"]["s"]["means"]["mv"] == pytest.approx(4 / 15)
    assert s["subdomains"]["n"]["records_protected"] == 2


def test_checks():
    meta = Metadata({"x": Variable("x", "numeric", "continuous"),
                     "r": Variable("r", "key", "categorical")})
    assert list(PLUGIN.check({"subdomains": ["rr"]}, meta)) == [
        (("subdomains", 0), "'rr' is not a declared variable (did you mean 'r'?)")]
    assert list(PLUGIN.check({"subdomains": ["x"], "variables": ["x"]}, meta)) == [
        (("subdomains", 0), "'x' cannot both define the subdomains and be compared within them")]
    assert PLUGIN.variables({"subdomains": ["r"]}, meta) == ["x"]


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {"subdomains": ["urbrur", "sex"],
                                    "variables": ["income", "expend"]})
