"""delta_presence measure (Nergiz, Atzori & Clifton 2007)."""

import numpy as np
import pandas as pd
import pytest
from helpers import small_dataset

from sdcflow.data import Metadata, Variable
from sdcflow.errors import PluginError
from sdcflow.measures.risk.delta_presence import population_counts
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("delta_presence")

# a population of 10 (sex, age group): (f, 20-39) x4, (f, 40+) x2, (m, 20-39) x3,
# (m, missing) x1
POPULATION = pd.DataFrame({"sex": list("ffffffmmmm"),
                           "age": ["20-39"] * 4 + ["40+"] * 2 + ["20-39"] * 3 + [None]})


def evaluate(data, **params):
    params = registry.with_defaults(PLUGIN.params, params)
    return PLUGIN.evaluate(data, params, np.random.default_rng(0), original=data)


def sample():
    # research sample: (f, 20-39) x1, (f, 40+) x2, (m, missing) x1
    return small_dataset(sex=("key", "categorical", ["f", "f", "f", "m"]),
                         age=("key", "categorical", ["20-39", "40+", "40+", None]))


def test_population_counts():
    # the distinct rows in sorted order, a missing value before any text
    counts = population_counts(POPULATION)
    assert counts == {"columns": ["sex", "age"],
                      "rows": [["f", "20-39"], ["f", "40+"], ["m", None], ["m", "20-39"]],
                      "counts": [4, 2, 1, 3]}


def test_by_hand():
    # probability of presence = sample / population records of the class (Nergiz et al.,
    # section 3): (f, 20-39) 1/4, (f, 40+) 2/2 = 1, (m, missing) 1/1 = 1, and (m, 20-39),
    # 3 people of the population and no sample record: 0/3 = 0 (ARX's DPresence: count
    # 0 -> delta 0). With delta = (0.2, 0.5): the 3 records of the classes at 1 are
    # outside, and 3 classes of the population: those two and (m, 20-39), below 0.2.
    result = evaluate(sample(), population_counts=population_counts(POPULATION),
                      delta_min=0.2, delta_max=0.5)
    assert result.per_record["delta_presence"].tolist() == [0.25, 1.0, 1.0, 1.0]
    assert result.summary == {"variables": ["sex", "age"], "records": 4, "classes": 3,
                              "population_records": 10, "population_classes": 4,
                              "absent_classes": 1, "min": 0.0, "max": 1.0,
                              "delta_min": 0.2, "delta_max": 0.5, "outside": 3,
                              "outside_percent": 75.0, "classes_outside": 3}
    # on sex alone: f 3/6 = 0.5, m 1/4
    only_sex = evaluate(sample(), variables=["sex"],
                        population_counts=population_counts(POPULATION), delta_max=0.5)
    assert only_sex.per_record["delta_presence"].tolist() == [0.5, 0.5, 0.5, 0.25]
    assert only_sex.summary["outside"] == 0 and only_sex.summary["classes_outside"] == 0


def test_a_population_class_without_sample_records_violates_delta_min():
    # the sample's classes all lie in [0.2, 1] (0.25, 1, 1), but (m, 20-39) is in the
    # population and not in the sample: probability 0 < 0.2, so the release is not
    # (0.2, 1)-present. Before, min was 0.25 and nothing was outside.
    result = evaluate(sample(), population_counts=population_counts(POPULATION),
                      delta_min=0.2)
    assert result.summary["outside"] == 0  # no record of the data is outside
    assert result.summary["min"] == 0.0 and result.summary["classes_outside"] == 1
    assert result.summary["absent_classes"] == 1
    assert "1 classes of the population lie outside" in PLUGIN.explain({}, result.summary)
    # with delta_min 0 an absent class is no violation
    free = evaluate(sample(), population_counts=population_counts(POPULATION))
    assert free.summary["classes_outside"] == 0


def test_numbers_match_however_written():
    # the data's integer age 30 matches the population's "30" and "30.0"
    data = small_dataset(age=("key", "integer", [30, 30, 41]))
    pop = pd.DataFrame({"age": ["30", "30.0", "41", "41", "50"]})
    result = evaluate(data, population_counts=population_counts(pop))
    assert result.per_record["delta_presence"].tolist() == [1.0, 1.0, 0.5]


def test_a_sample_outside_the_population_is_an_error():
    data = small_dataset(sex=("key", "categorical", ["f", "x"]),
                         age=("key", "categorical", ["20-39", "20-39"]))
    params = registry.with_defaults(PLUGIN.params,
                                    {"population_counts": population_counts(POPULATION)})
    message = ("1 records of the data have the key combination {'sex': 'x', 'age': '20-39'} "
               "(the first: record 2), the population 0: the data must be a sample of the "
               "population, coded as it")
    assert list(PLUGIN.check_data(params, data)) == [(("population_counts",), message)]
    with pytest.raises(PluginError, match="must be a sample of the population"):
        PLUGIN.evaluate(data, params, None, original=data)


def test_checks():
    meta = Metadata({"sex": Variable("sex", "key", "categorical"),
                     "region": Variable("region", "key", "categorical")})
    counts = population_counts(POPULATION)
    assert list(PLUGIN.check({"population": "pop.csv", "population_counts": counts,
                              "delta_min": 0.6, "delta_max": 0.5}, meta)) == [
        (("delta_min",), "delta_min is above delta_max"),
        # (its other columns are not listed: a file that is no population, /etc/shadow,
        # would have its first line quoted)
        (("population",), "the population has no column 'region'")]
    assert list(PLUGIN.check({}, meta)) == [((), "give the population file ('population')")]


def test_read_files(tmp_path):
    POPULATION.to_csv(tmp_path / "pop.csv", index=False)
    params, found = PLUGIN.read_files({"population": "pop.csv"}, tmp_path)
    assert not found and params["population_counts"] == population_counts(POPULATION)
    params, found = PLUGIN.read_files({"population": "nowhere.csv"}, tmp_path)
    assert found and found[0][0] == ("population",)
    assert found[0][1] == "the population file nowhere.csv: no such file"


def test_conformance():
    check_method(PLUGIN, sample(), {"population_counts": population_counts(POPULATION),
                                    "delta_max": 0.5})
