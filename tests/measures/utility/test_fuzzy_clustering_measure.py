"""fuzzy_clustering_loss measure (Ladra & Torra 2008)."""

import numpy as np
from helpers import small_dataset

from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("fuzzy_clustering_loss")


def evaluate(data, original, **params):
    params = registry.with_defaults(PLUGIN.params, params)
    return PLUGIN.evaluate(data, params, np.random.default_rng(0), original=original)


def two_groups(shift: float = 0.0, missing: bool = False):
    a = [0.0, 0.2, 0.1, 10.0, 10.2, 10.1 + shift]
    b = [1.0, 1.1, 0.9, 5.0, 5.2, 5.1]
    if missing:
        b[0] = None
    return small_dataset(a=("numeric", "continuous", a), b=("numeric", "continuous", b))


def test_identical_data_lose_nothing():
    data = two_groups()
    result = evaluate(data, data, clusters=2)
    s = result.summary
    assert (s["centre_distance"], s["membership_distance"]) == (0.0, 0.0)
    assert s["objective_original"] == s["objective_protected"]
    assert s["objective_change_percent"] == 0.0
    # the two groups are the two clusters (by hand: records 0-2 and 3-5)
    labels = result.per_record["fuzzy_cluster_original"].tolist()
    assert labels[:3] == [labels[0]] * 3 and labels[3:] == [1 - labels[0]] * 3


def test_a_moved_record_changes_its_memberships_most():
    # record 5 moved 3 units (0.55 original standard deviations of a) towards the other
    # group: its membership vector changes most, and the objective grows
    result = evaluate(two_groups(-3.0), two_groups(), clusters=2)
    distance = result.per_record["membership_distance"].to_numpy()
    assert distance.argmax() == 5 and distance[5] > 0.01
    s = result.summary
    assert s["centre_distance"] > 0 and s["objective_protected"] > s["objective_original"]
    assert s["membership_distance"] == np.sqrt((distance ** 2).sum())


def test_records_with_missing_values_are_left_out():
    result = evaluate(two_groups(missing=True), two_groups(), clusters=2)
    assert result.summary["records_used"] == 5
    assert np.isnan(result.per_record["membership_distance"][0])
    assert result.per_record["fuzzy_cluster_original"][0] == -1


def test_checks():
    params = registry.with_defaults(PLUGIN.params, {"clusters": 7})
    assert list(PLUGIN.check_data(params, two_groups())) == [
        (("clusters",), "7 clusters for 6 complete records: at most one cluster per record")]


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {"variables": ["income", "savings"], "clusters": 3,
                                    "restarts": 1, "max_iter": 50})
