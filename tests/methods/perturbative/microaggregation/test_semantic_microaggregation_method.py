"""semantic_microaggregation: nominal variables grouped by semantic distance, each
group's values replaced by their least common subsumer or centroid concept."""

import numpy as np
import pandas as pd
from helpers import small_dataset

from sdcflow.data import Dataset
from sdcflow.data.codes import key_codes
from sdcflow.data.taxonomy import resolve_taxonomy
from sdcflow.kernels.risk.frequencies import frequencies
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("semantic_microaggregation")
OCCUPATIONS, _ = resolve_taxonomy({"builtin": "occupations"}, None)
TOWNS, _ = resolve_taxonomy({"tree": {"Region": ["North", "South"]}}, None)


def dataset(occupation, town=None):
    cols = {"occupation": ("key", "categorical", occupation)}
    if town is not None:
        cols["town"] = ("key", "categorical", town)
    data = small_dataset(**cols)
    variables = {"occupation": data.variables["occupation"].evolve(taxonomy=OCCUPATIONS)}
    if town is not None:
        variables["town"] = data.variables["town"].evolve(taxonomy=TOWNS)
    return Dataset(data.frame, variables)


def aggregate(data, **params):
    return PLUGIN.apply(data, registry.with_defaults(PLUGIN.params, params),
                        np.random.default_rng(0))


def test_health_and_service_workers_by_their_subsumer():
    # Wu-Palmer distances (node depths: Occupation 1, Professional 2, Health professional
    # 3, Nurse 4; Service worker 2, Cook 3): Nurse-Doctor 1 - 2*3/8 = 1/4, Nurse-Cook
    # 1 - 2/7 = 5/7; the three health professionals group apart from the three service
    # workers, replaced by their least common subsumers
    values = ["Nurse", "Cook", "Doctor", "Waiter", "Pharmacist", "Cook"]
    result = aggregate(dataset(values), variables=["occupation"], k=3)
    assert result.data.frame["occupation"].tolist() == \
        ["Health professional", "Service worker"] * 3
    assert result.info["groups_formed"] == 2 and result.info["smallest_group"] == 3
    assert result.info["variables"]["occupation"] == {
        "changed": 6, "distinct_before": 5, "distinct_after": 2, "missing": 0}


def test_centroid_keeps_the_most_frequent_value():
    # the same two groups; the centroid is the concept from the values up to their
    # subsumer with the least sum of path distances to them (hand sums below)
    values = ["Nurse", "Cook", "Doctor", "Waiter", "Pharmacist", "Cook"]
    result = aggregate(dataset(values), variables=["occupation"], k=3,
                       representative="centroid", distance="path")
    out = result.data.frame["occupation"].tolist()
    # path: {Nurse, Doctor, Pharmacist}: Health professional 3, each leaf 4 -> the
    # subsumer; {Cook, Waiter, Cook}: Service worker 3, Cook 2, Waiter 4 -> Cook
    assert out == ["Health professional", "Cook"] * 3


def test_the_released_pairs_are_k_anonymous():
    rng = np.random.default_rng(5)
    leaves = [c for c, p in OCCUPATIONS["parents"].items()
              if c not in set(OCCUPATIONS["parents"].values())]
    occ = rng.choice(leaves, 50).tolist()
    town = rng.choice(["North", "South"], 50).tolist()
    data = dataset(occ, town)
    for distance in ("path", "wu_palmer", "lin", "jiang_conrath"):
        result = aggregate(data, variables=["occupation", "town"], k=4, distance=distance)
        fk, _ = frequencies(key_codes(result.data.frame, ["occupation", "town"]))
        assert fk.min() >= 4, distance


def test_check_method():
    values = ["Nurse", "Cook", "Doctor", "Waiter", "Pharmacist", "Cook", "Farmer"]
    check_method(PLUGIN, dataset(values, ["North", "South"] * 3 + ["North"]),
                 {"variables": ["occupation", "town"], "k": 2, "distance": "lin"})


def test_bad_input():
    data = dataset(["Nurse", None, "Astronaut"])
    params = registry.with_defaults(PLUGIN.params, {"variables": ["occupation"], "k": 5})
    problems = [m for _, m in PLUGIN.check_data(params, data)]
    assert problems == [
        "k = 5 is larger than the number of records (3)",
        "'occupation' has values outside its taxonomy (1): 'Astronaut'"]
    plain = Dataset(pd.DataFrame({"x": pd.Series([1.0])}),
                    {"x": small_dataset(x=("key", "continuous", [1.0])).variables["x"]})
    assert [m for _, m in PLUGIN.check({"variables": ["x"]}, plain.meta)] == \
        ["'x' is continuous: semantic methods need a categorical variable"]


def test_missing_values_stay_missing_and_match_any():
    # a missing occupation is at distance 0 from every value, so it joins the first
    # group formed; the subsumer of each group ignores it and it stays missing
    values = ["Nurse", "Cook", "Doctor", None, "Waiter", "Pharmacist", "Cook"]
    result = aggregate(dataset(values), variables=["occupation"], k=3)
    out = result.data.frame["occupation"]
    assert out.isna().tolist() == [False, False, False, True, False, False, False]
    assert result.info["variables"]["occupation"]["missing"] == 1
    fk, _ = frequencies(key_codes(result.data.frame, ["occupation"]))
    assert fk.min() >= 3  # a missing value counts as matching every value
